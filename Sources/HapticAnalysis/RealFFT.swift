// A small real-input FFT of our own (FFTW is GPL): a radix-2 complex FFT of half the size
// on the even/odd samples packed as real/imaginary parts, then the split that turns it into
// the real signal's spectrum. Tables and work buffers are allocated once in `init` (freed by
// `deallocate()`: a struct of pointers, so using it costs no reference counting); the
// transform allocates nothing, takes no lock and runs a number of steps fixed by the size.

import HapticDSP

/// The power spectrum |X[k]|², k = 0…n/2, of n real samples (n a power of two, 16…65536).
package struct RealFFT {
    package let size: Int
    /// n / 2: the complex transform's size.
    private let half: Int
    private let re: UnsafeMutablePointer<Float>
    private let im: UnsafeMutablePointer<Float>
    /// cos and −sin of 2πj/half, j < half/2 (the complex transform's twiddles).
    private let cosTable: UnsafeMutablePointer<Float>
    private let sinTable: UnsafeMutablePointer<Float>
    /// cos and −sin of 2πk/n, k ≤ n/4... n/2 (the split's twiddles).
    private let splitCos: UnsafeMutablePointer<Float>
    private let splitSin: UnsafeMutablePointer<Float>
    private let bitReversed: UnsafeMutablePointer<Int32>

    package init(size: Int) {
        precondition(size >= 16 && size <= 65536 && size & (size - 1) == 0, "FFT size must be a power of two, 16…65536")
        self.size = size
        half = size / 2
        re = .allocate(capacity: half)
        im = .allocate(capacity: half)
        re.initialize(repeating: 0, count: half)
        im.initialize(repeating: 0, count: half)
        cosTable = .allocate(capacity: half / 2)
        sinTable = .allocate(capacity: half / 2)
        for j in 0..<half / 2 {
            let angle = 2 * Double.pi * Double(j) / Double(half)
            cosTable[j] = Float(cosine(angle))
            sinTable[j] = Float(-sine(angle))
        }
        splitCos = .allocate(capacity: half + 1)
        splitSin = .allocate(capacity: half + 1)
        for k in 0...half {
            let angle = 2 * Double.pi * Double(k) / Double(size)
            splitCos[k] = Float(cosine(angle))
            splitSin[k] = Float(-sine(angle))
        }
        bitReversed = .allocate(capacity: half)
        var bits = 0
        while 1 << bits < half { bits += 1 }
        for i in 0..<half {
            var r = 0
            for b in 0..<bits where i & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            bitReversed[i] = Int32(r)
        }
    }

    /// Frees the tables (a struct of pointers, so the render thread copies no reference).
    package func deallocate() {
        re.deallocate()
        im.deallocate()
        cosTable.deallocate()
        sinTable.deallocate()
        splitCos.deallocate()
        splitSin.deallocate()
        bitReversed.deallocate()
    }

    /// Writes |X[k]|² for k = 0…size/2 (size/2 + 1 values) of the `size` samples at `input`.
    @_noLocks
    package func powerSpectrum(_ input: UnsafePointer<Float>, _ power: UnsafeMutablePointer<Float>) {
        let m = half
        // Pack even samples as real parts and odd ones as imaginary parts, in bit-reversed order.
        for i in 0..<m {
            let j = Int(bitReversed[i])
            re[j] = input[2 * i]
            im[j] = input[2 * i + 1]
        }
        // Radix-2 butterflies, stage by stage.
        var span = 1
        var tableStep = m / 2
        while span < m {
            var start = 0
            while start < m {
                var t = 0
                for j in start..<start + span {
                    let wr = cosTable[t], wi = sinTable[t]
                    let k = j + span
                    let xr = re[k] * wr - im[k] * wi
                    let xi = re[k] * wi + im[k] * wr
                    re[k] = re[j] - xr
                    im[k] = im[j] - xi
                    re[j] += xr
                    im[j] += xi
                    t += tableStep
                }
                start += 2 * span
            }
            span *= 2
            tableStep /= 2
        }
        // Split: X[k] = E[k] + W^k O[k], with E = (Z[k] + conj Z[m−k]) / 2 and
        // O = −i (Z[k] − conj Z[m−k]) / 2.
        power[0] = (re[0] + im[0]) * (re[0] + im[0])
        power[m] = (re[0] - im[0]) * (re[0] - im[0])
        for k in 1..<m {
            let ar = re[k], ai = im[k]
            let br = re[m - k], bi = -im[m - k]
            let er = 0.5 * (ar + br), ei = 0.5 * (ai + bi)
            let dr = ar - br, di = ai - bi
            let or = 0.5 * di, oi = -0.5 * dr
            let wr = splitCos[k], wi = splitSin[k]
            let xr = er + wr * or - wi * oi
            let xi = ei + wr * oi + wi * or
            power[k] = xr * xr + xi * xi
        }
    }
}

/// sin and cos in double precision for table set-up (reduced to [−π, π], then HapticDSP's
/// Taylor series; never on the render thread).
package func sine(_ x: Double) -> Double {
    var y = x.truncatingRemainder(dividingBy: 2 * Double.pi)
    if y > Double.pi { y -= 2 * Double.pi } else if y < -Double.pi { y += 2 * Double.pi }
    return sinDouble(y)
}

package func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }
