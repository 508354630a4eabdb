#if canImport(Glibc)
import Glibc
#endif
import HapticPattern
import HapticRender
import Logging
import Synchronization

/// A live haptic/audio engine on one output device, modelled on Core Haptics'
/// `CHHapticEngine`. Times are seconds on CLOCK_MONOTONIC (`currentTime`), shared
/// with the rest of the program; 0 means "as soon as possible".
///
/// Thread-safe: every method may be called from any thread. Control calls take a
/// short lock on the control side; the render thread is reached only through
/// lock-free queues.
public final class HapticEngine: Sendable {
    /// Why the engine stopped on its own (never reported for stops the program asked for).
    public enum StoppedReason: Sendable, Equatable {
        /// The device or its sound server failed (the back-end's message).
        case deviceLost(String)
        /// The device made no progress within its bounded wait (a dead JACK server looks like this).
        case deviceTimeout
        /// Recovery gave up after `maxRestartAttempts`.
        case recoveryFailed(String)
    }

    /// What to do once all players have finished.
    public enum FinishedAction: Sendable { case stopEngine, leaveRunning }

    /// Who runs the render loop. Manual drive is HapticEngineTesting's (`Configuration.manual(clock:)`).
    package enum Drive: Sendable, Equatable {
        /// A dedicated render thread (production).
        case renderThread
        /// The caller, one period per `renderOnePeriod()` (HapticEngineTesting, with a virtual device).
        case manual
        /// The caller pulls the samples into its own buffer (`render(into:frames:)`, production:
        /// HapticEngine+Pull.swift); the clock is the frames pulled.
        case pull
    }

    /// A device handle, touched by the control side only while the render side is not running.
    final class DeviceRef: @unchecked Sendable {
        let device: any OutputDevice
        init(_ device: any OutputDevice) { self.device = device }
        /// What the device said about its channels, asked once per handle (before its first
        /// open), and again while a sound server's sink could not be asked (a server not up yet).
        private var described: DeviceChannels?
        private var asked = false
        func describeChannels() -> DeviceChannels? {
            if !asked || (described?.server != nil && described?.server?.positions == nil) {
                described = device.describeChannels()
                asked = true
            }
            return described
        }
    }

    /// A device just opened: the format it granted and the layout placed on its channels.
    struct Opened {
        var format: DeviceFormat
        var plan: ChannelPlan
    }

    /// What a reconnection after a lost device did (``HapticEngine/reconnectedHandler``).
    public struct Reconnection: Sendable, Equatable {
        /// Seconds from the loss being noticed to the device playing again (monotonic clock).
        public var outageSeconds: Double
        /// Seconds of the timeline that passed without output: playing voices (and loops, on
        /// their grid) moved on by it.
        public var gapSeconds: Double
        /// Scheduled starts that fell due while the device was away and were dropped.
        public var droppedOnsets: Int
        /// Reopen attempts, the successful one included.
        public var attempts: Int
    }

    struct Handlers {
        var stopped: (@Sendable (StoppedReason) -> Void)?
        var reconnected: (@Sendable (Reconnection) -> Void)?
        var reset: (@Sendable () -> Void)?
        var playersFinished: (@Sendable (HapticEngineError?) -> FinishedAction)?
        var rungOut: (@Sendable () -> Void)?
    }

    struct Control {
        var lifecycle: EngineLifecycle
        var device: DeviceRef? = nil
        var format: DeviceFormat? = nil
        var routing: ChannelRouting? = nil
        var renderThread: pthread_t? = nil
        var serviceThreadRunning = false
        var freeSlots: [Int32]
        var slotGenerations: [UInt32]
        var voicesInUse = 0
        var realtimeGranted = false
        var memoryLocked = false
        var handlers = Handlers()
        /// Since when (ns) no player has played while a `notifyWhenRungOut` handler waits.
        var playersIdleSinceNanos: Int64? = nil
    }

    /// What the engine was made with.
    public let configuration: Configuration
    let makeDevice: @Sendable () -> any OutputDevice
    let core: RenderCore
    let control: Mutex<Control>
    /// Pull drive: the clock the pulls move (nil for the other drives).
    let pulledClock: PulledClock?
    /// Interleaved channels per frame (the layout's).
    let outputChannels: Int
    var clock: EngineClock { configuration.clock }
    var logger: Logger { configuration.logger }

