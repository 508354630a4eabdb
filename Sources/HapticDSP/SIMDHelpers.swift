// 8-lane helpers of the limiter: magnitude, maximum, clamp, running sums and maxima.

@_noLocks @inline(__always) @inlinable
package func abs8(_ v: SIMD8<Float>) -> SIMD8<Float> {
    unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
}

@_noLocks @inline(__always) @inlinable
package func pointwiseMax8(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: b .> a)
}

/// Clamped to [-c, c].
@_noLocks @inline(__always) @inlinable
package func clamp8(_ v: SIMD8<Float>, _ c: Float) -> SIMD8<Float> {
    let hi = v.replacing(with: SIMD8(repeating: c), where: v .> c)
    return hi.replacing(with: SIMD8(repeating: -c), where: hi .< -c)
}

/// Running sums over the lanes (lane j: v[0] + ... + v[j]), as 4-lane shifts and adds.
@_noLocks @inline(__always) @inlinable
package func prefixSum8(_ v: SIMD8<Float>) -> SIMD8<Float> {
    @inline(__always) func scan(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let x = v + SIMD4(0, v[0], v[1], v[2])
        return x + SIMD4(0, 0, x[0], x[1])
    }
    let low = scan(v.lowHalf)
    return SIMD8(lowHalf: low, highHalf: scan(v.highHalf) + low[3])
}

/// Running maxima over the lanes (lane j: max of v[0] ... v[j]), for v >= 0.
@_noLocks @inline(__always) @inlinable
package func prefixMax8(_ v: SIMD8<Float>) -> SIMD8<Float> {
    @inline(__always) func most(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .> a) }
    @inline(__always) func scan(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let x = most(v, SIMD4(0, v[0], v[1], v[2]))
        return most(x, SIMD4(0, 0, x[0], x[1]))
    }
    let low = scan(v.lowHalf)
    return SIMD8(lowHalf: low, highHalf: most(scan(v.highHalf), SIMD4(repeating: low[3])))
}
