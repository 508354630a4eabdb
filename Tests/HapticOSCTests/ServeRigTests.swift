import Foundation
import HapticALSA
import HapticEngine
import HapticEngineTesting
import HapticALSATesting
import HapticRender
import Testing

@testable import HapticKit
import HapticTestSupport
@testable import HapticOSC

/// `hapticsynth serve` as a process, driven over OSC by this test, recorded by the rig's sink
/// monitor (scripts/rig.sh: PulseAudio null sink through the ALSA pulse plugin).
@Suite("hapticsynth serve through the sound-server rig", .serialized, .enabled(if: OSCRig.isRunning, "needs scripts/rig.sh"))
struct ServeRigTests {
    static let rate = 48_000
    /// Large periods: the machine is shared and noisy; timing on the frame grid does not depend on them.
    static let serveOptions = ["--period", "1024", "--buffer-periods", "4"]

    static func recorder(seconds: Double) throws -> ALSACaptureDevice {
        let capture = ALSACaptureDevice(name: OSCRig.input, channels: 3, sampleRate: rate, periodFrames: 1024, bufferFrames: 8192, seconds: seconds)
        try capture.start()
        try #require(capture.waitForFrames(1, timeout: 10), "the monitor delivers")
        return capture
    }

    /// The manager's own preparation of what the server plays (for sample-exact references).
    static func reference() -> HapticManager {
        let clock = ManualClock()
        var config = HapticManager.Configuration(
            hapticsFolder: oscRepoRoot + "/Haptics", assetsFolder: oscRepoRoot + "/Assets",
            output: .device({ VirtualOutputDevice(name: "virtual", clock: .manual(clock)) }))
        config.engine = .manual(clock: clock, base: config.engine)
        let m = HapticManager(configuration: config)
        m.preloadPatterns()
        return m
    }

    static func channel(_ rec: ALSARecording, _ c: Int) -> [Float] { RecordingAlignment.channel(rec.floatSamples, channels: 3, c) }

    /// The frame where `reference` best matches `x` near its first sample over 3 LSB.
    static func locate(_ x: [Float], _ reference: [Float], from: Int = 0) -> (lag: Int, fit: Double)? {
        let threshold: Float = 3.0 / 32768
        guard let seen = RecordingAlignment.firstAbove(x, threshold, from: from) else { return nil }
        let guess = seen - (RecordingAlignment.firstAbove(reference, threshold) ?? 0)
        let best = RecordingAlignment.bestLag(x, reference, guess: guess, radius: 64)
        return (best.lag, best.residual / max(best.energy, 1e-30))
    }

    @Test("two transients sent 0.5 s apart on the monotonic clock are recorded 24,000 frames apart, within the schedule grid's tolerance")
    func transientSpacing() throws {
        let serve = try ServeProcess(Self.serveOptions + ["--verbose"])
        defer { serve.stop() }
        let capture = try Self.recorder(seconds: 60)
        // A second after ready: the schedule grid has settled by then (it follows the clock filter
        // for its first half second, uncounted); after that every move is a counted correction.
        let t1 = MonotonicClock.now() + 1, t2 = t1 + 0.5
        serve.client.send("/hapticsynth/transient", [.float(0.8), .float(0.5), .double(t1)])
        serve.client.send("/hapticsynth/transient", [.float(0.8), .float(0.5), .double(t2)])
        // Both recorded: the first, then 0.5 s (24,000 frames) and a second more.
        let heard = try #require(capture.waitForSound(timeout: 30), "the first transient recorded")
        #expect(capture.waitForFrames(heard + 24_000 + 48_000, timeout: 30))
        let rec = capture.stop()
        #expect(rec.overruns == 0, "the recording must be whole")
        let m = Self.reference()
        m.playTransientEvent(intensity: 0.8, sharpness: 0.5)
        let pattern = try #require(m.state.withLock { $0.caches.transients.values.first })
        let ref = RecordingAlignment.s16(RecordingAlignment.channel(OfflineRenderer.render(pattern, layout: .stereoPlusHaptic).samples, channels: 3, 2))
        m.shutDown()
        let h = Self.channel(rec, 2)
        let first = try #require(Self.locate(h, ref))
        // The second where it is (a loaded machine's grid corrections may have moved it), not
        // only where it should be.
        let second = try #require(Self.locate(h, ref, from: first.lag + 12_000))
        let spacing = second.lag - first.lag
        // The corrections the server counted (its --verbose statistics at exit).
        serve.stop()
        let corrections = serve.standardOutput.firstMatch(of: /grid corrections (\d+)/).flatMap { Int($0.1) }
        print("serve rig: transients at frames \(first.lag) and \(second.lag): \(spacing) frames for 0.5 s (24000 nominal); fits \(first.fit), \(second.fit); grid corrections \(corrections.map(String.init) ?? "?")")
        #expect(first.fit < 1e-3 && second.fit < 1e-3, "both transients are in the recording, whole")
        // Two starts sent as times are converted on the engine's schedule grid, which may move
        // between them (while it settles after the device opened, or by a correction when a
        // loaded machine's timestamps push it past its tolerance): the bound is that tolerance
        // (2 ms), plus, for each correction the server counted, one correction's step (the
        // tolerance and what the filter can move in one period, as EngineRigTests bounds it).
        // Exact spacing on a grid that did not move is the engine's own test (EngineRigTests:
        // recorded = applied, applied exact but for counted corrections).
        let count = try #require(corrections, "the --verbose statistics: \(serve.standardOutput)")
        let tolerance = Int(HapticEngine.Configuration().scheduleDriftToleranceSeconds * 48_000) + 1
        let step = tolerance + Int((0.005 * 1024).rounded(.up))
        #expect(abs(spacing - 24_000) <= tolerance + count * step, "spacing \(spacing) with \(count) grid corrections")
    }

