// The low-pass before decimation for the centroid spectrum: a linear-phase FIR (a
// Blackman-windowed sinc) evaluated only at the samples kept, so it costs taps/factor
// products per input sample, eight at a time, instead of a recursive filter's chain on every
// sample. Its cutoff sits at half the decimated rate and its transition band is as wide as
// the centroid's band allows: everything that folds below the centroid cutoff comes from past
// the stop edge (Blackman: more than 70 dB down), and the band below the cutoff passes flat.
// It has no state of its own: it reads the analyser's sample ring.

/// A decimating FIR low-pass: `output(window)` is the filtered sample at the last of the
/// `paddedCount` samples from `window` (the taps padded with zeros to a multiple of 8 stand
/// for samples after it, so those must be finite).
struct Decimator {
    let factor: Int
    /// Taps (odd, symmetric) and that count rounded up to a multiple of 8.
    let count: Int
    let paddedCount: Int
    /// The filter's delay in samples: (count − 1) / 2.
    let delay: Int
    private let taps: UnsafeMutablePointer<Float>

    /// A filter for `factor`-fold decimation that keeps frequencies up to `passband` Hz flat.
    init(sampleRate fs: Double, factor: Int, passband: Double) {
        self.factor = factor
        let nyquist = fs / Double(factor) / 2
        // Blackman: about 5.5 · fs / taps from pass edge to stop edge.
        let halfWidth = max(nyquist - passband, nyquist * 0.25)
        var n = Int((5.5 * fs / (2 * halfWidth)).rounded(.up)) | 1
        if factor == 1 { n = 1 }
        count = n
        paddedCount = (n + 7) / 8 * 8
        delay = (n - 1) / 2
        taps = .allocate(capacity: paddedCount)
        taps.initialize(repeating: 0, count: paddedCount)
        var sum = 0.0
        var values = [Double](repeating: 1, count: n)
        if n > 1 {
            let fc = nyquist / fs  // cycles per sample
            for k in 0..<n {
                let t = Double(k - delay)
                let sinc = t == 0 ? 2 * fc : sine(2 * Double.pi * fc * t) / (Double.pi * t)
                let phase = 2 * Double.pi * Double(k) / Double(n - 1)
                let blackman = 0.42 - 0.5 * cosine(phase) + 0.08 * cosine(2 * phase)
                values[k] = sinc * blackman
            }
        }
        for v in values { sum += v }
        for k in 0..<n { taps[k] = Float(values[k] / sum) }  // unity gain at 0 Hz
    }

    func deallocate() { taps.deallocate() }

    /// The filtered sample at `window[count − 1]`, from `window[0..<paddedCount]`.
    @_noLocks @inline(__always)
    func output(_ window: UnsafePointer<Float>) -> Float {
        let x = UnsafeRawPointer(window), h = UnsafeRawPointer(taps)
        var sum = SIMD8<Float>()
        var k = 0
        while k < paddedCount {
            let offset = k * MemoryLayout<Float>.stride
            sum += x.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self) * h.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            k += 8
        }
        return sum.sum()
    }
}
