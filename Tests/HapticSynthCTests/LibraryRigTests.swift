import CHapticSynth
import Foundation
import HapticALSATesting
import HapticEngineTesting
import HapticKit
import HapticTestSupport
import Synchronization
import Testing

/// The rig's names (scripts/rig.sh exports them).
enum CRig {
    static let env = ProcessInfo.processInfo.environment
    static var isRunning: Bool { env["HAPTICSYNTH_RIG_DIR"] != nil }
    static let outMono = env["HAPTICSYNTH_RIG_OUT_MONO"] ?? "hs_out_mono"
    static let inputMono = env["HAPTICSYNTH_RIG_IN_MONO"] ?? "hs_in_mono"
    static let out = env["HAPTICSYNTH_RIG_OUT"] ?? "hs_out"
    static let outB = env["HAPTICSYNTH_RIG_OUT_B"] ?? "hs_out_b"
    static let inputB = env["HAPTICSYNTH_RIG_IN_B"] ?? "hs_in_b"
    static let badSink = env["HAPTICSYNTH_RIG_BAD_SINK"] ?? "hs_bad_sink"
    static let control = env["HAPTICSYNTH_RIG_CTL"] ?? "scripts/rig.sh"
}

/// libhapticsynth through the PulseAudio rig (scripts/rig.sh): the C example plays through a sink
/// whose monitor is recorded, and callbacks that call back into the library while the server
/// is killed and restarted.
@Suite(.serialized, .enabled(if: CRig.isRunning, "needs scripts/rig.sh"))
struct LibraryRigTests {
    @Test("examples/c-library/play.c, built with pkg-config: the pattern and the transient reach the sink")
    func playExampleThroughTheRig() throws {
        let install = try { () throws -> InstalledLibrary.Install in
            switch InstalledLibrary.install {
            case .success(let i): return i
            case .failure(let f): throw f
            }
        }()
        let work = NSTemporaryDirectory() + "hs-play-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        try FileManager.default.copyItem(atPath: repoRoot + "/examples/c-library/play.c", toPath: work + "/play.c")
        let build = shell("cc -Wall -Wextra -Werror play.c $(pkg-config --cflags --libs hapticsynth) -o play", install, directory: work)
        try #require(build.status == 0, "\(build.output)")

        let pattern = repoRoot + "/Haptics/heartbeat.ahap"
        let capture = ALSACaptureDevice(name: CRig.inputMono, channels: 1, sampleRate: 48_000, periodFrames: 1024,
                                        bufferFrames: 8192, seconds: 8)
        try capture.start()
        usleep(100_000)
        // The rig's ALSA configuration is the example's environment too (it plays through the rig's PCM).
        var environment = InstalledLibrary.cleanEnvironment(install)
        for key in ["ALSA_CONFIG_PATH", "HAPTICSYNTH_RIG_DIR", "PULSE_SERVER", "XDG_RUNTIME_DIR"] { environment[key] = CRig.env[key] }
        let run = runTool(work + "/play", [CRig.outMono, pattern, "H"], environment: environment, directory: work)
        usleep(300_000)
        let recording = capture.stop()
        print("play.c: \(run.output)")
        try #require(run.status == 0, "\(run.output)")
        #expect(recording.overruns == 0)

        // The heartbeat as rendered for the bass shaker, found in the recording by least squares.
        let decoded = try AHAPPattern.load(file: pattern)
        let prepared = try PreparedPattern(decoded.pattern, profile: .bassShaker, sampleRate: 48_000)
        let reference = RecordingAlignment.s16(OfflineRenderer.render(prepared, layout: .hapticMono).samples)
        let threshold: Float = 3.0 / 32768
        let recorded = recording.floatSamples
        let guess = try #require(RecordingAlignment.firstAbove(recorded, threshold)) - (RecordingAlignment.firstAbove(reference, threshold) ?? 0)
        let fit = RecordingAlignment.bestLag(recorded, reference, guess: guess, radius: 64)
        print("play.c through the rig: heartbeat at frame \(fit.lag), residual/energy \(fit.residual / fit.energy)")
        #expect(fit.residual / fit.energy < 1e-3, "the recording holds the pattern's samples")
        // The transient: 0.3 s after the pattern's end (the example's plan), alone in its window.
        let tap = fit.lag + prepared.frameCount + 14_400
        let window = recorded[max(0, tap - 2_400)..<min(recorded.count, tap + 4_800)]
        let before = recorded[max(0, tap - 7_200)..<max(0, tap - 2_400)]
        let peak = window.map(abs).max() ?? 0
        print("play.c through the rig: transient peak \(peak) near frame \(tap), \(before.map(abs).max() ?? 0) before it")
        #expect(peak > 0.05, "the transient reached the sink")
        #expect((before.map(abs).max() ?? 1) < peak / 4, "and came on its own, after the pattern")
    }

