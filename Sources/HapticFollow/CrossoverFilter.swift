import HapticDSP
import HapticRender

/// The `lowpass` mode's filter for one actuator: a fourth-order Butterworth low-pass at the
/// top of the actuator's band (the protection chain after the mix takes care of the bottom).
/// Minimum delay (IIR): about 2.6 / (2π · cutoff) of group delay at low frequencies.
struct CrossoverFilter {
    private var first: Biquad
    private var second: Biquad

    /// The filter for `profile` at `sampleRate` (the cutoff is held below 0.45 × the rate).
    init(profile: ActuatorProfile, sampleRate: Double) {
        let cutoff = min(profile.band.high, 0.45 * sampleRate)
        first = .lowPass(cutoff: cutoff, q: 0.5411961001461970, sampleRate: sampleRate)
        second = .lowPass(cutoff: cutoff, q: 1.3065629648763766, sampleRate: sampleRate)
    }

    /// Filters `count` samples in place. Render thread.
    @inline(__always)
    mutating func process(_ x: UnsafeMutablePointer<Float>, _ count: Int) {
        first.process(x, count)
        second.process(x, count)
    }
}

extension CrossoverFilter {
    /// Forgets the past: a mode switched back to starts from silence, not from stale state.
    mutating func reset() {
        first.s1 = 0
        first.s2 = 0
        second.s1 = 0
        second.s2 = 0
    }
}
