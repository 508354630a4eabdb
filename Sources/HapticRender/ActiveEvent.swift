// A sounding event inside a voice: its record, and how an event starts (its parameters read
// at the onset).

import HapticDSP
import HapticPattern

/// A sounding instance of an event.
struct ActiveEvent {
    var kind: EventKind
    var done: Bool
    var event: Int
    /// Output sample of the onset.
    var start: Int64
    /// Unwrapped pattern clock at the onset (envelope time is U(n) - onsetU).
    var onsetU: Double
    /// Transient: final amplitude. Others: the event's own level (intensity/volume).
    var level: Double
    /// Sharpness (haptic) or brightness (audio continuous), before controls.
    var colour: Double
    var pan: Double
    var pitch: Double
    /// Transient: phase increment (cycles per sample) and length in output samples.
    var inc: Double
    var length: Int64
    /// Transient: where its precomputed burst starts in `FlatPattern.grainSamples` (-1: none,
    /// computed as it plays).
    var grain: Int
    /// Continuous oscillators: the phase is phaseAnchor + (n - anchorSample)·inc (evaluated by
    /// `gridPhase`), re-anchored whenever inc changes, so that a constant frequency never
    /// accumulates rounding error.
    var phaseAnchor: Double
    var anchorSample: Int64
    /// Envelope, in pattern samples.
    var attack: Double
    var decay: Double
    var release: Double
    /// 1/attack, 1/decay, 1/release (the envelope multiplies; scalar and 8-lane code agree).
    /// Transient: invAttack is the rise's quarter period per sample and invDecay the decay
    /// rate (log2(e)/time constant), as `TransientGeometry` computed them.
    var invAttack: Double = 1
    var invDecay: Double = 1
    var invRelease: Double = 1
    /// EventDuration in pattern samples (infinity when absent).
    var end: Double
    var sustained: Bool
    /// AudioCustom: the sound, the first frame to play, looping.
    var sound: Int
    var soundOffset: Int64
    var loop: Bool
    var volumeEnvelope: Bool
}

extension VoiceState {
    /// Starts event `index` at output sample `n` (`resumeAt`: pattern samples already elapsed).
    @_noLocks
    func activate(_ index: Int, at n: Int64, resumeAt elapsed: Double = 0) {
        let e = flat.events[index]
        eventsStarted &+= 1
        let onsetU = e.onset + pOffset
        var a = ActiveEvent(
            kind: e.kind, done: false, event: index, start: n, onsetU: onsetU, level: e.level,
            colour: e.colour, pan: e.pan, pitch: e.pitch, inc: 0, length: 0, grain: -1,
            phaseAnchor: 0, anchorSample: n, attack: 1, decay: 1, release: 1,
            end: e.duration ?? .infinity, sustained: e.sustained, sound: e.sound,
            soundOffset: Int64(roundFast(Swift.min(1e15, Swift.max(0, elapsed)))), loop: e.loop, volumeEnvelope: e.useVolumeEnvelope)
        switch e.kind {
        case .transient:
            let values = transientValues(e, at: n)
            a.level = Double(amplitude(intensity: Float(values.intensity)))
            if a.level == 0 { return }
            let shape = TransientGeometry(
                sharpness: values.sharpness, frequencyTable: flat.frequencyTable.baseAddress!, sampleRate: fs,
                rule: transientRule)
            a.inc = shape.inc
            a.length = shape.length
            a.invAttack = Double(shape.quarterPerSample)
            a.invDecay = Double(shape.decayRate)
            a.grain = flat.grain(inc: shape.inc, length: shape.length)
        case .continuous, .audioContinuous:
            let haptic = e.isHapticContinuous
            let attackID = haptic ? ControlIndex.hapticAttackTime : ControlIndex.audioAttackTime
            let decayID = haptic ? ControlIndex.hapticDecayTime : ControlIndex.audioDecayTime
            let releaseID = haptic ? ControlIndex.hapticReleaseTime : ControlIndex.audioReleaseTime
            a.attack = fs * envelopeSeconds(attackMin, attackLog, e.attack + controlAtOnset(attackID, onset: e.onset, n: n))
            a.decay = fs * envelopeSeconds(decayMin, decayLog, e.decay + controlAtOnset(decayID, onset: e.onset, n: n))
            a.release = fs * envelopeSeconds(releaseMin, releaseLog, e.release + controlAtOnset(releaseID, onset: e.onset, n: n))
            a.invAttack = 1 / a.attack
            a.invDecay = 1 / a.decay
            a.invRelease = 1 / a.release
            if e.duration == nil { a.end = 0 }
            a.inc = -1  // forces anchoring at the first sample
            let endOfSound = a.sustained ? a.end + a.release : Swift.min(a.attack + a.decay, a.end + a.release)
            if elapsed >= endOfSound { return }
        case .audioCustom:
            if e.sound < 0 { return }
            // Without EventDuration the sound plays once (looping needs a duration to fill).
            let frames = Int64(flat.sounds[e.sound].frames)
            if e.duration == nil ? a.soundOffset >= frames : false { return }
            if elapsed >= a.end { return }
        }
        guard activeCount < activeCapacity else { return }
        active[activeCount] = a
        activeCount += 1
    }

    /// A transient's intensity (0...1, before the profile's intensity law) and sharpness as it
    /// starts at output sample `n`: the event's values with the pattern's controls at its onset
    /// (raw: a Parameter at the same time applies) and the live layer.
    @_noLocks @inline(__always)
    func transientValues(_ e: CompiledEvent, at n: Int64) -> (intensity: Double, sharpness: Double) {
        let intensity = e.level * controlAtOnset(ControlIndex.hapticIntensity, onset: e.onset, n: n)
        let sharpness = e.colour + controlAtOnset(ControlIndex.hapticSharpness, onset: e.onset, n: n)
        return (Swift.min(1, Swift.max(0, intensity)), sharpness)
    }
}
