// An event's parameters mapped through the profile: envelope times, frequency, amplitude.

import HapticDSP
import HapticPattern

extension VoiceState {
    // MARK: events

    @_noLocks @inline(__always)
    func envelopeSeconds(_ min: Double, _ log: Double, _ value: Double) -> Double {
        min * exp2Double(Swift.min(1, Swift.max(0, value)) * log)
    }

    @_noLocks @inline(__always)
    func frequency(sharpness: Double) -> Double {
        frequencyForSharpness(sharpness, flat.frequencyTable.baseAddress!)
    }

    @_noLocks @inline(__always)
    func audioFrequency(pitch: Double) -> Double {
        let n = Double(renderTableSize)
        let x = (Swift.min(1, Swift.max(-1, pitch)) + 1) * 0.5 * n
        let i = Swift.min(renderTableSize - 1, Int(x))
        let f = x - Double(i)
        return flat.audioFrequencyTable[i] + (flat.audioFrequencyTable[i + 1] - flat.audioFrequencyTable[i]) * f
    }

    @_noLocks @inline(__always)
    func amplitude(intensity: Float) -> Float {
        let i = Swift.min(1, Swift.max(0, intensity))
        let halves = flat.amplitudeHalfPowers
        if halves == 2 { return i }
        if halves != 0 { return halfPower(i, halves) }
        let x = i * Float(renderTableSize)
        let k = Swift.min(renderTableSize - 1, Int(x))
        let f = x - Float(k)
        return flat.amplitudeTable[k] + (flat.amplitudeTable[k + 1] - flat.amplitudeTable[k]) * f
    }
}
