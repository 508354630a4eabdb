// log2 for the onset function on the render thread, from the float's bits and a short
// series (no libm call, which the real-time checker cannot see into).

/// log2(x) for finite x >= 1e-30 (smaller and non-finite inputs give log2 of 1e-30),
/// within 3e-5.
@_noLocks @inline(__always)
func log2Fast(_ x: Float) -> Float {
    let v = x >= 1e-30 && x.isFinite ? x : 1e-30
    let bits = v.bitPattern
    let exponent = Float(Int32(bitPattern: (bits >> 23) & 0xFF) - 127)
    var m = Float(bitPattern: (bits & 0x007F_FFFF) | 0x3F80_0000)  // [1, 2)
    var e = exponent
    if m > 1.4142135 {
        m *= 0.5
        e += 1
    }
    // ln m = 2 atanh(t), t = (m − 1)/(m + 1), |t| <= 0.172.
    let t = (m - 1) / (m + 1)
    let t2 = t * t
    let series = t * (2 + t2 * (0.6666667 + t2 * (0.4 + t2 * 0.2857143)))
    return e + series * 1.442695
}
