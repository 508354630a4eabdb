import HapticEngine
import HapticRender

// Cue playback: a cue's haptic part and sound effect, in one voice (one stream) or as two
// tracked voices (two-device mode, measurements).
extension HapticManager {
    /// Fires the cue `cue` of the cue sheet as soon as possible.
    public func play(cue: String) { play(cue: cue, atTime: 0) }

    /// Fires the cue `cue` at `time`: each part at `time` plus its delay in the cue's
    /// ``CueAlignment`` (by default the part felt earlier waits, so that both are felt
    /// together; the sound's sheet offset included). In one stream both come from one voice
    /// (the planned frames by construction); in two-device mode the haptic part starts on the
    /// haptic engine and the sound on the audio engine at the same monotonic time, each
    /// placed by its own device's frame/time mapping.
    /// Returns the players it started (none: nothing started), for callers that stop what they started.
    @discardableResult
    public func play(cue: String, atTime time: Double) -> [PatternPlayer] {
        if isTwoDevice {
            let playback = playTracked(cue: cue, atTime: time)
            return [playback?.haptic?.player, playback?.audio?.player].compactMap { $0 }
        }
        guard let (engine, pattern) = lookup({ $0.cues[cue] }, what: "cue", cue) else { return [] }
        return [start(pattern, on: engine, at: time)].compactMap { $0 }
    }

    /// One part of a ``CuePlayback``: a voice started on one engine.
    public struct CuePart: Sendable {
        /// Which engine plays it.
        public let role: EngineRole
        /// The engine (hold it to read its frames after the session).
        public let engine: HapticEngine
        /// The player of this part.
        public let player: PatternPlayer
        /// The voice slot the playback took (for ``HapticEngine/appliedStarts()``).
        public let slot: Int32?
        /// The monotonic time the part was scheduled at.
        public let time: Double
        /// The device frame the engine's mapping gave for `time` when it was scheduled (for a
        /// frame-based start, ``HapticManager/playTracked(cue:atFrame:)``: the requested frame).
        public let predictedFrame: Int64
        /// The engine's mapping when it was scheduled.
        public let mapping: FrameMapping
    }

    /// What ``playTracked(cue:atTime:)`` started: the cue's haptic part and its sound as
    /// separate voices, so the frame each one actually started at can be found afterwards.
    public struct CuePlayback: Sendable {
        /// The cue's name.
        public let cue: String
        /// The cue's monotonic time (each part adds its delay from the cue's ``CueAlignment``).
        public let time: Double
        /// The haptic part (nil when the cue has none, or it could not start).
        public let haptic: CuePart?
        /// The sound effect (nil when the cue has none, audio is unavailable, or it could not start).
        public let audio: CuePart?
    }

    /// Fires the cue like ``play(cue:atTime:)`` but always as two voices — the haptic part
    /// on the haptic engine, the sound effect on the engine that plays sounds (the same one
    /// in one stream) — and returns them for measurement (the rhythm command, lockstep
    /// tests). `time` 0 or in the past: a common time `now +` the larger output latency
    /// of the engines involved. Never throws or blocks; nil when nothing started.
    @discardableResult
    public func playTracked(cue name: String, atTime requested: Double) -> CuePlayback? {
        guard let found = resolveCue(name, { s, cue -> (HapticEngine, PreparedPattern)? in
            guard let sfx = cue.sfx, let slot = s[soundRole], case .running = slot.status, let soundEngine = slot.engine,
                  let pattern = slot.caches.sounds[sfx.name] else { return nil }
            return (soundEngine, pattern)
        }) else { return nil }
        let cue = found.cue
        let hapticEngine = found.haptic.eventCount > 0 ? found.engine : nil
        let hapticPattern: PreparedPattern? = found.haptic
        let soundEngine = found.extra?.0, soundPattern = found.extra?.1
        var time = requested
        let now = (hapticEngine ?? soundEngine)?.currentTime ?? 0
        if time <= now {
            // Immediate: one common time both devices can still make.
            let latency = max(hapticEngine?.outputLatency ?? 0, soundEngine?.outputLatency ?? 0)
            time = now + latency + 0.001
        }
        func part(_ role: EngineRole, _ engine: HapticEngine?, _ pattern: PreparedPattern?, at t: Double) -> CuePart? {
            guard let engine, let pattern, let player = start(pattern, on: engine, at: t) else { return nil }
            let mapping = engine.frameMapping
            return CuePart(role: role, engine: engine, player: player, slot: engine.slot(of: player), time: t,
                           predictedFrame: mapping.frame(forTime: t), mapping: mapping)
        }
        let delays = cueDelaySeconds(name, sfxOffset: cue.sfx?.offset ?? 0)
        let haptic = part(.haptic, hapticEngine, hapticPattern, at: time + delays.haptic)
        let audio = part(soundRole, soundEngine, soundPattern, at: time + delays.audio)
        if haptic == nil && audio == nil { return nil }
        return CuePlayback(cue: name, time: time, haptic: haptic, audio: audio)
    }

