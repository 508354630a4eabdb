// Starting and stopping the engine, probing its device, and the control side's service step
// (finished players, handlers, recovery, auto-shutdown) that the service thread or a manual
// drive runs.

#if canImport(Glibc)
import Glibc
#endif
import HapticPattern
import HapticRender
import Logging
import Synchronization

extension HapticEngine {
    // MARK: - capability

    /// Whether a device can be opened with this engine's format: opens a fresh handle
    /// from the factory and closes it again. Returns the granted format or the error.
    public func probeDevice() -> Result<DeviceFormat, HapticEngineError> {
        let handle = DeviceRef(makeDevice())
        defer { handle.device.close() }
        do {
            return .success(try open(handle).format)
        } catch {
            return .failure(error)
        }
    }

    // MARK: - start / stop

    /// Opens the device and starts rendering. Idempotent while running; from `idle` it
    /// reopens the device. Throws ``HapticEngineError/deviceUnavailable(_:)`` (state
    /// becomes `unavailable`) when no device can be opened; the program keeps working.
    public func start() throws(HapticEngineError) {
        let result: Result<[() -> Void], HapticEngineError> = control.withLock { c in
            switch c.lifecycle.startPlan {
            case .nothing:
                return .success([])
            case .restartNow:
                // The seeds' "on stop, try one restart": same path as the background recovery
                // (reopen the old handle, else a new handle and a reset), but now, and throwing.
                switch restartDevice(&c, now: clock.nanos()) {
                case .success(let calls):
                    c.lifecycle.restartedByStart()
                    return .success(calls)
                case .failure(let error):
                    return .failure(error)
                }
            case .open:
                let handle = c.device ?? DeviceRef(makeDevice())
                c.device = handle
                do throws(HapticEngineError) {
                    try openAndRun(handle, &c)
                    let now = clock.nanos()
                    lifecycle(&c) { $0.opened(atNanos: now) }
                    return .success([])
                } catch {
                    lifecycle(&c) { $0.openFailed() }
                    return .failure(error)
                }
            }
        }
        ensureServiceThread()
        for call in try result.get() { call() }
    }

    /// Stops playback with a short fade-out, ends every player, and closes the device.
    /// Does not call `stoppedHandler`. `completion` runs once the device is closed.
    public func stop(completion: (@Sendable (HapticEngineError?) -> Void)? = nil) {
        var finished: [() -> Void] = []
        control.withLock { c in
            if c.lifecycle.isRendering { haltRendering(&c, fade: true) }
            core.discardAllVoices(reason: .engineStopped)
            finished = drainEvents(&c)
            c.device?.device.close()
            lifecycle(&c) { $0.stopped() }
        }
        for call in finished { call() }
        completion?(nil)
    }

    // MARK: - manual drive (HapticEngineTesting's `renderOnePeriod()`)

    /// Renders and writes one period, then runs the control-side service step
    /// (finished players, handlers, recovery). Only for `Drive.manual`.
    package func renderOneManualPeriod() -> PeriodOutcome {
        precondition(configuration.drive == .manual, "renderOnePeriod() is for Drive.manual engines")
        let outcome = core.renderOnePeriod()
        serviceStep()
        return outcome
    }

    /// One round of the control-side service: returns finished voices (and frees
    /// them), calls completion and finished handlers, handles a lost device and
    /// runs due restart attempts, and auto-shutdown. The service thread calls it
    /// periodically; manual-drive tests call it (or HapticEngineTesting's `renderOnePeriod()`).
    public func serviceStep() {
        var calls: [() -> Void] = []
        var finishedHandler: (@Sendable (HapticEngineError?) -> FinishedAction)? = nil
        var rungOutHandler: (@Sendable () -> Void)? = nil
        control.withLock { c in
            calls = drainEvents(&c)
            let now = clock.nanos()
            if c.lifecycle.deviceLostPending {
                c.lifecycle.deviceLostPending = false
                if c.lifecycle.state == .running { calls += loseDevice(&c, now: now) }
            }
            if c.lifecycle.retryDue(atNanos: now) {
                calls += attemptRecovery(&c, now: now)
            }
            rungOutHandler = takeRungOutHandler(&c, now: now)
            if c.lifecycle.state == .running && c.voicesInUse == 0 {
                if let handler = c.handlers.playersFinished {
                    c.handlers.playersFinished = nil
                    finishedHandler = handler
                } else if configuration.drive != .pull && c.handlers.rungOut == nil
                    && c.lifecycle.shouldIdle(atNanos: now, voicesInUse: c.voicesInUse) {
                    haltRendering(&c, fade: false)
                    c.device?.device.close()
                    lifecycle(&c) { $0.wentIdle() }
                }
            }
        }
        for call in calls { call() }
        if let handler = finishedHandler, handler(nil) == .stopEngine { stop() }
        rungOutHandler?()
    }

    /// The `notifyWhenRungOut` handler when its moment has come (taken: it fires once), else nil.
    private func takeRungOutHandler(_ c: inout Control, now: Int64) -> (@Sendable () -> Void)? {
        guard let handler = c.handlers.rungOut, c.lifecycle.state == .running, c.voicesInUse == 0 else {
            c.playersIdleSinceNanos = nil
            return nil
        }
        let since = c.playersIdleSinceNanos ?? now
        c.playersIdleSinceNanos = since
        let waited = Double(now - since) / 1e9
        guard core.hasRungOut.load(ordering: .relaxed) || waited >= RingOutMeter.maximumExtraSeconds else { return nil }
        c.handlers.rungOut = nil
        c.playersIdleSinceNanos = nil
        return handler
    }
}
