import HapticPattern
import HapticRender
import Synchronization

/// Plays one prepared pattern on an engine, like Core Haptics' `CHHapticPatternPlayer`.
/// Cheap to make (one per playback is the intended use); any number may share a
/// ``PreparedPattern``. Times are seconds on the engine's clock
/// (``HapticEngine/currentTime``); 0 means "as soon as possible" (the next block rendered).
///
/// `@unchecked Sendable` (the class is open to ``AdvancedPatternPlayer``): all mutable
/// state lives in a `Mutex`; everything else is immutable.
public class PatternPlayer: @unchecked Sendable {
    /// The pattern this player plays.
    public let pattern: PreparedPattern
    let engine: HapticEngine
    /// The engine's reset generation when the player was made.
    let resetGeneration: Int

    struct Playback: Equatable {
        var slot: Int32
        var generation: UInt32
    }

    struct Settings {
        var current: Playback? = nil
        var muted = false
        var loopEnabled = false
        var loopEnd: Double = 0
        var playbackRate: Double = 1
        var startOffset: Double? = nil
        var completion: (@Sendable (HapticEngineError?) -> Void)? = nil
    }
    let settings = Mutex(Settings())

    init(pattern: PreparedPattern, engine: HapticEngine, resetGeneration: Int) {
        self.pattern = pattern
        self.engine = engine
        self.resetGeneration = resetGeneration
    }

    /// Starts the pattern from its beginning (or the offset set by `seek`) at `time`.
    /// A playback still running is stopped at the same time (a restart).
    public func start(atTime time: Double) throws(HapticEngineError) {
        try engine.startPlayback(of: self, atNanos: engine.nanos(forTime: time))
    }

    /// Starts as `start(atTime:)` with live controls (intensity control, sharpness control...)
    /// already in force at its first frame, whenever that is: a parameter sent at the start's
    /// time would reach the voice by a short ramp, after its first onsets were struck. The
    /// parameters' own `time` is ignored.
    public func start(atTime time: Double, controls: [DynamicParameter]) throws(HapticEngineError) {
        try engine.startPlayback(of: self, atNanos: engine.nanos(forTime: time), controls: controls)
    }

    /// Starts the pattern so that its first frame PLAYS at device frame `frame` (the engine
    /// renders it the output stage's look-ahead earlier, as `start(atTime:)` does): a start
    /// on the device's own clock, for grids that must keep exact sample spacing (a rhythm
    /// session's beats). Frames count from the device's start (``HapticEngine/frame(forTime:)``
    /// and ``HapticEngine/frameMapping`` convert); a frame that has already passed when the
    /// render side sees the command starts at the next block and is counted in
    /// ``HapticEngine/lateCommandCount``. A playback still running is stopped at the same frame.
    public func start(atFrame frame: Int64) throws(HapticEngineError) {
        try engine.startPlayback(of: self, atNanos: 0, frame: frame)
    }

    /// Stops at `time`: sounding events fade out over a few milliseconds; scheduled ones never start.
    public func stop(atTime time: Double) throws(HapticEngineError) {
        try send([Command(kind: .stop, slot: 0, generation: 0, timeNanos: engine.nanos(forTime: time))])
    }

    /// Sets dynamic parameters (intensity control, sharpness control, ...) at `time`
    /// plus each parameter's own `time` (relative, as in Core Haptics).
    public func sendParameters(_ parameters: [DynamicParameter], atTime time: Double) throws(HapticEngineError) {
        let base = engine.nanos(forTime: time)
        let now = engine.clock.nanos()
        let commands = parameters.map { parameter -> Command in
            let at: Int64 = parameter.time == 0 ? base : (base == 0 ? now : base) + Int64(parameter.time * 1e9)
            return Command(kind: .control, slot: 0, generation: 0, timeNanos: at,
                           value: parameter.value.clamped(to: parameter.id.range), parameter: parameter.id)
        }
        try send(commands)
    }

