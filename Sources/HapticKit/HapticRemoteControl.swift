import HapticEngine
import HapticPattern
import Synchronization

/// What a remote client (the OSC server) controls on a ``HapticManager``: looping players
/// under ids the client chooses, with live intensity, sharpness and parameter curves, and
/// a stop for everything it started. Calls are fire-and-forget like the manager's own: an
/// unknown id or name is counted and ignored, never an error.
///
/// The number of loops is bounded (`maxLoops`: a client that keeps inventing ids cannot
/// grow the server without end); one-shot voices are remembered in a ring of `recentVoices`
/// so that ``stopAll(atTime:)`` can stop them.
public final class HapticRemoteControl: Sendable {
    /// Counters of what the clients asked (a consistent snapshot).
    public struct Statistics: Sendable, Equatable {
        /// Loops started under an id.
        public var loopsStarted = 0
        /// Control messages (intensity, sharpness, curve, stop) that named no running loop.
        public var unknownLoopIDs = 0
        /// Loop starts refused because `maxLoops` loops are running.
        public var loopsRefused = 0
        public init() {}
    }

    /// The manager played on.
    public let manager: HapticManager
    /// The most loops running at once.
    public let maxLoops: Int

    private struct State {
        var loops: [String: LoopingPattern] = [:]
        var stats = Statistics()
    }
    private let state = Mutex(State())
    /// The one-shot voices started, for ``stopAll(atTime:)``.
    private let recent: RecentPlayers

    public init(manager: HapticManager, maxLoops: Int = 64, recentVoices: Int = 256) {
        self.manager = manager
        self.maxLoops = max(1, maxLoops)
        recent = RecentPlayers(capacity: recentVoices)
    }

    /// What the clients asked so far.
    public var statistics: Statistics { state.withLock { $0.stats } }

    /// The ids of the loops running now, sorted.
    public var loopIDs: [String] { state.withLock { $0.loops.filter { $0.value.isPlaying }.keys.sorted() } }

    /// Every loop started under an id and not stopped by a client, with its pattern and last
    /// intensity, whether or not it still plays (after the manager gave up, its loops end:
    /// a new control can start them again on a new manager).
    public var loopRequests: [(id: String, pattern: String, intensity: Double)] {
        state.withLock { s in s.loops.map { ($0.key, $0.value.name, $0.value.intensity) }.sorted { $0.id < $1.id } }
    }

    // MARK: - one-shot voices

    /// Plays the library pattern `name` at `time` (0: now), remembered for ``stopAll(atTime:)``.
    public func play(_ name: String, atTime time: Double) {
        recent.remember(manager.play(name, atTime: time))
    }

    /// Fires the cue `name` at `time` (0: now): sound and haptic from one voice in one stream.
    public func play(cue name: String, atTime time: Double) {
        for player in manager.play(cue: name, atTime: time) { recent.remember(player) }
    }

    // MARK: - loops

    /// Starts the library pattern `name` looping under `id` at `time` (0: now). A loop already
    /// running under `id` is stopped at the same time (the id now names the new one).
    public func startLoop(id: String, pattern name: String, intensity: Double = 1, atTime time: Double = 0) {
        let old: LoopingPattern? = state.withLock { s in
            let old = s.loops.removeValue(forKey: id)
            s.loops = s.loops.filter { $0.value.isPlaying }
            return old
        }
        old?.stop(atTime: time)
        let full = state.withLock { s -> Bool in
            guard s.loops.count < maxLoops else {
                s.stats.loopsRefused += 1
                return true
            }
            return false
        }
        guard !full else { return }
        let loop = manager.playLooping(name, intensity: intensity, atTime: time)
        guard loop.isPlaying else { return }
        let displaced: LoopingPattern? = state.withLock { s in
            s.stats.loopsStarted += 1
            defer { s.loops[id] = loop }
            return s.loops[id]
        }
        displaced?.stop(atTime: time)
    }

    /// Sets the intensity control (0…1) of loop `id`, at once.
    public func setIntensity(id: String, _ value: Double) { loop(id)?.setIntensity(value) }

    /// Sets the sharpness control (-1…1) of loop `id`, at once.
    public func setSharpness(id: String, _ value: Double) { loop(id)?.setSharpness(value) }

    /// Sends a parameter curve to loop `id`: `points` are (seconds from `time`, value); the
    /// value jumps to the first point and moves linearly between points.
    public func sendCurve(id: String, parameter: DynamicParameterID, points: [(time: Double, value: Double)], atTime time: Double) {
        guard let loop = loop(id), !points.isEmpty else { return }
        loop.schedule(ParameterCurve(parameter, time: 0, points: points.map { ParameterCurve.ControlPoint($0.time, $0.value) }), atTime: time)
    }

    /// Stops loop `id` at `time` (0: now) with the engine's short fade.
    public func stopLoop(id: String, atTime time: Double = 0) {
        let loop: LoopingPattern? = state.withLock { s in
            guard let loop = s.loops.removeValue(forKey: id) else {
                s.stats.unknownLoopIDs += 1
                return nil
            }
            return loop
        }
        loop?.stop(atTime: time)
    }

    /// Stops every loop and every one-shot voice this control started, at `time` (0: now).
    public func stopAll(atTime time: Double = 0) {
        let loops: [LoopingPattern] = state.withLock { s in
            defer { s.loops.removeAll() }
            return Array(s.loops.values)
        }
        for loop in loops { loop.stop(atTime: time) }
        recent.stopAll(atTime: time)
    }

    // MARK: - internals

    private func loop(_ id: String) -> LoopingPattern? {
        state.withLock { s in
            guard let loop = s.loops[id], loop.isPlaying else {
                s.stats.unknownLoopIDs += 1
                return nil
            }
            return loop
        }
    }
}
