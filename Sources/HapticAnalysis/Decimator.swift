// The low-pass before decimation for the centroid spectrum: a fourth-order Butterworth
// (two RBJ sections) at 1.5 kHz, so that what folds below the 1 kHz cutoff after
// decimating to 5–8 kHz lies past 3.5 kHz and is more than 60 dB down.

struct Decimator {
    private var s: (LowPassSection, LowPassSection)
    let factor: Int

    init(sampleRate: Double, factor: Int) {
        self.factor = factor
        let cutoff = min(1500, 0.4 * sampleRate / Double(factor))
        s = (
            LowPassSection(cutoff: cutoff, q: 0.541_196_100_146_197, sampleRate: sampleRate),
            LowPassSection(cutoff: cutoff, q: 1.306_562_964_876_376_5, sampleRate: sampleRate)
        )
    }

    @_noLocks @inline(__always)
    mutating func step(_ x: Float) -> Float {
        s.1.step(s.0.step(x))
    }
}

/// An RBJ low-pass biquad (transposed direct form II, double-precision state).
struct LowPassSection {
    private let b0, b1, b2, a1, a2: Double
    private var s1 = 0.0, s2 = 0.0

    init(cutoff: Double, q: Double, sampleRate: Double) {
        let w0 = 2 * Double.pi * cutoff / sampleRate
        let c = cosine(w0)
        let alpha = sine(w0) / (2 * q)
        let a0 = 1 + alpha
        b0 = (1 - c) / 2 / a0
        b1 = (1 - c) / a0
        b2 = b0
        a1 = -2 * c / a0
        a2 = (1 - alpha) / a0
    }

    @_noLocks @inline(__always)
    mutating func step(_ x: Float) -> Float {
        let input = Double(x)
        let y = b0 * input + s1
        s1 = b1 * input - a1 * y + s2
        s2 = b2 * input - a2 * y
        if abs(s1) < 1e-30 { s1 = 0 }  // no subnormals in long silences
        if abs(s2) < 1e-30 { s2 = 0 }
        return Float(y)
    }
}
