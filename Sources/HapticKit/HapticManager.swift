import HapticALSA
import HapticEngine
import HapticPattern
import HapticRender
import HapticSoundFile
import Logging
import Synchronization

/// The app-facing facade: the one owner of the haptic engine for the whole program
/// (the seeds' `HapticManager`, on Linux). Everything else calls it.
///
/// - Every playback call is fire-and-forget: no return value (except the loop handle),
///   never throws, never blocks beyond a short lock, and is a silent no-op (logged at
///   debug level) for an unknown name or when the engine is unavailable.
/// - Sound effects are rendered by the same engine into the audio channels of the same
///   output stream as the haptics, so a sound and a haptic given the same time start on
///   the same output frame (a cue even plays both from one voice, each part at the frame its
///   alignment plans: by default they are felt together, see ``CueAlignment``).
/// - Recovery follows the seeds: on stop, one restart; on failure, a rebuild; on failure,
///   unavailable. The one restart is the engine's own reconnection (it reopens the same device
///   with backoff, keeping players, loops and schedule): while it is under way the status is
///   `reconnecting` and `engineAvailable` is false (calls are no-ops), and when the device is
///   back the status is `running` again with no call from the app — one restart per loss,
///   however many reopen attempts it took. Only if the engine gives up (a limit was set) does
///   the manager rebuild. On reset, a new engine with both handlers registered again, the
///   patterns re-cached, started; on failure, unavailable. No failure reaches the caller.
///
/// Safe from any thread or task: all mutable state is behind one `Mutex`, which is never
/// held while an engine opens a device or prepares a pattern.
public final class HapticManager: Sendable {
    // MARK: - configuration

    /// Where the engine's output goes.
    public enum Output: Sendable {
        /// An ALSA PCM by name (`default`, `hw:1,0`, a rig PCM...).
        case alsa(String)
        /// A device factory (called again for every new engine or handle).
        case device(@Sendable () -> any OutputDevice)
    }

    /// Everything a manager is made with.
    public struct Configuration: Sendable {
        /// The patterns folder (`Haptics/`).
        public var hapticsFolder: String
        /// The assets folder (`Assets/`: `sfx/*.wav`, `cues.json`).
        public var assetsFolder: String
        /// The output device.
        public var output: Output
        /// The engine's settings. The manager fills in `sounds` (the assets' sound library);
        /// `layout` defaults to stereo + haptic so sound effects and haptics share one stream.
        public var engine: HapticEngine.Configuration
        /// Transient voices from `playTransientEvent` that may sound at once; a newer one
        /// stops the oldest (so rapid calls never pile up).
        public var transientVoices: Int = 4
        /// Steps per unit of the intensity/sharpness quantisation of `playTransientEvent`
        /// (20: steps of 0.05), which bounds the prepared one-event patterns it keeps.
        public var transientSteps: Int = 20
        /// The manager's log (debug lines for no-ops; recovery at info/warning).
        public var logger = Logger(label: "hapticsynth.manager")
        /// Two-device mode: a separate output for the sound effects (a sound card for the
        /// speakers while `output` drives the shaker amplifier). nil: one stream carries both.
        public var audioOutput: Output? = nil
        /// The audio engine's settings in two-device mode (the manager fills in `sounds`).
        /// Defaults to a default engine configuration with a stereo layout and `engine`'s profile
        /// (set period and buffer here too when `engine`'s are changed).
        public var audioEngine: HapticEngine.Configuration

        /// - Parameters:
        ///   - layout: the haptic engine's channels; nil: stereo + haptic in one stream, or
        ///     haptic mono when `audioOutput` carries the sound.
        ///   - audioOutput: two-device mode (see ``audioOutput``).
        public init(
            hapticsFolder: String, assetsFolder: String, output: Output = .alsa("default"),
            layout: ChannelLayout? = nil, profile: ActuatorProfile = .bassShaker, audioOutput: Output? = nil
        ) {
            self.hapticsFolder = hapticsFolder
            self.assetsFolder = assetsFolder
            self.output = output
            self.audioOutput = audioOutput
            engine = HapticEngine.Configuration(
                layout: layout ?? (audioOutput == nil ? .stereoPlusHaptic : .hapticMono), profile: profile)
            audioEngine = HapticEngine.Configuration(layout: .stereoAudio, profile: profile)
        }
    }

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

