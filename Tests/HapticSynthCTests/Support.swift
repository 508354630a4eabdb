import CHapticSynth
import Foundation
import Testing
import HapticKit

// The C API as a C program sees it: these tests import only the header's module (CHapticSynth);
// the hs_ symbols resolve to HapticSynthC's `@c` functions when the test binary is linked.

/// The repository's root (for Haptics/, Assets/, examples/ and scripts/).
let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// This thread's last error message.
func lastError() -> String { String(cString: hs_last_error()) }

/// The bundled patterns (Haptics/*.ahap), sorted.
func bundledPatterns() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: repoRoot + "/Haptics").filter { $0.hasSuffix(".ahap") }.sorted()
        .map { repoRoot + "/Haptics/" + $0 }
}

/// A pattern handle from JSON text (nil on failure; the status in `status`).
func loadJSON(_ text: String, status: inout Int32) -> OpaquePointer? {
    var pattern: OpaquePointer? = nil
    let bytes = Array(text.utf8)
    status = bytes.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) { hs_pattern_load_json(&pattern, $0.baseAddress, $0.count) }
    }
    return pattern
}

/// An offline engine (`rate`, `layout`, `profile`), or the failing status.
func openOffline(rate: Double = 48_000, channels: Int32 = 1, layout: String? = nil, profile: String? = nil) -> (OpaquePointer?, Int32) {
    var engine: OpaquePointer? = nil
    let status = withOptionalCString(layout) { l in withOptionalCString(profile) { p in hs_engine_open_offline(&engine, rate, channels, l, p) } }
    return (engine, status)
}

/// Calls `body` with a C string for `text` (NULL for nil).
func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString(body)
}

/// Pulls `frames` frames from an offline engine in blocks of `block`; the statuses must all be HS_OK.
func pull(_ engine: OpaquePointer?, frames: Int, channels: Int, block: Int = 480) -> (samples: [Float], failures: Int) {
    var samples = [Float](repeating: .nan, count: frames * channels)
    var failures = 0
    var done = 0
    while done < frames {
        let n = min(block, frames - done)
        let status = samples.withUnsafeMutableBufferPointer { hs_engine_render(engine, $0.baseAddress! + done * channels, Int32(n)) }
        if status != HS_OK { failures += 1 }
        done += n
    }
    return (samples, failures)
}

/// The reference: the pattern file rendered as `hapticsynth render` renders it (same
/// preparation — its folder, then the assets folder, for sounds — layout, profile and rate).
func referenceRender(_ path: String, rate: Int, layout: String?, profile: String?) throws -> RenderedAudio {
    let decoded = try AHAPPattern.load(file: path)
    let profile = try ActuatorProfile.named(orPath: profile ?? "bass-shaker")
    let prepared = try PreparedPattern(decoded.pattern, profile: profile, sampleRate: Double(rate),
                                       sounds: SoundLibrary(patternFile: path))
    return OfflineRenderer.render(prepared, layout: try layout.map { try ChannelLayout.parse($0) })
}

/// Whether two sample arrays are equal bit for bit; the count of samples that differ.
func differingSamples(_ a: [Float], _ b: [Float]) -> Int {
    guard a.count == b.count else { return max(a.count, b.count) }
    return zip(a, b).filter { $0.0.bitPattern != $0.1.bitPattern }.count
}

/// A C string that lives as long as the process (for options structs in tests).
func permanent(_ text: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(text)!) }
