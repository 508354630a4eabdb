// Reading a pattern file from disk: the one place that turns "missing", "a directory",
// "unreadable" and "not a valid AHAP file" into one clear line naming the file. It reads AHAP
// and `.haptic` (Meta/Lofelt v1) alike: a `.haptic` file (by its extension, or a JSON object
// with `signals` and no `Pattern`) is read by the clip reader and played as the AHAP pattern
// it converts to, so `render`, `play`, `info` and `validate` take both.

import Foundation
import HapticKit

/// Why a pattern file could not be loaded.
public enum PatternFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file could not be read (missing, a directory, no permission); the reason in words.
    case unreadable(file: String, reason: String)
    /// The file was read but is not a loadable AHAP pattern (or `.haptic` clip).
    case invalid(file: String, error: AHAPError)
    /// The file is a sound (`kind`: WAV, FLAC, Ogg, MP3...), by its content: `convert` makes a pattern of it.
    case soundFile(file: String, kind: String)

    /// What a sound file given for a pattern is, and how to make one of it.
    static func soundFileReason(kind: String) -> String { SoundFileSignature.notAPattern(kind: kind) }

    /// One line: `file: reason` or `file: path: message` (or `file: line L, column C: message`).
    public var description: String {
        switch self {
        case .unreadable(let file, let reason): printable("\(file): cannot read: \(reason)")
        case .invalid(let file, let error): printable("\(file): \(error)")
        case .soundFile(let file, let kind): printable("\(file): \(Self.soundFileReason(kind: kind))")
        }
    }
}

/// A pattern loaded from disk, with the lenient reader's warnings.
public struct PatternFile: Sendable {
    /// The path as given.
    public var path: String
    public var decoded: DecodedAHAP
    /// The `.haptic` clip the pattern was converted from (nil for an AHAP file).
    public var clip: HapticClip?
    /// Size in bytes.
    public var byteCount: Int

    /// The folder relative paths inside the pattern (audio files) are resolved against.
    public var folder: URL { URL(fileURLWithPath: path).deletingLastPathComponent() }

    /// Reads and decodes `path` (AHAP, or a `.haptic` clip converted to AHAP).
    public static func load(_ path: String, options: AHAPDecodeOptions = .init()) throws(PatternFileError) -> PatternFile {
        let bytes = try readBytes(path)
        if let kind = SoundFileSignature.kind(of: bytes) { throw .soundFile(file: path, kind: kind) }
        do {
            if isHapticClip(path: path, bytes: bytes) {
                let decoded = try HapticClip.decode(from: bytes, options: options)
                let pattern = DecodedAHAP(pattern: decoded.clip.ahapPattern(), warnings: decoded.warnings)
                return PatternFile(path: path, decoded: pattern, clip: decoded.clip, byteCount: bytes.count)
            }
            return PatternFile(path: path, decoded: try AHAPPattern.decode(from: bytes, options: options), clip: nil, byteCount: bytes.count)
        } catch {
            throw .invalid(file: path, error: error)
        }
    }

    /// Whether a file is a `.haptic` clip: its extension says so, or its content does.
    public static func isHapticClip(path: String, bytes: [UInt8]) -> Bool {
        path.lowercased().hasSuffix(".haptic") || (!path.lowercased().hasSuffix(".ahap") && HapticClip.looksLikeHapticClip(bytes))
    }

    /// The file's bytes, or a one-line reason why they cannot be read.
    public static func readBytes(_ path: String) throws(PatternFileError) -> [UInt8] {
        // (The system's reason when it cannot be looked at: a symbolic-link loop or a name too
        // long is not "no such file".)
        let info: stat
        switch fileStatus(path) {
        case .success(let found): info = found
        case .failure(let failure): throw .unreadable(file: path, reason: failure.reason)
        }
        if info.st_mode & S_IFMT == S_IFDIR { throw .unreadable(file: path, reason: "is a directory, not a file") }
        // Read in chunks up to the limit: a device such as /dev/zero, or a huge file, is
        // refused instead of filling memory.
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .unreadable(file: path, reason: "permission denied or not a regular file")
        }
        defer { try? handle.close() }
        var bytes: [UInt8] = []
        while true {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw .unreadable(file: path, reason: error.localizedDescription)
            }
            guard let chunk, !chunk.isEmpty else { break }
            bytes += chunk
            if bytes.count > Limits.maxFileBytes {
                throw .unreadable(file: path, reason: "larger than the \(Limits.maxFileBytes >> 20) MiB limit")
            }
        }
        return bytes
    }

    /// Where an audio file named by the pattern is: relative paths are tried in the
    /// pattern's folder, then in each of `roots`; nil when it is in none of them.
    public func locateAudio(_ reference: String, roots: [String] = []) -> URL? {
        if reference.hasPrefix("/") {
            return FileManager.default.fileExists(atPath: reference) ? URL(fileURLWithPath: reference) : nil
        }
        let bases = [folder] + roots.map { URL(fileURLWithPath: $0) }
        for base in bases {
            let candidate = base.appendingPathComponent(reference)
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate.standardizedFileURL }
        }
        return nil
    }
}
