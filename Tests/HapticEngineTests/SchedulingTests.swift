import Testing
@testable import HapticEngine
import HapticEngineTesting
import HapticPattern
import HapticRender

/// Sample-accurate scheduling on the virtual device: the frame at which the render
/// side applies a command is compared with the frame the device really played at
/// the scheduled monotonic time.
@Suite struct SchedulingTests {
    /// Device frames at which the applied starts reach the output: a scheduled start is applied
    /// the output stage's look-ahead (`scheduleAdvanceFrames`) early, so that its first sample
    /// leaves the stage on the frame that plays at the scheduled time.
    func startFrames(_ engine: HapticEngine) -> [Int64] {
        engine.core.appliedCommands().filter { $0.kind == .start }.map { $0.frame + engine.core.scheduleAdvanceFrames }.sorted()
    }

    @Test(arguments: [64, 100, 256, 1024])
    func scheduledStartsLandOnTheirExactFrame(period: Int) throws {
        let (engine, factory, clock) = makeManualEngine(period: period)
        try engine.start()
        for _ in 0..<20 { engine.renderOnePeriod() }
        let device = factory.first
        let pattern = try preparedTransient(engine)
        // Start on a frame boundary so that Δ·fs is the exact frame distance.
        let boundary = Int(device.recordedFrame(playingAt: Double(clock.nanos))!) + 4_800
        let base = device.playTimeNanos(ofRecordedFrame: boundary)! / 1e9
        let deltas = [0, 0.0123, 0.05, 0.0500104, 0.2, 0.33333]
        for delta in deltas {
            try engine.makePlayer(with: pattern).start(atTime: base + delta)
        }
        renderUntil(engine) { Double(clock.nanos) / 1e9 > base + 0.5 }
        let frames = startFrames(engine)
        try #require(frames.count == deltas.count)
        for (delta, frame) in zip(deltas, frames) {
            let truth = device.recordedFrame(playingAt: (base + delta) * 1e9)!
            #expect(frame == Int64(truth), "Δ=\(delta): applied at \(frame), device played that time at \(truth)")
            #expect(frame - frames[0] == Int64((delta * 48_000).rounded()), "spacing for Δ=\(delta)")
        }
        #expect(engine.lateCommandCount == 0)
    }

    /// `start(atFrame:)`: the frame that PLAYS at F carries the onset, whatever the period,
    /// and however the schedule grid moves against the monotonic clock meanwhile (a device
    /// 300 ppm fast and a tolerance small enough that the grid is corrected several times).
    @Test(arguments: [64, 100, 256, 1024])
    func framedStartsLandOnTheirExactFrame(period: Int) throws {
        var options = VirtualOutputDevice.Options()
        options.driftPPM = 300
        let (engine, factory, clock) = makeManualEngine(period: period, options: options) {
            $0.scheduleDriftToleranceSeconds = 0.00005
        }
        try engine.start()
        for _ in 0..<20 { engine.renderOnePeriod() }
        let pattern = try preparedTransient(engine)
        let base = engine.frame(forTime: clock.seconds + 0.1)
        let offsets: [Int64] = [0, 1, 591, 28_800, 28_801, 57_600, 153_617]  // the last one alone (no tails under it)
        for offset in offsets { try engine.makePlayer(with: pattern).start(atFrame: base + offset) }
        let last = base + offsets.last!
        let correctionsBefore = engine.scheduleCorrectionCount
        renderUntil(engine) { engine.core.nextFrame > last + 9_600 }
        let advance = engine.core.scheduleAdvanceFrames
        #expect(advance > 0)
        // Applied the look-ahead early, so that each onset leaves the output stage on its frame.
        let applied = engine.core.appliedCommands().filter { $0.kind == .start }.map(\.frame).sorted()
        #expect(applied == offsets.map { base + $0 - advance })
        #expect(engine.lateCommandCount == 0)
        #expect(engine.scheduleCorrectionCount > correctionsBefore, "the grid moved meanwhile; frame starts did not")
        // The recording: silence up to frame `last`, then the pattern's offline samples from it.
        let recorded = factory.first.recordedSamples(channel: 0)
        let length = 2_400
        let reference = Array(OutputTests().offline(pattern, frames: length + Int(advance),
                                                    profile: engine.configuration.profile)[Int(advance)...])
        #expect(reference.prefix(48).contains { $0 != 0 }, "the transient sounds from its first frames")
        let f = Int(last)
        let before = recorded[(f - 4_800)..<f].map(abs).max()!
        #expect(before == 0, "silence before the requested frame (max \(before))")
        let worst = zip(recorded[f..<(f + length)], reference).map { abs($0 - $1) }.max()!
        #expect(worst < 1e-5, "the onset plays at the requested frame (max difference \(worst))")
    }

