import Foundation
import HapticALSATesting
import HapticSoundFile
import HapticTestSupport
import Testing

/// `hapticsynth play` against `hapticsynth render` through the PulseAudio rig: what the sink
/// receives from `play` is the rendered file, sample for sample, to the file's last sample —
/// the ring-out past the pattern's nominal end included — and nothing louder after it.
@Suite("play ends like render", .serialized, .enabled(if: Rig.isRunning, "needs scripts/rig.sh"))
struct LiveEndRigTests {
    /// A simple continuous pattern (where `play` used to cut up to 325 LSB of ring-out) and the
    /// bundled thud (a transient whose ring-out outlasts the pattern by 130 ms).
    static let patterns: [(name: String, json: String?)] = [
        ("continuous", """
            {"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticContinuous", "EventDuration": 0.5,
             "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8},
                                 {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}]}
            """),
        ("thud", nil),
    ]

    @Test("play records the render's samples to its last one (16-bit, within 1 LSB), then nothing above 1 LSB",
          arguments: [0, 1])
    func liveEqualsRenderToTheEnd(index: Int) throws {
        let (name, json) = Self.patterns[index]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hs-live-end-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pattern: String
        if let json {
            pattern = folder.appendingPathComponent("\(name).ahap").path
            try json.write(toFile: pattern, atomically: true, encoding: .utf8)
        } else {
            pattern = LiveCLI.repository.appendingPathComponent("Haptics/\(name).ahap").path
        }
        let wav = folder.appendingPathComponent("\(name).wav").path
        let render = try LiveCLI.run(["render", pattern, "-o", wav])
        try #require(render.waitForExit(timeout: ToolProcess.generousSeconds) != nil && render.process.terminationStatus == 0, "\(render.stderr)")
        let file = try SoundFileReader.read(wav)
        try #require(file.channels == 1)
        let reference = file.samples.map { ($0 * 32768).rounded() }
        // The nominal length: the same render with --exact-length.
        let exact = folder.appendingPathComponent("\(name)-exact.wav").path
        let exactRender = try LiveCLI.run(["render", pattern, "-o", exact, "--exact-length"])
        try #require(exactRender.waitForExit(timeout: ToolProcess.generousSeconds) != nil && exactRender.process.terminationStatus == 0)
        let nominal = try SoundFileReader.info(exact).frames
        #expect(reference.count > nominal + 48, "the render keeps a ring-out past the nominal \(nominal) frames: \(reference.count)")

        let capture = ALSACaptureDevice(name: Rig.inputMono, channels: 1, sampleRate: 48_000, periodFrames: 1024,
                                        bufferFrames: 8192, seconds: 30)
        try capture.start()
        try #require(capture.waitForFrames(1, timeout: 10), "the monitor records")
        let play = try LiveCLI.run(["play", "-D", Rig.outMono, "--period", "1024", "--buffer-periods", "4", pattern])
        defer { play.kill() }
        let onset = capture.waitForSound(timeout: ToolProcess.generousSeconds)
        let took = play.waitForExit(timeout: ToolProcess.generousSeconds)
        // The whole render and a second of what followed it.
        if let onset { capture.waitForFrames(onset + reference.count + 48_000, timeout: 30) }
        let rec = capture.stop()
        #expect(took != nil && play.process.terminationStatus == 0, "play: \(play.stderr)")
        #expect(rec.overruns == 0 && rec.errors.isEmpty, "a whole recording: \(rec.overruns) overruns, \(rec.errors)")
        let s = rec.int16Samples
        let first = try #require(onset, "nothing recorded")
        let refFirst = try #require(reference.firstIndex { $0 != 0 })
        let start = first - refFirst
        try #require(start >= 0 && start + reference.count <= s.count, "recorded \(s.count) frames, sound at \(first)")
        var worst: Float = 0, worstAt = 0
        for i in 0..<reference.count {
            let d = abs(Float(s[start + i]) - reference[i])
            if d > worst { (worst, worstAt) = (d, i) }
        }
        let after = s[(start + reference.count)...].map { abs(Int($0)) }.max() ?? 0
        let tail = reference[nominal...].map(abs).max() ?? 0
        print("live end rig \(name): \(reference.count) frames rendered (nominal \(nominal), ring-out \(reference.count - nominal) frames peaking at \(tail) LSB); play vs render worst |Δ| \(worst) LSB at frame \(worstAt); after the render's end at most \(after) LSB; play exited \(play.process.terminationStatus) after \(took.map { String(format: "%.2f s", $0) } ?? "-")")
        #expect(worst <= 1, "play differs from render by \(worst) LSB at frame \(worstAt) of \(reference.count)")
        #expect(after <= 1, "after the render's last sample play still sent \(after) LSB")
        #expect(reference.map(abs).max()! > 3000, "the pattern is loud enough to compare")
    }
}
