#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import HapticTestSupport
import Testing
@testable import HapticEngine
import HapticEngineTesting
import HapticPattern
import HapticRender

/// Every engine state and transition, driven step by step on a virtual device.
@Suite struct LifecycleTests {
    @Test func startRunsAndStopFadesClosesAndDoesNotCallStoppedHandler() throws {
        let (engine, factory, _) = makeManualEngine(period: 128)
        #expect(engine.state == .created)
        let stops = Counter()
        engine.stoppedHandler = { _ in stops.bump() }
        try engine.start()
        #expect(engine.state == .running)
        try engine.start()  // idempotent
        for _ in 0..<10 { engine.renderOnePeriod() }
        let written = factory.first.framesWritten
        let done = Counter()
        engine.stop { error in if error == nil { done.bump() } }
        #expect(engine.state == .stopped)
        #expect(done.count == 1)
        #expect(stops.count == 0)
        #expect(!factory.first.isOpen)
        // The fade and a buffer's worth of silence were written before closing.
        #expect(factory.first.framesWritten >= written + 3 * 128)
        #expect(engine.stateHistory == [.created, .running, .stopped])
        // Restart after stop reuses the handle.
        try engine.start()
        #expect(engine.state == .running)
        #expect(factory.devices.count == 1)
        #expect(factory.first.openCount == 2)
    }

    @Test func noDeviceMeansUnavailableAndTheProgramKeepsWorking() throws {
        var options = VirtualOutputDevice.Options()
        options.refuseOpen = DeviceOpenError(device: "hw:9,0", message: "No such file or directory", code: -2)
        let (engine, _, _) = makeManualEngine(options: options)
        guard case .failure(.deviceUnavailable(let error)) = engine.probeDevice() else {
            Issue.record("probe should fail"); return
        }
        #expect(error.device == "hw:9,0")
        #expect(throws: HapticEngineError.deviceUnavailable(options.refuseOpen!)) { try engine.start() }
        #expect(engine.state == .unavailable)
        #expect(!engine.isAvailable)
        // Players can still be made; using them says why nothing plays.
        let player = try engine.makePlayer(with: preparedTransient(engine))
        #expect(throws: HapticEngineError.engineNotRunning(.unavailable)) { try player.start(atTime: 0) }
        #expect(engine.renderOnePeriod() == .notRunning)
    }

    @Test func wrongChannelCountIsAClearError() throws {
        var options = VirtualOutputDevice.Options()
        options.grantedChannels = 2
        let (engine, factory, _) = makeManualEngine(options: options)
        do {
            try engine.start()
            Issue.record("start should fail")
        } catch {
            #expect(error == .formatMismatch("device granted 2 channels, the layout needs 1"))
        }
        #expect(engine.state == .unavailable)
        #expect(!factory.first.isOpen)
    }

    @Test func grantedPeriodIsUsed() throws {
        var options = VirtualOutputDevice.Options()
        options.grantedPeriodFrames = 100
        let (engine, factory, _) = makeManualEngine(period: 256, options: options)
        try engine.start()
        #expect(engine.deviceFormat?.periodFrames == 100)
        engine.renderOnePeriod()
        #expect(factory.first.framesWritten == 100)
    }

    /// The backoff these two tests step through (the defaults are 50 ms → 1 s).
    static func slowBackoff(_ c: inout HapticEngine.Configuration) {
        c.restartBackoffSeconds = 0.1
        c.maxRestartBackoffSeconds = 2
    }

