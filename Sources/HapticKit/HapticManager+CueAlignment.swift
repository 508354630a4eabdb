// The cue sheet's alignment of a cue's haptic and sound (CueAlignment): measured when the
// cues are prepared for the haptic engine, applied when a cue is fired.

import HapticEngine
import HapticPattern
import HapticRender

extension HapticManager {
    /// Where the cue `name`'s parts start on the current haptic engine (nil: unknown, or not
    /// prepared yet — ``preloadPatterns()`` first).
    public func cueAlignment(_ name: String) -> CueAlignment? {
        state.withLock { $0.caches.cueAlignments[name] }
    }

    /// Places `cue`'s parts for `engine`: its haptic part (`haptic`, `prepared` for the
    /// engine), its sound as `caches` holds it (the sounds are prepared before the cues). Each
    /// felt onset is measured once per engine and kept in `caches`: a sound's by name (cues share
    /// sounds), a haptic part's by cue with the pattern it was measured on (a reload re-measures
    /// only what changed).
    func align(_ cue: CueSheet.Cue, haptic: AHAPPattern, prepared: PreparedPattern?, caches: inout Caches,
               on engine: HapticEngine) -> CueAlignment {
        let rate = engine.configuration.sampleRate
        let sound = cue.sfx.flatMap { caches.sounds[$0.name] }
        var audioFelt: Int64?? = nil
        if let name = cue.sfx?.name, let sound {
            audioFelt = caches.soundFeltOnsets[name] ?? CueAlignment.soundFeltOnset(sound, sampleRate: rate)
            caches.soundFeltOnsets[name] = audioFelt!
        }
        var hapticFelt: Int64?? = nil
        let from = Int64(((cue.sfx?.offset ?? 0) * Double(rate)).rounded())
        if let known = caches.hapticFeltOnsets[cue.name], known.pattern == haptic, known.from == from {
            hapticFelt = .some(known.felt)
        }
        let placed = CueAlignment.place(cue, haptic: prepared, sound: sound, sampleRate: rate, audioFelt: audioFelt,
                                        hapticFelt: hapticFelt)
        caches.hapticFeltOnsets[cue.name] = HapticFeltOnset(pattern: haptic, from: from, felt: placed.hapticFeltFrames)
        return placed
    }

    /// `elements` `seconds` later (events, parameters and curves; a curve's points are
    /// relative to its start and move with it).
    static func delayed(_ elements: [PatternElement], by seconds: Double) -> [PatternElement] {
        guard seconds > 0 else { return elements }
        return elements.map { element in
            switch element {
            case .event(var e):
                e.time += seconds
                return .event(e)
            case .parameter(var p):
                p.time += seconds
                return .parameter(p)
            case .curve(var c):
                c.time += seconds
                return .curve(c)
            }
        }
    }

    /// The cue's parts' delays after its time, in seconds (without an alignment: the haptic
    /// at the cue's time, the sound at its sheet offset).
    func cueDelaySeconds(_ name: String, sfxOffset: Double) -> (haptic: Double, audio: Double) {
        guard let a = cueAlignment(name) else { return (0, sfxOffset) }
        return (a.hapticDelaySeconds, a.audioDelaySeconds)
    }

    /// The same in frames at `sampleRate` (the haptic engine's, which the alignment was made for).
    func cueDelayFrames(_ name: String, sfxOffset: Double, sampleRate: Double) -> (haptic: Int64, audio: Int64) {
        guard let a = cueAlignment(name), Double(a.sampleRate) == sampleRate else {
            return (0, Int64((sfxOffset * sampleRate).rounded()))
        }
        return (a.hapticDelayFrames, a.audioDelayFrames)
    }
}

/// A cue's haptic part's felt onset and what it was measured on (``HapticManager/align``).
struct HapticFeltOnset: Sendable {
    var pattern: AHAPPattern
    /// The frame the measuring window started at (the sound's sheet offset).
    var from: Int64
    var felt: Int64?
}

extension CueAlignment {
    /// ``hapticDelayFrames`` in seconds.
    public var hapticDelaySeconds: Double { Double(hapticDelayFrames) / Double(sampleRate) }
    /// ``audioDelayFrames`` in seconds.
    public var audioDelaySeconds: Double { Double(audioDelayFrames) / Double(sampleRate) }
}