    /// Schedules a parameter curve starting at `time` plus the curve's own `time`:
    /// the value jumps to the first point and moves linearly between points.
    public func scheduleParameterCurve(_ curve: ParameterCurve, atTime time: Double) throws(HapticEngineError) {
        let base = engine.nanos(forTime: time)
        let start = (base == 0 ? engine.clock.nanos() : base) + Int64(curve.time * 1e9)
        try send(Self.curveCommands(curve, from: start))
    }

    /// The longest the render side's jump to a value takes (its anti-zipper ramp is 1.5 ms).
    static let jumpSettleSeconds = 0.002

    /// A curve as control commands from `start` (engine nanoseconds): a jump to the first
    /// point, then one ramp per segment. A ramp moves from the value in force when it begins,
    /// so the first one begins once the jump has landed (`jumpSettleSeconds` later, ending on
    /// time); begun together, it would start from the value before the curve and the first
    /// point would never be heard.
    static func curveCommands(_ curve: ParameterCurve, from start: Int64) -> [Command] {
        let points = curve.controlPoints.sorted { $0.time < $1.time }
        var commands: [Command] = []
        var jumps = true  // the first point, and one after a segment too short to ramp over
        for (i, point) in points.enumerated() {
            var at = start + Int64(point.time * 1e9)
            if jumps {
                commands.append(Command(kind: .control, slot: 0, generation: 0, timeNanos: at,
                                        value: point.value.clamped(to: curve.id.range), parameter: curve.id))
            }
            guard i + 1 < points.count else { break }
            var length = max(0, points[i + 1].time - point.time)
            if jumps {
                if length <= jumpSettleSeconds { continue }
                at += Int64(jumpSettleSeconds * 1e9)
                length -= jumpSettleSeconds
            }
            // From this point, ramp to the next over the (rest of the) segment.
            commands.append(Command(kind: .control, slot: 0, generation: 0, timeNanos: at,
                                    value: points[i + 1].value.clamped(to: curve.id.range), ramp: length, parameter: curve.id))
            jumps = false
        }
        return commands
    }

    /// Stops at once (with a 2 ms fade) and drops everything scheduled for this playback.
    public func cancel() throws(HapticEngineError) {
        try send([Command(kind: .cancel, slot: 0, generation: 0, timeNanos: 0)])
    }

    /// Silences this player's output while it keeps its time (2 ms fades). Setting it is
    /// ``setMuted(_:)`` without the error (as Core Haptics' property, which cannot throw): a
    /// playing voice that the change cannot reach is logged; call ``setMuted(_:)`` to see it.
    public var isMuted: Bool {
        get { settings.withLock { $0.muted } }
        set { reportUnsent(Result { () throws(HapticEngineError) in try setMuted(newValue) }, "isMuted") }
    }

    /// Mutes or unmutes (2 ms fades). The setting is kept for later starts either way; throws
    /// when the playing voice cannot be told (``HapticEngineError/commandQueueFull``, an engine
    /// that is not running, a player invalidated by a reset).
    public func setMuted(_ muted: Bool) throws(HapticEngineError) {
        settings.withLock { $0.muted = muted }
        try send([Command(kind: .mute, slot: 0, generation: 0, timeNanos: 0, value: muted ? 1 : 0)])
    }

    /// A property setter's failure, which cannot be thrown: logged on the engine's logger
    /// (control side), never dropped silently.
    func reportUnsent(_ result: Result<Void, HapticEngineError>, _ property: String) {
        if case .failure(let error) = result {
            engine.logger.warning("haptic player: \(property) did not reach the playing voice: \(error)")
        }
    }

    /// Whether a playback of this player is playing or scheduled.
    public var isActive: Bool { settings.withLock { $0.current != nil } }

    /// Sends commands for the current playback (none: nothing to do).
    func send(_ commands: [Command]) throws(HapticEngineError) {
        guard let playback = settings.withLock({ $0.current }) else {
            try engine.checkValid(self)
            return
        }
        try engine.send(commands, for: playback, of: self)
    }