    /// An engine for the device the closure builds. The closure is called again to
    /// build a new handle when the old one cannot be reused (a reset).
    public init(configuration: Configuration = Configuration(), makeDevice: @escaping @Sendable () -> any OutputDevice) {
        var configuration = configuration
        // The pull drive's clock is this engine's own: the frames its caller pulls.
        pulledClock = configuration.drive == .pull ? PulledClock(sampleRate: configuration.sampleRate) : nil
        if let pulledClock { configuration.clock = EngineClock(source: .manual(pulledClock)) }
        outputChannels = configuration.layout.channels
        self.configuration = configuration
        self.makeDevice = makeDevice
        let voices = max(1, configuration.maxVoices)
        core = RenderCore(maxVoices: voices, commandCapacity: max(64, configuration.commandCapacity),
                          traceCapacity: configuration.commandTraceCapacity)
        core.clock = configuration.clock
        core.pulledClock = pulledClock
        let policy = EngineLifecycle.Policy(
            restartBackoffSeconds: configuration.restartBackoffSeconds,
            maxRestartBackoffSeconds: configuration.maxRestartBackoffSeconds,
            maxRestartAttempts: configuration.maxRestartAttempts,
            autoShutdownIdleSeconds: configuration.autoShutdownIdleSeconds)
        control = Mutex(Control(lifecycle: EngineLifecycle(policy: policy), freeSlots: (0..<Int32(voices)).reversed(),
                                slotGenerations: Array(repeating: 0, count: voices)))
    }

    deinit {
        let (thread, device) = control.withLock { c in (c.renderThread, c.device) }
        if let thread {
            core.stopRequested.store(true, ordering: .releasing)
            EngineThread.join(thread)
        }
        core.end()
        device?.device.close()
    }

    // MARK: - time and state

    /// Seconds on the program-wide clock (CLOCK_MONOTONIC), the time base of every `atTime:`.
    public static var currentMonotonicTime: Double { MonotonicClock.now() }

    /// Seconds on this engine's clock (CLOCK_MONOTONIC unless a manual clock was configured).
    public var currentTime: Double { clock.seconds() }

    /// The current state.
    public var state: State { control.withLock { $0.lifecycle.state } }

    /// Every state the engine has been in, oldest first (bounded; for tests and diagnostics).
    public var stateHistory: [State] { control.withLock { $0.lifecycle.history } }

    /// False when no usable device is there (start failed or recovery gave up).
    public var isAvailable: Bool { state != .unavailable }

    /// The format the device granted (nil before the first successful start).
    public var deviceFormat: DeviceFormat? { control.withLock { $0.format } }

    /// Where the channels went at the last open: each channel's position and whether the
    /// haptic reaches a channel of its own (`ChannelRouting.warning`, also logged as a warning
    /// when it changes). nil before the first successful start.
    public var channelRouting: ChannelRouting? { control.withLock { $0.routing } }

    /// Whether the process's memory is locked (`Configuration.lockMemory`, and permitted).
    public var isMemoryLocked: Bool { control.withLock { $0.memoryLocked } }

    /// Whether the render thread got SCHED_FIFO (false in manual drive or when refused).
    public var isRealtime: Bool { control.withLock { $0.realtimeGranted } }

    /// Called when the engine stops on its own (device lost...), never for `stop()`.
    public var stoppedHandler: (@Sendable (StoppedReason) -> Void)? {
        get { control.withLock { $0.handlers.stopped } }
        set { control.withLock { $0.handlers.stopped = newValue } }
    }

    /// Called when the engine reconnected by itself after `stoppedHandler` reported a lost
    /// device: the same players, schedule and clock go on (Core Haptics has no such call; its
    /// apps learn it by playing again). Not called after a reset (see `resetHandler`).
    public var reconnectedHandler: (@Sendable (Reconnection) -> Void)? {
        get { control.withLock { $0.handlers.reconnected } }
        set { control.withLock { $0.handlers.reconnected = newValue } }
    }

    /// Called after the engine rebuilt its device handle; players made before are invalid.
    public var resetHandler: (@Sendable () -> Void)? {
        get { control.withLock { $0.handlers.reset } }
        set { control.withLock { $0.handlers.reset = newValue } }
    }

    /// Calls `handler` once, when no player is playing or scheduled any more; its answer
    /// says whether to stop the engine.
    public func notifyWhenPlayersFinished(_ handler: @escaping @Sendable (HapticEngineError?) -> FinishedAction) {
        control.withLock { $0.handlers.playersFinished = handler }
    }

    /// Calls `handler` once, when no player is playing or scheduled any more and the output has
    /// rung out — the end rule of an offline render (``RingOutMeter``: below -90 dBFS for one
    /// period of the protection high-pass's cutoff, so the protection chain's ringing has died
    /// too), or at most `RingOutMeter.maximumExtraSeconds` after the last player finished. A
    /// program that stops the engine then has played a pattern's whole render, ring-out
    /// included (`notifyWhenPlayersFinished` fires at the players' end, before it). Core
    /// Haptics has no such call.
    public func notifyWhenRungOut(_ handler: @escaping @Sendable () -> Void) {
        control.withLock { $0.handlers.rungOut = handler }
    }