    /// Fires the cue like ``playTracked(cue:atTime:)``, but at a device frame of the haptic
    /// engine (its `frame(forTime:)` numbering): each part at `frame` plus its alignment delay
    /// in whole frames (the cue's planned skew exactly). For grids kept on the device's own
    /// clock (``RhythmSession`` in one stream), where frames, not monotonic times, are exact.
    /// A frame already past starts at the engine's next block (counted as a late command).
    /// In two-device mode frames of one device mean nothing to the other: the frame is turned
    /// into the monotonic time the haptic engine maps it to, and the cue fires at that time
    /// as ``playTracked(cue:atTime:)`` does. Never throws or blocks; nil when nothing started.
    @discardableResult
    public func playTracked(cue name: String, atFrame frame: Int64) -> CuePlayback? {
        if isTwoDevice {
            guard let engine = currentEngine else {
                count { $0.callsWhileUnavailable += 1 }
                return nil
            }
            return playTracked(cue: name, atTime: engine.time(forFrame: frame))
        }
        guard let found = resolveCue(name, { s, cue in cue.sfx.flatMap { s.caches.sounds[$0.name] } }) else { return nil }
        let cue = found.cue, engine = found.engine, soundPattern = found.extra
        let hapticPattern = found.haptic.eventCount > 0 ? found.haptic : nil
        let fs = Double(engine.configuration.sampleRate)
        func part(_ pattern: PreparedPattern?, at f: Int64) -> CuePart? {
            guard let pattern, let player = start(pattern, on: engine, atFrame: f) else { return nil }
            let mapping = engine.frameMapping
            return CuePart(role: .haptic, engine: engine, player: player, slot: engine.slot(of: player),
                           time: mapping.time(forFrame: f), predictedFrame: f, mapping: mapping)
        }
        let delays = cueDelayFrames(name, sfxOffset: cue.sfx?.offset ?? 0, sampleRate: fs)
        let haptic = part(hapticPattern, at: frame + delays.haptic)
        let audio = part(soundPattern, at: frame + delays.audio)
        if haptic == nil && audio == nil { return nil }
        return CuePlayback(cue: name, time: engine.frameMapping.time(forFrame: frame), haptic: haptic, audio: audio)
    }

    /// A cue's definition, the running haptic engine and the cue's prepared haptic part, with
    /// `extra` (the sound part) read under the same lock. Nil — counted and logged — when the
    /// cue is unknown or not prepared, or the haptic engine is unavailable.
    private func resolveCue<Extra: Sendable>(
        _ name: String, _ extra: (inout State, CueSheet.Cue) -> Extra
    ) -> (cue: CueSheet.Cue, engine: HapticEngine, haptic: PreparedPattern, extra: Extra)? {
        guard let cue = cueSheet[name] else {
            count { $0.unknownNames += 1 }
            logger.debug("haptic manager: no cue named \"\(printable(name))\"; ignored")
            return nil
        }
        let found: CueLookup<Extra> = state.withLock { s in
            guard case .running = s.haptic.status, let engine = s.haptic.engine else {
                s.stats.callsWhileUnavailable += 1
                return .unavailable
            }
            guard let hapticPart = s.caches.cueHaptics[name] else {
                s.stats.unknownNames += 1
                return .unknown
            }
            return .ok(engine, hapticPart, extra(&s, cue))
        }
        switch found {
        case .ok(let engine, let haptic, let more): return (cue, engine, haptic, more)
        case .unavailable: return nil
        case .unknown:
            logger.debug("haptic manager: cue \(printable(name)) is not prepared (preloadPatterns() first); ignored")
            return nil
        }
    }

    private enum CueLookup<Extra: Sendable>: Sendable {
        case ok(HapticEngine, PreparedPattern, Extra)
        case unavailable
        case unknown
    }
}