    /// Called on the control side when a playback's voice came back.
    func playbackEnded(_ playback: Playback, reason: FinishReason) {
        let completion: (@Sendable (HapticEngineError?) -> Void)? = settings.withLock { s in
            if s.current == playback { s.current = nil }
            return s.completion
        }
        switch reason {
        case .completed, .cancelled: completion?(nil)
        case .engineStopped: completion?(.engineStopped)
        case .dropped: completion?(.commandQueueFull)
        }
    }
}

/// A player with transport controls, like Core Haptics' `CHHapticAdvancedPatternPlayer`.
public final class AdvancedPatternPlayer: PatternPlayer, @unchecked Sendable {
    /// Pauses at `time` (a 2 ms fade; the position holds).
    public func pause(atTime time: Double) throws(HapticEngineError) {
        try send([Command(kind: .pause, slot: 0, generation: 0, timeNanos: engine.nanos(forTime: time))])
    }

    /// Resumes a paused playback at `time`.
    public func resume(atTime time: Double) throws(HapticEngineError) {
        try send([Command(kind: .resume, slot: 0, generation: 0, timeNanos: engine.nanos(forTime: time))])
    }

    /// Moves to `offset` pattern seconds now (or, when not playing, where the next start begins).
    public func seek(toOffset offset: Double) throws(HapticEngineError) {
        let playing = settings.withLock { s -> Bool in
            if s.current == nil { s.startOffset = max(0, offset) }
            return s.current != nil
        }
        if playing { try send([Command(kind: .seek, slot: 0, generation: 0, timeNanos: 0, value: max(0, offset))]) }
        else { try engine.checkValid(self) }
    }

    /// Loop back to the start on reaching `loopEnd` (may change during playback). Setting it is
    /// ``setLoopEnabled(_:)`` without the error (logged when the playing voice is not reached).
    public var loopEnabled: Bool {
        get { settings.withLock { $0.loopEnabled } }
        set { reportUnsent(Result { () throws(HapticEngineError) in try setLoopEnabled(newValue) }, "loopEnabled") }
    }

    /// Where a loop jumps back (pattern seconds); 0 = the pattern's duration. Setting it is
    /// ``setLoopEnd(_:)`` without the error (logged when the playing voice is not reached).
    public var loopEnd: Double {
        get { settings.withLock { $0.loopEnd } }
        set { reportUnsent(Result { () throws(HapticEngineError) in try setLoopEnd(newValue) }, "loopEnd") }
    }

    /// Pattern seconds per second: scales times and durations, not frequencies; may change during
    /// playback. Setting it is ``setPlaybackRate(_:)`` without the error (logged when the playing
    /// voice is not reached).
    public var playbackRate: Double {
        get { settings.withLock { $0.playbackRate } }
        set { reportUnsent(Result { () throws(HapticEngineError) in try setPlaybackRate(newValue) }, "playbackRate") }
    }

    /// Turns looping on or off. The setting is kept for later starts either way; throws when the
    /// playing voice cannot be told (``HapticEngineError/commandQueueFull``...).
    public func setLoopEnabled(_ enabled: Bool) throws(HapticEngineError) {
        settings.withLock { $0.loopEnabled = enabled }
        try sendLoop()
    }

    /// Sets where a loop jumps back (pattern seconds; 0 = the pattern's duration); throws as
    /// ``setLoopEnabled(_:)``.
    public func setLoopEnd(_ end: Double) throws(HapticEngineError) {
        settings.withLock { $0.loopEnd = max(0, end) }
        try sendLoop()
    }

    /// Sets the playback rate (at least 0.01); throws as ``setLoopEnabled(_:)``.
    public func setPlaybackRate(_ rate: Double) throws(HapticEngineError) {
        let rate = max(0.01, rate)
        settings.withLock { $0.playbackRate = rate }
        try send([Command(kind: .rate, slot: 0, generation: 0, timeNanos: 0, value: rate)])
    }