    @Test func deviceDeathCallsStoppedHandlerAndTheSameHandleResumes() throws {
        let (engine, factory, clock) = makeManualEngine(configure: Self.slowBackoff)
        let reconnections = Recorder<HapticEngine.Reconnection>()
        engine.reconnectedHandler = { reconnections.append($0) }
        let reasons = Recorder<HapticEngine.StoppedReason>()
        let resets = Counter()
        engine.stoppedHandler = { reasons.append($0) }
        engine.resetHandler = { resets.bump() }
        try engine.start()
        let player = try engine.makePlayer(with: preparedTransient(engine))
        for _ in 0..<10 { engine.renderOnePeriod() }
        factory.first.kill()
        #expect(engine.renderOnePeriod() == .deviceLost(.gone("virtual device killed")))
        #expect(engine.state == .degraded)
        #expect(reasons.all == [.deviceLost("virtual device killed")])
        #expect(!factory.first.isOpen)
        #expect(throws: HapticEngineError.engineNotRunning(.degraded)) { try player.start(atTime: 0) }
        // The device comes back before the first retry (100 ms backoff).
        factory.first.revive()
        clock.advance(bySeconds: 0.05)
        engine.serviceStep()
        #expect(engine.state == .degraded)
        clock.advance(bySeconds: 0.06)
        engine.serviceStep()
        #expect(engine.state == .running)
        #expect(factory.devices.count == 1)
        #expect(resets.count == 0)
        #expect(engine.stateHistory == [.created, .running, .degraded, .running])
        #expect(reconnections.all.count == 1)
        #expect(reconnections.all.first?.attempts == 1)
        #expect(engine.reconnectionCount == 1)
        // Players made before stay valid.
        try player.start(atTime: 0)
        engine.renderOnePeriod()
        #expect(engine.core.appliedCommands().filter { $0.kind == .start }.count == 1)
    }

    /// A reconnection keeps the schedule: a start that fell due while the device was away is
    /// dropped and counted, a start still in the future plays at its time on the new handle.
    @Test func reconnectionDropsPassedOnsetsAndKeepsFutureOnes() throws {
        let (engine, factory, clock) = makeManualEngine()
        let reconnections = Recorder<HapticEngine.Reconnection>()
        engine.reconnectedHandler = { reconnections.append($0) }
        try engine.start()
        for _ in 0..<20 { engine.renderOnePeriod() }
        let pattern = try preparedTransient(engine)
        let soon = try engine.makePlayer(with: pattern)
        let later = try engine.makePlayer(with: pattern)
        let due = clock.seconds + 2
        try soon.start(atTime: clock.seconds + 0.5)
        try later.start(atTime: due)
        engine.renderOnePeriod()
        Self.outage(engine, factory, clock, seconds: 1)
        #expect(reconnections.all.count == 1)
        #expect(reconnections.all.first?.droppedOnsets == 1)
        #expect(engine.droppedOnsetCount == 1)
        #expect(engine.activeVoiceCount == 1, "the dropped voice came back; the future one waits")
        let gap = reconnections.all.first?.gapSeconds ?? 0
        #expect(gap > 0.9 && gap < 1.2, "gap \(gap)")
        engine.core.clearTrace()
        #expect(renderUntil(engine, limit: 2000) { engine.core.appliedCommands().contains { $0.kind == .start } })
        let start = engine.core.appliedCommands().first { $0.kind == .start }!
        let plays = engine.time(forFrame: start.frame + engine.core.scheduleAdvanceFrames)
        #expect(abs(plays - due) < 0.002, "future onset at \(plays), scheduled \(due)")
    }

    /// The device dies mid-stream, stays away `seconds`, and is back at the engine's next
    /// service step: the engine runs again.
    static func outage(
        _ engine: HapticEngine, _ factory: DeviceFactory, _ clock: ManualClock, seconds: Double,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        factory.first.kill()
        #expect(engine.renderOnePeriod() == .deviceLost(.gone("virtual device killed")), sourceLocation: sourceLocation)
        clock.advance(bySeconds: seconds)
        factory.first.revive()
        engine.serviceStep()
        #expect(engine.state == .running, sourceLocation: sourceLocation)
    }

