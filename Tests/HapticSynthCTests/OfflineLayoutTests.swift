import CHapticSynth
import Foundation
import Testing

/// The offline engine takes every layout form `render --layout` takes — by column, by position,
/// per-actuator profiles, presets — and its pulled samples are `render --bits 32f`'s, bit for bit.
@Suite struct OfflineLayoutTests {
    static let layouts: [(text: String, channels: Int32)] = [
        ("L,R,H", 3), ("0,0,H,H*-6dB", 4), ("FL,FR,LFE=H", 3), ("H@LFE", 1), ("2.1", 3),
        ("FL=H:bass-shaker,FR=H:voice-coil*0.5", 2), ("dualsense", 4), ("dualsense+sound", 4), ("H:lra,H:voice-coil", 2),
    ]

    /// The hapticsynth binary built beside the test bundle.
    static var tool: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hapticsynth").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return repoRoot + "/.build/debug/hapticsynth"
    }

    /// The float samples of a 32-bit float WAV file (its data chunk), and its channel count.
    static func readFloatWAV(_ path: String) throws -> (samples: [Float], channels: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        try #require(bytes.count > 12 && String(decoding: bytes[0..<4], as: UTF8.self) == "RIFF")
        var at = 12, channels = 0
        while at + 8 <= bytes.count {
            let id = String(decoding: bytes[at..<(at + 4)], as: UTF8.self), size = u32(at + 4)
            if id == "fmt " {
                channels = u16(at + 10)
                try #require(u16(at + 22) == 32, "32-bit samples")
            } else if id == "data" {
                let count = min(size, bytes.count - at - 8) / 4
                let samples = (0..<count).map { i in Float(bitPattern: UInt32(truncatingIfNeeded: u32(at + 8 + 4 * i))) }
                return (samples, channels)
            }
            at += 8 + size + (size & 1)
        }
        throw CocoaError(.fileReadCorruptFile)
    }

    @Test("every layout form render --layout takes: the offline engine's pulled samples are render --bits 32f's, bit for bit")
    func everyLayoutFormRendersAsRender() throws {
        let pattern = repoRoot + "/Haptics/heartbeat.ahap"
        let folder = NSTemporaryDirectory() + "hs-layouts-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var loaded: OpaquePointer? = nil
        try #require(hs_pattern_load_file(&loaded, pattern) == HS_OK, "\(lastError())")
        defer { hs_pattern_free(loaded) }
        for (index, layout) in Self.layouts.enumerated() {
            let file = folder + "/\(index).wav"
            let run = runTool(Self.tool, ["render", pattern, "-o", file, "--layout", layout.text, "--bits", "32f"])
            try #require(run.status == 0, "render --layout \(layout.text): \(run.output)")
            let reference = try Self.readFloatWAV(file)
            #expect(reference.channels == Int(layout.channels), "render --layout \(layout.text) wrote \(reference.channels) channels")
            let (engine, status) = openOffline(channels: layout.channels, layout: layout.text)
            try #require(status == HS_OK, "\(layout.text): \(lastError())")
            defer { hs_engine_close(engine) }
            var report = hs_engine_status()
            report.struct_size = MemoryLayout<hs_engine_status>.size
            #expect(hs_engine_get_status(engine, &report) == HS_OK && report.haptic_carried == 1, "offline: every channel carried")
            #expect(hs_engine_play(engine, loaded, 0) == HS_OK, "\(lastError())")
            let frames = reference.samples.count / reference.channels
            let (pulled, failures) = pull(engine, frames: frames, channels: reference.channels, block: 333)
            #expect(failures == 0)
            #expect(reference.samples.contains { abs($0) > 0.01 }, "\(layout.text): the reference is not silent")
            let differing = differingSamples(pulled, reference.samples)
            let worst = zip(pulled, reference.samples).map { abs($0 - $1) }.max() ?? 0
            #expect(differing == 0, "--layout \(layout.text): \(differing) of \(pulled.count) samples differ (by up to \(worst))")
        }
    }

    @Test("a layout's channel count must be the engine's; the message names the map as given")
    func channelCountMismatchIsNamed() {
        let (engine, status) = openOffline(channels: 6, layout: "H@LFE")
        #expect(status == HS_ERR_INVALID_ARGUMENT && engine == nil)
        #expect(lastError().contains("layout H@LFE has 1 channel "), "\(lastError())")
        let (missing, refused) = openOffline(channels: 1, layout: "H:./no-such-profile.json")
        #expect(refused == HS_ERR_PARSE && missing == nil && lastError().contains("no-such-profile.json"), "\(lastError())")
    }
}