    /// Called on the control side when a playback ends: nil when it finished, was
    /// stopped or cancelled; an error when the engine ended it.
    public var completionHandler: (@Sendable (HapticEngineError?) -> Void)? {
        get { settings.withLock { $0.completion } }
        set { settings.withLock { $0.completion = newValue } }
    }

    private func sendLoop() throws(HapticEngineError) {
        let end = settings.withLock { $0.effectiveLoopEnd(duration: pattern.duration) }
        try send([Command(kind: .loop, slot: 0, generation: 0, timeNanos: 0, value: end ?? -1)])
    }
}

extension PatternPlayer.Settings {
    func effectiveLoopEnd(duration: Double) -> Double? {
        guard loopEnabled else { return nil }
        return loopEnd > 0 ? loopEnd : duration
    }
}

extension Double {
    func clamped(to range: ClosedRange<Double>) -> Double { Swift.min(Swift.max(self, range.lowerBound), range.upperBound) }
}

// MARK: - engine side of the players

extension HapticEngine {
    /// Compiles `pattern` for this engine's sample rate and actuator profile.
    public func prepare(_ pattern: AHAPPattern) throws(HapticEngineError) -> PreparedPattern {
        do {
            return try PreparedPattern(pattern, profile: configuration.profile,
                                       sampleRate: Double(configuration.sampleRate), sounds: configuration.sounds)
        } catch {
            throw .preparation(error)
        }
    }

    /// The actuator profiles a playback renders for: one, unless the layout gives haptic
    /// channels profiles of their own (then each distinct profile once, in layout order).
    var actuatorProfiles: [ActuatorProfile] {
        let layout = configuration.layout
        guard layout.profiles.contains(where: { $0 != nil }) else { return [configuration.profile] }
        return layout.actuators(default: configuration.profile)
    }

    /// A player for a prepared pattern (which must be prepared at the engine's rate).
    public func makePlayer(with pattern: PreparedPattern) throws(HapticEngineError) -> PatternPlayer {
        try checkRate(pattern)
        return PatternPlayer(pattern: pattern, engine: self, resetGeneration: control.withLock { $0.lifecycle.resetGeneration })
    }

    /// A player for a pattern (prepared here; prepare once and share it for many players).
    public func makePlayer(with pattern: AHAPPattern) throws(HapticEngineError) -> PatternPlayer {
        try makePlayer(with: prepare(pattern))
    }

    /// An advanced player (pause/resume/seek/loop/rate) for a prepared pattern.
    public func makeAdvancedPlayer(with pattern: PreparedPattern) throws(HapticEngineError) -> AdvancedPatternPlayer {
        try checkRate(pattern)
        return AdvancedPatternPlayer(pattern: pattern, engine: self, resetGeneration: control.withLock { $0.lifecycle.resetGeneration })
    }

    /// An advanced player for a pattern.
    public func makeAdvancedPlayer(with pattern: AHAPPattern) throws(HapticEngineError) -> AdvancedPatternPlayer {
        try makeAdvancedPlayer(with: prepare(pattern))
    }

    private func checkRate(_ pattern: PreparedPattern) throws(HapticEngineError) {
        if pattern.sampleRate != Double(configuration.sampleRate) {
            throw .formatMismatch("pattern prepared for \(pattern.sampleRate) Hz, engine renders \(configuration.sampleRate) Hz")
        }
    }

    /// Engine-clock nanoseconds for an `atTime:` argument (0 stays 0: immediate).
    func nanos(forTime time: Double) -> Int64 {
        guard time > 0 else { return 0 }
        return max(1, Int64((time * 1e9).rounded()))
    }

    func checkValid(_ player: PatternPlayer) throws(HapticEngineError) {
        let generation = control.withLock { $0.lifecycle.resetGeneration }
        if player.resetGeneration != generation { throw .playerInvalidated }
    }