    /// A looping player whose first start fell into the outage is not dropped: it joins its
    /// loop where the loop would be now (as a playing loop keeps its grid), so `play --loop`
    /// started just before the server died still sounds once it is back.
    @Test func reconnectionStartsALoopWhoseStartFellIntoTheOutage() throws {
        let (engine, factory, clock) = makeManualEngine()
        let reconnections = Recorder<HapticEngine.Reconnection>()
        engine.reconnectedHandler = { reconnections.append($0) }
        try engine.start()
        for _ in 0..<20 { engine.renderOnePeriod() }
        let loop = try engine.makeAdvancedPlayer(with: preparedTransient(engine))
        loop.loopEnabled = true
        loop.loopEnd = 0.25
        try loop.start(atTime: clock.seconds + 0.5)
        engine.renderOnePeriod()
        Self.outage(engine, factory, clock, seconds: 1)
        #expect(reconnections.all.first?.droppedOnsets == 0, "the loop was dropped")
        #expect(engine.droppedOnsetCount == 0)
        #expect(engine.activeVoiceCount == 1, "the loop plays on")
        // It keeps playing: still active after several loop rounds.
        for _ in 0..<100 { engine.renderOnePeriod() }
        #expect(engine.activeVoiceCount == 1)
    }

    @Test func serverDownBacksOffThenANewHandleResetsTheEngine() throws {
        let (engine, factory, clock) = makeManualEngine(configure: Self.slowBackoff)
        let reasons = Recorder<HapticEngine.StoppedReason>()
        let resets = Counter()
        engine.stoppedHandler = { reasons.append($0) }
        engine.resetHandler = { resets.bump() }
        try engine.start()
        let pattern = try preparedTransient(engine)
        let oldPlayer = try engine.makeAdvancedPlayer(with: pattern)
        let completions = Recorder<HapticEngineError?>()
        oldPlayer.completionHandler = { completions.append($0) }
        for _ in 0..<5 { engine.renderOnePeriod() }
        try oldPlayer.start(atTime: clock.seconds + 10)  // scheduled far ahead: still pending at the crash
        engine.renderOnePeriod()
        factory.serverDown.store(true, ordering: .releasing)
        factory.first.kill()
        factory.first.refuseFurtherOpens()
        engine.renderOnePeriod()
        #expect(engine.state == .degraded)
        // Attempt 1 at +0.1 s fails (old handle refused, new one dead); backoff doubles to 0.2 s.
        clock.advance(bySeconds: 0.1)
        engine.serviceStep()
        #expect(engine.state == .degraded)
        #expect(factory.devices.count == 2)
        clock.advance(bySeconds: 0.15)
        engine.serviceStep()
        #expect(factory.devices.count == 2, "no attempt before the backoff elapsed")
        clock.advance(bySeconds: 0.06)
        engine.serviceStep()
        #expect(factory.devices.count == 3)
        #expect(engine.state == .degraded)
        // The server returns; the old handle is unusable: a new handle, a reset.
        factory.serverDown.store(false, ordering: .releasing)
        clock.advance(bySeconds: 1)
        engine.serviceStep()
        #expect(engine.state == .running)
        #expect(resets.count == 1)
        #expect(reasons.all.count == 1)
        #expect(engine.stateHistory == [.created, .running, .degraded, .reset, .running])
        #expect(completions.all == [.engineStopped])
        #expect(engine.activeVoiceCount == 0)
        // Old players are invalid; new ones play on the new handle.
        #expect(throws: HapticEngineError.playerInvalidated) { try oldPlayer.start(atTime: 0) }
        #expect(throws: HapticEngineError.playerInvalidated) { try oldPlayer.stop(atTime: 0) }
        let fresh = try engine.makePlayer(with: pattern)
        try fresh.start(atTime: 0)
        engine.renderOnePeriod()
        #expect(factory.devices.last!.framesWritten == 256)
        #expect(engine.core.appliedCommands().filter { $0.kind == .start }.count == 1)
    }

