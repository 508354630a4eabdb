// The transient burst's shape: its geometry (frequency for a sharpness, length) and its
// samples, shared by the voice and the grains precomputed at preparation.

import HapticDSP
import HapticPattern

extension FlatPattern {
    /// The offset of the grain for a burst with this increment and length, or -1.
    @_noLocks @inline(__always)
    func grain(inc: Double, length: Int64) -> Int {
        var lo = 0
        var hi = grains.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if grains[mid].inc < inc { lo = mid + 1 } else { hi = mid }
        }
        if lo < grains.count && grains[lo].inc == inc && grains[lo].length == length { return grains[lo].offset }
        return -1
    }
}

/// One transient burst's samples k0 ..< k0 + 8 before its amplitude, at the sample centres
/// x = k + ½ (the burst occupies [0, length)):
///
///     rise(x) · decay(x) · taper(x) · sin(2π·x·inc)
///
/// a kick-drum-like shape that is felt on its beat: rise = sin²(π/2 · x/attack) up to
/// `attack` samples (fast, and smooth so it stays clean), decay = 2^(-x·decayRate) (an
/// exponential with time constant `decayCycles` periods), taper = sin²(π/2 · min(1, (length -
/// x)·inc)) over the last period so that the burst ends at 0 without a step. The carrier
/// starts at phase 0 (or `phase` cycles: the live follower starts a burst in step with the
/// vibration under it), so the first sample is small but non-zero: the onset is on its sample.
/// Each lane depends on its k only, so the precomputed grains and the bursts computed as
/// they play are the same numbers.
@_noLocks @inline(__always) @inlinable
package func transientLanes(_ k0: Int64, _ length: Int64, _ inc: Double, _ quarterPerSample: Float, _ decayRate: Float, phase: Double = 0) -> SIMD8<Float> {
    let lanes = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)
    let k = (SIMD8<Double>(repeating: Double(k0)) + lanes) + 0.5
    let xf = SIMD8<Float>(k)
    // Rise and taper are exactly 1 outside their quarter period; their sines are only
    // evaluated for a block that has a lane inside (the first and last few blocks).
    var envelope = exp2NegativeVector(xf * decayRate)
    let q = xf * quarterPerSample
    if any(q .< 0.25) {
        let r0 = sin2piVector(q.replacing(with: 0.25, where: q .> 0.25))
        envelope *= (r0 * r0).replacing(with: 1, where: q .>= 0.25)
    }
    let left = SIMD8<Float>((SIMD8<Double>(repeating: Double(length)) - k) * inc) * 0.25
    if any(left .< 0.25) {
        let t0 = sin2piVector(left.replacing(with: 0.25, where: left .> 0.25).replacing(with: 0, where: left .< 0))
        envelope *= (t0 * t0).replacing(with: 1, where: left .>= 0.25)
    }
    let x = k * inc + phase
    let whole = (x + 6.755399441055744e15) - 6.755399441055744e15
    let s = sin2piVector(SIMD8<Float>(x - whole.replacing(with: whole - 1, where: whole .> x)))
    return envelope * s
}

/// 2^(-y) for y >= 0 on 8 lanes (relative error below 2e-6; 0 beyond 2^-126): the whole part
/// goes into the exponent bits, the fraction through a degree-6 polynomial. Plain arithmetic
/// and bit operations, the same in every build.
@_noLocks @inline(__always) @inlinable
package func exp2NegativeVector(_ y: SIMD8<Float>) -> SIMD8<Float> {
    var v = -y
    v.replace(with: -126, where: v .< -126)
    let nearest = (v + 12_582_912) - 12_582_912
    let whole = nearest.replacing(with: nearest - 1, where: nearest .> v)
    let f = v - whole  // [0, 1)
    var p = SIMD8<Float>(repeating: 1.5403530e-4)
    p = p * f + 1.3333558e-3
    p = p * f + 9.6181291e-3
    p = p * f + 5.5504109e-2
    p = p * f + 2.4022651e-1
    p = p * f + 6.9314718e-1
    p = p * f + 1
    // 2^whole: (whole + 127) as an integer in the low mantissa bits of (whole + 127 + 2^23).
    let biased = unsafeBitCast(whole + (127 + 8_388_608), to: SIMD8<UInt32>.self) & 0x7f_ffff
    let scale = unsafeBitCast(biased &<< 23, to: SIMD8<Float>.self)
    return p * scale
}

/// A sharpness (0...1) → Hz through the prepared table (`renderTableSize + 1` entries,
/// log-frequency over the profile's band), linearly interpolated.
@_noLocks @inline(__always) @inlinable
package func frequencyForSharpness(_ sharpness: Double, _ table: UnsafePointer<Double>) -> Double {
    let n = Double(renderTableSize)
    let x = Swift.min(1, Swift.max(0, sharpness)) * n
    let i = Swift.min(renderTableSize - 1, Int(x))
    let f = x - Double(i)
    return table[i] + (table[i + 1] - table[i]) * f
}

/// A transient's oscillator increment, burst length and envelope rates for its (controlled)
/// sharpness: one computation for the voice and for the grains precomputed at preparation.
package struct TransientGeometry {
    /// Cycles per sample.
    package var inc: Double
    /// Burst length in samples (>= 1).
    package var length: Int64
    /// 1 / (4 · attack samples): the rise's quarter period per sample.
    package var quarterPerSample: Float
    /// log2(e) / (decay time constant in samples).
    package var decayRate: Float

    /// `rule.cycles` > 0: the burst lasts that many periods; else `rule.fixedSamples`.
    @_noLocks @inline(__always) @inlinable
    package init(sharpness: Double, frequencyTable: UnsafePointer<Double>, sampleRate: Double, rule: TransientRule) {
        let f = frequencyForSharpness(sharpness, frequencyTable)
        inc = f / sampleRate
        let samples = rule.cycles > 0 ? rule.cycles / f * sampleRate : rule.fixedSamples
        length = Swift.max(1, Int64(roundFast(samples)))
        quarterPerSample = Float(0.25 / Swift.max(0.5, rule.attackSamples))
        decayRate = Float(1.4426950408889634 * inc / rule.decayCycles)
    }
}

/// A profile's transient rule at one sample rate (plain numbers for the render path).
package struct TransientRule {
    /// Burst length in periods (0: `fixedSamples` instead).
    package var cycles: Double
    package var fixedSamples: Double
    /// The rise, in samples.
    package var attackSamples: Double
    /// The decay's time constant, in periods of the burst's frequency.
    package var decayCycles: Double
}
