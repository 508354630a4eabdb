import CHapticSynth
import HapticKit
import Synchronization

/// What an hs_player is: a looping player of a pattern (the app's, or a library one) on one
/// engine, with its intensity and sharpness controls; each start is a ``LoopingPattern`` of the
/// engine's manager (so a rebuilt engine restarts it by itself).
final class CPlayer: Sendable {
    enum Source: Sendable {
        case prepared(PreparedPattern)
        case library(String)
    }
    let engine: CEngine
    let source: Source
    private struct State {
        var loop: LoopingPattern? = nil
        /// The last loop stopped: it plays on until its stop takes effect.
        var stopping: LoopingPattern? = nil
        var intensity = 1.0
        var sharpness = 0.0
    }
    private let state = Mutex(State())

    init(engine: CEngine, source: Source) {
        self.engine = engine
        self.source = source
    }

    func start(at time: Double) throws(Failure) {
        let (old, intensity, sharpness) = state.withLock { s in
            defer { s.loop = nil }
            return (s.loop, s.intensity, s.sharpness)
        }
        old?.stop(atTime: time)
        let manager = engine.manager
        let loop = switch source {
        case .prepared(let pattern):
            manager.playLooping(pattern, name: "hs_player", intensity: intensity, sharpness: sharpness, atTime: time)
        case .library(let name): manager.playLooping(name, intensity: intensity, sharpness: sharpness, atTime: time)
        }
        guard loop.isPlaying else {
            throw Failure(HS_ERR_LIMIT, "the engine refused the start (all voices in use, or its command queue full)")
        }
        let displaced = state.withLock { s in
            defer { s.loop = loop }
            return s.loop
        }
        displaced?.stop(atTime: time)  // a start on another thread meanwhile
    }

    func stop(at time: Double) {
        state.withLock { s in
            defer { s.loop = nil }
            if s.loop != nil { s.stopping = s.loop }
            return s.loop
        }?.stop(atTime: time)
    }

    func setIntensity(_ value: Double) {
        state.withLock { s in
            s.intensity = value
            return s.loop
        }?.setIntensity(value)
    }

    func setSharpness(_ value: Double) {
        state.withLock { s in
            s.sharpness = value
            return s.loop
        }?.setSharpness(value)
    }

    func schedule(_ curve: ParameterCurve, at time: Double) throws(Failure) {
        guard let loop = state.withLock({ $0.loop }), loop.isPlaying else {
            throw .notRunning("the player is not playing (hs_player_start first)")
        }
        loop.schedule(curve, atTime: time)
    }

    /// True from a start until a stop takes effect (hs_player_is_playing).
    var isPlaying: Bool {
        let (loop, stopping) = state.withLock { ($0.loop, $0.stopping) }
        return loop?.isPlaying ?? stopping?.isPlaying ?? false
    }
}