    /// Only the haptic channels sound (audio buses are silenced).
    public var playsHapticsOnly: Bool {
        get { core.outputMode.load(ordering: .relaxed) == 1 }
        set { core.outputMode.store(newValue ? 1 : (playsAudioOnly ? 2 : 0), ordering: .relaxed) }
    }

    /// Only the audio channels sound (the haptic bus is silenced).
    public var playsAudioOnly: Bool {
        get { core.outputMode.load(ordering: .relaxed) == 2 }
        set { core.outputMode.store(newValue ? 2 : (playsHapticsOnly ? 1 : 0), ordering: .relaxed) }
    }

    /// Close the device after `autoShutdownIdleSeconds` without players, reopen it on demand.
    public var isAutoShutdownEnabled: Bool {
        get { control.withLock { $0.lifecycle.autoShutdown } }
        set { control.withLock { $0.lifecycle.autoShutdown = newValue } }
    }

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

    // MARK: - internals (control side, under the control lock)

    /// Applies a lifecycle change (``EngineLifecycle``), logging the state change it makes.
    @discardableResult
    func lifecycle<R>(_ c: inout Control, _ change: (inout EngineLifecycle) -> R) -> R {
        let before = c.lifecycle.state
        let result = change(&c.lifecycle)
        if c.lifecycle.state != before { logger.debug("haptic engine: \(before) -> \(c.lifecycle.state)") }
        return result
    }

    func formatProblem(_ granted: DeviceFormat, channels: Int) -> String? {
        if granted.channels != channels {
            return "device granted \(granted.channels) channels, the layout needs \(channels)"
        }
        if granted.sampleRate != configuration.sampleRate {
            return "device granted \(granted.sampleRate) Hz, the engine renders \(configuration.sampleRate) Hz"
        }
        if granted.periodFrames <= 0 { return "device granted a period of \(granted.periodFrames) frames" }
        return nil
    }

    /// Places the layout on the device's channel maps, opens `handle` and checks the granted
    /// format (closing it again when unusable).
    func open(_ handle: DeviceRef) throws(HapticEngineError) -> Opened {
        let plan: ChannelPlan
        do {
            plan = try ChannelPlan(
                layout: configuration.layout, described: handle.describeChannels(), device: handle.device.name)
        } catch {
            throw .formatMismatch(error.description)
        }
        var requested = configuration.requestedFormat
        requested.channels = plan.layout.channels
        requested.channelMap = plan.requestedMap
        let granted: DeviceFormat
        // Threads the device starts while opening (a sound server plugin's I/O thread) get a
        // real-time priority just below the render thread's, as the render thread does.
        let ioPriority = configuration.drive == .renderThread ? configuration.realtimePriority.map { max(1, $0 - 1) } : nil
        do {
            granted = try EngineThread.withInheritedRealtimeScheduling(priority: ioPriority) { () throws(DeviceOpenError) in
                try handle.device.open(requested: requested)
            }
        } catch {
            throw .deviceUnavailable(error)
        }
        if let problem = formatProblem(granted, channels: plan.layout.channels) {
            handle.device.close()
            throw .formatMismatch(problem)
        }
        return Opened(format: granted, plan: plan)
    }

    /// Opens `handle` and starts the render side on it.
    @discardableResult
    func openAndRun(_ handle: DeviceRef, _ c: inout Control, resuming: Bool = false) throws(HapticEngineError) -> RenderCore.Resumption? {
        try run(handle, opened: open(handle), &c, resuming: resuming)
    }

    /// Starts the render side on an open handle; `resuming` keeps voices, schedule and clock
    /// (a reconnection, ``RenderCore/resume(device:lateWindowSeconds:)``).
    @discardableResult
    func run(_ handle: DeviceRef, opened: Opened, _ c: inout Control,
             resuming: Bool = false) throws(HapticEngineError) -> RenderCore.Resumption? {
        let granted = opened.format
        c.format = granted
        noteRouting(
            ChannelRouting(
                device: handle.device.name, layout: opened.plan.layout, positions: handle.device.channelMap,
                described: handle.describeChannels()), &c)
        core.configure(format: granted, layout: opened.plan.layout, profile: configuration.profile,
                       stopFadeSeconds: configuration.stopFadeSeconds,
                       latencyCompensationSeconds: configuration.latencyCompensationSeconds,
                       gridThresholdSeconds: configuration.scheduleDriftToleranceSeconds,
                       gridSettleSeconds: configuration.scheduleSettleSeconds,
                       stallLimitSeconds: configuration.stallLimitSeconds, liveInput: configuration.liveInput)
        var resumption: RenderCore.Resumption? = nil
        if resuming {
            resumption = core.resume(device: handle.device, lateWindowSeconds: configuration.lateOnsetWindowSeconds)
        } else if configuration.drive == .pull {
            core.beginPulled(device: handle.device)
        } else {
            core.begin(device: handle.device)
        }
        if configuration.drive == .pull { core.openPullGate() }
        guard configuration.drive == .renderThread else { return resumption }
        if configuration.lockMemory {
            let (locked, code) = EngineThread.lockMemoryOnce()
            c.memoryLocked = locked
            if !locked && code != 0 { logger.warning("haptic engine: mlockall refused (errno \(code)); memory not locked") }
        }
        let core = self.core
        let hook = configuration.renderThreadDidStart
        let started = EngineThread.spawn(name: "haptic-render", realtimePriority: configuration.realtimePriority) {
            hook?()
            // A pattern, not `==`: Equatable through its witness table instantiates that table
            // (an allocation) on first use, here on the render thread.
            while case .rendered = core.renderOnePeriod() {}
        }
        guard let started else {
            core.end()
            handle.device.close()
            throw .deviceUnavailable(DeviceOpenError(device: handle.device.name, message: "cannot create the render thread"))
        }
        c.renderThread = started.thread
        c.realtimeGranted = started.realtime
        if configuration.realtimePriority != nil && !started.realtime {
            logger.warning("haptic engine: SCHED_FIFO refused (errno \(started.realtimeError)); render thread runs with normal scheduling")
        }
        return resumption
    }

