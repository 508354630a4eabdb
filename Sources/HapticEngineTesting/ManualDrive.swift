import HapticEngine

// The engine's manual drive, for tests and offline renders: the caller renders period by
// period on a ManualClock that a VirtualOutputDevice (or a RecordingOutputDevice) moves.

extension HapticEngine.Configuration {
    /// `base` made to run on `clock` in manual drive: no render thread (the caller renders each
    /// period with ``HapticEngine/renderOnePeriod()``), no SCHED_FIFO, no memory locking.
    /// The one way to set up a manually driven engine.
    public static func manual(clock: ManualClock, base: HapticEngine.Configuration = HapticEngine.Configuration())
        -> HapticEngine.Configuration
    {
        var configuration = base
        configuration.drive = .manual
        configuration.clock = .manual(clock)
        configuration.realtimePriority = nil
        configuration.lockMemory = false
        return configuration
    }
}

extension HapticEngine {
    /// Renders and writes one period, then runs the control-side service step
    /// (finished players, handlers, recovery). Only for engines made with
    /// ``HapticEngine/Configuration/manual(clock:base:)``.
    @discardableResult
    public func renderOnePeriod() -> PeriodOutcome { renderOneManualPeriod() }

    /// Starves the render thread once, for `seconds`, before its next period (the device runs
    /// dry: an xrun, recovered in place).
    public func stallRenderThread(seconds: Double) { requestRenderStall(seconds: seconds) }
}
