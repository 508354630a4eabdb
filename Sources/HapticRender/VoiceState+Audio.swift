// The audio renderers: AudioCustom (sound files) and AudioContinuous (a tone with harmonics).

import HapticDSP
import HapticPattern

extension VoiceState {
    @_noLocks @inline(__always)
    func panGains(_ pan: Double, stereo: Bool) -> (Float, Float) {
        let p = Swift.min(1, Swift.max(-1, pan))
        if stereo {
            // Balance: a stereo sound keeps both channels at pan 0.
            return (Float(Swift.min(1, 1 - p)), Float(Swift.min(1, 1 + p)))
        }
        // Equal power: cos/sin of (p + 1)·π/4.
        let theta = Float((p + 1) / 8)
        return (sin2pi(theta + 0.25), sin2pi(theta))
    }

    @_noLocks @inline(__always)
    func renderAudioCustom(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n0: Int64, _ from: Int, _ count: Int) {
        let a = slot.pointee
        let span = flat.sounds[a.sound]
        let frames = Int64(span.frames)
        let samples = flat.soundSamples.baseAddress! + span.offset
        let stereo = span.channels == 2
        let volume = controlRow(ControlIndex.audioVolume)
        let pan = controlRow(ControlIndex.audioPan)
        let fade = fadeSamples
        let hasDuration = a.end.isFinite
        var j = from
        while j < count {
            let n = n0 &+ Int64(j)
            let k = n &- a.start &+ a.soundOffset
            let tau = unwrapped(at: n) - a.onsetU
            if hasDuration ? tau >= a.end : (k >= frames) {
                slot.pointee.done = true
                return
            }
            var frame: Int64 = k
            if k >= frames {
                if a.loop && frames > 0 { frame = k % frames } else { frame = -1 }
            }
            if frame >= 0 {
                var g = Float(Swift.min(1, Swift.max(0, a.level * Double(volume[j]))))
                if a.volumeEnvelope { g *= Float(Swift.min(1, Double(k + 1) / fade)) }
                // Fade before the end: always when truncating, with the volume envelope at the sound's end.
                if hasDuration {
                    // The event's end always fades (it truncates, or ends padding/looping).
                    g *= Float(Swift.min(1, (a.end - tau) / rate / fade))
                } else if a.volumeEnvelope {
                    g *= Float(Swift.min(1, Double(frames - k) / fade))
                }
                let (gl, gr) = panGains(a.pan + Double(pan[j]), stereo: stereo)
                if stereo {
                    left[j] += samples[Int(frame) * 2] * g * gl
                    right[j] += samples[Int(frame) * 2 + 1] * g * gr
                } else {
                    let s = samples[Int(frame)] * g
                    left[j] += s * gl
                    right[j] += s * gr
                }
            }
            j += 1
        }
    }

    @_noLocks @inline(__always)
    func renderAudioContinuous(_ slot: UnsafeMutablePointer<ActiveEvent>, _ n0: Int64, _ from: Int, _ count: Int) {
        let volume = controlRow(ControlIndex.audioVolume)
        let pan = controlRow(ControlIndex.audioPan)
        let pitch = controlRow(ControlIndex.audioPitch)
        let brightness = controlRow(ControlIndex.audioBrightness)
        var j = from
        while j < count {
            let n = n0 &+ Int64(j)
            reanchor(slot, n, audioFrequency(pitch: slot.pointee.pitch + Double(pitch[j])) / fs)
            let a = slot.pointee
            let tau = unwrapped(at: n) - a.onsetU
            if continuousIsOver(a, tau) {
                slot.pointee.done = true
                return
            }
            let phase = fractionalPart(a.phaseAnchor + Double(n &- a.anchorSample) * a.inc)
            let b = Float(Swift.min(1, Swift.max(0, a.colour + Double(brightness[j]))))
            // Brightness adds the 2nd and 3rd harmonics (normalised so the peak stays ~1).
            let s1 = sin2pi(Float(phase))
            let s2 = sin2pi(Float(fractionalPart(2 * phase)))
            let s3 = sin2pi(Float(fractionalPart(3 * phase)))
            let wave = (s1 + b * (0.5 * s2 + 0.33 * s3)) / (1 + 0.83 * b)
            let g = Float(Swift.min(1, Swift.max(0, a.level * Double(volume[j])))) * envelope(a, tau)
            let (gl, gr) = panGains(a.pan + Double(pan[j]), stereo: false)
            left[j] += wave * g * gl
            right[j] += wave * g * gr
            j += 1
        }
    }
}