    // MARK: - state

    /// Prepared patterns for one engine (re-made on reset: "re-cache").
    struct Caches {
        var engineID = 0
        var patterns: [String: PreparedPattern] = [:]
        var sounds: [String: PreparedPattern] = [:]
        var cues: [String: PreparedPattern] = [:]
        /// The haptic part of each cue alone (two-device mode, and tracked cues).
        var cueHaptics: [String: PreparedPattern] = [:]
        /// Where each cue's parts start, and each sound's felt onset once measured (by name;
        /// nil: silent) — HapticManager+CueAlignment.swift.
        var cueAlignments: [String: CueAlignment] = [:]
        var soundFeltOnsets: [String: Int64?] = [:]
        var hapticFeltOnsets: [String: HapticFeltOnset] = [:]
        var transients: [Int: PreparedPattern] = [:]
    }

    struct State {
        /// The engine on `output` (see HapticManager+Engines.swift).
        var haptic = EngineSlot()
        /// The engine on `audioOutput` (two-device mode; nil in one stream).
        var audio: EngineSlot? = nil
        var log: [RecoveryEvent] = []
        var wantsPreload = false
        var transientRing: [PatternPlayer?] = []
        var ringNext = 0
        var loops: [ObjectIdentifier: LoopingPattern] = [:]
        var stats = Statistics()

        /// The haptic engine's caches (read through this; write through `haptic.caches`, which
        /// mutates in place: a write through a computed property copies the whole value first).
        var caches: Caches {
            get { haptic.caches }
            set { haptic.caches = newValue }
        }
    }

    /// What the manager was made with.
    public let configuration: Configuration
    /// The pattern library (parsed once, shared by every engine the manager builds;
    /// `reloadLibrary()` replaces it).
    public var library: PatternLibrary { content.withLock { $0.library } }
    /// The cue sheet (empty when `Assets/cues.json` is missing or broken; see `cueSheetError`).
    public var cueSheet: CueSheet { content.withLock { $0.cueSheet } }
    /// Why the cue sheet could not be read (nil when it was).
    public var cueSheetError: CueSheetError? { content.withLock { $0.cueSheetError } }
    /// The library and cue sheet in use (see HapticManager+Reload.swift).
    let content: Mutex<Content>
    /// The sound-effect files found in `Assets/sfx/` (names without `.wav`).
    public let soundEffectNames: [String]
    let sounds: SoundLibrary
    let state: Mutex<State>
    var logger: Logger { configuration.logger }

    // MARK: - init

    /// Makes the manager and starts its engine. A device that cannot be opened leaves the
    /// manager unavailable (`engineAvailable` false); nothing throws.
    public init(configuration: Configuration) {
        self.configuration = configuration
        content = Mutex(Content.load(configuration))
        sounds = SoundLibrary(assetsFolder: configuration.assetsFolder)
        switch listFiles(configuration.assetsFolder + "/sfx", suffix: ".wav") {
        case .success(let files): soundEffectNames = files.map { String($0.dropLast(4)) }
        case .failure: soundEffectNames = []
        }
        state = Mutex(State(transientRing: Array(repeating: nil, count: max(1, configuration.transientVoices))))
        if configuration.audioOutput != nil { startFirstEngine(.audio) }
        startFirstEngine(.haptic)
    }

    /// A manager for the ALSA PCM `deviceName`.
    public convenience init(
        hapticsFolder: String, assetsFolder: String, deviceName: String = "default",
        layout: ChannelLayout = .stereoPlusHaptic, profile: ActuatorProfile = .bassShaker
    ) {
        self.init(configuration: Configuration(
            hapticsFolder: hapticsFolder, assetsFolder: assetsFolder, output: .alsa(deviceName), layout: layout,
            profile: profile))
    }