    @Test(arguments: [0, 1_000])
    func framedStartAlreadyPastStartsAtTheNextBlockAndCountsAsLate(framesAgo: Int64) throws {
        let (engine, _, _) = makeManualEngine(period: 256)
        try engine.start()
        for _ in 0..<20 { engine.renderOnePeriod() }
        let player = try engine.makePlayer(with: preparedTransient(engine))
        let next = engine.core.nextFrame
        // `next` itself is already too late: the voice would have to start the look-ahead before it.
        try player.start(atFrame: next - framesAgo)
        engine.renderOnePeriod()
        #expect(engine.core.appliedCommands().filter { $0.kind == .start }.map(\.frame) == [next])
        #expect(engine.lateCommandCount == 1)
    }

    @Test(arguments: [64, 256, 1000])
    func immediateStartLandsOnTheFirstFrameOfTheNextBlock(period: Int) throws {
        let (engine, _, _) = makeManualEngine(period: period)
        try engine.start()
        for _ in 0..<7 { engine.renderOnePeriod() }
        let player = try engine.makePlayer(with: preparedTransient(engine))
        try player.start(atTime: 0)
        let next = engine.core.nextFrame
        engine.renderOnePeriod()
        // Immediate: applied on the block's first frame (heard the stage's look-ahead later).
        #expect(engine.core.appliedCommands().filter { $0.kind == .start }.map(\.frame) == [next])
    }

    @Test func xrunKeepsTheScheduleAlignedToTheClock() throws {
        let (engine, factory, clock) = makeManualEngine(period: 256)
        try engine.start()
        for _ in 0..<20 { engine.renderOnePeriod() }
        let device = factory.first
        let pattern = try preparedTransient(engine)
        let now = clock.seconds
        let times = [now + 0.3, now + 0.31, now + 0.5]
        for t in times { try engine.makePlayer(with: pattern).start(atTime: t) }
        // The render thread stalls for 100 ms: the 16 ms buffer runs dry.
        clock.advance(bySeconds: 0.1)
        renderUntil(engine) { clock.seconds > now + 0.7 }
        #expect(engine.xrunCount == 1)
        #expect(device.underrunCount == 1)
        let frames = startFrames(engine)
        try #require(frames.count == times.count)
        for (t, frame) in zip(times, frames) {
            let truth = device.recordedFrame(playingAt: t * 1e9)!
            #expect(frame == Int64(truth), "after the xrun: applied at \(frame), played at \(truth)")
        }
        #expect(frames[1] - frames[0] == 480)
    }

