// Sines and oscillator phases: sin(2πx) in scalar and 8-lane forms with identical values,
// grid-anchored phases, and the oscillator kernel of continuous events.

/// sin(2πx) for x in [0, 1] (a phase in cycles); absolute error below 3e-7, exact zeros at
/// 0, ½ and 1. Branch- and select-free so that the 8-lane version is cheap on plain SSE2:
/// sin(2πx) = cos(2πw) with w = x - ¼ reduced to [-½, ½], = sin(π/2 · (1 - 4|w|)), and the
/// argument of that sine lies in [-π/2, π/2], where an odd Taylor polynomial is accurate.
@_noLocks @inline(__always) @inlinable
package func sin2pi(_ x: Float) -> Float {
    let u = x - 0.25
    let w = u - ((u + 12_582_912) - 12_582_912)  // u minus the nearest integer (1.5·2^23 trick)
    let y = (1 - 4 * abs(w)) * (Float.pi / 2)
    let y2 = y * y
    var p: Float = -2.5052108e-8
    p = p * y2 + 2.7557319e-6
    p = p * y2 - 1.9841270e-4
    p = p * y2 + 8.3333333e-3
    p = p * y2 - 1.6666667e-1
    p = p * y2 + 1
    return y * p
}

/// The phase (in cycles, [0, 1)) of a continuous oscillator at output sample n >= 0.
///
/// Evaluated on a grid of 8 samples fixed to the absolute sample index: the phase at the grid
/// point g = n rounded down to a multiple of 8 in double precision from the anchor (exact over
/// any length), then n - g increments in Float. The value depends on n only, never on how
/// the samples were split into blocks, and `gridPhases` computes the same values 8 at a time.
@_noLocks @inline(__always) @inlinable
package func gridPhase(_ anchor: Double, _ base: Int64, _ inc: Double, _ n: Int64) -> Float {
    let g = n & ~7
    let pg = Float(fractionalPart(anchor + Double(g &- base) * inc))
    let x = pg + Float(n &- g) * Float(inc)
    return x >= 1 ? x - 1 : x
}

/// `gridPhase` for the 8 samples g ..< g + 8 (g a multiple of 8); identical values.
@_noLocks @inline(__always) @inlinable
package func gridPhases(_ anchor: Double, _ base: Int64, _ inc: Double, _ g: Int64) -> SIMD8<Float> {
    let pg = Float(fractionalPart(anchor + Double(g &- base) * inc))
    let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
    var x = SIMD8<Float>(repeating: pg) + lanes * Float(inc)
    x.replace(with: x - 1, where: x .>= 1)
    return x
}

/// `sin2pi` on 8 lanes: the same operations in the same order, so identical values.
@_noLocks @inline(__always) @inlinable
package func sin2piVector(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let u = x - 0.25
    let w = u - ((u + 12_582_912) - 12_582_912)
    let magnitude = unsafeBitCast(unsafeBitCast(w, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
    let y = (1 - 4 * magnitude) * (Float.pi / 2)
    let y2 = y * y
    var p = SIMD8<Float>(repeating: -2.5052108e-8)
    p = p * y2 + 2.7557319e-6
    p = p * y2 - 1.9841270e-4
    p = p * y2 + 8.3333333e-3
    p = p * y2 - 1.6666667e-1
    p = p * y2 + 1
    return y * p
}

/// out[j] += amp[j] · sin(2π·gridPhase(n0 + j)) for j in from ..< count, 8 grid-aligned
/// samples at a time (the partial grid blocks at either end take the same lanes one by one).
@_noLocks @inline(__always) @inlinable
package func addOscillator(
    _ out: UnsafeMutablePointer<Float>, _ amp: UnsafeMutablePointer<Float>, _ n0: Int64, _ from: Int, _ count: Int,
    _ anchor: Double, _ base: Int64, _ inc: Double
) {
    var n = n0 &+ Int64(from)
    let end = n0 &+ Int64(count)
    while n < end {
        let g = n & ~7
        let v = sin2piVector(gridPhases(anchor, base, inc, g))
        if n == g && end &- g >= 8 {
            let j = Int(g &- n0)
            let o = UnsafeMutableRawPointer(out + j)
            let a = UnsafeRawPointer(amp + j).loadUnaligned(as: SIMD8<Float>.self)
            o.storeBytes(of: o.loadUnaligned(as: SIMD8<Float>.self) + a * v, as: SIMD8<Float>.self)
            n = g &+ 8
        } else {
            let stop = Swift.min(end, g &+ 8)
            while n < stop {
                let j = Int(n &- n0)
                out[j] += amp[j] * v[Int(n &- g)]
                n &+= 1
            }
        }
    }
}