    /// A manager for the devices `makeDevice` builds.
    public convenience init(
        hapticsFolder: String, assetsFolder: String, layout: ChannelLayout = .stereoPlusHaptic,
        profile: ActuatorProfile = .bassShaker, makeDevice: @escaping @Sendable () -> any OutputDevice
    ) {
        self.init(configuration: Configuration(
            hapticsFolder: hapticsFolder, assetsFolder: assetsFolder, output: .device(makeDevice), layout: layout,
            profile: profile))
    }

    deinit {
        let (engine, audio) = state.withLock { ($0.haptic.engine, $0.audio?.engine) }
        engine?.stop()
        audio?.stop()
    }

    // MARK: - public state

    /// False when there is no device, while the engine reconnects after a loss (true again
    /// once the device is back, with no call from the app), or when recovery gave up: then every
    /// call returns at once and does nothing.
    public var engineAvailable: Bool {
        state.withLock { if case .running = $0.haptic.status { true } else { false } }
    }

    /// True when the manager has given up for good (no device at start, or recovery failed);
    /// false while running or reconnecting.
    public var hasGivenUp: Bool {
        state.withLock { if case .unavailable = $0.haptic.status { true } else { false } }
    }

    /// The recovery state.
    public var status: Status { state.withLock { $0.haptic.status } }

    /// Every recovery step so far, oldest first.
    public var recoveryLog: [RecoveryEvent] { state.withLock { $0.log } }

    /// What the manager did so far.
    public var statistics: Statistics { state.withLock { $0.stats } }

    /// The engine in use (for measurements such as latency and xruns; nil when unavailable).
    /// Do not install handlers on it: the manager owns them.
    public var currentEngine: HapticEngine? { state.withLock { $0.haptic.engine } }

    /// Number of the engine in use (1 for the first; a reset makes a new one).
    public var engineGeneration: Int { state.withLock { $0.haptic.engineID } }

    /// Whether the manager has a separate audio output (two-device mode).
    public var isTwoDevice: Bool { configuration.audioOutput != nil }

    /// Two-device mode: whether sound effects can play (false: the audio engine could not
    /// start or recover, and every `playSFX` is a no-op; haptics are unaffected). In one
    /// stream it is `engineAvailable`.
    public var audioAvailable: Bool {
        state.withLock { s in
            guard case .running = s.haptic.status else { return false }
            guard let audio = s.audio else { return true }
            if case .running = audio.status { return audio.engine != nil }
            return false
        }
    }

    /// The audio engine's recovery state (two-device mode; nil in one stream).
    public var audioStatus: Status? { state.withLock { $0.audio?.status } }

    /// The engine that plays the sound effects: the audio engine in two-device mode, else `currentEngine`.
    public var currentAudioEngine: HapticEngine? {
        state.withLock { s in (s.audio ?? s.haptic).engine }
    }

    /// Number of the audio engine in use (two-device mode; 0 otherwise).
    public var audioEngineGeneration: Int { state.withLock { $0.audio?.engineID ?? 0 } }

    /// Seconds on the engine's clock (CLOCK_MONOTONIC in production): the time base of every `atTime:`.
    public var currentTime: Double { currentEngine?.currentTime ?? MonotonicClock.now() }

    // MARK: - preload

    /// Parses every pattern of the library once (a missing or broken file is logged at
    /// debug level and skipped), and prepares the patterns, sound effects and cues for
    /// the engine. Calling it again does not re-parse. Returns the library's report.
    @discardableResult
    public func preloadPatterns() -> PatternLibrary.PreloadReport {
        let report = library.preloadPatterns()
        state.withLock { $0.wantsPreload = true }
        recache(.haptic)
        recache(.audio)
        return report
    }

    /// Prepares `role`'s caches for its current engine, unless they are already.
    func recache(_ role: EngineRole) {
        let current: (HapticEngine, Int)? = state.withLock { s in
            guard let slot = s[role], let engine = slot.engine, slot.caches.engineID != slot.engineID else { return nil }
            return (engine, slot.engineID)
        }
        guard let (engine, id) = current else { return }
        let caches = prepareCaches(role, for: engine, id: id)
        state.withLock { s in
            // Not when a reset replaced the engine meanwhile (it prepared its own).
            if let slot = s[role], slot.engineID == id, slot.caches.engineID != id { s[role]?.caches = caches }
        }
    }

