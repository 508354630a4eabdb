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

    /// What the manager was made with (`engine.layout` as chosen from the device, when
    /// `layoutFromDevice`).
    public let configuration: Configuration
    /// One line about the layout chosen from the device, when the choice gave something up
    /// (a stereo device carrying sound and haptic...); nil otherwise.
    public let layoutNote: String?
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
    /// The capture followed on the haptic engine, if any (HapticManager+Follow.swift).
    let following = Following()
    var logger: Logger { configuration.logger }

    // MARK: - init

    /// Makes the manager and starts its engine. A device that cannot be opened leaves the
    /// manager unavailable (`engineAvailable` false); nothing throws.
    public init(configuration: Configuration) {
        var configuration = configuration
        if configuration.layoutFromDevice {
            let choice = configuration.output.defaultLayout(sound: configuration.audioOutput == nil)
            configuration.engine.layout = choice.layout
            layoutNote = choice.note
        } else {
            layoutNote = nil
        }
        self.configuration = configuration
        content = Mutex(Content.load(configuration))
        let assets = configuration.assetsFolder
        sounds = SoundLibrary(assetsFolder: assets.isEmpty ? nil : assets)
        switch assets.isEmpty ? .success([]) : listFiles(assets + "/sfx", suffix: ".wav") {
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
        layout: ChannelLayout? = nil, profile: ActuatorProfile = .bassShaker
    ) {
        self.init(configuration: Configuration(
            hapticsFolder: hapticsFolder, assetsFolder: assetsFolder, output: .alsa(deviceName), layout: layout,
            profile: profile))
    }

    /// A manager for the devices `makeDevice` builds.
    public convenience init(
        hapticsFolder: String, assetsFolder: String, layout: ChannelLayout? = nil,
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

    /// Where the haptic engine's channels went at its last open: each channel's position and
    /// whether the haptic reaches a channel of its own (`ChannelRouting.warning`); nil before a
    /// device opened.
    public var channelRouting: ChannelRouting? { currentEngine?.channelRouting }

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
}

extension ChannelLayout {
    /// Left and right audio only (the audio device of two-device mode).
    public static let stereoAudio = ChannelLayout([.audioLeft(gain: 1), .audioRight(gain: 1)])
}
