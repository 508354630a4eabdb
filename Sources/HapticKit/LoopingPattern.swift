import HapticEngine
import HapticPattern
import HapticRender
import Synchronization

/// Live control of a looping pattern started with ``HapticManager/playLooping(_:intensity:atTime:)``.
/// Every method is fire-and-forget and safe from any thread.
public final class LoopingPattern: Sendable {
    /// The pattern's name (a library pattern's, or the label given with a prepared pattern).
    public let name: String
    /// The pattern the app prepared (nil: the library pattern `name`).
    let prepared: PreparedPattern?
    private let manager: HapticManager.WeakManager

    private struct State {
        var player: AdvancedPatternPlayer? = nil
        var engineID = 0
        var intensity: Double
        var sharpness: Double = 0
        var stopped = false
        /// The player a stop was sent to: it plays on until the stop takes effect.
        var stopping: AdvancedPatternPlayer? = nil
    }
    private let state: Mutex<State>

    init(name: String, prepared: PreparedPattern?, manager: HapticManager, intensity: Double, sharpness: Double = 0) {
        self.name = name
        self.prepared = prepared
        self.manager = HapticManager.WeakManager(manager)
        state = Mutex(State(intensity: Self.clamp(intensity, 0...1), sharpness: Self.clamp(sharpness, -1...1)))
    }

    /// The intensity (HapticIntensityControl, 0…1) the loop plays at.
    public var intensity: Double { state.withLock { $0.intensity } }

    /// Whether the loop is playing: true from its start until a stop takes effect (a stop
    /// scheduled for later leaves it playing until then); false when it never could start.
    /// The engine tells its control side of a stopped voice within a period or so.
    public var isPlaying: Bool {
        let (playing, stopping) = state.withLock { s in (!s.stopped && s.player != nil, s.stopped ? s.stopping : nil) }
        return playing || (stopping?.isActive ?? false)
    }

    /// Sets the loop's intensity (HapticIntensityControl, clamped to 0…1), effective at once.
    public func setIntensity(_ value: Double) {
        let v = Self.clamp(value, 0...1)
        let player = state.withLock { s -> AdvancedPatternPlayer? in
            s.intensity = v
            return s.stopped ? nil : s.player
        }
        send(player, [DynamicParameter(.hapticIntensityControl, time: 0, value: v)])
    }

    /// Sets the loop's sharpness offset (HapticSharpnessControl, clamped to -1…1).
    public func setSharpness(_ value: Double) {
        let v = Self.clamp(value, -1...1)
        let player = state.withLock { s -> AdvancedPatternPlayer? in
            s.sharpness = v
            return s.stopped ? nil : s.player
        }
        send(player, [DynamicParameter(.hapticSharpnessControl, time: 0, value: v)])
    }

    /// Schedules a parameter curve (intensity or sharpness control, ...) on the loop from
    /// `time` (0: now). The values the handle restarts with after a reset stay those of
    /// the last `setIntensity`/`setSharpness`.
    public func schedule(_ curve: ParameterCurve, atTime time: Double = 0) {
        guard let player = state.withLock({ $0.stopped ? nil : $0.player }) else { return }
        do {
            try player.scheduleParameterCurve(curve, atTime: time)
            manager.manager?.count { $0.loopUpdates += 1 }
        } catch {
            // An old engine's player after a reset: the manager restarts the loop on the new one.
        }
    }

    /// Stops the loop at `time` (0: now) with the engine's short fade.
    public func stop(atTime time: Double = 0) {
        let player = state.withLock { s -> AdvancedPatternPlayer? in
            guard !s.stopped else { return nil }
            s.stopped = true
            let p = s.player
            s.player = nil
            s.stopping = p
            return p
        }
        do {
            try player?.stop(atTime: time)
        } catch {
            // Not sent (an old engine's player, a full queue): not reported as stopping.
            state.withLock { $0.stopping = nil }
        }
        manager.manager?.unregister(self)
    }

    func markStopped() {
        state.withLock { s in
            s.stopped = true
            s.player = nil
            s.stopping = nil
        }
    }

    /// Test support: the player in use and the manager's engine number it plays on.
    var playerForTests: AdvancedPatternPlayer? { state.withLock { $0.player } }
    var engineIDForTests: Int { state.withLock { $0.engineID } }

    private func send(_ player: AdvancedPatternPlayer?, _ parameters: [DynamicParameter]) {
        guard let player else { return }
        do {
            try player.sendParameters(parameters, atTime: 0)
            manager.manager?.count { $0.loopUpdates += 1 }
        } catch {
            // An old engine's player after a reset: the manager restarts the loop on the new one.
        }
    }

    private static func clamp(_ v: Double, _ range: ClosedRange<Double>) -> Double {
        v.isFinite ? min(range.upperBound, max(range.lowerBound, v)) : range.lowerBound
    }

    /// Starts the loop on `engine` with the handle's current values.
    func begin(on engine: HapticEngine, id: Int, pattern: PreparedPattern, at time: Double) {
        let player: AdvancedPatternPlayer
        do {
            player = try engine.makeAdvancedPlayer(with: pattern)
            player.loopEnabled = true  // read at start: the voice loops from its first pass
            // The controls in force from the first frame (its first onsets included), then sent
            // again below in case a setter ran before the player was registered.
            let (intensity, sharpness) = state.withLock { ($0.intensity, $0.sharpness) }
            try player.start(atTime: time, controls: Self.controls(intensity: intensity, sharpness: sharpness))
        } catch {
            manager.manager?.count { $0.startsFailed += 1 }
            return
        }
        manager.manager?.count { $0.voicesStarted += 1 }
        let values: (Double, Double)? = state.withLock { s in
            guard !s.stopped else { return nil }
            s.player = player
            s.engineID = id
            return (s.intensity, s.sharpness)
        }
        guard let (intensity, sharpness) = values else {
            try? player.stop(atTime: 0)
            return
        }
        try? player.sendParameters(Self.controls(intensity: intensity, sharpness: sharpness), atTime: time)
    }

    private static func controls(intensity: Double, sharpness: Double) -> [DynamicParameter] {
        var parameters = [DynamicParameter(.hapticIntensityControl, time: 0, value: intensity)]
        if sharpness != 0 { parameters.append(DynamicParameter(.hapticSharpnessControl, time: 0, value: sharpness)) }
        return parameters
    }

    /// After a reset: the same loop on the manager's new engine (the old player is dropped).
    func restart() {
        guard let manager = manager.manager, let (engine, id, pattern) = manager.current(for: self) else { return }
        let stale = state.withLock { s -> Bool in
            guard !s.stopped, s.engineID != id else { return false }
            s.player = nil
            return true
        }
        if stale { begin(on: engine, id: id, pattern: pattern, at: 0) }
    }
}