    /// Starts a new playback of `player` (control side; allocates the voice here).
    /// `frame` (when set) replaces `time`: the device frame the start plays at.
    func startPlayback(of player: PatternPlayer, atNanos time: Int64, frame: Int64? = nil,
                       controls: [DynamicParameter] = []) throws(HapticEngineError) {
        // One voice per actuator profile the layout names (the first also plays the sound).
        // As the offline render does: a layout naming profiles plays the pattern made for each
        // (even one profile, as `dualsense` names), else the pattern as prepared.
        let actuators = actuatorProfiles
        let namesProfiles = configuration.layout.profiles.contains { $0 != nil }
        var voices = actuators.indices.map { k in
            PatternVoice(pattern: namesProfiles
                ? player.pattern.variant(for: actuators[k], withSound: k == 0) : player.pattern)
        }
        for k in voices.indices {
            for control in controls { voices[k].presetControl(control.id, value: control.value) }
        }
        let (muted, previous) = player.settings.withLock { s -> (Bool, PatternPlayer.Playback?) in
            for k in voices.indices {
                voices[k].playbackRate = s.playbackRate
                voices[k].loopEnd = s.effectiveLoopEnd(duration: player.pattern.duration)
                if let offset = s.startOffset { voices[k].seek(to: offset) }
            }
            return (s.muted, s.current)
        }
        // The box holds the only references to the voices' states: a copy left in a local here
        // (a debug build keeps locals to the end of their scope) would make the render side's
        // copy-on-write find them shared and copy them, allocating on the render thread.
        let box = VoiceBox(voice: voices.removeFirst(), actuatorVoices: voices)
        voices = []
        let playback: PatternPlayer.Playback = try control.withLock { c throws(HapticEngineError) in
            if player.resetGeneration != c.lifecycle.resetGeneration { throw .playerInvalidated }
            switch c.lifecycle.state {
            case .running: break
            case .idle: try wakeFromIdle(&c)
            default: throw .engineNotRunning(c.lifecycle.state)
            }
            guard let slot = c.freeSlots.popLast() else { throw .voiceLimitReached(core.maxVoices) }
            c.slotGenerations[Int(slot)] &+= 1
            let playback = PatternPlayer.Playback(slot: slot, generation: c.slotGenerations[Int(slot)])
            // The voice keeps its player alive until it ends (fire-and-forget players still report completion).
            box.onFinish = { reason in player.playbackEnded(playback, reason: reason) }
            var command = Command(kind: .start, slot: slot, generation: playback.generation, timeNanos: time,
                                  value: muted ? 1 : 0, box: Unmanaged.passRetained(box))
            command.frame = frame
            if let previous {
                var stop = Command(kind: .stop, slot: previous.slot, generation: previous.generation, timeNanos: time)
                stop.frame = frame
                _ = core.commands.push(stop)
            }
            guard core.commands.push(command) else {
                command.box?.release()
                c.freeSlots.append(slot)
                throw .commandQueueFull
            }
            c.voicesInUse += 1
            c.lifecycle.lastActivityNanos = clock.nanos()
            return playback
        }
        player.settings.withLock { s in
            s.current = playback
            s.startOffset = nil
        }
    }

    /// Sends commands addressed to one playback.
    func send(_ commands: [Command], for playback: PatternPlayer.Playback, of player: PatternPlayer) throws(HapticEngineError) {
        try control.withLock { c throws(HapticEngineError) in
            if player.resetGeneration != c.lifecycle.resetGeneration { throw .playerInvalidated }
            guard c.lifecycle.state == .running else { throw .engineNotRunning(c.lifecycle.state) }
            for var command in commands {
                command.slot = playback.slot
                command.generation = playback.generation
                guard core.commands.push(command) else { throw .commandQueueFull }
            }
            c.lifecycle.lastActivityNanos = clock.nanos()
        }
    }
}
