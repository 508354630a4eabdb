import HapticPattern

// Reconnection: what the engine does when its device or sound server goes away — the
// stoppedHandler, the background reopen with backoff, and the resumption of the players.

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
        transition(&c, to: .degraded)
        c.backoffSeconds = configuration.restartBackoffSeconds
        c.retryAtNanos = now + Int64(c.backoffSeconds * 1e9)
        c.failedAttempts = 0
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
            c.failedAttempts += 1
            if let limit = configuration.maxRestartAttempts, c.failedAttempts >= limit {
                transition(&c, to: .unavailable)
                logger.error("haptic engine: giving up after \(c.failedAttempts) restart attempts: \(error)")
                if let handler = c.handlers.stopped {
                    let message = error.description
                    return [{ handler(.recoveryFailed(message)) }]
                }
                return []
            }
            c.backoffSeconds = min(c.backoffSeconds * 2, configuration.maxRestartBackoffSeconds)
            c.retryAtNanos = now + Int64(c.backoffSeconds * 1e9)
            return []
        }
    }

    /// Reopens the old handle, or builds a new one (a reset). On success the state is
    /// `running` and the result holds the callbacks to run outside the lock (finished players,
    /// `resetHandler`); on failure the state stays `degraded`.
    func restartDevice(_ c: inout Control, now: Int64) -> Result<[() -> Void], HapticEngineError> {
        if let old = c.device {
            do throws(HapticEngineError) {
                try openAndRun(old, &c)
                transition(&c, to: .running)
                c.lastActivityNanos = now
                logger.info("haptic engine: device \(old.device.name) reopened; playback resumes")
                return .success([])
            } catch {
                old.device.close()
            }
        }
        let fresh = DeviceRef(makeDevice())
        do throws(HapticEngineError) {
            let granted = try open(fresh)
            // Old voices belong to players that the reset invalidates: end them first.
            core.discardAllVoices(reason: .engineStopped)
            var calls = drainEvents(&c)
            c.resetGeneration += 1
            transition(&c, to: .reset)
            c.device = fresh
            do throws(HapticEngineError) {
                try run(fresh, format: granted, &c)
            } catch {
                transition(&c, to: .degraded)
                throw error
            }
            transition(&c, to: .running)
            c.lastActivityNanos = now
            logger.info("haptic engine: new handle for \(fresh.device.name); engine reset")
            if let handler = c.handlers.reset { calls.append { handler() } }
            return .success(calls)
        } catch {
            fresh.device.close()
            return .failure(error)
        }
    }
}
