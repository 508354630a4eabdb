import HapticALSA
import HapticEngine
import HapticRender

// The manager's engines and their recovery. One stream has one engine (`.haptic`);
// two-device mode adds a second one for the sound effects (`.audio`). Both follow the
// one state machine of the seeds, parameterised by role: what a new engine re-caches
// (`prepareCaches(_:for:id:)`) and what giving up means (`markUnavailable`).

extension HapticManager {
    /// One engine the manager owns: the engine in use, its number, its recovery state, and
    /// what is prepared for it.
    struct EngineSlot {
        /// The engine in use (nil when unavailable).
        var engine: HapticEngine? = nil
        /// Number of the engine in use (1 for the first of its role; a reset makes a new one).
        var engineID = 0
        var status: Status = .running
        /// Prepared for engine `caches.engineID` (0: nothing prepared yet). The audio engine
        /// caches only sound effects.
        var caches = Caches()

        /// The sound effects prepared for the engine.
        var sounds: [String: PreparedPattern] { caches.sounds }

        /// Gives up on the engine (unavailable for `why`) and returns it, to be stopped
        /// outside the lock.
        mutating func retire(_ why: String) -> HapticEngine? {
            status = .unavailable(why)
            defer { engine = nil }
            return engine
        }
    }

    // MARK: - engines

    /// Each engine's schedule-grid tolerance in two-device mode (see `makeEngine`): 50 µs (two
    /// or three frames). A correction moves only where later timed commands land, never a
    /// playing voice, so a tight grid costs nothing heard, and the two grids' strays add up in
    /// the skew (at 0.2 ms they put a loop's passes on a split card up to 1.3 ms apart).
    public static let twoDeviceDriftToleranceSeconds = 0.00005

    /// A new engine of `role` on its output, with both handlers registered.
    func makeEngine(_ role: EngineRole, id: Int) -> HapticEngine {
        var config = role == .haptic ? configuration.engine : configuration.audioEngine
        config.sounds = sounds
        if configuration.audioOutput != nil {
            // Two devices: each engine's schedule grid may stray from its own clock estimate by
            // its drift tolerance before it is corrected, and the two stray independently, so
            // the skew between them can reach twice that. Keep it well under the 1 ms the
            // lockstep promises (exact frame spacing on one device matters less here).
            config.scheduleDriftToleranceSeconds = min(config.scheduleDriftToleranceSeconds, Self.twoDeviceDriftToleranceSeconds)
        }
        let makeDevice: @Sendable () -> any OutputDevice
        switch role == .haptic ? configuration.output : configuration.audioOutput {
        case .alsa(let name)?: makeDevice = { ALSAOutputDevice(name: name) }
        case .device(let factory)?: makeDevice = factory
        case nil: preconditionFailure("no audio output configured")
        }
        if role == .haptic && config.liveInput == nil {
            config.liveInput = following.slot  // what `startFollowing` follows, when it does
        }
        let engine = HapticEngine(configuration: config, makeDevice: makeDevice)
        register(engine, role, id: id)
        return engine
    }

    /// Installs both handlers; they hold the manager weakly and act only while `id` is
    /// the role's current engine.
    func register(_ engine: HapticEngine, _ role: EngineRole, id: Int) {
        let weak = WeakManager(self)
        engine.stoppedHandler = { reason in weak.manager?.engineStopped(role, id: id, reason: reason) }
        engine.reconnectedHandler = { info in weak.manager?.engineReconnected(role, id: id, info) }
        engine.resetHandler = { weak.manager?.engineReset(role, id: id) }
    }

    /// Builds and starts the first engine of `role` (at init). A failure leaves the role
    /// unavailable: for `.haptic` every call, for `.audio` only the sound effects.
    func startFirstEngine(_ role: EngineRole) {
        let engine = makeEngine(role, id: 1)
        do {
            try engine.start()
            state.withLock { s in
                s[role] = EngineSlot(engine: engine, engineID: 1)
                s.log.append(role.event(.started(engine: 1)))
            }
        } catch {
            engine.stop()
            let consequence = role == .haptic ? "every call" : "sound effects"
            logger.info("haptic manager: no \(role.rawValue) engine (\(error)); \(consequence) will do nothing")
            state.withLock { s in
                s[role] = EngineSlot(engine: nil, engineID: 1, status: .unavailable("start failed: \(error)"))
                s.log.append(role.event(.startFailed(engine: 1, error.description)))
            }
        }
    }

    // MARK: - recovery

    /// The seeds' stop path. The one restart is the engine's own reconnection: the role waits
    /// for it (`reconnecting`) and runs again when `engineReconnected` says so. If the engine gives
    /// up (`.recoveryFailed`, only with a limit), the restart failed: one rebuild, else unavailable.
    func engineStopped(_ role: EngineRole, id: Int, reason: HapticEngine.StoppedReason) {
        if case .recoveryFailed(let why) = reason {
            let current: Bool = state.withLock { s in
                guard let slot = s[role], slot.engineID == id else { return false }
                if case .unavailable = slot.status { return false }
                s.log.append(role.event(.restartFailed(engine: id, why)))
                s[role]?.status = .running  // the rebuild below acts on a running slot
                return true
            }
            guard current else { return }
            logger.info("haptic manager: \(role.label) \(id) gave up reconnecting (\(why)); rebuilding")
            engineReset(role, id: id, logReset: false)
            return
        }
        let waiting: Bool = state.withLock { s in
            guard let slot = s[role], slot.engineID == id, case .running = slot.status else { return false }
            s.log.append(role.event(.stopped(engine: id, "\(reason)")))
            s[role]?.status = .reconnecting("\(reason)")
            return true
        }
        guard waiting else { return }
        logger.info("haptic manager: \(role.label) \(id) stopped (\(reason)); its reconnection is the one restart")
        configuration.eventHandler?(.lost(role, engine: id, reason: reason))
    }

