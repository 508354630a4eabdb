import HapticDSP

/// The largest |sample| of `count` samples (8 lanes at a time).
@inline(__always)
func peakMagnitude(_ source: UnsafeMutablePointer<Float>, _ count: Int) -> Float {
    var m = SIMD8<Float>.zero
    var i = 0
    let s = UnsafeRawPointer(source)
    while i + 8 <= count {
        m = pointwiseMax8(m, abs8(s.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)))
        i += 8
    }
    let m4 = m.lowHalf.replacing(with: m.highHalf, where: m.highHalf .> m.lowHalf)
    var peak = max(max(m4[0], m4[1]), max(m4[2], m4[3]))
    while i < count {
        peak = max(peak, abs(source[i]))
        i += 1
    }
    return peak
}
