import HapticTestSupport
import Testing
@testable import HapticEngine
import HapticEngineTesting
import HapticPattern
import HapticRender
import CAllocationCounter
import Synchronization

/// What reaches the (virtual) device: the samples themselves.
@Suite struct OutputTests {
    /// The pattern rendered offline through the same output stage, `frames` long.
    func offline(_ pattern: PreparedPattern, frames: Int, profile: ActuatorProfile) -> [Float] {
        let buffers = UnsafeMutablePointer<Float>.allocate(capacity: frames * 4)
        defer { buffers.deallocate() }
        buffers.initialize(repeating: 0, count: frames * 4)
        let bus = MixBus(haptic: buffers, audioLeft: buffers + frames, audioRight: buffers + 2 * frames, frames: frames)
        var voice = PatternVoice(pattern: pattern)
        voice.render(into: bus)
        var stage = OutputStage(profile: profile, sampleRate: 48_000, layout: .hapticMono)
        stage.process(bus, into: buffers + 3 * frames)
        return Array(UnsafeBufferPointer(start: buffers + 3 * frames, count: frames))
    }

    @Test(arguments: [100, 256, 1024])
    func scheduledPatternPlaysTheOfflineSamplesFromItsExactFrame(period: Int) throws {
        let (engine, factory, clock) = makeManualEngine(period: period)
        try engine.start()
        for _ in 0..<10 { engine.renderOnePeriod() }
        let pattern = try engine.prepare(AHAPPattern(elements: [
            .event(.transient(at: 0, intensity: 1, sharpness: 0.3)),
            .event(.transient(at: 0.05, intensity: 0.6, sharpness: 0.8)),
            .event(.continuous(at: 0.1, duration: 0.1, intensity: 0.7, sharpness: 0.2)),
        ]))
        let t = clock.seconds + 0.1234567
        try engine.makePlayer(with: pattern).start(atTime: t)
        renderUntil(engine) { clock.seconds > t + pattern.duration + 0.2 }
        let device = factory.first
        let start = device.recordedFrame(playingAt: t * 1e9)!
        let recorded = device.recordedSamples(channel: 0)
        let length = Int(pattern.duration * 48_000)
        // The voice is rendered the output stage's look-ahead early, so the frame that plays at
        // t carries the onset: compare with the offline render minus that delay (as
        // `hapticsynth render` writes it).
        let latency = Int(engine.core.scheduleAdvanceFrames)
        #expect(latency > 0)
        let reference = Array(offline(pattern, frames: length + latency, profile: engine.configuration.profile)[latency...])
        #expect(reference.contains { abs($0) > 0.01 }, "the pattern is audible")
        #expect(recorded[(start - 200)..<start].allSatisfy { $0 == 0 }, "silence before the scheduled frame")
        let live = Array(recorded[start..<(start + length)])
        let worst = zip(live, reference).map { abs($0 - $1) }.max()!
        // Within float rounding of differently split renders (≈ −100 dBFS, below a 16-bit LSB).
        #expect(worst < 1e-5, "live differs from offline by \(worst)")
    }

    @Test func stopFadesOutOverAFewMillisecondsThenSilence() throws {
        let (engine, factory, _) = makeManualEngine(period: 256)
        try engine.start()
        let pattern = try engine.prepare(AHAPPattern(elements: [.event(.continuous(at: 0, duration: 5, intensity: 1, sharpness: 0.5))]))
        try engine.makePlayer(with: pattern).start(atTime: 0)
        for _ in 0..<40 { engine.renderOnePeriod() }
        let fadeStart = factory.first.framesWritten
        engine.stop()
        let x = factory.first.recordedSamples(channel: 0)
        let peak = x[..<fadeStart].map(abs).max()!
        #expect(peak > 0.05)
        let fadeFrames = 240  // 5 ms at 48 kHz
        for i in 0..<fadeFrames {
            let bound = peak * (1 - Float(i + 1) / Float(fadeFrames)) + 1e-5
            #expect(abs(x[fadeStart + i]) <= bound, "frame \(i) of the fade")
            if abs(x[fadeStart + i]) > bound { break }
        }
        #expect(x[(fadeStart + fadeFrames)...].allSatisfy { $0 == 0 })
        #expect(x.count - fadeStart >= fadeFrames + 768, "a buffer of silence follows the fade")
    }

    @Test func aThousandPlayersStartedFromSeveralThreadsAllPlay() async throws {
        let (engine, _, clock) = makeManualEngine(period: 256, maxVoices: 1100, trace: 8192)
        try engine.start()
        for _ in 0..<5 { engine.renderOnePeriod() }
        let pattern = try preparedTransient(engine)
        let completions = Counter()
        let startedAll = Counter()
        let threads = 4, perThread = 250
        try await withThrowingTaskGroup(of: Void.self) { group in
            for k in 0..<threads {
                group.addTask {
                    for i in 0..<perThread {
                        let player = try engine.makeAdvancedPlayer(with: pattern)
                        player.completionHandler = { error in if error == nil { completions.bump() } }
                        // Half immediate, half scheduled a little ahead.
                        try player.start(atTime: i % 2 == 0 ? 0 : clock.seconds + 0.01 * Double(k + 1))
                        startedAll.bump()
                        if i % 50 == 0 { await Task.yield() }
                    }
                }
            }
            // This task drives the device meanwhile.
            while startedAll.count < threads * perThread { engine.renderOnePeriod(); await Task.yield() }
            try await group.waitForAll()
        }
        renderUntil(engine, limit: 5000) { completions.count == threads * perThread }
        #expect(completions.count == threads * perThread)
        #expect(engine.core.appliedCommands().filter { $0.kind == .start }.count == threads * perThread)
        #expect(engine.activeVoiceCount == 0)
        #expect(engine.core.mixer.droppedCommandCount.load(ordering: .relaxed) == 0)
    }
}