    /// The seeds' "on stop, try one restart": `start()` on a degraded engine whose old handle
    /// cannot be reopened builds a new handle and resets (as the background recovery does);
    /// while the server is down it throws quickly and the engine stays degraded.
    @Test func startFromDegradedFallsBackToANewHandleAndResets() throws {
        let (engine, factory, _) = makeManualEngine { $0.restartBackoffSeconds = 3600 }  // no background retry
        let resets = Counter()
        engine.resetHandler = { resets.bump() }
        try engine.start()
        let old = try engine.makePlayer(with: preparedTransient(engine))
        for _ in 0..<5 { engine.renderOnePeriod() }
        factory.serverDown.store(true, ordering: .releasing)
        factory.first.kill()
        factory.first.refuseFurtherOpens()
        engine.renderOnePeriod()
        #expect(engine.state == .degraded)
        #expect(throws: HapticEngineError.self) { try engine.start() }
        #expect(engine.state == .degraded, "a failed restart leaves the background recovery in charge")
        #expect(resets.count == 0)
        factory.serverDown.store(false, ordering: .releasing)
        try engine.start()
        #expect(engine.state == .running)
        #expect(resets.count == 1)
        #expect(engine.stateHistory == [.created, .running, .degraded, .reset, .running])
        #expect(throws: HapticEngineError.playerInvalidated) { try old.start(atTime: 0) }
        try engine.makePlayer(with: preparedTransient(engine)).start(atTime: 0)
        engine.renderOnePeriod()
        #expect(factory.devices.last!.framesWritten == 256)
    }

    /// A fault part-way through a write: the frames before it reached the device; the engine
    /// writes only the rest after recovery, so its frame count equals the device's and the
    /// schedule stays on its frames.
    @Test func partialWriteBeforeAnXrunKeepsTheFrameCountExact() throws {
        let (engine, factory, clock) = makeManualEngine(period: 256)
        try engine.start()
        for _ in 0..<20 { engine.renderOnePeriod() }
        let device = factory.first
        let pattern = try preparedTransient(engine)
        device.inject(.xrun, afterFrames: 100)
        engine.renderOnePeriod()
        #expect(engine.xrunCount == 1)
        #expect(Int64(device.framesWritten) == engine.core.nextFrame, "device and engine count the same frames")
        let t = clock.seconds + 0.3
        try engine.makePlayer(with: pattern).start(atTime: t)
        renderUntil(engine) { clock.seconds > t + 0.2 }
        #expect(Int64(device.framesWritten) == engine.core.nextFrame)
        let applied = engine.core.appliedCommands().filter { $0.kind == .start }.map(\.frame)
        try #require(applied.count == 1)
        #expect(applied[0] + engine.core.scheduleAdvanceFrames == Int64(device.recordedFrame(playingAt: t * 1e9)!))
    }

    @Test func recoveryGivesUpAfterMaxAttempts() throws {
        let (engine, factory, clock) = makeManualEngine { $0.maxRestartAttempts = 2 }
        let reasons = Recorder<HapticEngine.StoppedReason>()
        engine.stoppedHandler = { reasons.append($0) }
        try engine.start()
        engine.renderOnePeriod()
        factory.serverDown.store(true, ordering: .releasing)
        factory.first.kill()
        engine.renderOnePeriod()
        for _ in 0..<10 {
            clock.advance(bySeconds: 1)
            engine.serviceStep()
        }
        #expect(engine.state == .unavailable)
        #expect(reasons.all.count == 2)
        if case .recoveryFailed = reasons.all.last {} else { Issue.record("expected recoveryFailed, got \(reasons.all)") }
        // A later explicit start works once the device is back.
        factory.first.revive()
        try engine.start()
        #expect(engine.state == .running)
    }

    /// An xrun met right after a render longer than the buffer's margin (the buffer less the
    /// period written, here 2 × 2048 frames, 85 ms) is told apart from one met with the render
    /// on time: only the first could be the render's own doing.
    @Test func xrunsAfterASlowRenderAreCountedApart() throws {
        let slow = SlowOnceInput()
        let (engine, factory, _) = makeManualEngine(period: 2048) { $0.liveInput = slow }
        try engine.start()
        for _ in 0..<5 { engine.renderOnePeriod() }
        factory.first.inject(.xrun)  // the render on time: the device ran dry on its own
        engine.renderOnePeriod()
        #expect(engine.xrunCount == 1 && engine.slowRenderXrunCount == 0)
        slow.sleepNext.store(true, ordering: .releasing)  // a 200 ms render, then the write meets an xrun
        factory.first.inject(.xrun)
        engine.renderOnePeriod()
        #expect(engine.xrunCount == 2 && engine.slowRenderXrunCount == 1)
        slow.sleepNext.store(true, ordering: .releasing)  // a slow render whose write finds no xrun
        engine.renderOnePeriod()
        #expect(engine.xrunCount == 2 && engine.slowRenderXrunCount == 1)
    }