    /// Prepares what `role`'s engine plays (outside the lock: reading and converting sounds
    /// takes time): the sound effects, and for the haptic engine the patterns and cues too.
    func prepareCaches(_ role: EngineRole, for engine: HapticEngine, id: Int) -> Caches {
        var caches = Caches(engineID: id)
        for name in soundEffectNames {
            if let prepared = prepare(Self.soundEffectPattern(name), on: engine, what: "sound effect \(name)") {
                caches.sounds[name] = prepared
            }
        }
        guard role == .haptic else { return caches }
        preparePatternsAndCues(library, cueSheet, on: engine, into: &caches)
        return caches
    }

    /// Prepares the library's patterns and the cue sheet's cues (whole, and their haptic part)
    /// for `engine`, into `caches`.
    func preparePatternsAndCues(_ library: PatternLibrary, _ cueSheet: CueSheet, on engine: HapticEngine, into caches: inout Caches) {
        for (name, pattern) in library.patterns {
            if let prepared = prepare(pattern, on: engine, what: "pattern \(name)") { caches.patterns[name] = prepared }
        }
        for (name, cue) in cueSheet.cues {
            guard let haptic = cueHapticPattern(cue) else { continue }
            let hapticPart = prepare(haptic, on: engine, what: "cue \(name) (haptic part)")
            let alignment = align(cue, haptic: haptic, prepared: hapticPart, caches: &caches, on: engine)
            caches.cueAlignments[name] = alignment
            if let prepared = prepare(cuePattern(cue, haptic: haptic, alignment: alignment), on: engine, what: "cue \(name)") {
                caches.cues[name] = prepared
            }
            if let hapticPart { caches.cueHaptics[name] = hapticPart }
        }
    }

    func prepare(_ pattern: AHAPPattern, on engine: HapticEngine, what: String) -> PreparedPattern? {
        let c = engine.configuration
        do {
            return try PreparedPattern(pattern, profile: c.profile, sampleRate: Double(c.sampleRate), sounds: c.sounds, strict: true)
        } catch {
            logger.debug("haptic manager: \(what) cannot be prepared (\(error)); skipped")
            return nil
        }
    }

    /// A sound effect as a one-event pattern: the WAV from the start, at full volume,
    /// without the volume envelope's fade-in (so its first sample is the scheduled frame).
    static func soundEffectPattern(_ name: String) -> AHAPPattern {
        AHAPPattern(elements: [.event(soundEffectEvent(name, at: 0))])
    }

    static func soundEffectEvent(_ name: String, at time: Double) -> Event {
        Event(time: time, type: .audioCustom, parameters: [EventParameter(.audioVolume, 1)],
              waveformPath: "sfx/\(name).wav", useVolumeEnvelope: false)
    }

    /// A cue as one pattern: its haptic part (`cueHapticPattern`) and its sound, each at the
    /// alignment's delay, so that one voice plays both (the planned frames by construction).
    func cuePattern(_ cue: CueSheet.Cue, haptic: AHAPPattern, alignment: CueAlignment) -> AHAPPattern {
        var elements = Self.delayed(haptic.elements, by: alignment.hapticDelaySeconds)
        if let sfx = cue.sfx {
            elements.append(.event(Self.soundEffectEvent(sfx.name, at: alignment.audioDelaySeconds)))
        }
        return AHAPPattern(elements: elements)
    }

