// Libm-free arithmetic with exact, reproducible results: roots and powers, floor/ceil/round,
// and the double-precision exp2/log2 used to build tables and convert decibels.


/// x^(halves/2) for x in 0...1: one square root (`squareRootFast`) when `halves` is odd, then
/// whole powers by repeated products. The scalar and the 8-lane forms do the same operations,
/// so a lane gives the scalar's value to the bit.
@_noLocks @inline(__always) @inlinable
package func halfPower(_ x: Float, _ halves: Int) -> Float {
    var r: Float = halves & 1 == 1 ? squareRootFast(x) : 1
    var k = halves >> 1
    while k > 0 {
        r *= x
        k -= 1
    }
    return r
}

@_noLocks @inline(__always) @inlinable
package func halfPower(_ x: SIMD8<Float>, _ halves: Int) -> SIMD8<Float> {
    var r: SIMD8<Float> = halves & 1 == 1 ? squareRootFast(x) : SIMD8(repeating: 1)
    var k = halves >> 1
    while k > 0 {
        r *= x
        k -= 1
    }
    return r
}

/// √x for finite x >= 0, within 1 ulp (0 and 1 exact), from additions and products only: the
/// standard library's `squareRoot` falls back to libm's `sqrtf`, and its 8-lane form runs lane
/// by lane. The reciprocal root's bit-pattern estimate (3.4 % off), two Newton steps (5e-6),
/// then one correction of the root itself.
@_noLocks @inline(__always) @inlinable
package func squareRootFast(_ x: Float) -> Float {
    var r = Float(bitPattern: 0x5f37_59df &- (x.bitPattern &>> 1))
    let h = 0.5 * x
    r = r * (1.5 - h * r * r)
    r = r * (1.5 - h * r * r)
    let y = x * r
    return y + (x - y * y) * (0.5 * r)
}

@_noLocks @inline(__always) @inlinable
package func squareRootFast(_ x: SIMD8<Float>) -> SIMD8<Float> {
    let bits = SIMD8<UInt32>(repeating: 0x5f37_59df) &- (unsafeBitCast(x, to: SIMD8<UInt32>.self) &>> 1)
    var r = unsafeBitCast(bits, to: SIMD8<Float>.self)
    let h = 0.5 * x
    r = r * (1.5 - h * r * r)
    r = r * (1.5 - h * r * r)
    let y = x * r
    return y + (x - y * y) * (0.5 * r)
}

/// The fractional part of `x` (in [0, 1)), without libm.
@_noLocks @inline(__always) @inlinable
package func fractionalPart(_ x: Double) -> Double {
    x - floorFast(x)
}

/// floor(x) (values with |x| >= 2^51 are returned as they are: they are integers or too large
/// to matter here). Written with plain arithmetic because `rounded(_:)` goes through a generic rounding
/// rule that the real-time checker rejects in unoptimised builds.
@_noLocks @inline(__always) @inlinable
package func floorFast(_ x: Double) -> Double {
    // Adding and removing 1.5·2^52 rounds to an integer (the sum lies in [2^52, 2^53), where
    // the spacing of doubles is 1) for |x| < 2^51; step down if it rounded up.
    if !(abs(x) < 2.251799813685248e15) { return x }
    let r = (x + 6.755399441055744e15) - 6.755399441055744e15
    return r > x ? r - 1 : r
}

/// The fractional part of x for 0 <= x < 2^51 (oscillator phases): branch-free, so loops vectorise.
@_noLocks @inline(__always) @inlinable
package func phaseFraction(_ x: Double) -> Double {
    let r = (x + 6.755399441055744e15) - 6.755399441055744e15
    return x - (r > x ? r - 1 : r)
}

/// ceil(x), same domain as `floorFast`.
@_noLocks @inline(__always) @inlinable
package func ceilFast(_ x: Double) -> Double {
    -floorFast(-x)
}

/// Rounds half away from zero (like `rounded()`), same domain as `floorFast`.
@_noLocks @inline(__always) @inlinable
package func roundFast(_ x: Double) -> Double {
    x >= 0 ? floorFast(x + 0.5) : -floorFast(-x + 0.5)
}

/// 2^x in double precision (relative error ~1e-12). Not on the hot path; used to
/// build tables and convert decibels.
@_noLocks @inlinable
package func exp2Double(_ x: Double) -> Double {
    if x.isNaN { return .nan }
    if x > 1023 { return .infinity }
    if x < -1074 { return 0 }
    let whole = floorFast(x)
    let y = (x - whole) * 0.6931471805599453  // ln 2
    // e^y for y in [0, ln 2): Taylor series to y^14/14! (error < 1e-14), by Horner with the
    // coefficients 1/k! (no divisions: preparing a pattern evaluates this thousands of times).
    var p = 1.0 / 87_178_291_200
    p = p * y + 1.0 / 6_227_020_800
    p = p * y + 1.0 / 479_001_600
    p = p * y + 1.0 / 39_916_800
    p = p * y + 1.0 / 3_628_800
    p = p * y + 1.0 / 362_880
    p = p * y + 1.0 / 40_320
    p = p * y + 1.0 / 5_040
    p = p * y + 1.0 / 720
    p = p * y + 1.0 / 120
    p = p * y + 1.0 / 24
    p = p * y + 1.0 / 6
    p = p * y + 0.5
    p = p * y + 1
    p = p * y + 1
    return p * Double(sign: .plus, exponent: Int(whole), significand: 1)
}

/// log2(x) for x > 0 in double precision (error ~1e-13); -inf for 0.
package func log2Double(_ x: Double) -> Double {
    precondition(!(x < 0), "log2 of a negative number")
    if x == 0 { return -.infinity }
    if x.isInfinite { return .infinity }
    var e = Double(x.exponent)
    var m = x.significand  // [1, 2)
    if m > 1.4142135623730951 {
        m /= 2
        e += 1
    }
    // ln m = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716.
    let s = (m - 1) / (m + 1)
    let s2 = s * s
    var sum = 0.0
    var power = s
    var k = 1.0
    while k < 40 {
        sum += power / k
        power *= s2
        k += 2
    }
    return e + 2 * sum / 0.6931471805599453
}

/// x^y for x >= 0 (0^y = 0 for y > 0, 1 for y == 0).
package func powDouble(_ x: Double, _ y: Double) -> Double {
    if y == 0 { return 1 }
    if x == 0 { return 0 }
    return exp2Double(y * log2Double(x))
}

/// Decibels to a linear gain.
package func decibelsToGain(_ db: Double) -> Double {
    exp2Double(db * 0.16609640474436813)  // log2(10) / 20
}

/// A linear gain to decibels (-inf for 0).
package func gainToDecibels(_ gain: Double) -> Double {
    20 * log2Double(abs(gain)) * 0.30102999566398120  // log10(2)
}
