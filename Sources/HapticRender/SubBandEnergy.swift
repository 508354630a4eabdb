// How much of a signal's energy lies below given frequencies: the measure of the limiter's
// sub-band artifacts (tests and bench/limiter-bench), next to the felt-onset analysis.

/// The share of the energy of `x` below each of `frequencies` (Hz), from one FFT of the whole
/// signal zero-padded to a power of two (the DC bin counts as below every frequency). 0 for a
/// silent signal.
package func energyShares(_ x: [Float], sampleRate: Double, below frequencies: [Double]) -> [Double] {
    if x.isEmpty { return frequencies.map { _ in 0 } }
    var n = 1
    while n < x.count { n <<= 1 }
    var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
    for i in x.indices { re[i] = Double(x[i]) }
    fourierTransform(&re, &im, inverse: false)
    var low = frequencies.map { _ in 0.0 }
    var total = 0.0
    for k in 0...(n / 2) {
        // The bins above n/2 mirror those below: count each bin between once (the sum is then
        // half the energy, and the shares are unchanged).
        let e = re[k] * re[k] + im[k] * im[k]
        total += e
        let hz = Double(k) * sampleRate / Double(n)
        for (j, f) in frequencies.enumerated() where hz < f { low[j] += e }
    }
    return total > 0 ? low.map { $0 / total } : low
}

/// The mean of `x` (its DC offset), summed in double precision.
package func meanValue(_ x: [Float]) -> Double {
    if x.isEmpty { return 0 }
    var s = 0.0
    for v in x { s += Double(v) }
    return s / Double(x.count)
}
