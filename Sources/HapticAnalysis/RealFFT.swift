// A small real-input FFT of our own (FFTW is GPL): a complex FFT of half the size on the
// even/odd samples packed as real/imaginary parts, then the split that turns it into the real
// signal's spectrum. The complex transform is decimation in time on split real/imaginary
// arrays: the first two stages as one radix-4 pass without multiplications that also windows
// the input and reads it in bit-reversed order (no separate permutation pass), then the other
// stages two at a time, on twiddles that lie contiguous per stage, four butterflies at a time
// in SIMD lanes.
// Tables and work buffers are allocated once in `init` (freed by `deallocate()`: a struct of
// pointers, so using it costs no reference counting); the transform allocates nothing, takes
// no lock and runs a number of steps fixed by the size.

import HapticDSP

/// The power spectrum |X[k]|², k = 0…n/2, of n real samples (n a power of two, 16…65536).
package struct RealFFT {
    package let size: Int
    /// n / 2: the complex transform's size.
    private let half: Int
    /// The complex transform's real and imaginary parts; one more element than `half`, set to
    /// the first (Z[half] = Z[0]), so the split's last four bins read k = half like the others.
    private let re: UnsafeMutablePointer<Float>
    private let im: UnsafeMutablePointer<Float>
    /// The twiddles of the radix-2 stage of span s (s = 4, 8, … half/2) at s…2s−1: cos and
    /// −sin of 2πj/(2s), j < s.
    private let stageCos: UnsafeMutablePointer<Float>
    private let stageSin: UnsafeMutablePointer<Float>
    /// cos and −sin of 2πk/n, k = 0…n/2 (the split's twiddles).
    private let splitCos: UnsafeMutablePointer<Float>
    private let splitSin: UnsafeMutablePointer<Float>
    /// For each group of four in the first pass: the bit-reversed index of its first element
    /// (the others are that plus half/2, half/4 and 3·half/4).
    private let groupSource: UnsafeMutablePointer<Int32>

    package init(size: Int) {
        precondition(size >= 16 && size <= 65536 && size & (size - 1) == 0, "FFT size must be a power of two, 16…65536")
        self.size = size
        half = size / 2
        re = .allocate(capacity: half + 1)
        im = .allocate(capacity: half + 1)
        re.initialize(repeating: 0, count: half + 1)
        im.initialize(repeating: 0, count: half + 1)
        stageCos = .allocate(capacity: half)
        stageSin = .allocate(capacity: half)
        stageCos.initialize(repeating: 0, count: half)
        stageSin.initialize(repeating: 0, count: half)
        var span = 4
        while span < half {
            for j in 0..<span {
                let angle = Double.pi * Double(j) / Double(span)
                stageCos[span + j] = Float(cosine(angle))
                stageSin[span + j] = Float(-sine(angle))
            }
            span *= 2
        }
        splitCos = .allocate(capacity: half + 1)
        splitSin = .allocate(capacity: half + 1)
        for k in 0...half {
            let angle = 2 * Double.pi * Double(k) / Double(size)
            splitCos[k] = Float(cosine(angle))
            splitSin[k] = Float(-sine(angle))
        }
        groupSource = .allocate(capacity: half / 4)
        var bits = 0
        while 1 << bits < half { bits += 1 }
        for q in 0..<half / 4 {
            var r = 0
            for b in 0..<bits where (4 * q) & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            groupSource[q] = Int32(r)
        }
    }

    /// Frees the tables (a struct of pointers, so the render thread copies no reference).
    package func deallocate() {
        re.deallocate()
        im.deallocate()
        stageCos.deallocate()
        stageSin.deallocate()
        splitCos.deallocate()
        splitSin.deallocate()
        groupSource.deallocate()
    }

    /// Writes |X[k]|² for k = 0…`bins` (at most size/2; the default all, size/2 + 1 values) of
    /// the `size` samples at `input`, each times `window` at its index (nil: none). A few bins
    /// past `bins` may be written too (never past size/2), so `power` must hold size/2 + 1.
    @_noLocks
    package func powerSpectrum(
        _ input: UnsafePointer<Float>, window: UnsafePointer<Float>? = nil, _ power: UnsafeMutablePointer<Float>, bins: Int = .max
    ) {
        let m = half
        let re = re, im = im
        // Stages of span 1 and 2 as one radix-4 pass (twiddles 1 and −i) on the windowed
        // samples: complex sample c is (x[2c], x[2c + 1]), and group g (positions 4g…4g + 3 of
        // the bit-reversed order) takes samples r, r + m/2, r + m/4 and r + 3m/4.
        let quarter = m / 4
        for q in 0..<quarter {
            let r = 2 * Int(groupSource[q])
            let i0 = r, i1 = r + m, i2 = r + m / 2, i3 = r + m + m / 2
            var a0r = input[i0], a0i = input[i0 + 1], a1r = input[i1], a1i = input[i1 + 1]
            var a2r = input[i2], a2i = input[i2 + 1], a3r = input[i3], a3i = input[i3 + 1]
            if let w = window {
                a0r *= w[i0]
                a0i *= w[i0 + 1]
                a1r *= w[i1]
                a1i *= w[i1 + 1]
                a2r *= w[i2]
                a2i *= w[i2 + 1]
                a3r *= w[i3]
                a3i *= w[i3 + 1]
            }
            let b0r = a0r + a1r, b0i = a0i + a1i
            let b1r = a0r - a1r, b1i = a0i - a1i
            let b2r = a2r + a3r, b2i = a2i + a3i
            let b3r = a2r - a3r, b3i = a2i - a3i
            let g = 4 * q
            re[g] = b0r + b2r
            im[g] = b0i + b2i
            re[g + 2] = b0r - b2r
            im[g + 2] = b0i - b2i
            re[g + 1] = b1r + b3i
            im[g + 1] = b1i - b3r
            re[g + 3] = b1r - b3i
            im[g + 3] = b1i + b3r
        }
        // Stages of span 4 and more, four butterflies per step in SIMD lanes: two stages at a
        // time (spans s and 2s: one pass over the data for both, the same operations as two
        // radix-2 passes), and a last radix-2 stage when their number is odd.
        let rawRe = UnsafeMutableRawPointer(re), rawIm = UnsafeMutableRawPointer(im)
        let rawCos = UnsafeRawPointer(stageCos), rawSin = UnsafeRawPointer(stageSin)
        let float = MemoryLayout<Float>.stride
        var span = 4
        while 2 * span < m {
            var start = 0
            while start < m {
                var j = 0
                while j < span {
                    // a, b, c, d: elements j, j + s, j + 2s, j + 3s of the block of 4s.
                    let a = (start + j) * float, b = a + span * float, c = b + span * float, d = c + span * float
                    let w1 = Complex4(rawCos, rawSin, (span + j) * float), w2 = Complex4(rawCos, rawSin, (2 * span + j) * float)
                    // Span s: (a, b) and (c, d) with W_2s^j.
                    let x = Complex4(rawRe, rawIm, a), bw = Complex4(rawRe, rawIm, b) * w1
                    let y = Complex4(rawRe, rawIm, c), dw = Complex4(rawRe, rawIm, d) * w1
                    let a1 = x + bw, b1 = x - bw, c1 = y + dw, d1 = y - dw
                    // Span 2s: (a, c) with W_4s^j, (b, d) with W_4s^(j+s) = −i · W_4s^j.
                    let u = c1 * w2, v = (d1 * w2).timesMinusI
                    (a1 + u).store(rawRe, rawIm, a)
                    (a1 - u).store(rawRe, rawIm, c)
                    (b1 + v).store(rawRe, rawIm, b)
                    (b1 - v).store(rawRe, rawIm, d)
                    j += 4
                }
                start += 4 * span
            }
            span *= 4
        }
        if span < m {
            var start = 0
            while start < m {
                var j = 0
                while j < span {
                    let a = (start + j) * float, b = a + span * float
                    let u = Complex4(rawRe, rawIm, a), x = Complex4(rawRe, rawIm, b) * Complex4(rawCos, rawSin, (span + j) * float)
                    (u + x).store(rawRe, rawIm, a)
                    (u - x).store(rawRe, rawIm, b)
                    j += 4
                }
                start += 2 * span
            }
        }
        // Split: X[k] = E[k] + W^k O[k], with E = (Z[k] + conj Z[m−k]) / 2 and
        // O = −i (Z[k] − conj Z[m−k]) / 2; four bins per step (k = 1…m in steps of 4: m is a
        // multiple of 4, and Z is periodic: Z[m] = Z[0]).
        power[0] = (re[0] + im[0]) * (re[0] + im[0])
        re[m] = re[0]
        im[m] = im[0]
        let rawPower = UnsafeMutableRawPointer(power)
        let rawSplitCos = UnsafeRawPointer(splitCos), rawSplitSin = UnsafeRawPointer(splitSin)
        let last = bins < m ? bins : m
        var k = 1
        while k <= last {
            let a = k * MemoryLayout<Float>.stride
            let b = (m - k - 3) * MemoryLayout<Float>.stride
            let ar = rawRe.loadUnaligned(fromByteOffset: a, as: SIMD4<Float>.self)
            let ai = rawIm.loadUnaligned(fromByteOffset: a, as: SIMD4<Float>.self)
            let br = reversed(rawRe.loadUnaligned(fromByteOffset: b, as: SIMD4<Float>.self))
            let bi = -reversed(rawIm.loadUnaligned(fromByteOffset: b, as: SIMD4<Float>.self))
            let er = 0.5 * (ar + br), ei = 0.5 * (ai + bi)
            let or = 0.5 * (ai - bi), oi = -0.5 * (ar - br)
            let wr = rawSplitCos.loadUnaligned(fromByteOffset: a, as: SIMD4<Float>.self)
            let wi = rawSplitSin.loadUnaligned(fromByteOffset: a, as: SIMD4<Float>.self)
            let xr = er + wr * or - wi * oi
            let xi = ei + wr * oi + wi * or
            rawPower.storeBytes(of: xr * xr + xi * xi, toByteOffset: a, as: SIMD4<Float>.self)
            k += 4
        }
    }
}

