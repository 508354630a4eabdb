// A profile's mappings from pattern values to sound: sharpness → frequency, transient length,
// intensity → amplitude.

import HapticDSP

extension ActuatorProfile {
    /// The frequency for a sharpness in 0...1: log-frequency interpolation over the band.
    public static func frequency(forSharpness sharpness: Double, band: Band) -> Double {
        let s = min(1, max(0, sharpness))
        return band.low * exp2Double(s * log2Double(band.high / band.low))
    }

    /// The frequency for a sharpness in 0...1 on this profile.
    public func frequency(forSharpness sharpness: Double) -> Double {
        ActuatorProfile.frequency(forSharpness: sharpness, band: band)
    }

    /// Length of a transient burst at `frequency`, in seconds.
    public func transientSeconds(frequency: Double) -> Double {
        let rule = transientRule(sampleRate: 1)  // at 1 Hz, samples are seconds
        return rule.cycles > 0 ? rule.cycles / frequency : rule.fixedSamples
    }

    /// The amplitude for a (controlled) intensity in 0...1 by this profile's law.
    public func amplitude(forIntensity intensity: Double) -> Double {
        powDouble(min(1, max(0, intensity)), self.intensity.effectiveExponent)
    }
}
