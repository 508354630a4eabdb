import Foundation
import HapticEngine
import HapticTestSupport
import Testing

@testable import HapticALSA

enum JackRig {
    static let env = ProcessInfo.processInfo.environment
    static let isRunning: Bool = {
        let running = env["HAPTICSYNTH_JACK_RIG_DIR"] != nil
        if !running { print("skipped: no JACK rig (run `scripts/jack-rig.sh swift test --filter JackRigTests`)") }
        return running
    }()
    static let controlScript = env["HAPTICSYNTH_JACK_CTL"] ?? "scripts/jack-rig.sh"

    /// Runs `jack-rig.sh <command>` (stop-server / start-server); returns its exit status.
    @discardableResult
    static func control(_ command: String) throws -> Int32 { try runRigControl(controlScript, command) }
}

/// The JACK dummy server (scripts/jack-rig.sh): the fault JACK gives is silence, not an error.
@Suite("ALSA through the JACK rig", .serialized, .enabled(if: JackRig.isRunning, "needs scripts/jack-rig.sh"))
struct JackRigTests {
    @Test("the raw jack PCM takes float and exactly its port count; killing jackd gives .timeout within the bound")
    func deadServerTimesOut() throws {
        let dir = JackRig.env["HAPTICSYNTH_JACK_RIG_DIR"]!
        #expect(try JackRig.control("start-server") == 0)  // another test may have left it stopped
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: JackRig.env["HAPTICSYNTH_JACK_RECORDER"]!)
        recorder.arguments = ["-c", "3", "-o", dir + "/t.f32", "-s", dir + "/t.csv", "-O", dir + "/t.on"]
        let pipe = Pipe()
        recorder.standardOutput = pipe
        try recorder.run()
        defer { if recorder.isRunning { recorder.terminate() } }
        _ = pipe.fileHandleForReading.availableData  // first line: READY

        let raw = JackRig.env["HAPTICSYNTH_JACK_RAW_OUT"]!
        let wrongCount = ALSAOutputDevice(name: raw)
        #expect(throws: DeviceOpenError.self) {
            try wrongCount.open(requested: DeviceFormat(channels: 2, sampleRate: 48000, periodFrames: 256, bufferFrames: 1024))
        }
        let device = ALSAOutputDevice(name: raw)
        let granted = try device.open(requested: DeviceFormat(channels: 3, sampleRate: 48000, periodFrames: 1024, bufferFrames: 4096))
        #expect(device.sampleFormat == .float32)
        var start: Int64 = 0
        #expect(playRamp(device, format: granted, seconds: 1, start: &start) == nil)

        #expect(try JackRig.control("stop-server") == 0)
        let t0 = now()
        let fault = playRamp(device, format: granted, seconds: 10, start: &start)
        let elapsed = now() - t0
        print("jack rig killed: write -> \(String(describing: fault)) after \(String(format: "%.1f", elapsed * 1000)) ms (wait bound \(device.waitTimeoutMilliseconds) ms)")
        #expect(fault == .timeout)
        #expect(elapsed < 2)  // no hang: the bound is 2 x 85 ms (a large buffer, so a loaded CI machine does not time out early), far from the minutes a blocking write takes
        #expect(device.recover(from: .timeout) == false)
        device.close()
        let reopen = ALSAOutputDevice(name: raw)
        let t1 = now()
        #expect(throws: DeviceOpenError.self) {
            try reopen.open(requested: granted)
        }
        #expect(now() - t1 < 5)
    }
}
