// The transient burst's shape: its geometry (frequency for a sharpness, length) and its
// samples, shared by the voice and the grains precomputed at preparation.

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

/// One transient burst's samples k0 ..< k0 + 8 before its amplitude: window(k)·sin(2π·k·inc)
/// at the sample centres k + ½ (the burst occupies [0, length) and is ~0 at both ends).
/// Each lane depends on its k only, so the precomputed grains and the bursts computed as
/// they play are the same numbers.
@_noLocks @inline(__always)
func transientLanes(_ k0: Int64, _ invLength: Double, _ inc: Double, hann: Bool) -> SIMD8<Float> {
    let lanes = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)
    let k = (SIMD8<Double>(repeating: Double(k0)) + lanes) + 0.5
    let w0 = sin2piVector(SIMD8<Float>(k * invLength * 0.5))
    let w = hann ? w0 * w0 : w0
    let x = k * inc
    let whole = (x + 6.755399441055744e15) - 6.755399441055744e15
    let s = sin2piVector(SIMD8<Float>(x - whole.replacing(with: whole - 1, where: whole .> x)))
    return w * s
}

/// A sharpness (0...1) → Hz through the prepared table (`renderTableSize + 1` entries,
/// log-frequency over the profile's band), linearly interpolated.
@_noLocks @inline(__always)
func frequencyForSharpness(_ sharpness: Double, _ table: UnsafePointer<Double>) -> Double {
    let n = Double(renderTableSize)
    let x = Swift.min(1, Swift.max(0, sharpness)) * n
    let i = Swift.min(renderTableSize - 1, Int(x))
    let f = x - Double(i)
    return table[i] + (table[i + 1] - table[i]) * f
}

/// A transient's oscillator increment and burst length for its (controlled) sharpness: one
/// computation for the voice and for the grains precomputed at preparation.
struct TransientGeometry {
    /// Cycles per sample.
    var inc: Double
    /// Burst length in samples (>= 1).
    var length: Int64
    var invLength: Double

    /// `cycles` > 0: the burst lasts that many periods; else `fixedSamples`.
    @_noLocks @inline(__always)
    init(sharpness: Double, frequencyTable: UnsafePointer<Double>, sampleRate: Double, cycles: Double, fixedSamples: Double) {
        let f = frequencyForSharpness(sharpness, frequencyTable)
        inc = f / sampleRate
        let samples = cycles > 0 ? cycles / f * sampleRate : fixedSamples
        length = Swift.max(1, Int64(roundFast(samples)))
        invLength = 1 / Double(length)
    }
}
