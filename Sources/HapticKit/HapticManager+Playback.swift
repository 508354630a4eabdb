import HapticEngine
import HapticPattern
import HapticRender

// Fire-and-forget playback of patterns, sound effects, transients and loops, shutDown, and
// the lookup/start internals every playback call goes through.
extension HapticManager {

    /// Plays the library pattern `name` as soon as possible.
    public func play(_ name: String) { play(name, atTime: 0) }

    /// Plays the library pattern `name` at `time` (seconds on CLOCK_MONOTONIC; 0 or a
    /// past time: as soon as possible). Unknown name: a no-op (debug log). Returns the player
    /// (nil: nothing started), for callers that stop what they started.
    @discardableResult
    public func play(_ name: String, atTime time: Double) -> PatternPlayer? {
        guard let (engine, pattern) = lookup({ $0.patterns[name] }, what: "pattern", name) else { return nil }
        return start(pattern, on: engine, at: time)
    }

    /// Plays a pattern the app prepared (``prepare(_:sounds:)``) at `time` on the haptic engine
    /// (its audio events are heard where the layout has audio channels). Returns the player, or
    /// nil when nothing started (unavailable, or the engine refused: counted and debug-logged).
    @discardableResult
    public func play(_ pattern: PreparedPattern, atTime time: Double) -> PatternPlayer? {
        guard let (engine, pattern) = lookup({ _ in pattern }, what: "pattern", "(prepared by the app)") else { return nil }
        return start(pattern, on: engine, at: time)
    }

    /// Compiles `pattern` for the manager's haptic engine (its actuator profile and rate),
    /// leniently (the result keeps the warnings), with `sounds` for its AudioCustom events (nil:
    /// the assets folder's). Prepare once, play many times: ``play(_:atTime:)-(PreparedPattern,_)``,
    /// ``playLooping(_:name:intensity:atTime:)``. A manager rebuilt after a reset keeps the same
    /// profile and rate, so what was prepared stays playable.
    public func prepare(_ pattern: AHAPPattern, sounds: (any SoundSource)? = nil) throws(RenderError) -> PreparedPattern {
        let c = configuration.engine
        return try PreparedPattern(pattern, profile: c.profile, sampleRate: Double(c.sampleRate), sounds: sounds ?? self.sounds)
    }

    /// Whether the library pattern `name` is loaded and prepared (what ``play(_:atTime:)`` finds).
    public func canPlay(pattern name: String) -> Bool { state.withLock { $0.caches.patterns[name] != nil } }

    /// Whether the cue `name` is in the cue sheet and prepared (what ``play(cue:atTime:)`` finds).
    public func canPlay(cue name: String) -> Bool { state.withLock { $0.caches.cueHaptics[name] != nil } }

    /// Whether the sound effect `name` is prepared (what ``playSFX(_:atTime:)`` finds).
    public func canPlay(soundEffect name: String) -> Bool {
        state.withLock { s in (s[soundRole] ?? s.haptic).caches.sounds[name] != nil }
    }

    /// Plays the sound effect `name` (`Assets/sfx/<name>.wav`) as soon as possible.
    public func playSFX(_ name: String) { playSFX(name, atTime: 0) }

    /// Plays the sound effect `name` at `time`, on the same engine and output stream as
    /// the haptics: a haptic given the same `time` starts on the same output frame.
    @discardableResult
    public func playSFX(_ name: String, atTime time: Double) -> PatternPlayer? {
        guard let (engine, pattern) = lookup(on: soundRole, { $0.sounds[name] }, what: "sound effect", name) else { return nil }
        return start(pattern, on: engine, at: time)
    }

    /// The engine that plays the sound effects: the audio engine in two-device mode.
    var soundRole: EngineRole { isTwoDevice ? .audio : .haptic }

    /// One transient without a file (detent clicks, taps): intensity and sharpness are
    /// clamped to 0…1 and quantised (`transientSteps`); at most `transientVoices` sound
    /// at once (a new one stops the oldest), so rapid calls neither pile up nor interfere.
    public func playTransientEvent(intensity: Double, sharpness: Double) {
        playTransientEvent(intensity: intensity, sharpness: sharpness, atTime: 0)
    }

    /// `playTransientEvent(intensity:sharpness:)` at `time`. Returns the player (nil: nothing started).
    @discardableResult
    public func playTransientEvent(intensity: Double, sharpness: Double, atTime time: Double) -> PatternPlayer? {
        let steps = max(1, configuration.transientSteps)
        func step(_ v: Double) -> Int { v.isFinite ? Int((min(1, max(0, v)) * Double(steps)).rounded()) : 0 }
        let key = step(intensity) * (steps + 1) + step(sharpness)
        let found: (HapticEngine, Int, PreparedPattern?)? = state.withLock { s in
            guard case .running = s.haptic.status, let engine = s.haptic.engine else {
                s.stats.callsWhileUnavailable += 1
                return nil
            }
            return (engine, s.haptic.engineID, s.caches.transients[key])
        }
        guard let (engine, id, cached) = found else { return nil }
        var pattern = cached
        if pattern == nil {
            let i = Double(key / (steps + 1)) / Double(steps), sh = Double(key % (steps + 1)) / Double(steps)
            let ahap = AHAPPattern(elements: [.event(.transient(at: 0, intensity: i, sharpness: sh))])
            pattern = prepare(ahap, on: engine, what: "transient")
            if let pattern {
                state.withLock { s in if s.haptic.caches.engineID == id && s.haptic.engineID == id { s.haptic.caches.transients[key] = pattern } }
            }
        }
        guard let pattern, let player = start(pattern, on: engine, at: time) else { return nil }
        let evicted: PatternPlayer? = state.withLock { s in
            guard s.haptic.engineID == id else { return nil }
            let slot = s.ringNext
            s.ringNext = (slot + 1) % s.transientRing.count
            let old = s.transientRing[slot]
            s.transientRing[slot] = player
            if let old, old.isActive { s.stats.transientsCut += 1; return old }
            return nil
        }
        try? evicted?.stop(atTime: time)
        return player
    }