    @Test("a cue sent over OSC: its sound (L) and haptic (H) land on one frame")
    func cueLockstep() throws {
        let serve = try ServeProcess(Self.serveOptions)
        defer { serve.stop() }
        let capture = try Self.recorder(seconds: 60)
        serve.client.send("/hapticsynth/cue", [.string("beat_hit"), .double(MonotonicClock.now() + 0.3)])
        #expect(capture.waitForWholeSound(), "the cue recorded")
        let rec = capture.stop()
        #expect(rec.overruns == 0)
        let m = Self.reference()
        let cue = OfflineRenderer.render(try #require(m.state.withLock { $0.caches.cues["beat_hit"] }), layout: .stereoPlusHaptic)
        m.shutDown()
        let refL = RecordingAlignment.s16(RecordingAlignment.channel(cue.samples, channels: 3, 0))
        let refH = RecordingAlignment.s16(RecordingAlignment.channel(cue.samples, channels: 3, 2))
        let l = try #require(Self.locate(Self.channel(rec, 0), refL)), h = try #require(Self.locate(Self.channel(rec, 2), refH))
        print("serve rig cue: sound at frame \(l.lag), haptic at frame \(h.lag) (fits \(l.fit), \(h.fit))")
        #expect(l.lag == h.lag, "skew \(l.lag - h.lag) samples")
        #expect(l.fit < 1e-3 && h.fit < 1e-3)
    }

    @Test("a looping player's intensity follows the control messages")
    func loopIntensity() throws {
        let folder = try Self.hapticsWithHum()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let serve = try ServeProcess(Self.serveOptions, haptics: folder)
        defer { serve.stop() }
        let capture = try Self.recorder(seconds: 60)
        // The scenario: phases of 0.8 s, timed from the loop's first recorded sample: full, 0.2,
        // full again, then stopped.
        serve.client.send("/hapticsynth/loop/start", [.string("slider"), .string("hum"), .float(1)])
        let heard = try #require(capture.waitForSound(above: 0.01, channels: [2], timeout: 30), "the loop plays")
        let t0 = MonotonicClock.now()
        for (k, message) in [("/hapticsynth/loop/intensity", 0.2), ("/hapticsynth/loop/intensity", 1), ("/hapticsynth/loop/stop", -1)].enumerated() {
            waitUntil(seconds: 10) { MonotonicClock.now() >= t0 + 0.8 * Double(k + 1) }
            serve.client.send(message.0, message.1 < 0 ? [.string("slider")] : [.string("slider"), .float(Float(message.1))])
        }
        #expect(capture.waitForFrames(heard + 4 * 38_400, timeout: 30))
        let rec = capture.stop()
        #expect(rec.overruns == 0)
        let h = Self.channel(rec, 2)
        let onset = try #require(RecordingAlignment.firstAbove(h, 0.01))
        func rms(_ phase: Int) -> Double {
            // The middle of each phase (0.2...0.6 s into it): away from the moment a message lands.
            let from = onset + Int((Double(phase) * 0.8 + 0.2) * 48_000), to = from + Int(0.4 * 48_000)
            guard to <= h.count else { return .nan }
            return (h[from..<to].reduce(0.0) { $0 + Double($1) * Double($1) } / Double(to - from)).squareRoot()
        }
        let levels = (0..<4).map(rms)
        print("serve rig loop: rms per phase (1, 0.2, 1, stopped): \(levels)")
        #expect(levels[0] > 0.01, "the loop plays")
        #expect(levels[1] < 0.5 * levels[0] && levels[1] > 0.005 * levels[0], "0.2 is quieter, and still playing")
        #expect(abs(levels[2] / levels[0] - 1) < 0.2, "back to full")
        #expect(levels[3] < 0.01 * levels[0], "stopped")
    }

    @Test("10,000 malformed datagrams do not stop the server; a valid message still plays after them")
    func malformedFlood() throws {
        let serve = try ServeProcess(Self.serveOptions)
        defer { serve.stop() }
        var random = SeededRandom(seed: 14)
        for i in 0..<10_000 {
            var junk = (0..<(1 + i % 97)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            if junk.first == UInt8(ascii: "/") || junk.first == UInt8(ascii: "#") { junk[0] = 0 }
            serve.client.sendRaw(junk)
            // Paced a little so that the kernel's socket buffer never overflows (every one is counted).
            if i % 100 == 99 { usleep(2_000) }
        }
        // Every one is counted by the time the server answers a status after them.
        var malformed: Int64? = nil
        waitUntil(seconds: 30, poll: 0.1) {
            malformed = serve.counter(StatusField.malformed.rawValue)
            return malformed == 10_000
        }
        #expect(serve.isRunning)
        #expect(malformed == 10_000, "malformed counted: \(String(describing: malformed))")
        #expect(serve.counter(StatusField.socketDrops.rawValue) == 0)
        let capture = try Self.recorder(seconds: 60)
        serve.client.send("/hapticsynth/transient", [.float(1), .float(0.5)])
        #expect(capture.waitForWholeSound(), "the transient recorded")
        let rec = capture.stop()
        let h = Self.channel(rec, 2)
        #expect(h.contains { abs($0) > 0.05 }, "the transient after the flood reached the sink")
        let log = serve.standardError
        let lines = log.split(separator: "\n").filter { $0.contains("malformed") }.count
        print("serve rig flood: \(lines) log lines about malformed datagrams for 10,000")
        #expect(lines <= 20, "the log is rate-limited")
    }

    @Test("SIGHUP reloads the library: a pattern added to the folder plays after it, the stream goes on")
    func sighupReloads() throws {
        let folder = try Self.hapticsWithHum()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let serve = try ServeProcess(Self.serveOptions, haptics: folder)
        defer { serve.stop() }
        let capture = try Self.recorder(seconds: 60)
        // A loop plays through the reload: the stream is not dropped.
        serve.client.send("/hapticsynth/loop/start", [.string("bed"), .string("hum"), .float(0.3)])
        let bedStart = MonotonicClock.now()
        serve.client.send("/hapticsynth/play", [.string("hum2")])
        #expect(waitUntil(seconds: 30, poll: 0.05) { serve.counter(StatusField.unknownNames.rawValue) == 1 }, "hum2 is not there yet")
        try Self.humAHAP(intensity: 1).write(toFile: folder + "/hum2.ahap", atomically: true, encoding: .utf8)
        let engineBefore = serve.counter(StatusField.engine.rawValue)
        serve.signal(SIGHUP)
        #expect(serve.tool.waitForLine { $0.contains("serve: SIGHUP: reloaded") } != nil, "reloaded: \(serve.standardError)")
        // The scenario: the bed has played for at least a second across the reload.
        waitUntil(seconds: 10) { MonotonicClock.now() >= bedStart + 1.0 }
        serve.client.send("/hapticsynth/loop/stop", [.string("bed")])
        serve.client.send("/hapticsynth/play", [.string("hum2")])
        #expect(capture.waitForWholeSound(), "the bed and hum2 recorded")
        let rec = capture.stop()
        #expect(serve.isRunning)
        #expect(serve.counter(StatusField.unknownNames.rawValue) == 1, "hum2 is known after SIGHUP")
        #expect(serve.counter(StatusField.engine.rawValue) == engineBefore, "the same engine: no reset")
        #expect(rec.overruns == 0)
        let h = Self.channel(rec, 2)
        // The bed (0.3) plays from the start without a gap until it is stopped, then hum2 (1.0) is louder.
        let onset = try #require(RecordingAlignment.firstAbove(h, 0.005))
        let bedEnd = onset + Int(0.9 * 48_000)
        let quiet = stride(from: onset, to: bedEnd - 480, by: 480).filter { i in !h[i..<(i + 480)].contains { abs($0) > 0.001 } }.count
        #expect(quiet == 0, "\(quiet) silent 10 ms windows in the bed across the reload")
        let peakAfter = h[(bedEnd + 24_000)...].map(abs).max() ?? 0, peakBed = h[onset..<bedEnd].map(abs).max() ?? 0
        print("serve rig SIGHUP: bed peak \(peakBed), hum2 peak \(peakAfter)")
        #expect(peakAfter > 1.5 * peakBed, "hum2 played after the reload")
    }

    @Test("the server survives a sound-server restart (as play does): the client's loop resumes, a transient sent after it is recorded")
    func soundServerRestart() throws {
        let folder = try Self.hapticsWithHum()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let serve = try ServeProcess(Self.serveOptions, haptics: folder)
        defer { serve.stop() }
        serve.client.send("/hapticsynth/loop/start", [.string("bed"), .string("hum"), .float(0.5)])
        do {
            let before = try Self.recorder(seconds: 60)
            #expect(before.waitForSound(above: 0.01, channels: [2], timeout: 30) != nil, "the loop plays")
            before.stop()
        }
        #expect(try runRigControl(OSCRig.control, "stop-server") == 0)
        usleep(1_000_000)  // the scenario: the sound server stays away for 1 s
        #expect(try runRigControl(OSCRig.control, "start-server") == 0)
        // Up to 20 s for the engine (or the server's supervisor) to come back: the loop is heard
        // again. (The monitor may take a moment to exist after the server answers.)
        var after: ALSACaptureDevice? = nil
        waitUntil(seconds: 20, poll: 0.1) {
            after = try? Self.recorder(seconds: 60)
            return after != nil
        }
        let t0 = MonotonicClock.now()
        let resumed = after?.waitForSound(above: 0.01, channels: [2], timeout: 20) != nil
        after?.stop()
        print("serve rig restart: loop heard again \(String(format: "%.2f", MonotonicClock.now() - t0)) s after recording began; log: \(serve.standardError.suffix(400))")
        #expect(serve.isRunning)
        #expect(resumed, "the client's loop plays again after the sound server restarted")
        // Then, alone, a transient sent now: recorded whole (its shape matches the reference).
        let quiet = try Self.recorder(seconds: 60)
        serve.client.send("/hapticsynth/loop/stop", [.string("bed")])
        #expect(quiet.waitForSilence(after: 0, frames: 9600, timeout: 30), "the loop stopped")
        quiet.stop()
        let capture = try Self.recorder(seconds: 60)
        serve.client.send("/hapticsynth/transient", [.float(0.8), .float(0.5)])
        #expect(capture.waitForWholeSound(), "the transient recorded")
        let rec = capture.stop()
        let m = Self.reference()
        m.playTransientEvent(intensity: 0.8, sharpness: 0.5)
        let pattern = try #require(m.state.withLock { $0.caches.transients.values.first })
        let ref = RecordingAlignment.s16(RecordingAlignment.channel(OfflineRenderer.render(pattern, layout: .stereoPlusHaptic).samples, channels: 3, 2))
        m.shutDown()
        let found = Self.locate(Self.channel(rec, 2), ref)
        print("serve rig restart: transient at frame \(found.map { String($0.lag) } ?? "-"), fit \(found.map { String($0.fit) } ?? "-")")
        #expect(found.map { $0.fit < 1e-3 } == true, "the transient after the restart reached the new server, whole")
    }

    @Test("two devices (-D for the sound, --haptic-device for the haptic): a cue plays on both")
    func twoDevices() throws {
        let serve = try ServeProcess(Self.serveOptions + ["--haptic-device", OSCRig.outMono], device: OSCRig.outB)
        defer { serve.stop() }
        let sound = ALSACaptureDevice(name: OSCRig.inputB, channels: 2, sampleRate: Self.rate, periodFrames: 1024, bufferFrames: 8192, seconds: 60)
        let haptic = ALSACaptureDevice(name: OSCRig.inputMono, channels: 1, sampleRate: Self.rate, periodFrames: 1024, bufferFrames: 8192, seconds: 60)
        try sound.start()
        try haptic.start()
        try #require(sound.waitForFrames(1, timeout: 10) && haptic.waitForFrames(1, timeout: 10), "the monitors deliver")
        serve.client.send("/hapticsynth/cue", [.string("beat_hit")])
        serve.client.send("/hapticsynth/play", [.string("thud"), .double(MonotonicClock.now() + 0.5)])
        #expect(sound.waitForWholeSound(silence: 28_800) && haptic.waitForWholeSound(silence: 28_800), "both recorded")
        let s = sound.stop(), h = haptic.stop()
        let soundPeak = s.floatSamples.map(abs).max() ?? 0, hapticPeak = h.floatSamples.map(abs).max() ?? 0
        print("serve rig two devices: sound peak \(soundPeak), haptic peak \(hapticPeak)")
        #expect(soundPeak > 0.05, "the cue's sound reached -D")
        #expect(hapticPeak > 0.05, "the haptic reached --haptic-device")
        #expect(serve.status()?.first == .string("running"))
    }

    @Test("SIGTERM and SIGINT: serve fades its loop out, closes the device, prints its summary and statistics, exits 0",
          arguments: [SIGTERM, SIGINT])
    func signalEndsGracefully(signal: Int32) throws {
        let folder = try Self.hapticsWithHum()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let serve = try ServeProcess(Self.serveOptions + ["--verbose"], haptics: folder)
        defer { serve.stop() }
        let capture = try Self.recorder(seconds: 60)
        serve.client.send("/hapticsynth/loop/start", [.string("bed"), .string("hum"), .float(1)])
        let heard = try #require(capture.waitForSound(above: 0.01, channels: [2], timeout: 30), "the loop plays")
        #expect(capture.waitForFrames(heard + 24_000, timeout: 30))
        // Its own deadline: 1 s plus twice the device buffer (here 4 × 1024 frames).
        let deadline = 1 + 2 * 4 * 1024 / 48_000.0
        let took = serve.tool.signalAndTimeEnd(signal, timeout: 10)
        _ = serve.tool.waitForExit(timeout: 10)
        #expect(capture.waitForWholeSound(), "the loop faded out to silence")
        let rec = capture.stop()
        print("serve rig signal \(signal): ended after \(took.map { String(format: "%.0f ms", $0 * 1000) } ?? "-"), exit \(serve.process.terminationStatus); stdout \(serve.standardOutput.debugDescription)")
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 0, "\(serve.standardError)")
        #expect(took.map { $0 < deadline } == true, "ended within its deadline (\(deadline) s)")
        #expect(!serve.standardError.contains("interrupted"), "the graceful end, not the watchdog: \(serve.standardError)")
        #expect(serve.standardOutput.contains("stopped; served 1 commands"), "the summary: \(serve.standardOutput)")
        #expect(serve.standardOutput.contains("xruns ") && serve.standardOutput.contains("memory: locked"), "the --verbose statistics")
        // A fade, not a cut: the last millisecond before silence is a fraction of the loop's level
        // (the stop fade is 5 ms long, linear).
        let h = Self.channel(rec, 2)
        let last = try #require(h.lastIndex { $0 != 0 })
        let level = h[heard..<(heard + 24_000)].map(abs).max() ?? 0
        let end = h[max(0, last - 48)...last].map(abs).max() ?? 0
        print("serve rig signal \(signal): loop peak \(level), last millisecond peak \(end)")
        #expect(end < 0.35 * level, "faded: the last millisecond peaks at \(end) against the loop's \(level)")
    }

    // MARK: - helpers

    /// A continuous 1 s event (a loop of it is a steady level).
    static func humAHAP(intensity: Double) -> String {
        """
        {"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticContinuous", "EventDuration": 1.0,
          "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \(intensity)},
                              {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}]}
        """
    }

    /// A copy of Haptics/ with hum.ahap added, in a temporary folder.
    static func hapticsWithHum() throws -> String {
        let folder = NSTemporaryDirectory() + "hapticsynth-serve-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in try FileManager.default.contentsOfDirectory(atPath: oscRepoRoot + "/Haptics") where file.hasSuffix(".ahap") {
            try FileManager.default.copyItem(atPath: oscRepoRoot + "/Haptics/" + file, toPath: folder + "/" + file)
        }
        try humAHAP(intensity: 1).write(toFile: folder + "/hum.ahap", atomically: true, encoding: .utf8)
        return folder
    }
}