    /// One bounded wait without progress is a stall, ridden out and counted; a device that
    /// keeps making no progress is lost.
    @Test func aStallIsRiddenOutAndTimeoutsThatKeepComingMeanDeviceLost() throws {
        let (engine, factory, _) = makeManualEngine()
        let reasons = Recorder<HapticEngine.StoppedReason>()
        engine.stoppedHandler = { reasons.append($0) }
        try engine.start()
        factory.first.inject(.timeout)
        #expect(engine.renderOnePeriod() == .rendered)
        #expect(engine.stallCount == 1)
        #expect(engine.state == .running)
        #expect(reasons.all.isEmpty)
        factory.first.inject(.timeout, count: 100)
        #expect(engine.renderOnePeriod() == .deviceLost(.timeout))
        #expect(reasons.all == [.deviceTimeout])
        #expect(engine.state == .degraded)
    }

    @Test func underrunsThatKeepComingBackMeanDeviceLost() throws {
        let (engine, factory, _) = makeManualEngine()
        let reasons = Recorder<HapticEngine.StoppedReason>()
        engine.stoppedHandler = { reasons.append($0) }
        try engine.start()
        factory.first.inject(.xrun, count: 10)
        #expect(engine.renderOnePeriod() == .deviceLost(.xrun))
        #expect(engine.xrunCount == 4)
        #expect(reasons.all == [.deviceLost("underruns kept coming back after recovery")])
    }

    @Test func suspendIsResumedInPlace() throws {
        let (engine, factory, _) = makeManualEngine()
        try engine.start()
        for _ in 0..<5 { engine.renderOnePeriod() }
        factory.first.inject(.suspended)
        #expect(engine.renderOnePeriod() == .rendered)
        #expect(engine.state == .running)
        #expect(engine.xrunCount == 0)
    }

    @Test func notifyWhenPlayersFinishedCanStopTheEngine() throws {
        let (engine, factory, clock) = makeManualEngine()
        let stops = Counter()
        engine.stoppedHandler = { _ in stops.bump() }
        try engine.start()
        let pattern = try preparedTransient(engine)
        for i in 0..<3 { try engine.makePlayer(with: pattern).start(atTime: clock.seconds + 0.05 * Double(i + 1)) }
        let calls = Counter()
        engine.notifyWhenPlayersFinished { error in
            #expect(error == nil)
            calls.bump()
            return .stopEngine
        }
        engine.renderOnePeriod()
        #expect(calls.count == 0, "players are still scheduled")
        #expect(engine.activeVoiceCount == 3)
        renderUntil(engine, limit: 200) { engine.state == .stopped }
        #expect(calls.count == 1)
        #expect(engine.state == .stopped)
        #expect(stops.count == 0)
        #expect(!factory.first.isOpen)
        #expect(engine.core.appliedCommands().filter { $0.kind == .start }.count == 3)
    }

    @Test func notifyWhenPlayersFinishedCanLeaveItRunning() throws {
        let (engine, _, _) = makeManualEngine()
        try engine.start()
        try engine.makePlayer(with: preparedTransient(engine)).start(atTime: 0)
        let calls = Counter()
        engine.notifyWhenPlayersFinished { _ in calls.bump(); return .leaveRunning }
        renderUntil(engine, limit: 2000) { calls.count > 0 }
        for _ in 0..<20 { engine.renderOnePeriod() }
        #expect(calls.count == 1, "one-shot")
        #expect(engine.state == .running)
    }