    /// Keeps the routing of the last open; logs its warning when it is new (not at every reconnection).
    func noteRouting(_ routing: ChannelRouting, _ c: inout Control) {
        if configuration.logsChannelRouting, let warning = routing.warning, warning != c.routing?.warning {
            logger.warning("haptic engine: \(warning)")
        }
        logger.debug("haptic engine: \(routing.device) channels: \(routing.summary)")
        c.routing = routing
    }

    /// Ends rendering: with `fade`, the render side fades out and plays a buffer of silence first.
    func haltRendering(_ c: inout Control, fade: Bool) {
        core.stopRequested.store(true, ordering: .releasing)
        if let thread = c.renderThread {
            EngineThread.join(thread)  // bounded: every device write is bounded by its timeout
            c.renderThread = nil
        } else if configuration.drive == .manual {
            // The caller drives the device: render the fade (and its tail) here.
            var guardPeriods = 100_000
            while fade && core.renderOnePeriod() == .rendered && guardPeriods > 0 { guardPeriods -= 1 }
        } else if configuration.drive == .pull {
            // The caller pulls (no one here to hear a fade: `finishPulling()` asks for one).
            core.closePullGate()
        }
        core.end()
    }

    /// Takes back finished voices; returns the callbacks to run outside the lock.
    func drainEvents(_ c: inout Control) -> [() -> Void] {
        var calls: [() -> Void] = []
        while let event = core.events.pop() {
            switch event.kind {
            case .finished:
                c.freeSlots.append(event.slot)
                c.voicesInUse -= 1
                c.lifecycle.lastActivityNanos = clock.nanos()
                if let box = event.box?.takeRetainedValue(), let onFinish = box.onFinish {
                    let reason = event.reason
                    calls.append { onFinish(reason) }
                }
            case .deviceLost:
                c.lifecycle.deviceLostPending = true
            }
        }
        return calls
    }

    /// Reopens the device after auto-shutdown (a playback asked for it).
    func wakeFromIdle(_ c: inout Control) throws(HapticEngineError) {
        guard let handle = c.device else { throw .engineNotRunning(c.lifecycle.state) }
        try openAndRun(handle, &c)
        lifecycle(&c) { $0.wokeUp() }
    }

    /// Keeps one control-side service thread alive while the engine runs in thread drive.
    func ensureServiceThread() {
        guard configuration.drive == .renderThread else { return }
        let spawn: Bool = control.withLock { c in
            guard !c.serviceThreadRunning, c.lifecycle.wantsServiceThread else { return false }
            c.serviceThreadRunning = true
            return true
        }
        guard spawn else { return }
        let weakEngine = WeakEngine(self)
        let poll = configuration.servicePollSeconds
        let started = EngineThread.spawn(name: "haptic-service", realtimePriority: nil) {
            while true {
                guard let engine = weakEngine.engine else { return }
                engine.serviceStep()
                let keepGoing: Bool = engine.control.withLock { c in
                    let busy = c.lifecycle.keepsServiceThread
                    if !busy { c.serviceThreadRunning = false }
                    return busy
                }
                if !keepGoing { return }
                EngineThread.sleep(seconds: poll)
            }
        }
        if let started {
            pthread_detach(started.thread)
        } else {
            control.withLock { $0.serviceThreadRunning = false }
        }
    }

    final class WeakEngine: @unchecked Sendable {
        // Written once at init; read from the service thread.
        weak var engine: HapticEngine?
        init(_ engine: HapticEngine) { self.engine = engine }
    }
}