    /// Starts `name` looping and returns a handle for live control of its parameters
    /// (the progressive slider: the heartbeat loops while its intensity follows a value
    /// the app sets). Never fails: with an unknown name or no engine the handle does nothing.
    /// The loop survives an engine reset (it restarts on the new engine with its values).
    public func playLooping(_ name: String, intensity: Double = 1, sharpness: Double = 0, atTime time: Double = 0) -> LoopingPattern {
        startLoop(LoopingPattern(name: name, prepared: nil, manager: self, intensity: intensity, sharpness: sharpness),
                  lookup({ $0.patterns[name] }, what: "pattern", name), at: time)
    }

    /// ``playLooping(_:intensity:atTime:)`` for a pattern the app prepared (``prepare(_:sounds:)``);
    /// `name` labels the handle. A reset restarts it on the new engine like a library loop.
    public func playLooping(_ pattern: PreparedPattern, name: String, intensity: Double = 1, sharpness: Double = 0,
                            atTime time: Double = 0) -> LoopingPattern {
        startLoop(LoopingPattern(name: name, prepared: pattern, manager: self, intensity: intensity, sharpness: sharpness),
                  lookup({ _ in pattern }, what: "pattern", name), at: time)
    }

    private func startLoop(_ handle: LoopingPattern, _ found: (HapticEngine, PreparedPattern)?, at time: Double) -> LoopingPattern {
        guard let (engine, pattern) = found else {
            handle.markStopped()
            return handle
        }
        let id = state.withLock { s -> Int in
            s.loops[ObjectIdentifier(handle)] = handle
            return s.haptic.engineID
        }
        handle.begin(on: engine, id: id, pattern: pattern, at: time)
        return handle
    }

    /// Stops the engine and makes the manager unavailable (for program exit).
    public func shutDown() {
        let engines: [HapticEngine] = state.withLock { s in
            let haptic = s.haptic.retire("shut down")
            s.log.append(.shutDown)
            s.endLoops()
            return [s.audio?.retire("shut down"), haptic].compactMap { $0 }
        }
        for engine in engines { engine.stop() }
        following.stopSoon()  // `await stopFollowing()` first to know the capture is closed
    }

    // MARK: - internals

    /// The engine of `role` and a pattern of its caches, or nil: a no-op when haptics or
    /// the role are unavailable, or the name is unknown (counted; debug-logged for unknown names).
    func lookup(
        on role: EngineRole = .haptic, _ pick: (Caches) -> PreparedPattern?, what: String, _ name: String
    ) -> (HapticEngine, PreparedPattern)? {
        enum Found { case ok(HapticEngine, PreparedPattern), unavailable, unknown }
        let found: Found = state.withLock { s in
            guard case .running = s.haptic.status, s.haptic.engine != nil, let slot = s[role],
                  case .running = slot.status, let engine = slot.engine else {
                s.stats.callsWhileUnavailable += 1
                return .unavailable
            }
            guard let pattern = pick(slot.caches) else {
                s.stats.unknownNames += 1
                return .unknown
            }
            return .ok(engine, pattern)
        }
        switch found {
        case .ok(let engine, let pattern): return (engine, pattern)
        case .unavailable: return nil
        case .unknown:
            logger.debug("haptic manager: no \(what) named \"\(printable(name))\" (unknown, or not preloaded); ignored")
            return nil
        }
    }

    /// When a playback starts: a monotonic time (0: as soon as possible) or a device frame.
    enum StartPoint {
        case time(Double)
        case frame(Int64)
    }

    /// A fresh player per playback, started at `time`; failures are logged and counted.
    func start(_ pattern: PreparedPattern, on engine: HapticEngine, at time: Double) -> PatternPlayer? {
        start(pattern, on: engine, when: .time(time))
    }

    /// `start(_:on:at:)` at a device frame (``PatternPlayer/start(atFrame:)``).
    func start(_ pattern: PreparedPattern, on engine: HapticEngine, atFrame frame: Int64) -> PatternPlayer? {
        start(pattern, on: engine, when: .frame(frame))
    }

    private func start(_ pattern: PreparedPattern, on engine: HapticEngine, when point: StartPoint) -> PatternPlayer? {
        do {
            let player = try engine.makePlayer(with: pattern)
            switch point {
            case .time(let time): try player.start(atTime: time)
            case .frame(let frame): try player.start(atFrame: frame)
            }
            state.withLock { $0.stats.voicesStarted += 1 }
            return player
        } catch {
            state.withLock { $0.stats.startsFailed += 1 }
            logger.debug("haptic manager: playback not started: \(error)")
            return nil
        }
    }

    func count(_ update: (inout Statistics) -> Void) { state.withLock { update(&$0.stats) } }

    func unregister(_ handle: LoopingPattern) {
        _ = state.withLock { $0.loops.removeValue(forKey: ObjectIdentifier(handle)) }
    }

    /// What `loop` plays on the current engine (its own prepared pattern, or its library
    /// pattern from the engine's cache), with the engine and its number.
    func current(for loop: LoopingPattern) -> (HapticEngine, Int, PreparedPattern)? {
        state.withLock { s in
            guard case .running = s.haptic.status, let engine = s.haptic.engine,
                  let p = loop.prepared ?? s.caches.patterns[loop.name] else { return nil }
            return (engine, s.haptic.engineID, p)
        }
    }
}
