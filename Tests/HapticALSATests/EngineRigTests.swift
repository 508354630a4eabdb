import HapticTestSupport
import CAllocationCounter
import Foundation
import HapticPattern
import HapticRender
import Synchronization
import Testing

@testable import HapticALSA
@testable import HapticEngine
import HapticEngineTesting
import HapticALSATesting

/// The engine end to end through a real sound server (scripts/rig.sh: PulseAudio null sinks,
/// the ALSA pulse plugin). Every test records what reached the server from the sink's monitor
/// (ALSACaptureDevice, S16 like the sink). The mono sink carries the default layout
/// (`.hapticMono`). Large periods (1024) wherever timing is not the point: CI machines are
/// noisy. Serialized: one server, and two tests stop it.
@Suite("HapticEngine through the PulseAudio rig", .serialized, .enabled(if: Rig.isRunning, "needs scripts/rig.sh"))
struct EngineRigTests {
    static let rate = 48_000

    /// An engine on `pcm` (real render thread, real ALSA device).
    func makeEngine(_ pcm: String = Rig.outMono, period: Int = 1024, bufferPeriods: Int = 3,
                    layout: ChannelLayout = .hapticMono,
                    configure: (inout HapticEngine.Configuration) -> Void = { _ in }) -> HapticEngine {
        var configuration = HapticEngine.Configuration(layout: layout, periodFrames: period, bufferPeriods: bufferPeriods)
        configuration.lockMemory = false  // the test process is large; locking it proves nothing here
        configure(&configuration)
        return HapticEngine(configuration: configuration) { ALSAOutputDevice(name: pcm) }
    }

    /// A recorder on the mono sink's monitor, reading once it returns.
    func recorder(_ pcm: String = Rig.inputMono, channels: Int = 1, seconds: Double) throws -> ALSACaptureDevice {
        let capture = ALSACaptureDevice(name: pcm, channels: channels, sampleRate: Self.rate, periodFrames: 1024,
                                        bufferFrames: 8192, seconds: seconds)
        try capture.start()
        try #require(capture.waitForFrames(1, timeout: 10), "the monitor delivers")
        return capture
    }

    /// Waits (bounded) until the engine's schedule grid has settled (after it, starts Δ apart are
    /// round(Δ·fs) frames apart unless a counted correction falls between them).
    func waitUntilSettled(_ engine: HapticEngine) throws {
        try #require(wait(seconds: 30) { engine.frameMapping.isSettled }, "the schedule grid settles")
    }

    /// Waits (bounded) until every player has finished and the recording holds `frames` frames
    /// past the last sound, then stops the engine and the recording.
    func finish(_ engine: HapticEngine, _ capture: ALSACaptureDevice, silence frames: Int = 9600) -> ALSARecording {
        #expect(wait(seconds: 60) { engine.activeVoiceCount == 0 }, "the players finished")
        #expect(capture.waitForWholeSound(silence: frames), "the sound has come and gone")
        engine.stop()
        return capture.stop()
    }

