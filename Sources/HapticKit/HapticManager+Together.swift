import HapticEngine
import HapticPattern
import HapticRender

// A haptic pattern and a sound the app prepared, started together: the studio's audition of a
// pattern with the sound it was made from. The start path of tracked cues
// (`playTracked(cue:atFrame:)`): in one stream both voices start on one engine at one device
// frame (lockstep to the sample); in two-device mode both start at the monotonic time the
// haptic engine maps that frame to, each placed by its own device's mapping as it stands when
// the start comes (the engines follow their mappings until then, as for `rhythm`'s beats).
// Not the haptic at the frame: the sound's time would carry the haptic mapping's error of the
// moment it was scheduled (ms just after the engines open, through a sound server).
extension HapticManager {
    /// What ``playTogether(haptic:sound:atFrame:)`` started.
    public struct TogetherPlayback: Sendable {
        /// The haptic engine's frame both start at (its `frame(forTime:)` numbering).
        public let frame: Int64
        /// The monotonic time the haptic engine maps `frame` to.
        public let time: Double
        public let haptic: PatternPlayer?
        public let sound: PatternPlayer?
        public var players: [PatternPlayer] { [haptic, sound].compactMap { $0 } }
    }

    /// Compiles `pattern` (a sound: its AudioCustom events, with `sounds` for their files) for
    /// the engine that plays sounds (the audio engine in two-device mode), leniently.
    public func prepareSound(_ pattern: AHAPPattern, sounds: any SoundSource) throws(RenderError) -> PreparedPattern {
        let c = isTwoDevice ? configuration.audioEngine : configuration.engine
        return try PreparedPattern(pattern, profile: c.profile, sampleRate: Double(c.sampleRate), sounds: sounds)
    }

    /// The larger output latency of the engines a together start involves (the haptic engine and
    /// the one that plays sounds): a start sooner than this from now is late on one of them. Nil
    /// when the haptic engine is unavailable.
    public var togetherLatency: Double? { togetherTiming()?.latency }

    /// The first haptic-engine frame every engine involved can still make: now plus
    /// ``togetherLatency`` plus `margin` seconds. Nil when the haptic engine is unavailable.
    public func soonestTogetherFrame(margin: Double = 0.001) -> Int64? {
        guard let (haptic, latency) = togetherTiming() else { return nil }
        return haptic.frameMapping.frame(forTime: haptic.currentTime + latency + max(0, margin))
    }

    /// The haptic engine and ``togetherLatency``, read under one lock (the same engines).
    private func togetherTiming() -> (haptic: HapticEngine, latency: Double)? {
        let (haptic, sound) = state.withLock { s in (s.haptic.engine, s[soundRole]?.engine) }
        guard let haptic else { return nil }
        return (haptic, max(haptic.outputLatency, sound?.outputLatency ?? 0))
    }

    /// Starts `haptic` on the haptic engine and `sound` on the engine that plays sounds, both at
    /// the haptic engine's device frame `frame` (two devices: at the time it maps to; see above). Never throws or blocks; nil when
    /// nothing started (the engines unavailable, or both refused: counted).
    @discardableResult
    public func playTogether(haptic: PreparedPattern?, sound: PreparedPattern?, atFrame frame: Int64) -> TogetherPlayback? {
        let engines: (haptic: HapticEngine, sound: HapticEngine?)? = state.withLock { s in
            guard case .running = s.haptic.status, let engine = s.haptic.engine else {
                s.stats.callsWhileUnavailable += 1
                return nil
            }
            guard let slot = s[soundRole], case .running = slot.status, let soundEngine = slot.engine else { return (engine, nil) }
            return (engine, soundEngine)
        }
        guard let engines else { return nil }
        let time = engines.haptic.frameMapping.time(forFrame: frame)
        let oneStream = engines.sound.map { $0 === engines.haptic } ?? true
        func begin(_ pattern: PreparedPattern, on engine: HapticEngine) -> PatternPlayer? {
            oneStream ? start(pattern, on: engine, atFrame: frame) : start(pattern, on: engine, at: time)
        }
        let hapticPlayer = haptic.flatMap { begin($0, on: engines.haptic) }
        let soundPlayer = sound.flatMap { s in engines.sound.flatMap { begin(s, on: $0) } }
        if hapticPlayer == nil && soundPlayer == nil { return nil }
        return TogetherPlayback(frame: frame, time: time, haptic: hapticPlayer, sound: soundPlayer)
    }
}
