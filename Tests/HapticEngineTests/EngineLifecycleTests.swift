import Testing

@testable import HapticEngine

/// The engine's lifecycle as a value (``EngineLifecycle``): every transition, without threads,
/// devices or clocks (times are given in nanoseconds).
@Suite struct EngineLifecycleTests {
    static let ms: Int64 = 1_000_000
    static let s: Int64 = 1_000_000_000

    @Test func startFromCreatedRunsOrIsUnavailable() {
        var life = EngineLifecycle()
        #expect(life.state == .created && life.history == [.created])
        #expect(life.startPlan == .open)
        life.openFailed()
        #expect(life.state == .unavailable)
        #expect(life.startPlan == .open, "start() tries again from unavailable")
        life.opened(atNanos: 7 * Self.s)
        #expect(life.state == .running && life.lastActivityNanos == 7 * Self.s)
        #expect(life.startPlan == .nothing, "start() is idempotent while running")
        #expect(life.history == [.created, .unavailable, .running])
    }

    @Test func stopFromEveryStateEndsStopped() {
        for setup in [{ (l: inout EngineLifecycle) in l.opened(atNanos: 0) },
                      { l in l.opened(atNanos: 0); l.lost(atNanos: 0) },
                      { l in l.openFailed() },
                      { _ in }] {
            var life = EngineLifecycle()
            setup(&life)
            let rendering = life.state == .running
            #expect(life.isRendering == rendering)
            life.stopped()
            #expect(life.state == .stopped && !life.isRendering)
            #expect(life.startPlan == .open)
        }
    }

    @Test func aLostDeviceRetriesWithDoublingBackoffUpToItsMaximum() {
        var life = EngineLifecycle()  // default policy: 50 ms doubling to 0.5 s, no limit
        life.opened(atNanos: 0)
        life.lost(atNanos: 10 * Self.s)
        #expect(life.state == .degraded && life.lostAtNanos == 10 * Self.s)
        #expect(life.startPlan == .restartNow)
        #expect(!life.retryDue(atNanos: 10 * Self.s + 49 * Self.ms))
        #expect(life.retryDue(atNanos: 10 * Self.s + 50 * Self.ms))
        var now = 10 * Self.s + 50 * Self.ms
        var delays: [Int64] = []
        for _ in 0..<6 {
            #expect(life.retryFailed(atNanos: now) == false)
            delays.append((life.retryAtNanos - now) / Self.ms)
            now = life.retryAtNanos
        }
        #expect(delays == [100, 200, 400, 500, 500, 500])
        #expect(life.failedAttempts == 6 && life.state == .degraded)
    }

    @Test func recoveryGivesUpAfterMaxRestartAttempts() {
        var life = EngineLifecycle(policy: .init(maxRestartAttempts: 3))
        life.opened(atNanos: 0)
        life.lost(atNanos: 0)
        #expect(life.retryFailed(atNanos: 1 * Self.s) == false)
        #expect(life.retryFailed(atNanos: 2 * Self.s) == false)
        #expect(life.retryFailed(atNanos: 3 * Self.s) == true)
        #expect(life.state == .unavailable)
        #expect(!life.retryDue(atNanos: 100 * Self.s), "no more attempts once unavailable")
        #expect(life.history == [.created, .running, .degraded, .unavailable])
    }

    @Test func reconnectingToTheSameDeviceCountsAttemptsAndKeepsPlayersValid() {
        var life = EngineLifecycle()
        life.opened(atNanos: 0)
        life.lost(atNanos: 1 * Self.s)
        _ = life.retryFailed(atNanos: 2 * Self.s)
        _ = life.retryFailed(atNanos: 3 * Self.s)
        let attempts = life.reconnected(atNanos: 4 * Self.s)
        #expect(attempts == 3)
        #expect(life.state == .running && life.reconnections == 1 && life.resetGeneration == 0)
        #expect(life.lastActivityNanos == 4 * Self.s)
        // A second loss starts counting afresh.
        life.lost(atNanos: 5 * Self.s)
        #expect(life.failedAttempts == 0 && life.backoffSeconds == 0.05)
    }

    @Test func aResetInvalidatesPlayersAndPassesOnToRunning() {
        var life = EngineLifecycle()
        life.opened(atNanos: 0)
        life.lost(atNanos: 0)
        life.resetBegan()
        #expect(life.state == .reset && life.resetGeneration == 1)
        #expect(life.isRendering && life.startPlan == .nothing && life.keepsServiceThread && !life.wantsServiceThread)
        life.resetFailed()
        #expect(life.state == .degraded)
        life.resetBegan()
        life.resetFinished(atNanos: 9 * Self.s)
        #expect(life.state == .running && life.resetGeneration == 2 && life.lastActivityNanos == 9 * Self.s)
        #expect(life.history == [.created, .running, .degraded, .reset, .degraded, .reset, .running])
    }

    @Test func autoShutdownIdlesOnlyWhenEnabledIdleAndLongEnough() {
        var life = EngineLifecycle(policy: .init(autoShutdownIdleSeconds: 5))
        life.opened(atNanos: 1 * Self.s)
        #expect(!life.shouldIdle(atNanos: 100 * Self.s, voicesInUse: 0), "off unless enabled")
        life.autoShutdown = true
        #expect(!life.shouldIdle(atNanos: 6 * Self.s - 1, voicesInUse: 0))
        #expect(life.shouldIdle(atNanos: 6 * Self.s, voicesInUse: 0))
        #expect(!life.shouldIdle(atNanos: 100 * Self.s, voicesInUse: 1), "not while a voice plays")
        life.wentIdle()
        #expect(life.state == .idle && !life.shouldIdle(atNanos: 200 * Self.s, voicesInUse: 0))
        #expect(life.startPlan == .open && !life.wantsServiceThread && !life.keepsServiceThread)
        life.wokeUp()
        #expect(life.state == .running && life.wantsServiceThread)
    }

    @Test func repeatedTransitionsAreNotRecordedAndHistoryIsBounded() {
        var life = EngineLifecycle()
        #expect(life.transition(to: .created) == false)
        #expect(life.history == [.created])
        for i in 0..<1_000 { life.transition(to: i % 2 == 0 ? .running : .stopped) }
        #expect(life.history.count == EngineLifecycle.historyLimit)
        #expect(life.history.last == .stopped)
    }
}
