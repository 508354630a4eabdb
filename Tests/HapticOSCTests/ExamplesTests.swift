import Foundation
import HapticEngine
import Testing

@testable import HapticOSC

/// The client examples of examples/ (README "Driving the engine over OSC") are run against a
/// server and what they sent is checked: the cue, and the transient at the time they printed.
@Suite("Client examples (examples/)")
struct ExamplesTests {
    static func check(_ output: String, _ target: RecordingTarget, started: Double) {
        let got = target.wait(for: 2)
        #expect(got.count == 2)
        #expect(got.first == .cue(name: "beat_hit", time: 0))
        guard got.count == 2, case .transient(let intensity, let sharpness, let time) = got[1] else {
            Issue.record("got \(got); the example printed \(output)")
            return
        }
        #expect(abs(intensity - 0.8) < 1e-6 && sharpness == 0.5)
        let printed = Double(output.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) } ?? "")
        #expect(printed.map { abs($0 - time) < 1e-5 } == true, "printed \(output), server got \(time)")
        // On the same clock as the server: half a second after the example started, give or take its run time.
        #expect(time > started + 0.5 && time < MonotonicClock.now() + 0.5)
    }

    @Test("examples/transient.c (liblo), compiled with cc -llo")
    func cExample() throws {
        let (server, target, _) = try makeServer()
        defer { server.stop() }
        let binary = NSTemporaryDirectory() + "hapticsynth-example-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: binary) }
        let (cc, _) = try runProgram("/usr/bin/cc", [oscRepoRoot + "/examples/transient.c", "-llo", "-o", binary])
        try #require(cc == 0)
        let started = MonotonicClock.now()
        let (status, output) = try runProgram(binary, [String(server.port)])
        #expect(status == 0)
        Self.check(output, target, started: started)
    }

    @Test("examples/transient.py (Python standard library)")
    func pythonExample() throws {
        let (server, target, _) = try makeServer()
        defer { server.stop() }
        let started = MonotonicClock.now()
        let (status, output) = try runProgram("/usr/bin/python3", [oscRepoRoot + "/examples/transient.py", String(server.port)])
        #expect(status == 0)
        Self.check(output, target, started: started)
    }
}
