import HapticEngine
import HapticPattern
import HapticRender
import Logging

// Preparing what the engines play: the library's patterns, the cues and the sound effects
// (the per-engine caches, re-made for every new engine).
extension HapticManager {

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
        var budget = SoundBudget(held: 0)
        for name in soundEffectNames {
            if let prepared = prepare(Self.soundEffectPattern(name), on: engine, what: "sound effect \(name)"),
               admit(prepared, "sound effect \(name)", &budget) {
                caches.sounds[name] = prepared
            }
        }
        guard role == .haptic else { return caches }
        preparePatternsAndCues(library, cueSheet, on: engine, into: &caches)
        return caches
    }

    /// Prepares the library's patterns and the cue sheet's cues (whole, and their haptic part)
    /// for `engine`, into `caches`.
    /// Patterns and cues past `Limits.maxManagerSoundBytes` of sound samples are not prepared
    /// (in name order, so the same ones are kept every time; logged).
    func preparePatternsAndCues(_ library: PatternLibrary, _ cueSheet: CueSheet, on engine: HapticEngine, into caches: inout Caches) {
        var budget = SoundBudget(held: caches.sounds.values.reduce(0) { $0 + $1.soundBytes })
        for (name, pattern) in library.patterns.sorted(by: { $0.key < $1.key }) {
            if let prepared = prepare(pattern, on: engine, what: "pattern \(name)"), admit(prepared, "pattern \(name)", &budget) {
                caches.patterns[name] = prepared
            }
        }
        for (name, cue) in cueSheet.cues.sorted(by: { $0.key < $1.key }) {
            // A cue holds its own copy of its sound effect: refused before anything is measured.
            let sfxBytes = cue.sfx.flatMap { caches.sounds[$0.name]?.soundBytes } ?? 0
            guard budget.held + sfxBytes <= Limits.maxManagerSoundBytes else {
                budget.refuse("cue \(name)", logger)
                continue
            }
            guard let haptic = cueHapticPattern(cue) else { continue }
            let hapticPart = prepare(haptic, on: engine, what: "cue \(name) (haptic part)")
            let alignment = align(cue, haptic: haptic, prepared: hapticPart, caches: &caches, on: engine)
            caches.cueAlignments[name] = alignment
            if let prepared = prepare(cuePattern(cue, haptic: haptic, alignment: alignment), on: engine, what: "cue \(name)"),
               admit(prepared, "cue \(name)", &budget) {
                caches.cues[name] = prepared
            }
            if let hapticPart { caches.cueHaptics[name] = hapticPart }
        }
    }

    /// Counts `prepared`'s sound samples against the budget; false (logged) when they would pass it.
    func admit(_ prepared: PreparedPattern, _ what: String, _ budget: inout SoundBudget) -> Bool {
        guard budget.held + prepared.soundBytes <= Limits.maxManagerSoundBytes else {
            budget.refuse(what, logger)
            return false
        }
        budget.held += prepared.soundBytes
        return true
    }

    func prepare(_ pattern: AHAPPattern, on engine: HapticEngine, what: String) -> PreparedPattern? {
        let c = engine.configuration
        do {
            return try PreparedPattern(pattern, profile: c.profile, sampleRate: Double(c.sampleRate), sounds: c.sounds, strict: true)
        } catch {
            logger.debug("haptic manager: \(printable(what)) cannot be prepared (\(error)); skipped")
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
                logger.debug("haptic manager: cue \(printable(cue.name)) names pattern \(printable(name)), which is not loaded; cue skipped")
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
                logger.debug("haptic manager: cue \(printable(cue.name)) names sound effect \(printable(sfx.name)), which is not in sfx/; cue skipped")
                return nil
            }
        }
        return AHAPPattern(elements: elements)
    }
}

/// The sound samples an engine's prepared patterns hold so far (see `Limits.maxManagerSoundBytes`).
struct SoundBudget {
    var held: Int
    private var refused = 0

    init(held: Int) { self.held = held }

    /// Logs the first few patterns or cues left out (a warning: they will be unknown when played).
    mutating func refuse(_ what: String, _ logger: Logger) {
        refused += 1
        if refused <= 5 {
            logger.warning("haptic manager: \(printable(what)) not prepared: the sounds of the prepared patterns would pass \(Limits.maxManagerSoundBytes >> 20) MiB")
        }
    }
}
