// Analyses kept for reuse: re-opening a sound, or moving a control back to settings already
// analysed, answers from here instead of reading and analysing the sound again. An entry is
// keyed by the file as it is on disk (path and `FileVersion`: a file changed or
// replaced is a new key, so its old analyses are never served) and the settings. Memory is
// bounded by an estimate of each entry's bytes; the least recently used go first.

import Foundation
import HapticKit

/// A file as it is on disk now, at its path: any write or replacement changes it.
struct FileStamp: Hashable, Sendable {
    var path: String
    var version: FileVersion
    var size: Int64 { version.size }

    init?(path: String) {
        guard let version = FileVersion(path: path) else { return nil }
        (self.path, self.version) = (path, version)
    }
}

/// A least-recently-used map bounded by the sum of its values' estimated sizes.
struct ByteBoundedCache<Key: Hashable, Value> {
    let capacity: Int
    private var entries: [Key: (value: Value, bytes: Int, used: UInt64)] = [:]
    private var clock: UInt64 = 0
    private(set) var bytes = 0

    init(capacity: Int) { self.capacity = capacity }

    var count: Int { entries.count }

    mutating func value(_ key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key]?.used = clock
        return entry.value
    }

    /// Keeps `value` (unless larger than the whole capacity), dropping the least recently used
    /// entries until the rest fits.
    mutating func insert(_ value: Value, bytes size: Int, for key: Key) {
        if let old = entries.removeValue(forKey: key) { bytes -= old.bytes }
        guard size <= capacity else { return }
        while bytes + size > capacity, let oldest = entries.min(by: { $0.value.used < $1.value.used }) {
            bytes -= oldest.value.bytes
            entries.removeValue(forKey: oldest.key)
        }
        clock += 1
        entries[key] = (value, size, clock)
        bytes += size
    }

    /// Drops every entry `matching` (a file's analyses once it changed).
    mutating func removeAll(where matching: (Key) -> Bool) {
        for key in entries.keys where matching(key) {
            bytes -= entries.removeValue(forKey: key)?.bytes ?? 0
        }
    }
}

extension SoundConversionResult {
    /// About the memory the result holds (its points and hits; the notes' text).
    var estimatedBytes: Int {
        let points = haptics.stretches.reduce(0) { $0 + $1.intensity.count + $1.sharpness.count }
        return 256 + points * 16 + haptics.stretches.count * 64 + haptics.transients.count * 24 + notes.reduce(0) { $0 + $1.utf8.count + 16 }
    }
}

extension SensitivityLadder {
    var estimatedBytes: Int { 64 + rungs.reduce(0) { $0 + 32 + $1.times.count * 8 } }
}