    @Test func injectedXrunIsRecoveredCountedAndPlaybackContinues() throws {
        let (engine, factory, _) = makeManualEngine(period: 128)
        try engine.start()
        for _ in 0..<10 { engine.renderOnePeriod() }
        factory.first.inject(.xrun)
        #expect(engine.renderOnePeriod() == .rendered)
        #expect(engine.xrunCount == 1)
        #expect(engine.state == .running)
        let before = factory.first.framesWritten
        for _ in 0..<10 { #expect(engine.renderOnePeriod() == .rendered) }
        #expect(factory.first.framesWritten == before + 1280)
    }

    @Test func twoHundredPPMDriftDoesNotAccumulate() throws {
        var options = VirtualOutputDevice.Options()
        options.driftPPM = 200
        options.recordCapacityFrames = 48_000 * 70
        let (engine, factory, clock) = makeManualEngine(period: 256, options: options)
        try engine.start()
        let device = factory.first
        let pattern = try preparedTransient(engine)
        var scheduled: [Double] = []
        // Over a minute, schedule an event every 5 s, 1 s ahead.
        for k in 1...12 {
            renderUntil(engine) { clock.seconds >= 5 + Double(k) * 5 }
            let t = clock.seconds + 1.0 + 0.000_37 * Double(k)
            scheduled.append(t)
            try engine.makePlayer(with: pattern).start(atTime: t)
        }
        renderUntil(engine) { clock.seconds > scheduled.last! + 0.5 }
        let frames = startFrames(engine)
        try #require(frames.count == scheduled.count)
        // The schedule grid runs at the nominal rate and is moved (by whole frames) only when it
        // is more than `scheduleDriftToleranceSeconds` (2 ms = 96 frames) from the filter, so
        // onsets keep exact spacing between corrections: the bound is that tolerance + 1 frame,
        // not ±1 frame. Uncorrected, 200 ppm over this minute would be 12 ms (576 frames).
        let bound = Int64(engine.configuration.scheduleDriftToleranceSeconds * 48_000) + 1
        for (t, frame) in zip(scheduled, frames) {
            let truth = Int64(device.recordedFrame(playingAt: t * 1e9)!)
            #expect(abs(frame - truth) <= bound, "at \(t): applied \(frame), played \(truth)")
        }
        #expect(engine.scheduleCorrectionCount >= 4, "the grid was moved \(engine.scheduleCorrectionCount) times")
        #expect(abs(engine.measuredRateRatio - 1.0002) < 5e-6)
    }

    /// ±1 ms timestamp jitter and −150 ppm drift. With the default schedule grid, onsets keep
    /// their exact spacing (round(Δ·fs)) and sit within the grid's drift tolerance (2 ms = 96
    /// frames) plus the filter's error of the truth; with a tolerance of 0 the grid follows the
    /// filter every period and the onsets sit within a few frames of the truth, but their
    /// spacing moves with the filter.
    @Test(arguments: [0.002, 0])
    func jitteryTimestampsKeepSpacingExactAndPlaceEventsWithinTheTolerance(tolerance: Double) throws {
        var options = VirtualOutputDevice.Options()
        options.driftPPM = -150
        options.timestampJitterNanos = 1_000_000  // ±1 ms, like a sound-server plugin
        let (engine, factory, clock) = makeManualEngine(period: 256, options: options) {
            $0.scheduleDriftToleranceSeconds = tolerance
        }
        try engine.start()
        let pattern = try preparedTransient(engine)
        renderUntil(engine) { clock.seconds > 15 }
        var scheduled: [Double] = []
        for k in 0..<10 {
            let t = clock.seconds + 0.2 + Double(k) * 0.0375  // 1800 frames apart
            scheduled.append(t)
            try engine.makePlayer(with: pattern).start(atTime: t)
        }
        renderUntil(engine) { clock.seconds > scheduled.last! + 0.5 }
        let frames = startFrames(engine)
        try #require(frames.count == scheduled.count)
        let bound = Int64(tolerance * 48_000) + 10
        for (t, frame) in zip(scheduled, frames) {
            let truth = Int64(factory.first.recordedFrame(playingAt: t * 1e9)!)
            #expect(abs(frame - truth) <= bound, "at \(t): applied \(frame), played \(truth) (±1 ms jitter)")
        }
        if tolerance > 0 {
            #expect(zip(frames, frames.dropFirst()).allSatisfy { $1 - $0 == 1800 }, "spacing: \(frames.map { $0 - frames[0] })")
        }
    }

    @Test func commandsForOnePlaybackApplyInTimeOrderAtTheirFrames() throws {
        let (engine, factory, clock) = makeManualEngine(period: 256)
        try engine.start()
        for _ in 0..<10 { engine.renderOnePeriod() }
        let player = try engine.makeAdvancedPlayer(with: engine.prepare(AHAPPattern(elements: [
            .event(.continuous(at: 0, duration: 10, intensity: 1, sharpness: 0.5))])))
        let t = clock.seconds + 0.1
        try player.start(atTime: t)
        try player.sendParameters([DynamicParameter(.hapticIntensityControl, time: 0.01, value: 0.5)], atTime: t)
        try player.pause(atTime: t + 0.02)
        try player.resume(atTime: t + 0.03)
        try player.stop(atTime: t + 0.04)
        renderUntil(engine) { clock.seconds > t + 0.2 }
        let applied = engine.core.appliedCommands()
        let device = factory.first
        func truth(_ s: Double) -> Int64 { Int64(device.recordedFrame(playingAt: s * 1e9)!) }
        // The 10 s continuous event outlives every command, so all five apply, in time order.
        #expect(applied.count == 5, "\(applied.map(\.kind))")
        #expect(applied.first?.kind == .start)
        let advance = engine.core.scheduleAdvanceFrames
        #expect(applied.first.map { $0.frame + advance } == truth(t))
        let expected: [(CommandKind, Double)] = [(.start, t), (.control, t + 0.01), (.pause, t + 0.02), (.resume, t + 0.03), (.stop, t + 0.04)]
        for (command, (kind, time)) in zip(applied, expected) {
            #expect(command.kind == kind)
            #expect(command.frame + advance == truth(time))
        }
    }
}