    @Test func autoShutdownClosesTheDeviceWhenIdleAndReopensOnDemand() throws {
        let (engine, factory, clock) = makeManualEngine { $0.autoShutdownIdleSeconds = 0.5 }
        engine.isAutoShutdownEnabled = true
        try engine.start()
        let player = try engine.makePlayer(with: preparedTransient(engine))
        renderUntil(engine, limit: 1000) { clock.seconds > 5.4 }
        #expect(engine.state == .running)
        renderUntil(engine, limit: 1000) { engine.state == .idle }
        #expect(engine.state == .idle)
        #expect(!factory.first.isOpen)
        #expect(engine.renderOnePeriod() == .notRunning)
        try player.start(atTime: 0)
        #expect(engine.state == .running)
        #expect(factory.first.openCount == 2)
        engine.renderOnePeriod()
        #expect(engine.core.appliedCommands().filter { $0.kind == .start }.count == 1)
        #expect(engine.stateHistory == [.created, .running, .idle, .running])
    }

    @Test func voicePoolExhaustionThrowsAndRecovers() throws {
        let (engine, _, clock) = makeManualEngine(maxVoices: 4)
        try engine.start()
        let pattern = try preparedTransient(engine)
        let t = clock.seconds + 0.1
        for _ in 0..<4 { try engine.makePlayer(with: pattern).start(atTime: t) }
        let fifth = try engine.makePlayer(with: pattern)
        #expect(throws: HapticEngineError.voiceLimitReached(4)) { try fifth.start(atTime: t) }
        renderUntil(engine, limit: 100) { engine.activeVoiceCount == 0 }
        try fifth.start(atTime: 0)
        #expect(engine.activeVoiceCount == 1)
    }

    @Test func stopEndsPlayersWithAnError() throws {
        let (engine, _, clock) = makeManualEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: preparedTransient(engine))
        let completions = Recorder<HapticEngineError?>()
        player.completionHandler = { completions.append($0) }
        try player.start(atTime: clock.seconds + 5)
        engine.renderOnePeriod()
        engine.stop()
        #expect(completions.all == [.engineStopped])
        #expect(engine.activeVoiceCount == 0)
        #expect(!player.isActive)
        #expect(throws: HapticEngineError.engineNotRunning(.stopped)) { try player.start(atTime: 0) }
    }

    @Test func completionHandlerAndCancelAndMuteReachTheRenderSide() throws {
        let (engine, _, clock) = makeManualEngine()
        try engine.start()
        let pattern = try preparedTransient(engine)
        let player = try engine.makeAdvancedPlayer(with: pattern)
        let completions = Recorder<HapticEngineError?>()
        player.completionHandler = { completions.append($0) }
        try player.start(atTime: clock.seconds + 1)
        player.isMuted = true
        try player.cancel()
        engine.renderOnePeriod()
        #expect(completions.all == [nil])
        #expect(!player.isActive)
        let kinds = engine.core.appliedCommands().map(\.kind)
        #expect(kinds == [.mute, .cancel], "the start never applied: cancelled before its time")
        #expect(player.isMuted)
    }

    @Test func patternsOfAnotherRateAreRefused() throws {
        let (engine, _, _) = makeManualEngine()
        let other = try PreparedPattern(oneTransient, profile: ActuatorProfile(name: "x"), sampleRate: 44_100)
        #expect(throws: HapticEngineError.formatMismatch("pattern prepared for 44100.0 Hz, engine renders 48000 Hz")) {
            try engine.makePlayer(with: other)
        }
    }
}

/// A live input that adds nothing and, when asked, takes 200 ms over one render.
final class SlowOnceInput: LiveInput {
    let sleepNext = Atomic<Bool>(false)
    func prepare(sampleRate: Int, periodFrames: Int, actuators: [ActuatorProfile]) {}
    func render(into bus: MixBus) {
        if sleepNext.exchange(false, ordering: .acquiringAndReleasing) { usleep(200_000) }
    }
}