    /// The pattern rendered offline for the mono layout (as `hapticsynth render` writes it).
    func offline(_ pattern: PreparedPattern, profile: ActuatorProfile, tail: Double = 0.05) -> [Float] {
        var stream = OfflineRenderStream(pattern: pattern, profile: profile, layout: .hapticMono, tail: tail)
        var out = [Float](repeating: 0, count: stream.totalFrames)
        let n = out.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: $0.count) }
        return Array(out[0..<n])
    }

    /// Recorded frames where a sound starts: the first non-zero sample after at least
    /// `minimumSilence` zero samples.
    func onsets(_ samples: [Int16], channels: Int = 1, minimumSilence: Int = 2400) -> [Int] {
        var result: [Int] = []
        var zeros = minimumSilence
        for f in 0..<(samples.count / channels) {
            if samples[f * channels] == 0 {
                zeros += 1
            } else {
                if zeros >= minimumSilence { result.append(f) }
                zeros = 0
            }
        }
        return result
    }

    /// Waits (bounded) until `condition` holds; returns whether it did.
    @discardableResult
    func wait(seconds: Double, _ condition: () -> Bool) -> Bool { waitUntil(seconds: seconds, condition) }

    func threadCount() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1 }
    func fdCount() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1 }

    static let transient = AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))])

    // MARK: - content

    @Test("a pattern played live records the offline render's samples (within 16-bit precision)")
    func liveEqualsOffline() throws {
        let engine = makeEngine()
        let pattern = try engine.prepare(AHAPPattern(elements: [
            .event(.transient(at: 0, intensity: 1, sharpness: 0.3)),
            .event(.transient(at: 0.05, intensity: 0.6, sharpness: 0.8)),
            .event(.continuous(at: 0.1, duration: 0.3, intensity: 0.7, sharpness: 0.2)),
            .event(.transient(at: 0.45, intensity: 0.9, sharpness: 0.6)),
        ]))
        // With the output stage's tail (high-pass and limiter release ring out to S16 zero).
        let reference = offline(pattern, profile: engine.configuration.profile, tail: 0.4)
        let capture = try recorder(seconds: 4)
        try engine.start()
        try engine.makePlayer(with: pattern).start(atTime: engine.currentTime + 0.3)
        let rec = finish(engine, capture, silence: reference.count)
        #expect(rec.overruns == 0 && rec.errors.isEmpty, "capture: \(rec.overruns) overruns, \(rec.errors)")
        let s = rec.int16Samples
        let first = try #require(s.firstIndex { $0 != 0 }, "nothing recorded")
        let refFirst = try #require(reference.firstIndex { ($0 * 32768).rounded() != 0 })
        let start = first - refFirst
        try #require(start >= 0 && start + reference.count <= s.count)
        var worst: Float = 0
        for i in 0..<reference.count {
            worst = max(worst, abs(Float(s[start + i]) - reference[i] * 32768))
        }
        print("engine rig: live vs offline over \(reference.count) frames: worst |Δ| = \(worst) LSB")
        // The server rounds float to S16: ≤ 0.5 LSB, plus float-summation differences (≪ 1 LSB).
        #expect(worst <= 1.0, "live differs from offline by \(worst) LSB")
        #expect(reference.map { abs($0) }.max()! > 0.1, "the pattern is loud enough to compare")
        #expect(s[(start + reference.count)...].allSatisfy { $0 == 0 }, "silence after the pattern")
    }

    // MARK: - timing

    /// Onsets scheduled Δ = 0.25 s apart on CLOCK_MONOTONIC are exactly 12000 frames apart in the
    /// recording, for several period sizes (a counted grid correction moves later onsets by its
    /// step). Absolute: recorded time (capture stamps) − scheduled time − those steps =
    /// −(one playback period) + e with e in [−6, +3] ms. Why: the null sink renders a block
    /// as large as the stream's requested latency ahead of the time it reports as played, and
    /// its monitor delivers the block when it is rendered, so the monitor hears everything one
    /// client period early (measured: −5.2 ms at period 256, −9.6 ms at 480, −20.8 ms at
    /// 1024, i.e. −period + 0.1…0.5 ms); on top, the capture stamps' own early bias of 1–5 ms
    /// (alsa-rig README), the schedule grid's tolerance (`scheduleDriftToleranceSeconds`, 2 ms),
    /// and the filter's error through pulse (≈ 0.05–0.2 ms).
    @Test("scheduled onsets Δ apart are round(Δ·fs) frames apart; absolute times within the monitor's bias",
          arguments: [256, 480, 1024])
    func scheduledSpacingIsExact(period: Int) throws {
        // A run in which the server logged an underrun of a stream is measured again (up to
        // three times): the server then played silence the engine never wrote, and the monitor
        // heard everything after it that much later (3 failures in ~25 suite runs, e.g. one
        // spacing 12157 frames where the engine applied 11902, its grid corrections following the
        // delay; rerun with the server's log read, the same mismatch, 12079 against 11824, came
        // with a logged underrun). That is the server's doing, told apart by its own log
        // (RigServerLog), so the comparison below stays exact. So is a run in which the engine
        // counted an xrun (its render thread starved by a loaded machine; seen once in a fresh
        // clone's suite, with the spacing exact): the engine's own count says so.
        var attempt = 0
        var run: SpacingRun
        repeat {
            attempt += 1
            run = try measureSpacing(period: period)
            if run.disturbed {
                print("engine rig period \(period): attempt \(attempt): \(run.serverUnderruns) server underruns, \(run.xruns) engine xruns and \(run.captureOverruns) capture overruns during it (spacing \(run.spacing), applied \(run.appliedSpacing)); measured again")
            }
        } while run.disturbed && attempt < 3
        try #require(!run.disturbed, "the server underran, the engine overran or the capture lost periods in each of \(attempt) attempts: too loaded to compare frames")
        let (engine, rec, found, spacing, applied, appliedSpacing, corrections, base, delta) =
            (run.engine, run.recording, run.found, run.spacing, run.applied, run.appliedSpacing, run.corrections, run.base, run.delta)
        #expect(rec.overruns == 0 && rec.errors.isEmpty)
        // What the server received is what the render side applied, to the frame.
        #expect(spacing == appliedSpacing, "recorded spacing \(spacing), applied \(appliedSpacing)")
        // Applied: exactly round(Δ·fs) apart, except across a counted grid correction (a loaded
        // machine's timestamps can push the grid past its tolerance), which moves it by the
        // tolerance plus what the filter can move in the one period before it is noticed (its
        // rate is clamped to ±0.5 %; a CI run at period 1024 saw steps of 97–101 frames).
        let nominal = Int((delta * Double(Self.rate)).rounded())
        let tolerance = Int(engine.configuration.scheduleDriftToleranceSeconds * Double(Self.rate)
                            + 0.005 * Double(period)) + 1
        let off = appliedSpacing.filter { $0 != nominal }
        #expect(off.count <= corrections && off.allSatisfy { abs($0 - nominal) <= tolerance },
                "spacing \(appliedSpacing), \(corrections) grid corrections meanwhile")
        // A counted correction moves every later onset by its step; the absolute window below
        // holds for the grid the engine applied (the first onset's, shifted by the corrections
        // before each onset), and the shifts themselves are bounded by the corrections' steps.
        let shiftMs = applied.indices.map { k in
            Double(Int(applied[k] - applied[0]) - k * nominal) * 1000 / Double(Self.rate)
        }
        #expect(shiftMs.allSatisfy { abs($0) <= Double(corrections * tolerance) * 1000 / Double(Self.rate) },
                "grid shifts (ms) \(shiftMs) for \(corrections) corrections")
        var errors: [Double] = []
        for (k, frame) in found.enumerated() {
            let at = try #require(rec.monotonicNanos(ofFrame: frame))
            errors.append((Double(at) / 1e9 - (base + Double(k) * delta)) * 1000 - shiftMs[k])
        }
        print("engine rig period \(period): recorded − scheduled − grid shift (ms): \(errors.map { ($0 * 100).rounded() / 100 }), grid shifts (ms) \(shiftMs.map { ($0 * 100).rounded() / 100 })")
        let periodMs = Double(period) * 1000 / Double(Self.rate)
        // Window: the monitor hears a stream up to one client period early (a quiet server: one
        // period; a loaded one, whose reads lag, less: a fresh-clone run at load 4 heard the first
        // five onsets on time and the last three a period early, with the spacing exact) and its
        // stamps are 1–5 ms early (../shared/alsa-rig notes), and the schedule grid may stray from
        // the server's clock by up to its drift tolerance (2 ms) before it is corrected. The exact
        // figure is the latency benchmarks' (bench/RESULTS.md), on a quiet machine.
        let slack = engine.configuration.scheduleDriftToleranceSeconds * 1000
        #expect(errors.allSatisfy { $0 + periodMs >= -6 - slack && $0 <= 3 + slack },
                "absolute errors (ms) \(errors), period \(periodMs) ms")
        #expect(engine.lateCommandCount == 0)
    }

    /// One run of `scheduledSpacingIsExact`: eight transients scheduled Δ apart, recorded.
    struct SpacingRun {
        var engine: HapticEngine
        var recording: ALSARecording
        var found: [Int]
        var spacing: [Int]
        var applied: [Int64]
        var appliedSpacing: [Int]
        var corrections: Int
        var base: Double
        var delta: Double
        var serverUnderruns: Int
        /// Engine xruns from the first start scheduled to the last voice's end.
        var xruns: Int
        /// Periods the capture lost (a gap in the recording moves or splits an onset).
        var captureOverruns: Int
        var disturbed: Bool { serverUnderruns > 0 || xruns > 0 || captureOverruns > 0 }
    }

    func measureSpacing(period: Int) throws -> SpacingRun {
        let engine = makeEngine(period: period) { $0.appliedCommandTraceCapacity = 64 }
        let pattern = try engine.prepare(Self.transient)
        let reference = offline(pattern, profile: engine.configuration.profile)
        let refFirst = try #require(reference.firstIndex { ($0 * 32768).rounded() != 0 })
        let capture = try recorder(seconds: 60)
        try engine.start()
        // Schedule once the grid has settled (before, it follows the timestamp filter, whose
        // first pulse stamps are ~50 ms off).
        try waitUntilSettled(engine)
        let underrunsBefore = try #require(RigServerLog.underrunCount(), "the rig's server log")
        let correctionsBefore = engine.scheduleCorrectionCount
        let xrunsBefore = engine.xrunCount
        let base = engine.currentTime + 0.9
        let delta = 0.25
        let count = 8
        for k in 0..<count { try engine.makePlayer(with: pattern).start(atTime: base + Double(k) * delta) }
        // The server's count is taken while the stream still runs (its end is no underrun).
        #expect(wait(seconds: 60) { engine.activeVoiceCount == 0 }, "the players finished")
        let underruns = (RigServerLog.underrunCount() ?? underrunsBefore) - underrunsBefore
        let xruns = engine.xrunCount - xrunsBefore
        let rec = finish(engine, capture)
        let found = onsets(rec.int16Samples).map { $0 - refFirst }
        let spacing = zip(found, found.dropFirst()).map { $1 - $0 }
        let applied = engine.appliedStarts().map(\.frame).sorted()
        let appliedSpacing = zip(applied, applied.dropFirst()).map { Int($1 - $0) }
        let corrections = engine.scheduleCorrectionCount - correctionsBefore
        print("engine rig period \(period): onsets \(found.count), spacing \(spacing), applied \(appliedSpacing), xruns \(xruns) (\(engine.xrunCount) since the start), grid corrections meanwhile \(corrections), server underruns \(max(0, underruns)), capture overruns \(rec.overruns)")
        let run = SpacingRun(engine: engine, recording: rec, found: found, spacing: spacing, applied: applied,
                             appliedSpacing: appliedSpacing, corrections: corrections, base: base, delta: delta,
                             serverUnderruns: max(0, underruns), xruns: xruns, captureOverruns: rec.overruns)
        // A disturbed run is measured again by the caller (an underrun's gap can split an onset
        // in two: a CI run on a loaded machine found 9 of 8); an undisturbed one must be whole.
        if !run.disturbed {
            try #require(found.count == count, "onsets found: \(found)")
            try #require(applied.count == count, "applied starts: \(applied)")
        }
        return run
    }

    // MARK: - many players

    /// 1000 players started from 4 threads at once (the calls race), scheduled 3 ms apart
    /// (T + i·3 ms, so that a debug build renders the ~15 overlapping voices in real time): the
    /// recording must equal the offline render of one pattern holding the 1000 events at the
    /// frames the render side applied (within 16-bit precision). Built from the applied frames, the reference holds even if the schedule grid is
    /// corrected while the starts play (a loaded machine's timestamps can push it past its
    /// tolerance); a lost voice would leave out a transient whose peak is checked to be many LSB.
    @Test("a thousand players started from several threads at once all play")
    func thousandPlayers() async throws {
        // 6 periods of buffer (128 ms): a debug build on a loaded 2-core machine.
        let engine = makeEngine(bufferPeriods: 6) {
            $0.maxVoices = 2048
            $0.appliedCommandTraceCapacity = 4096
        }
        let spacing = 0.003
        let one = AHAPPattern(elements: [.event(.transient(at: 0, intensity: 0.01, sharpness: 0.5))])
        let pattern = try engine.prepare(one)
        let single = offline(pattern, profile: engine.configuration.profile)
        let voicePeak = single.map { abs($0) * 32768 }.max()!
        #expect(voicePeak > 8, "one voice peaks at \(voicePeak) LSB: a lost voice would show")
        let capture = try recorder(seconds: 60)
        try engine.start()
        try waitUntilSettled(engine)
        let players = try (0..<1000).map { _ in try engine.makePlayer(with: pattern) }
        let t = engine.currentTime + 0.8
        let failures = Counter()
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for i in stride(from: thread, to: 1000, by: 4) {
                        do { try players[i].start(atTime: t + Double(i) * spacing) } catch { failures.bump() }
                    }
                }
            }
        }
        #expect(failures.count == 0)
        let rec = finish(engine, capture)
        let applied = engine.appliedStarts().map(\.frame).sorted()
        #expect(applied.count == 1000, "voices the render side started: \(applied.count)")
        guard let origin = applied.first else { return }
        // One pattern holding the 1000 events at the applied frames (onset round(t·fs) = the frame).
        let reference = offline(try engine.prepare(AHAPPattern(elements: applied.map {
            .event(.transient(at: Double($0 - origin) / Double(Self.rate), intensity: 0.01, sharpness: 0.5))
        })), profile: engine.configuration.profile)
        #expect(reference.map { abs($0) }.max()! < 0.9, "no limiting: voices add")
        let s = rec.int16Samples
        let refFirst = try #require(reference.firstIndex { ($0 * 32768).rounded() != 0 })
        let first = try #require(s.firstIndex { $0 != 0 })
        let start = first - refFirst
        try #require(start >= 0 && start + reference.count <= s.count, "recording \(s.count) frames, onset at \(first)")
        var worst: Float = 0
        var firstBad = -1
        for i in 0..<reference.count {
            let d = abs(Float(s[start + i]) - reference[i] * 32768)
            if d > 1 && firstBad < 0 { firstBad = i }
            worst = max(worst, d)
        }
        let gaps = zip(applied, applied.dropFirst()).map { $1 - $0 }
        print("engine rig: 1000 players vs the offline render of 1000 events at the applied frames: worst |Δ| \(worst) LSB (one voice peaks at \(voicePeak) LSB), first mismatch at \(firstBad), xruns \(engine.xrunCount), grid corrections \(engine.scheduleCorrectionCount), start spacing \(Set(gaps).sorted()) frames")
        #expect(worst <= 1.0)
        #expect(gaps.allSatisfy { abs($0 - 144) <= 1 || abs($0 - 144) >= 90 }, "3 ms = 144 frames apart, except across a grid correction")
        #expect(engine.xrunCount == 0)
        #expect(engine.core.mixer.droppedCommandCount.load(ordering: .relaxed) == 0)
        #expect(engine.lateCommandCount == 0)
    }

    // MARK: - faults

    /// A starved render thread (300 ms asleep, 64 ms of buffer) shows up as a counted xrun;
    /// playback continues, and onsets scheduled after the stall keep their times: the mapping
    /// re-locks on the server's timestamps after the xrun, so the stall's 300 ms are neither
    /// lost nor counted twice. On a quiet machine the onsets after it land within 1 ms of
    /// Δ·fs from those before it (2–7 frames in eleven of twelve fresh-clone suites; printed).
    /// The test holds them to one period: in the twelfth, on a loaded machine (the unit tests,
    /// the fuzzer and an analysis script beside it), they landed 3.8 ms, then 5.8 ms late. The
    /// engine follows the server's timestamps, so those were most likely off after the xrun;
    /// not shown (the printed line now tells the engine's part from the recording's: each
    /// onset's time by the capture's stamps, its overruns, the grid's corrections). Among
    /// themselves the onsets after the stall are exact, or apart by a move of the schedule
    /// grid (at least its drift tolerance), never by a jitter.
    @Test("a stalled render thread gives counted xruns; onsets after it keep their schedule")
    func stalledRenderThread() throws {
        let engine = makeEngine(period: 1024, bufferPeriods: 3)
        let pattern = try engine.prepare(Self.transient)
        let reference = offline(pattern, profile: engine.configuration.profile)
        let refFirst = try #require(reference.firstIndex { ($0 * 32768).rounded() != 0 })
        let capture = try recorder(seconds: 60)
        try engine.start()
        let base = engine.currentTime + 0.9
        let delta = 0.25
        // Two onsets before the stall, none in the 1.5 s around it, four after the grid re-settled.
        let ks = [0, 1, 8, 9, 10, 11]
        for k in ks { try engine.makePlayer(with: pattern).start(atTime: base + Double(k) * delta) }
        // The stall falls between onsets 1 and 8 (the scenario's time, not a guess at readiness).
        wait(seconds: 30) { engine.currentTime >= base + 0.5 }
        engine.stallRenderThread(seconds: 0.3)
        #expect(engine.state == .running)
        let rec = finish(engine, capture)
        #expect(engine.xrunCount >= 1, "the stall was counted as an xrun")
        let found = onsets(rec.int16Samples).map { $0 - refFirst }
        try #require(found.count == ks.count, "onsets \(found)")
        let frameDelta = Int(delta * Double(Self.rate))
        var errors: [Int] = []
        for (i, k) in ks.enumerated() { errors.append(found[i] - found[0] - k * frameDelta) }
        // Where a late onset comes from (the engine's mapping, or the recording): each onset's
        // time by the capture's own stamps against its scheduled time. Late there too: the
        // engine placed it late (its mapping after the xrun); on time there but late in frames:
        // the recording lost or gained frames. A capture overrun and the grid's corrections say more.
        let heardMs = zip(found, ks).map { frame, k -> Double in
            guard let at = rec.monotonicNanos(ofFrame: frame) else { return .nan }
            return ((Double(at) / 1e9 - (base + Double(k) * delta)) * 1e5).rounded() / 100
        }
        print("engine rig stall: xruns \(engine.xrunCount), onset offsets from schedule (frames): \(errors); "
              + "captured − scheduled by the capture's stamps (ms): \(heardMs); capture overruns \(rec.overruns), "
              + "grid corrections \(engine.scheduleCorrectionCount)")
        #expect(errors[1] == 0)
        #expect(errors[2...].allSatisfy { abs($0) < 1024 }, "after the stall, within a period of the schedule: \(errors)")
        let gridStep = engine.configuration.scheduleDriftToleranceSeconds * Double(Self.rate)
        let after = Array(errors[2...])
        #expect(zip(after, after.dropFirst()).allSatisfy { $0 == $1 || Double(abs($1 - $0)) >= gridStep.rounded(.down) },
                "onsets after the stall exactly Δ·fs apart, or apart by a move of the grid (at least \(gridStep) frames): \(errors)")
        #expect(engine.lateCommandCount == 0)
    }

    @Test("a bad device name, no server, and a device without the channel count: clear errors, quickly")
    func clearErrors() throws {
        let t0 = now()
        let bad = makeEngine("hs_no_such_pcm")
        #expect(throws: HapticEngineError.self) { try bad.start() }
        do { try bad.start() } catch {
            print("engine rig bad name: \(error)")
            #expect(error.description.contains("hs_no_such_pcm"))
            if case .deviceUnavailable = error {} else { Issue.record("expected deviceUnavailable, got \(error)") }
        }
        #expect(bad.state == .unavailable)
        #expect(now() - t0 < 2)

        let t1 = now()
        let stereo = makeEngine(Rig.stereoOnly, layout: .stereoPlusHaptic)
        do {
            try stereo.start()
            Issue.record("3 channels on a 2-channel device started")
        } catch {
            print("engine rig 3 ch on stereo-only: \(error)")
            #expect(error.description.contains("3") && error.description.contains("channel"))
        }
        #expect(stereo.state == .unavailable)
        #expect(now() - t1 < 2)

        #expect(try Rig.control("stop-server") == 0)
        defer { _ = try? Rig.control("start-server") }
        let t2 = now()
        let noServer = makeEngine()
        do {
            try noServer.start()
            Issue.record("started without a server")
        } catch {
            print("engine rig no server: \(error) (\(Int((now() - t2) * 1000)) ms)")
            #expect(error.description.contains(Rig.outMono))
        }
        #expect(noServer.state == .unavailable)
        #expect(now() - t2 < 2)
        if case .failure = noServer.probeDevice() {} else { Issue.record("probe found a device without a server") }
    }

    /// Kill the server mid-pattern: stoppedHandler within a bound; restart it: the engine
    /// recovers by itself (the same ALSA handle object reopens: no reset needed, and
    /// resetHandler is called exactly when the history shows a reset), a new pattern plays and
    /// is recorded. Every call is bounded; threads and descriptors return to their count.
    @Test("killing the server mid-pattern: stoppedHandler, recovery after restart, new pattern plays; no leaks, no blocking")
    func serverKilledAndRestarted() throws {
        // Warm-up: the pulse plugin's first use loads libraries (and their descriptors) for good;
        // Foundation's Process (rig.sh control) keeps an event loop's descriptors once used.
        _ = try Rig.control("server-pid")
        let threadsAtFirst = threadCount()
        do {
            let warm = makeEngine()
            try warm.start()
            #expect(wait(seconds: 10) { warm.renderStatistics.periods > 2 }, "the warm-up engine renders")
            warm.stop()
        }
        // Its service thread ends within a poll.
        wait(seconds: 5) { threadCount() <= threadsAtFirst }
        let threadsBefore = threadCount(), fdsBefore = fdCount()
        var worstCall = 0.0
        func timed<T>(_ body: () throws -> T) rethrows -> T {
            let t0 = now()
            defer { worstCall = max(worstCall, now() - t0) }
            return try body()
        }
        do {
            let engine = makeEngine()
            let reasons = Recorder<HapticEngine.StoppedReason>()
            let resets = Counter()
            engine.stoppedHandler = { reasons.append($0) }
            engine.resetHandler = { resets.bump() }
            try timed { try engine.start() }
            let long = try engine.prepare(AHAPPattern(elements: [.event(.continuous(at: 0, duration: 5, intensity: 0.5, sharpness: 0.3))]))
            try timed { try engine.makePlayer(with: long).start(atTime: 0) }
            #expect(wait(seconds: 10) { engine.renderStatistics.periods > 5 }, "playing")
            let killedAt = now()
            #expect(try Rig.control("stop-server") == 0)
            #expect(wait(seconds: 2) { reasons.all.count == 1 }, "stoppedHandler called")
            print("engine rig kill: stoppedHandler \(reasons.all) after \(Int((now() - killedAt) * 1000)) ms; state \(engine.state)")
            // Calls while the server is down answer at once.
            #expect(timed { engine.state } == .degraded)
            #expect(throws: HapticEngineError.self) { try timed { try engine.makePlayer(with: long).start(atTime: 0) } }
            usleep(300_000)  // the scenario: the server stays away a little longer
            #expect(try Rig.control("start-server") == 0)
            let restartedAt = now()
            #expect(wait(seconds: 8) { engine.state == .running }, "recovered after the restart")
            print("engine rig restart: running again after \(Int((now() - restartedAt) * 1000)) ms; history \(engine.stateHistory), resets \(resets.count)")
            #expect(resets.count == (engine.stateHistory.contains(.reset) ? 1 : 0))
            let capture = try recorder(seconds: 60)
            let pattern = try engine.prepare(Self.transient)
            try timed { try engine.makePlayer(with: pattern).start(atTime: engine.currentTime + 0.3) }
            #expect(capture.waitForWholeSound())
            timed { engine.stop() }
            let rec = capture.stop()
            #expect(onsets(rec.int16Samples).count == 1, "the new pattern was recorded")
            #expect(reasons.all.count == 1)
        }
        // The engine is gone: its service thread ends within a poll.
        #expect(wait(seconds: 2) { threadCount() <= threadsBefore }, "threads \(threadsBefore) -> \(threadCount())")
        #expect(fdCount() <= fdsBefore, "descriptors \(fdsBefore) -> \(fdCount())")
        print("engine rig kill: threads \(threadsBefore) -> \(threadCount()), fds \(fdsBefore) -> \(fdCount()), slowest call \(Int(worstCall * 1000)) ms")
        #expect(worstCall < 1.5, "a call blocked for \(worstCall) s")
    }

    // MARK: - real time

    /// A busy minute through the real device with the render thread tracked by the allocation
    /// counter. The pulse plugin's snd_pcm_writei / snd_pcm_status (alsa-lib, libpulse: out of our
    /// control) are untracked by a thin wrapper around the device's write and timestamp calls;
    /// everything else the render thread runs (commands, voices, mix, output stage, mapping,
    /// statistics) is counted and must allocate nothing.
    @Test("zero allocations on the render thread during a busy minute through the real device")
    func busyMinuteWithoutAllocation() throws {
        var configuration = HapticEngine.Configuration(layout: .hapticMono, periodFrames: 1024, bufferPeriods: 3)
        configuration.lockMemory = false
        let tally = allocation_tally_open()
        configuration.renderThreadDidStart = { allocation_tally_track_current_thread(tally) }
        configuration.maxVoices = 1024
        let engine = HapticEngine(configuration: configuration) { UntrackedWrites(ALSAOutputDevice(name: Rig.outMono)) }
        try engine.start()
        let pattern = try engine.prepare(AHAPPattern(elements: [
            .event(.transient(at: 0, intensity: 0.2, sharpness: 0.5)),
            .event(.continuous(at: 0.01, duration: 0.3, intensity: 0.2, sharpness: 0.3)),
            .event(.transient(at: 0.2, intensity: 0.1, sharpness: 0.9)),
        ]))
        let end = now() + 60
        var i = 0
        var players: [AdvancedPatternPlayer] = []
        while now() < end {
            let player = try engine.makeAdvancedPlayer(with: pattern)
            try player.start(atTime: i % 2 == 0 ? 0 : engine.currentTime + 0.05)
            try player.sendParameters([DynamicParameter(.hapticIntensityControl, time: 0, value: 0.5)], atTime: 0)
            try player.scheduleParameterCurve(ParameterCurve(.hapticSharpnessControl, time: 0, points: [.init(0, 0), .init(0.1, 0.5)]), atTime: 0)
            if i % 5 == 0 { player.isMuted = true }
            if i % 7 == 0 { player.playbackRate = 1.5 }
            if i % 13 == 0 { try player.pause(atTime: 0); try player.resume(atTime: engine.currentTime + 0.01) }
            if i % 17 == 0 { try player.cancel() }
            players.append(player)
            if players.count > 200 { players.removeFirst(100) }
            i += 1
            usleep(10_000)  // the workload's pace: a hundred players a second
        }
        let statistics = engine.renderStatistics
        engine.stop()
        let count = allocation_tally_count(tally)
        print("engine rig busy minute: \(i) players, \(statistics.periods) periods, xruns \(engine.xrunCount), allocations on the render thread \(count)")
        // The count means something only if the render thread worked through much of the minute;
        // how much of it is the machine's business (a loaded CI machine rendered 1,680 of 2,812
        // periods with 239 xruns), so the bound is a fifth, not a speed figure.
        #expect(statistics.periods > 560, "the render thread ran \(statistics.periods) periods of ~2,812")
        #expect(count == 0, "allocations on the render thread: \(count)")
    }
}

/// Forwards to a device, untracking the calling thread around the calls into alsa-lib's pulse
/// plugin (write, timestamp, recover), which may allocate inside libpulse.
final class UntrackedWrites: OutputDevice {
    let device: any OutputDevice
    init(_ device: any OutputDevice) { self.device = device }
    var name: String { device.name }
    var framesWrittenBeforeFault: Int { device.framesWrittenBeforeFault }
    func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat { try device.open(requested: requested) }
    func write(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault? {
        let tally = allocation_tally_current()
        allocation_tally_track_current_thread(0)
        defer { allocation_tally_track_current_thread(tally) }
        return device.write(samples, frames: frames)
    }
    func timestamp() -> DeviceTimestamp? {
        let tally = allocation_tally_current()
        allocation_tally_track_current_thread(0)
        defer { allocation_tally_track_current_thread(tally) }
        return device.timestamp()
    }
    func recover(from fault: DeviceFault) -> Bool {
        let tally = allocation_tally_current()
        allocation_tally_track_current_thread(0)
        defer { allocation_tally_track_current_thread(tally) }
        return device.recover(from: fault)
    }
    func close() { device.close() }
}

