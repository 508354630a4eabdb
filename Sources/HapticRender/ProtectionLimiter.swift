// The output stage's limiters as a profile has them, in one place: the stage builds them here,
// and the limiter's sub-band tests and bench/limiter-bench build the same ones (with and without
// the sub-band servo, to compare).

import HapticDSP

extension LookAheadLimiter {
    /// The protection limiter of `profile` at `sampleRate`: the profile's ceiling, look-ahead and
    /// release, the gain held for one period of the high-pass's cutoff, and on the haptic (mono)
    /// limiter the sub-band servo unless `subBandServo` is false (the limiter as it was before
    /// the servo). `channels` 2 is the audio buses' stereo-linked limiter (never a servo).
    /// `lookahead` (frames) overrides the profile's: a stage with several actuators gives every
    /// limiter the longest, so that all channels keep the same delay.
    package static func protection(
        profile: ActuatorProfile, sampleRate: Double, channels: Int, lookahead: Int? = nil, subBandServo: Bool = true
    ) -> LookAheadLimiter {
        let ceiling = Float(decibelsToGain(profile.ceilingDBFS))
        let lookahead = lookahead ?? max(1, Int((profile.limiter.lookaheadMs / 1000 * sampleRate).rounded()))
        let release = profile.limiter.releaseMs / 1000 * sampleRate
        // Hold the gain for one period of the lowest frequency the high-pass lets through.
        let hold = Int((sampleRate / profile.protection.highPassHz).rounded())
        let cutoff = channels == 1 && subBandServo ? subBandCutoff(highPassHz: profile.protection.highPassHz) : 0
        return LookAheadLimiter(
            lookahead: lookahead, ceiling: ceiling, releaseSamples: release, holdSamples: hold, channels: channels,
            subBandCutoff: cutoff, sampleRate: sampleRate)
    }

    /// The haptic limiter's sub-band servo corrects below this (Hz): 6 Hz, clear of the 5 Hz
    /// that must stay empty, and at most 3/8 of the high-pass, so well under the band, where the
    /// servo's measure of what the gain leaves there holds (see `SubBandServo`).
    package static func subBandCutoff(highPassHz: Double) -> Double { min(6, 0.375 * highPassHz) }
}