/// The render thread itself (thread drive). Serialized: each test runs a render thread flat out
/// (allocations are counted per thread, by the tallies, so they could not mix).
@Suite(.serialized) struct RenderThreadTests {
    @Test func allocationCounterSeesAllocations() {
        #expect(allocation_counter_is_active() == 1)
        let tally = allocation_tally_open()
        let untouched = allocation_tally_open()
        allocation_tally_track_current_thread(tally)
        let a = [Int](repeating: 1, count: 100)
        allocation_tally_track_current_thread(0)
        #expect(a.count == 100)
        #expect(allocation_tally_count(tally) >= 1)
        #expect(allocation_tally_count(untouched) == 0, "a tally counts only the threads that track it")
    }

    @Test func renderThreadNeverAllocatesDuringABusyRun() throws {
        let clock = ManualClock()
        let factory = DeviceFactory(clock: .manual(clock))
        var configuration = HapticEngine.Configuration(periodFrames: 128, bufferPeriods: 3)
        configuration.clock = .manual(clock)  // free-running: the device advances the clock, the thread renders flat out
        configuration.realtimePriority = nil  // a spinning FIFO thread would starve a 2-core machine
        configuration.lockMemory = false
        let tally = allocation_tally_open()
        configuration.renderThreadDidStart = { allocation_tally_track_current_thread(tally) }
        let engine = HapticEngine(configuration: configuration) { factory.make() }
        try engine.start()
        let pattern = try engine.prepare(AHAPPattern(elements: [
            .event(.transient(at: 0, intensity: 1, sharpness: 0.5)),
            .event(.continuous(at: 0.01, duration: 0.2, intensity: 0.8, sharpness: 0.3)),
            .event(.transient(at: 0.15, intensity: 0.5, sharpness: 0.9)),
        ]))
        var players: [AdvancedPatternPlayer] = []
        for i in 0..<600 {
            let player = try engine.makeAdvancedPlayer(with: pattern)
            try player.start(atTime: i % 3 == 0 ? 0 : clock.seconds + 0.05)
            try player.sendParameters([DynamicParameter(.hapticIntensityControl, time: 0, value: 0.5)], atTime: 0)
            try player.scheduleParameterCurve(ParameterCurve(.hapticSharpnessControl, time: 0, points: [.init(0, 0), .init(0.1, 0.5)]), atTime: 0)
            if i % 5 == 0 { player.isMuted = true }
            if i % 7 == 0 { player.playbackRate = 1.5 }
            if i % 11 == 0 { player.loopEnabled = true }
            if i % 13 == 0 { try player.pause(atTime: 0); try player.resume(atTime: clock.seconds + 0.01) }
            if i % 17 == 0 { try player.cancel() }
            players.append(player)
            if i % 20 == 0 { EngineThread.sleep(seconds: 0.002) }  // the workload's pace
        }
        // The render thread works through what the players asked for (it renders flat out).
        waitUntil(seconds: 30) { engine.renderStatistics.periods > 20 }
        engine.stop()
        let periods = engine.renderStatistics.periods
        #expect(periods > 20, "the render thread ran (\(periods) periods)")
        #expect(factory.first.framesWritten >= periods * 128)
        #expect(allocation_tally_count(tally) == 0, "allocations on the render thread: \(allocation_tally_count(tally))")
    }

    @Test func deviceLossOnTheRenderThreadReachesStoppedHandlerAndResetRecovers() throws {
        let factory = DeviceFactory(clock: .monotonic)
        var configuration = HapticEngine.Configuration(periodFrames: 256, bufferPeriods: 3)
        configuration.lockMemory = false
        configuration.restartBackoffSeconds = 0.02
        let engine = HapticEngine(configuration: configuration) { factory.make() }
        let stopped = Counter(), resets = Counter()
        engine.stoppedHandler = { _ in stopped.bump() }
        engine.resetHandler = { resets.bump() }
        try engine.start()
        let pattern = try preparedTransient(engine)
        let old = try engine.makePlayer(with: pattern)
        try old.start(atTime: 0)
        #expect(waitUntil(seconds: 10) { factory.first.framesWritten > 0 })
        factory.first.kill()
        factory.first.refuseFurtherOpens()
        let lostAt = MonotonicClock.now()
        waitUntil(seconds: 10) { stopped.count > 0 }
        #expect(stopped.count == 1, "stoppedHandler called (after \(MonotonicClock.now() - lostAt) s)")
        waitUntil(seconds: 10) { resets.count > 0 }
        #expect(resets.count == 1)
        #expect(engine.state == .running)
        #expect(throws: HapticEngineError.playerInvalidated) { try old.start(atTime: 0) }
        let fresh = try engine.makePlayer(with: pattern)
        try fresh.start(atTime: 0)
        #expect(factory.devices.count == 2)
        #expect(waitUntil(seconds: 10) { factory.devices.count == 2 && factory.devices[1].framesWritten > 0 })
        engine.stop()
        #expect(!factory.devices[1].isOpen)
        #expect(engine.state == .stopped)
        print("render thread realtime: \(engine.isRealtime); stats: \(engine.renderStatistics)")
    }
}