    /// A cue's haptic part alone (empty elements when the cue has none); nil when the cue
    /// names a pattern or sound that is not there (logged).
    func cueHapticPattern(_ cue: CueSheet.Cue) -> AHAPPattern? {
        var elements: [PatternElement] = []
        switch cue.haptic {
        case .pattern(let name):
            guard let pattern = library.pattern(named: name) else {
                logger.debug("haptic manager: cue \(cue.name) names pattern \(name), which is not loaded; cue skipped")
                return nil
            }
            elements = pattern.elements
        case .transient(let t):
            elements = [.event(.transient(at: 0, intensity: t.intensity, sharpness: t.sharpness))]
        case .buzz(let list):
            elements = list.map { .event(.transient(at: $0.time, intensity: $0.intensity, sharpness: $0.sharpness)) }
        case nil:
            break
        }
        if let sfx = cue.sfx {
            guard soundEffectNames.contains(sfx.name) else {
                logger.debug("haptic manager: cue \(cue.name) names sound effect \(sfx.name), which is not in sfx/; cue skipped")
                return nil
            }
        }
        return AHAPPattern(elements: elements)
    }

    // MARK: - playback

    /// Plays the library pattern `name` as soon as possible.
    public func play(_ name: String) { play(name, atTime: 0) }

    /// Plays the library pattern `name` at `time` (seconds on CLOCK_MONOTONIC; 0 or a
    /// past time: as soon as possible). Unknown name: a no-op (debug log).
    public func play(_ name: String, atTime time: Double) {
        guard let (engine, pattern) = lookup({ $0.patterns[name] }, what: "pattern", name) else { return }
        _ = start(pattern, on: engine, at: time)
    }

    /// Fires the cue `cue` of the cue sheet as soon as possible.
    public func play(cue: String) { play(cue: cue, atTime: 0) }

