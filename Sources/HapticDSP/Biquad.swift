// The second-order section of the protection high-pass and the follower's crossover, and the
// Taylor sine their design uses.

/// A second-order section (transposed direct form II, double-precision state).
package struct Biquad {
    package var b0, b1, b2, a1, a2: Double
    package var s1 = 0.0
    package var s2 = 0.0

    /// RBJ cookbook high-pass. b0 + b1 + b2 == 0 exactly, so DC is removed completely.
    package static func highPass(cutoff: Double, q: Double, sampleRate: Double) -> Biquad {
        let w0 = 2 * Double.pi * cutoff / sampleRate
        let cosw = sinDouble(w0 + Double.pi / 2)
        let alpha = sinDouble(w0) / (2 * q)
        let a0 = 1 + alpha
        let b = (1 + cosw) / 2
        return Biquad(b0: b / a0, b1: -2 * b / a0, b2: b / a0, a1: -2 * cosw / a0, a2: (1 - alpha) / a0)
    }

    /// RBJ cookbook low-pass (b0 + b1 + b2 == 1 + a1 + a2: unit gain at DC). Two in a row with
    /// q 0.5412 and 1.3066 are a fourth-order Butterworth low-pass.
    package static func lowPass(cutoff: Double, q: Double, sampleRate: Double) -> Biquad {
        let w0 = 2 * Double.pi * cutoff / sampleRate
        let cosw = sinDouble(w0 + Double.pi / 2)
        let alpha = sinDouble(w0) / (2 * q)
        let a0 = 1 + alpha
        let b = (1 - cosw) / 2
        return Biquad(b0: b / a0, b1: 2 * b / a0, b2: b / a0, a1: -2 * cosw / a0, a2: (1 - alpha) / a0)
    }

    @inline(__always) @inlinable
    package mutating func process(_ x: UnsafeMutablePointer<Float>, _ count: Int) {
        var s1 = self.s1
        var s2 = self.s2
        for i in 0..<count {
            let input = Double(x[i])
            let y = b0 * input + s1
            s1 = b1 * input - a1 * y + s2
            s2 = b2 * input - a2 * y
            x[i] = Float(y)
        }
        self.s1 = s1
        self.s2 = s2
    }
}

/// sin(x) for |x| <= 2π, Taylor series (coefficient set-up only, never per sample).
package func sinDouble(_ x: Double) -> Double {
    var term = x
    var sum = x
    var k = 1.0
    while k < 60 {
        term *= -x * x / ((k + 1) * (k + 2))
        sum += term
        k += 2
    }
    return sum
}