/// Four complex numbers in SIMD lanes, loaded from and stored to split real and imaginary arrays.
private struct Complex4 {
    var re: SIMD4<Float>
    var im: SIMD4<Float>

    @_noLocks @inline(__always)
    init(re: SIMD4<Float>, im: SIMD4<Float>) {
        self.re = re
        self.im = im
    }

    /// The four at byte `offset` of `re` and `im`.
    @_noLocks @inline(__always)
    init(_ re: UnsafeRawPointer, _ im: UnsafeRawPointer, _ offset: Int) {
        self.re = re.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
        self.im = im.loadUnaligned(fromByteOffset: offset, as: SIMD4<Float>.self)
    }

    @_noLocks @inline(__always)
    func store(_ re: UnsafeMutableRawPointer, _ im: UnsafeMutableRawPointer, _ offset: Int) {
        re.storeBytes(of: self.re, toByteOffset: offset, as: SIMD4<Float>.self)
        im.storeBytes(of: self.im, toByteOffset: offset, as: SIMD4<Float>.self)
    }

    /// −i times this: (im, −re).
    var timesMinusI: Complex4 {
        @_noLocks @inline(__always) get { Complex4(re: im, im: -re) }
    }

    @_noLocks @inline(__always)
    static func * (a: Complex4, w: Complex4) -> Complex4 {
        Complex4(re: a.re * w.re - a.im * w.im, im: a.re * w.im + a.im * w.re)
    }

    @_noLocks @inline(__always)
    static func + (a: Complex4, b: Complex4) -> Complex4 { Complex4(re: a.re + b.re, im: a.im + b.im) }

    @_noLocks @inline(__always)
    static func - (a: Complex4, b: Complex4) -> Complex4 { Complex4(re: a.re - b.re, im: a.im - b.im) }
}

@_noLocks @inline(__always)
private func reversed(_ v: SIMD4<Float>) -> SIMD4<Float> { SIMD4(v[3], v[2], v[1], v[0]) }

/// sin and cos in double precision for table set-up (reduced to [−π, π], then HapticDSP's
/// Taylor series; never on the render thread).
package func sine(_ x: Double) -> Double {
    var y = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if y > Double.pi { y -= 2 * Double.pi } else if y < -Double.pi { y += 2 * Double.pi }
    return sinDouble(y)
}

package func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }
