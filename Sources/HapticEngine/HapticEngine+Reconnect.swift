import HapticPattern

// Reconnection: what the engine does when its device or sound server goes away.
//
// The order a program sees (Core Haptics' contract, kept exact):
//   1. `stoppedHandler(.deviceLost / .deviceTimeout)` once, when the loss is noticed; the state
//      is `degraded`. Players, their schedule and the clock mapping are kept.
//   2. Reopen attempts of the SAME handle (the same PCM) in the background, the first after
//      `restartBackoffSeconds` (50 ms), doubling to `maxRestartBackoffSeconds` (0.5 s); forever
//      unless `maxRestartAttempts` is set.
//   3a. The device is back: the state is `running` again, `reconnectedHandler` gets the outage,
//       the gap and the onsets dropped; the players go on (no reset: nothing to rebuild).
//   3b. Only when the old handle cannot be opened again while a fresh one from the factory can
//       (the device came back as something else): `resetHandler` — players made before are
//       invalid, as in Core Haptics.
//   3c. The limit ran out: `stoppedHandler(.recoveryFailed)` a second time; state `unavailable`.

extension HapticEngine {
    func loseDevice(_ c: inout Control, now: Int64) -> [() -> Void] {
        if let thread = c.renderThread {
            EngineThread.join(thread)
            c.renderThread = nil
        }
        let fault = core.lastFault
        core.end()
        c.device?.device.close()
        let reason: StoppedReason
        switch fault {
        case .timeout: reason = .deviceTimeout
        case .gone(let message): reason = .deviceLost(message)
        case .xrun: reason = .deviceLost("underruns kept coming back after recovery")
        case .suspended: reason = .deviceLost("could not resume after suspend")
        case nil: reason = .deviceLost("unknown fault")
        }
        logger.warning("haptic engine: device \(c.device?.device.name ?? "?") lost (\(reason)); retrying in the background")
        lifecycle(&c) { $0.lost(atNanos: now) }
        guard let handler = c.handlers.stopped else { return [] }
        return [{ handler(reason) }]
    }

    /// One restart attempt (background recovery): reopen the old handle; if that fails, build
    /// a new handle (a reset: players made before become invalid). On failure: backoff, or
    /// `unavailable` after `maxRestartAttempts`.
    func attemptRecovery(_ c: inout Control, now: Int64) -> [() -> Void] {
        switch restartDevice(&c, now: now) {
        case .success(let calls):
            return calls
        case .failure(let error):
            if lifecycle(&c, { $0.retryFailed(atNanos: now) }) {
                logger.error("haptic engine: giving up after \(c.lifecycle.failedAttempts) restart attempts: \(error)")
                if let handler = c.handlers.stopped {
                    let message = error.description
                    return [{ handler(.recoveryFailed(message)) }]
                }
                return []
            }
            return []
        }
    }

    /// Reopens the old handle, or builds a new one (a reset). On success the state is
    /// `running` and the result holds the callbacks to run outside the lock (finished players,
    /// `resetHandler`); on failure the state stays `degraded`.
    func restartDevice(_ c: inout Control, now: Int64) -> Result<[() -> Void], HapticEngineError> {
        if let old = c.device {
            if let calls = reopen(old, &c, now: now) { return .success(calls) }
        }
        let fresh = DeviceRef(makeDevice())
        do throws(HapticEngineError) {
            var opened = try open(fresh)
            if let old = c.device {
                // The server may have come back between the two opens: the old handle is
                // preferred (no reset) if it opens now.
                fresh.device.close()
                if let calls = reopen(old, &c, now: now) { return .success(calls) }
                opened = try open(fresh)
            }
            // Old voices belong to players that the reset invalidates: end them first.
            core.discardAllVoices(reason: .engineStopped)
            var calls = drainEvents(&c)
            lifecycle(&c) { $0.resetBegan() }
            c.device = fresh
            do throws(HapticEngineError) {
                try run(fresh, opened: opened, &c)
            } catch {
                lifecycle(&c) { $0.resetFailed() }
                throw error
            }
            lifecycle(&c) { $0.resetFinished(atNanos: now) }
            logger.info("haptic engine: new handle for \(fresh.device.name); engine reset")
            if let handler = c.handlers.reset { calls.append { handler() } }
            return .success(calls)
        } catch {
            fresh.device.close()
            return .failure(error)
        }
    }

    /// Reopens the old handle and resumes the players on it; nil when it does not open.
    func reopen(_ old: DeviceRef, _ c: inout Control, now: Int64) -> [() -> Void]? {
        let resumption: RenderCore.Resumption?
        do throws(HapticEngineError) {
            resumption = try openAndRun(old, &c, resuming: true)
        } catch {
            old.device.close()
            return nil
        }
        let attempts = lifecycle(&c) { $0.reconnected(atNanos: now) }
        let info = Reconnection(
            outageSeconds: Double(clock.nanos() - c.lifecycle.lostAtNanos) / 1e9, gapSeconds: resumption?.gapSeconds ?? 0,
            droppedOnsets: resumption?.droppedOnsets ?? 0, attempts: attempts)
        logger.info("haptic engine: device \(old.device.name) reopened after \(info.outageSeconds) s; playback resumes")
        var calls = drainEvents(&c)
        if let handler = c.handlers.reconnected { calls.append { handler(info) } }
        return calls
    }
}
