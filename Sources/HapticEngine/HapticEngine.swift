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
}
