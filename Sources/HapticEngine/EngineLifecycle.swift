extension HapticEngine {
    /// The engine's lifecycle. Every transition is listed in ``State``'s cases.
    public enum State: Sendable, Equatable, CustomStringConvertible {
        /// Made, never started. `start()` → running or unavailable.
        case created
        /// Rendering to an open device.
        case running
        /// Auto-shutdown: the device was closed after idling; the next playback reopens it.
        case idle
        /// Stopped by the program (`stop()` or a finished-handler's `.stopEngine`).
        case stopped
        /// The device was lost; the engine retries in the background (with backoff).
        case degraded
        /// A new device handle was built; players made before are invalid. Passes on to running.
        case reset
        /// No usable device: `start()` failed, or recovery gave up (`maxRestartAttempts`).
        case unavailable

        public var description: String {
            switch self {
            case .created: "created"
            case .running: "running"
            case .idle: "idle"
            case .stopped: "stopped"
            case .degraded: "degraded"
            case .reset: "reset"
            case .unavailable: "unavailable"
            }
        }
    }
}

/// The engine's lifecycle as a value: its state and history, and the bookkeeping that decides
/// the transitions — reconnection backoff and attempts, the outage's start, the reset
/// generation players are checked against, and idling for auto-shutdown. Every transition is
/// a method here, decided from the clock readings it is given, without threads or devices;
/// ``HapticEngine`` does the side effects (open, run, join, close, handlers) and tells it what
/// happened. Unit-tested on its own (EngineLifecycleTests).
struct EngineLifecycle: Equatable {
    typealias State = HapticEngine.State

    /// Bounds of recovery and idling (from ``HapticEngine/Configuration``).
    struct Policy: Equatable {
        var restartBackoffSeconds: Double = 0.05
        var maxRestartBackoffSeconds: Double = 0.5
        var maxRestartAttempts: Int? = nil
        var autoShutdownIdleSeconds: Double = 5
    }

    static let historyLimit = 256

    let policy: Policy
    private(set) var state: State = .created
    /// Every state the engine has been in, oldest first (the last `historyLimit`).
    private(set) var history: [State] = [.created]
    /// Bumped by each reset (a new device handle): players made before are invalid.
    private(set) var resetGeneration = 0
    /// Last playback activity (engine clock, ns), for auto-shutdown.
    var lastActivityNanos: Int64 = 0
    /// Close the device after idling (``HapticEngine/isAutoShutdownEnabled``).
    var autoShutdown = false
    /// The render side reported a lost device; the service step handles it.
    var deviceLostPending = false
    /// When the next reopen attempt is due (engine clock, ns).
    private(set) var retryAtNanos: Int64 = 0
    private(set) var backoffSeconds: Double = 0
    /// Failed reopen attempts since the loss.
    private(set) var failedAttempts = 0
    /// When the current loss was noticed (engine clock, ns).
    private(set) var lostAtNanos: Int64 = 0
    /// Reconnections to the same device since the engine was made.
    private(set) var reconnections = 0

    init(policy: Policy = Policy()) { self.policy = policy }

    /// Moves to `state` (no-op when already there); true when it changed.
    @discardableResult
    mutating func transition(to newState: State) -> Bool {
        guard state != newState else { return false }
        state = newState
        history.append(newState)
        if history.count > Self.historyLimit { history.removeFirst(history.count - Self.historyLimit) }
        return true
    }

    // MARK: start and stop

    /// What `start()` does in the current state.
    enum StartPlan: Equatable {
        /// Already running (or passing through a reset to running).
        case nothing
        /// Degraded: one recovery attempt now (reopen the old handle, else a reset), throwing.
        case restartNow
        /// Open the device (the old handle when there is one).
        case open
    }

    var startPlan: StartPlan {
        switch state {
        case .running, .reset: .nothing
        case .degraded: .restartNow
        case .created, .stopped, .unavailable, .idle: .open
        }
    }

    /// `start()` opened the device and the render side runs.
    mutating func opened(atNanos now: Int64) {
        failedAttempts = 0
        transition(to: .running)
        lastActivityNanos = now
    }

    /// `start()` found no usable device.
    mutating func openFailed() { transition(to: .unavailable) }

    /// `start()` brought a degraded engine back (the recovery path, run at once).
    mutating func restartedByStart() { failedAttempts = 0 }

    /// Whether `stop()` must halt a render side (with its fade).
    var isRendering: Bool { state == .running || state == .reset }

    /// `stop()` is done: the device is closed.
    mutating func stopped() { transition(to: .stopped) }

    // MARK: losing the device and recovering

    /// A lost device noticed while running: degraded, first retry after the initial backoff.
    mutating func lost(atNanos now: Int64) {
        transition(to: .degraded)
        lostAtNanos = now
        backoffSeconds = policy.restartBackoffSeconds
        retryAtNanos = now + Int64(backoffSeconds * 1e9)
        failedAttempts = 0
    }

    /// Whether a reopen attempt is due at `now`.
    func retryDue(atNanos now: Int64) -> Bool { state == .degraded && now >= retryAtNanos }

    /// A reopen attempt failed at `now`: the backoff doubles (to its maximum), or, past
    /// `maxRestartAttempts`, the engine gives up (unavailable). True when it gave up.
    mutating func retryFailed(atNanos now: Int64) -> Bool {
        failedAttempts += 1
        if let limit = policy.maxRestartAttempts, failedAttempts >= limit {
            transition(to: .unavailable)
            return true
        }
        backoffSeconds = min(backoffSeconds * 2, policy.maxRestartBackoffSeconds)
        retryAtNanos = now + Int64(backoffSeconds * 1e9)
        return false
    }

    /// The old handle opened again at `now`: running, the same players go on.
    /// Returns the attempts it took (the successful one included).
    mutating func reconnected(atNanos now: Int64) -> Int {
        transition(to: .running)
        lastActivityNanos = now
        reconnections += 1
        return failedAttempts + 1
    }

    /// A new handle is about to run: players made before become invalid.
    mutating func resetBegan() {
        resetGeneration += 1
        transition(to: .reset)
    }

    /// The new handle could not run: still degraded.
    mutating func resetFailed() { transition(to: .degraded) }

    /// The new handle runs.
    mutating func resetFinished(atNanos now: Int64) {
        transition(to: .running)
        lastActivityNanos = now
    }

    // MARK: idling

    /// Whether auto-shutdown closes the device now (running, no voice, idle long enough).
    func shouldIdle(atNanos now: Int64, voicesInUse: Int) -> Bool {
        state == .running && voicesInUse == 0 && autoShutdown
            && Double(now - lastActivityNanos) / 1e9 >= policy.autoShutdownIdleSeconds
    }

    /// The device was closed after idling.
    mutating func wentIdle() { transition(to: .idle) }

    /// A playback reopened the device after idling.
    mutating func wokeUp() { transition(to: .running) }

    // MARK: the service thread

    /// Whether a service thread may be started (something to watch).
    var wantsServiceThread: Bool { state == .running || state == .degraded }

    /// Whether the service thread keeps polling.
    var keepsServiceThread: Bool { state == .running || state == .degraded || state == .reset }
}