    /// The engine is back on its device (the one restart succeeded): the role runs again.
    func engineReconnected(_ role: EngineRole, id: Int, _ info: HapticEngine.Reconnection) {
        let back: Bool = state.withLock { s in
            guard let slot = s[role], slot.engineID == id, case .reconnecting = slot.status else { return false }
            s[role]?.status = .running
            s.log.append(role.event(.restartSucceeded(engine: id)))
            return true
        }
        logger.info("haptic manager: \(role.label) \(id) is back after \(info.outageSeconds) s")
        if back { configuration.eventHandler?(.reconnected(role, engine: id, info)) }
    }

    /// The seeds' reset path: a new engine, both handlers registered again, its caches
    /// re-made (if `preloadPatterns()` was called), started; on failure, the role is
    /// unavailable. Players of the old engine are dropped; loops restart on the new one.
    func engineReset(_ role: EngineRole, id: Int, logReset: Bool = true) {
        let old: HapticEngine? = state.withLock { s in
            guard let slot = s[role], slot.engineID == id else { return nil }
            if case .unavailable = slot.status { return nil }
            if logReset { s.log.append(role.event(.reset(engine: id))) }
            return slot.engine
        }
        guard let old else { return }
        let newID = id + 1
        logger.info("haptic manager: \(role.label) \(id) was reset; building \(role.label) \(newID)")
        // The old engine lets go of the device first (a hardware PCM opens only once).
        old.stop()
        let engine = makeEngine(role, id: newID)
        do {
            try engine.start()
        } catch {
            engine.stop()
            markUnavailable(role, id: id, event: .rebuildFailed(engine: newID, error.description),
                            why: "new \(role.label) failed: \(error)")
            return
        }
        let wantsPreload = state.withLock { $0.wantsPreload }
        let caches = wantsPreload ? prepareCaches(role, for: engine, id: newID) : Caches()
        let loops: [LoopingPattern]? = state.withLock { s in
            // Not when the manager gave up or shut down meanwhile.
            if case .unavailable = s.haptic.status { return nil }
            guard let slot = s[role], slot.engineID == id else { return nil }
            if case .unavailable = slot.status { return nil }
            s[role] = EngineSlot(engine: engine, engineID: newID, caches: caches)
            let prepared = role == .haptic ? caches.patterns.count : caches.sounds.count
            s.log.append(role.event(.rebuilt(engine: newID, patterns: prepared)))
            guard role == .haptic else { return [] }
            s.transientRing = Array(repeating: nil, count: s.transientRing.count)
            s.ringNext = 0
            return Array(s.loops.values)
        }
        guard let loops else {
            engine.stop()
            return
        }
        for loop in loops { loop.restart() }
        configuration.eventHandler?(.rebuilt(role, engine: newID))
    }

    /// Gives up on the role's engine `id`. Haptics unavailable: `engineAvailable` is false,
    /// every call is a no-op, loops end, and the audio engine of two-device mode lets go of
    /// its device too. Audio unavailable: the sound effects are no-ops; haptics go on.
    func markUnavailable(_ role: EngineRole, id: Int, event: RecoveryEvent, why: String) {
        let engines: [HapticEngine] = state.withLock { s in
            guard let slot = s[role], slot.engineID == id else { return [] }
            s.log.append(role.event(event))
            var stopping = [s[role]?.retire(why)]
            if role == .haptic {
                s.endLoops()
                stopping.append(s.audio?.retire("haptics unavailable"))
            }
            return stopping.compactMap { $0 }
        }
        switch role {
        case .haptic: logger.warning("haptic manager: haptics unavailable (\(why))")
        case .audio: logger.warning("haptic manager: sound effects unavailable (\(why)); haptics go on")
        }
        // Stops the engines' own background retries: this manager has given up (seeds).
        for engine in engines { engine.stop() }
        // And lets go of a capture it follows (a new manager may follow it).
        if role == .haptic && !engines.isEmpty { following.stopSoon() }
        if !engines.isEmpty { configuration.eventHandler?(.gaveUp(role, reason: why)) }
    }

    final class WeakManager: @unchecked Sendable {
        // Written once at init, only read afterwards.
        weak var manager: HapticManager?
        init(_ manager: HapticManager) { self.manager = manager }
    }
}

extension HapticManager.State {
    /// The slot of `role` (nil for `.audio` in one stream).
    subscript(role: HapticManager.EngineRole) -> HapticManager.EngineSlot? {
        get { role == .haptic ? haptic : audio }
        set {
            switch role {
            case .haptic: if let newValue { haptic = newValue }
            case .audio: audio = newValue
            }
        }
    }

    /// Ends every loop (the haptic engine is gone for good).
    mutating func endLoops() {
        for loop in loops.values { loop.markStopped() }
        loops.removeAll()
    }
}

extension HapticManager.EngineRole {
    /// The role's recovery event as the log keeps it.
    func event(_ event: HapticManager.RecoveryEvent) -> HapticManager.RecoveryEvent {
        self == .haptic ? event : .audio(event)
    }

    /// The role's engine in log lines and reasons.
    var label: String { self == .haptic ? "engine" : "audio engine" }
}