    @Test("two devices: the haptic on one, a sound effect on the other; an audio device that fails is refused at open")
    func twoDevices() throws {
        var options = hs_engine_options()
        hs_engine_options_init(&options)
        options.device = permanent(CRig.outMono)
        options.audio_device = permanent(CRig.outB)
        options.layout = permanent("H")
        options.assets_folder = permanent(repoRoot + "/Assets")
        var engine: OpaquePointer? = nil
        try #require(hs_engine_open_with(&engine, &options) == HS_OK, "\(lastError())")
        var status = hs_engine_status()
        status.struct_size = MemoryLayout<hs_engine_status>.size
        #expect(hs_engine_get_status(engine, &status) == HS_OK)
        #expect(status.state == HS_STATE_RUNNING && status.audio_state == HS_STATE_RUNNING && status.channels == 1)
        let capture = ALSACaptureDevice(name: CRig.inputB, channels: 2, sampleRate: 48_000, periodFrames: 1024, bufferFrames: 8192, seconds: 3)
        try capture.start()
        usleep(100_000)
        #expect(hs_engine_play_sound(engine, "sfx_click", hs_monotonic_now() + 0.2) == HS_OK, "\(lastError())")
        usleep(1_200_000)
        let recording = capture.stop()
        hs_engine_close(engine)
        let peak = recording.floatSamples.map(abs).max() ?? 0
        print("two devices: the click's peak on the audio device \(peak)")
        #expect(peak > 0.05, "the sound effect reached the audio device")

        options.audio_device = permanent(CRig.badSink)
        engine = nil
        #expect(hs_engine_open_with(&engine, &options) == HS_ERR_DEVICE)
        #expect(lastError().contains("audio_device \(CRig.badSink)"), "\(lastError())")
        #expect(engine == nil)
    }

    /// What the callbacks saw and did, for the test to read.
    final class CallbackLog: @unchecked Sendable {
        let lock = Mutex<[String]>([])
        /// The engine handle (as a number), for the callbacks to call back with.
        let engine = Atomic<UInt>(0)
        func note(_ line: String) { lock.withLock { $0.append(line) } }
        var lines: [String] { lock.withLock { $0 } }
    }

    @Test("callbacks on a server kill and restart: stopped, then reconnected; each calls back into the library, the last one closes its own engine")
    func callbacksReenterTheLibrary() throws {
        var engine: OpaquePointer? = nil
        var options = hs_engine_options()
        hs_engine_options_init(&options)
        options.device = permanent(CRig.out)
        try #require(hs_engine_open_with(&engine, &options) == HS_OK, "\(lastError())")
        let log = CallbackLog()
        log.engine.store(UInt(bitPattern: Int(bitPattern: engine)), ordering: .releasing)
        var callbacks = hs_callbacks()
        callbacks.struct_size = MemoryLayout<hs_callbacks>.size
        callbacks.user = Unmanaged.passUnretained(log).toOpaque()
        callbacks.stopped = { user, role, reason, message in
            let log = Unmanaged<CallbackLog>.fromOpaque(user!).takeUnretainedValue()
            let engine = OpaquePointer(bitPattern: log.engine.load(ordering: .acquiring))
            var status = hs_engine_status()
            status.struct_size = MemoryLayout<hs_engine_status>.size
            let got = hs_engine_get_status(engine, &status)
            let played = hs_engine_transient(engine, 1, 0.5, 0)
            log.note("stopped role \(role) reason \(reason) (\(String(cString: message!))); status \(got) state \(status.state); transient \(played)")
        }
        callbacks.reconnected = { user, role, outage, _, _ in
            let log = Unmanaged<CallbackLog>.fromOpaque(user!).takeUnretainedValue()
            let engine = OpaquePointer(bitPattern: log.engine.load(ordering: .acquiring))
            let played = hs_engine_transient(engine, 1, 0.5, 0)
            // Setting callbacks from inside one, then closing the engine that calls us.
            let cleared = hs_engine_set_callbacks(engine, nil)
            hs_engine_close(engine)
            log.note("reconnected role \(role) after \(outage) s; transient \(played); callbacks cleared \(cleared); closed: \(String(cString: hs_last_error()) == "" ? "yes" : String(cString: hs_last_error()))")
        }
        try #require(hs_engine_set_callbacks(engine, &callbacks) == HS_OK)
        #expect(hs_engine_transient(engine, 1, 0.5, 0) == HS_OK)
        usleep(300_000)
        #expect(try runRigControl(CRig.control, "stop-server") == 0)
        var waited = 0.0
        while !log.lines.contains(where: { $0.hasPrefix("stopped") }) && waited < 5 { usleep(20_000); waited += 0.02 }
        #expect(try runRigControl(CRig.control, "start-server") == 0)
        waited = 0
        while !log.lines.contains(where: { $0.hasPrefix("reconnected") }) && waited < 10 { usleep(20_000); waited += 0.02 }
        print("callbacks: \(log.lines)")
        let stopped = try #require(log.lines.first { $0.hasPrefix("stopped") })
        #expect(stopped.contains("role 0") && stopped.contains("status 0 state 1"), "status read from the callback: reconnecting")
        #expect(stopped.hasSuffix("transient -6"), "a play while reconnecting: HS_ERR_NOT_RUNNING")
        let reconnected = try #require(log.lines.first { $0.hasPrefix("reconnected") })
        #expect(reconnected.contains("transient 0") && reconnected.contains("callbacks cleared 0") && reconnected.hasSuffix("closed: yes"))
        // The engine closed from inside its own callback: the handle is gone, nothing hangs.
        #expect(hs_engine_transient(engine, 1, 0.5, 0) == HS_ERR_INVALID_HANDLE)
        #expect(log.lines.count == 2, "no callback after the close")
    }
}