    /// Fires the cue `cue` at `time`: each part at `time` plus its delay in the cue's
    /// ``CueAlignment`` (by default the part felt earlier waits, so that both are felt
    /// together; the sound's sheet offset included). In one stream both come from one voice
    /// (the planned frames by construction); in two-device mode the haptic part starts on the
    /// haptic engine and the sound on the audio engine at the same monotonic time, each
    /// placed by its own device's frame/time mapping.
    public func play(cue: String, atTime time: Double) {
        if isTwoDevice {
            _ = playTracked(cue: cue, atTime: time)
            return
        }
        guard let (engine, pattern) = lookup({ $0.cues[cue] }, what: "cue", cue) else { return }
        _ = start(pattern, on: engine, at: time)
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
            logger.debug("haptic manager: no cue named \"\(name)\"; ignored")
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
            logger.debug("haptic manager: cue \(name) is not prepared (preloadPatterns() first); ignored")
            return nil
        }
    }

    private enum CueLookup<Extra: Sendable>: Sendable {
        case ok(HapticEngine, PreparedPattern, Extra)
        case unavailable
        case unknown
    }

    /// Plays the sound effect `name` (`Assets/sfx/<name>.wav`) as soon as possible.
    public func playSFX(_ name: String) { playSFX(name, atTime: 0) }

    /// Plays the sound effect `name` at `time`, on the same engine and output stream as
    /// the haptics: a haptic given the same `time` starts on the same output frame.
    public func playSFX(_ name: String, atTime time: Double) {
        guard let (engine, pattern) = lookup(on: soundRole, { $0.sounds[name] }, what: "sound effect", name) else { return }
        _ = start(pattern, on: engine, at: time)
    }

    /// The engine that plays the sound effects: the audio engine in two-device mode.
    var soundRole: EngineRole { isTwoDevice ? .audio : .haptic }

    /// One transient without a file (detent clicks, taps): intensity and sharpness are
    /// clamped to 0…1 and quantised (`transientSteps`); at most `transientVoices` sound
    /// at once (a new one stops the oldest), so rapid calls neither pile up nor interfere.
    public func playTransientEvent(intensity: Double, sharpness: Double) {
        playTransientEvent(intensity: intensity, sharpness: sharpness, atTime: 0)
    }

    /// `playTransientEvent(intensity:sharpness:)` at `time`.
    public func playTransientEvent(intensity: Double, sharpness: Double, atTime time: Double) {
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
        guard let (engine, id, cached) = found else { return }
        var pattern = cached
        if pattern == nil {
            let i = Double(key / (steps + 1)) / Double(steps), sh = Double(key % (steps + 1)) / Double(steps)
            let ahap = AHAPPattern(elements: [.event(.transient(at: 0, intensity: i, sharpness: sh))])
            pattern = prepare(ahap, on: engine, what: "transient")
            if let pattern {
                state.withLock { s in if s.haptic.caches.engineID == id && s.haptic.engineID == id { s.haptic.caches.transients[key] = pattern } }
            }
        }
        guard let pattern, let player = start(pattern, on: engine, at: time) else { return }
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
    }

    /// Starts `name` looping and returns a handle for live control of its parameters
    /// (the progressive slider: the heartbeat loops while its intensity follows a value
    /// the app sets). Never fails: with an unknown name or no engine the handle does nothing.
    /// The loop survives an engine reset (it restarts on the new engine with its values).
    public func playLooping(_ name: String, intensity: Double = 1, atTime time: Double = 0) -> LoopingPattern {
        let handle = LoopingPattern(name: name, manager: self, intensity: intensity)
        guard let (engine, pattern) = lookup({ $0.patterns[name] }, what: "pattern", name) else {
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
            logger.debug("haptic manager: no \(what) named \"\(name)\" (unknown, or not preloaded); ignored")
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

    /// A pattern of the current engine's cache, with the engine and its number.
    func current(_ name: String) -> (HapticEngine, Int, PreparedPattern)? {
        state.withLock { s in
            guard case .running = s.haptic.status, let engine = s.haptic.engine, let p = s.caches.patterns[name] else { return nil }
            return (engine, s.haptic.engineID, p)
        }
    }
}

// MARK: - the loop handle

/// Live control of a looping pattern started with ``HapticManager/playLooping(_:intensity:atTime:)``.
/// Every method is fire-and-forget and safe from any thread.
public final class LoopingPattern: Sendable {
    /// The pattern's name.
    public let name: String
    private let manager: HapticManager.WeakManager

    private struct State {
        var player: AdvancedPatternPlayer? = nil
        var engineID = 0
        var intensity: Double
        var sharpness: Double = 0
        var stopped = false
    }
    private let state: Mutex<State>

    init(name: String, manager: HapticManager, intensity: Double) {
        self.name = name
        self.manager = HapticManager.WeakManager(manager)
        state = Mutex(State(intensity: Self.clamp(intensity, 0...1)))
    }

    /// The intensity (HapticIntensityControl, 0…1) the loop plays at.
    public var intensity: Double { state.withLock { $0.intensity } }

    /// Whether the loop is playing (false after `stop()`, or when it never could start).
    public var isPlaying: Bool { state.withLock { !$0.stopped && $0.player != nil } }

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
            return p
        }
        try? player?.stop(atTime: time)
        manager.manager?.unregister(self)
    }

    func markStopped() {
        state.withLock { s in
            s.stopped = true
            s.player = nil
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
            try player.start(atTime: time)
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
        var parameters = [DynamicParameter(.hapticIntensityControl, time: 0, value: intensity)]
        if sharpness != 0 { parameters.append(DynamicParameter(.hapticSharpnessControl, time: 0, value: sharpness)) }
        try? player.sendParameters(parameters, atTime: time)
    }

    /// After a reset: the same loop on the manager's new engine (the old player is dropped).
    func restart() {
        guard let manager = manager.manager, let (engine, id, pattern) = manager.current(name) else { return }
        let stale = state.withLock { s -> Bool in
            guard !s.stopped, s.engineID != id else { return false }
            s.player = nil
            return true
        }
        if stale { begin(on: engine, id: id, pattern: pattern, at: 0) }
    }
}

/// The entries of `folder` ending in `suffix`, sorted.
func listFiles(_ folder: String, suffix: String) -> Result<[String], FileProblem> {
    listAHAPFiles(folder, suffix: suffix)
}

extension ChannelLayout {
    /// Left and right audio only (the audio device of two-device mode).
    public static let stereoAudio = ChannelLayout([.audioLeft(gain: 1), .audioRight(gain: 1)])
}
