import HapticEngine

// The manager's roles, recovery state, recovery log and counters (the types its public state is read as).
extension HapticManager {
    /// Which of the manager's engines (two-device mode has both; one stream has only `.haptic`).
    public enum EngineRole: String, Sendable, Equatable {
        /// The engine on `output`: haptics (and, in one stream, the sound effects too).
        case haptic
        /// The engine on `audioOutput`: sound effects (two-device mode).
        case audio
    }

    /// Where the manager is in its recovery state machine.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        /// An engine is running.
        case running
        /// The device was lost; the engine reconnects by itself (the one restart). Calls are
        /// no-ops until it is back.
        case reconnecting(String)
        /// Unavailable for good (this manager): no device, or recovery failed. Every call is a no-op.
        case unavailable(String)

        public var description: String {
            switch self {
            case .running: "running"
            case .reconnecting(let why): "reconnecting (\(why))"
            case .unavailable(let why): "unavailable (\(why))"
            }
        }
    }

    /// One step of recovery, for diagnostics and tests (`recoveryLog`). `engine` numbers
    /// the engines the manager built, from 1.
    public enum RecoveryEvent: Sendable, Equatable {
        case started(engine: Int)
        case startFailed(engine: Int, String)
        case stopped(engine: Int, String)
        case restartSucceeded(engine: Int)
        case restartFailed(engine: Int, String)
        case reset(engine: Int)
        case rebuilt(engine: Int, patterns: Int)
        case rebuildFailed(engine: Int, String)
        case shutDown
        /// A step of the audio engine's recovery (two-device mode); `engine` numbers audio engines.
        indirect case audio(RecoveryEvent)
    }

    /// What happened to one of the manager's engines, as the app hears it
    /// (``Configuration/eventHandler``): the stops, reconnections and rebuilds the
    /// ``RecoveryEvent`` log records, with what the engine said.
    public enum EngineEvent: Sendable {
        /// The engine of `role` lost its device and reconnects by itself (`reconnecting`).
        case lost(EngineRole, engine: Int, reason: HapticEngine.StoppedReason)
        /// The engine of `role` is back on its device: players, loops and schedule go on.
        case reconnected(EngineRole, engine: Int, HapticEngine.Reconnection)
        /// The engine of `role` could not be reconnected and a new one (number `engine`) runs:
        /// one-shot players of the old one are gone, loops restarted.
        case rebuilt(EngineRole, engine: Int)
        /// The role is unavailable for good (`reason`).
        case gaveUp(EngineRole, reason: String)
        /// The capture followed (``HapticManager/startFollowing(_:settings:duckingDecibels:)``)
        /// was lost; it is reopened by itself while the output keeps running.
        case captureLost(String)
        /// The capture followed is back after `seconds`.
        case captureBack(String, seconds: Double)
    }

    /// Counters of what the manager did (taken under its lock, so a snapshot is consistent).
    public struct Statistics: Sendable, Equatable {
        /// Voices started on an engine (patterns, sound effects, cues, transients, loops).
        public var voicesStarted = 0
        /// Starts that the engine refused (not running, voice limit...): logged and dropped.
        public var startsFailed = 0
        /// Calls that named nothing known (debug-logged no-ops).
        public var unknownNames = 0
        /// Calls made while unavailable (no-ops).
        public var callsWhileUnavailable = 0
        /// Transient voices stopped early to keep `transientVoices` (no pile-up).
        public var transientsCut = 0
        /// Parameter updates sent to looping players.
        public var loopUpdates = 0
        public init() {}
    }
}
