#if canImport(Glibc)
import Glibc
#endif
import CHapticSynth
import HapticEngine
import HapticKit
import Synchronization

/// What an hs_engine is: a ``HapticManager`` (live on one or two ALSA devices, or on an engine
/// in pull drive for an offline engine) with its library and cue sheet, what this handle
/// started (for hs_engine_stop), and its C callbacks.
final class CEngine: Sendable {
    let manager: HapticManager
    /// The offline engine's one engine (pull drive): found without the manager's lock on the
    /// real-time path, never rebuilt (nothing is lost). nil for a live engine.
    let pulled: HapticEngine?
    /// Tells engines apart in the patterns' preparation caches (never reused).
    let serial: UInt64
    let sampleRate: Int
    let channels: Int
    let periodFrames: Int
    let assetsFolder: String?
    let relay: CallbackRelay
    /// One-shot voices started through this handle (patterns, cues, sounds, transients).
    let recent = RecentPlayers(capacity: 1024)
    /// Players made on this handle (held weakly: a player is the app's to free).
    private let players = Mutex<[ObjectIdentifier: WeakPlayer]>([:])
    /// hs_engine_close has run (the players that outlive the handle find it so).
    private let closed = Atomic<Bool>(false)

    final class WeakPlayer: @unchecked Sendable {
        // Set once at init; read under the engine's mutex.
        weak var player: CPlayer?
        init(_ player: CPlayer) { self.player = player }
    }

    /// What hs_engine_options says, read and checked.
    struct Options {
        var device = "default"
        var audioDevice: String? = nil
        var layout: ChannelLayout? = nil
        var profile = ActuatorProfile.bassShaker
        var sampleRate = 48_000
        var periodFrames: Int? = nil
        var bufferPeriods = 3
        var hapticsFolder: String? = nil
        var assetsFolder: String? = nil
        var realtimePriority: Int32? = 70
        var lockMemory = false
        var offline = false
    }

    private static let serials = Atomic<UInt64>(0)

    init(_ options: Options) throws(Failure) {
        relay = CallbackRelay()
        // Folders not named: the ones the CLI finds (the user's, ./Haptics, the installed ones).
        let search = LibraryDataFolders.search
        let assetsFolder = options.assetsFolder ?? search.find(.assets)?.path
        var config = HapticManager.Configuration(
            hapticsFolder: options.hapticsFolder ?? search.find(.haptics)?.path ?? "", assetsFolder: assetsFolder ?? "",
            output: options.offline ? .device({ PulledOutput(name: "offline engine") }) : .alsa(options.device),
            layout: options.layout, profile: options.profile,
            audioOutput: options.offline ? nil : options.audioDevice.map { .alsa($0) })
        let period = options.periodFrames ?? (options.offline ? 1024 : 256)
        config.setPeriod(frames: period, bufferPeriods: options.bufferPeriods)
        config.engine.sampleRate = options.sampleRate
        config.audioEngine.sampleRate = options.sampleRate
        config.engine.realtimePriority = options.realtimePriority
        config.audioEngine.realtimePriority = options.realtimePriority
        config.lockMemory = options.lockMemory
        if options.offline { config.engine = .pulled(config.engine) }
        let loggers = LibraryLogging.loggers()
        config.logger = loggers.manager
        config.engine.logger = loggers.engine
        config.audioEngine.logger = loggers.engine
        let relay = self.relay
        config.eventHandler = { relay.deliver($0) }
        let manager = HapticManager(configuration: config)
        guard manager.engineAvailable, let engine = manager.currentEngine else {
            let why = "\(manager.status)"
            manager.shutDown()
            throw Failure(HS_ERR_DEVICE, "\(options.device): \(why)")
        }
        if let audio = options.audioDevice, !options.offline, !manager.audioAvailable {
            let why = manager.audioStatus.map { "\($0)" } ?? "unavailable"
            manager.shutDown()
            throw Failure(HS_ERR_DEVICE, "audio_device \(audio): \(why)")
        }
        // What the CLI prints about the layout it chose, told to the app's log.
        if let note = manager.layoutNote { loggers.manager.warning("\(note)") }
        manager.preloadPatterns()
        self.manager = manager
        pulled = options.offline ? engine : nil
        serial = Self.serials.add(1, ordering: .relaxed).newValue
        sampleRate = options.sampleRate
        // The layout as placed on the device (chosen from it when none was given).
        channels = manager.channelRouting?.channels.count ?? manager.configuration.engine.layout.channels
        periodFrames = period
        self.assetsFolder = assetsFolder
    }

    /// The engine's clock now: CLOCK_MONOTONIC, or the frames pulled. Real-time safe.
    var now: Double { pulled?.currentTime ?? MonotonicClock.now() }

    /// Before a control call: an offline engine has no service thread, so its finished voices
    /// come back here; and the manager must be able to play.
    func prepareForControl() throws(Failure) {
        guard !closed.load(ordering: .acquiring) else { throw .notRunning("its engine was closed") }
        pulled?.serviceStep()
        switch manager.status {
        case .running: return
        case .reconnecting(let why): throw .notRunning("the engine is reconnecting to its device (\(why))")
        case .unavailable(let why): throw .notRunning("the engine is unavailable (\(why))")
        }
    }

    /// A time argument checked against this engine's clock.
    func time(_ value: Double, _ what: String = "time") throws(Failure) -> Double {
        try HapticSynthC.time(value, now: now, what)
    }

    func adopt(_ player: CPlayer) {
        players.withLock { $0[ObjectIdentifier(player)] = WeakPlayer(player) }
    }

    func release(_ player: CPlayer) {
        _ = players.withLock { $0.removeValue(forKey: ObjectIdentifier(player)) }
    }

    /// hs_engine_stop: every player made here and every one-shot voice started here, at `time`.
    func stopAll(at time: Double) {
        let live = players.withLock { $0.values.compactMap(\.player) }
        for player in live { player.stop(at: time) }
        recent.stopAll(atTime: time)
    }

    /// hs_engine_close: no callback any more (but one the caller is inside), then everything stops.
    func close() {
        closed.store(true, ordering: .releasing)
        relay.close()
        manager.shutDown()
    }
}
