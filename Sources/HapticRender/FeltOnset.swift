// Felt onset: where a sound's energy lands, as a player feels it, rather than its first
// non-zero sample. The measure is the time the Hilbert envelope (the magnitude of the
// analytic signal) first reaches half its peak, and the time of the peak. Off the render
// path (it allocates): for `info`, the tests and the benchmarks.

import HapticDSP
import HapticPattern

/// Where a transient's energy lands on a profile, measured on the rendered output (the whole
/// protection chain, latency compensated), relative to the event's time.
public struct FeltOnset: Sendable, Equatable, Codable {
    public var sharpness: Double
    /// The burst's frequency (Hz).
    public var frequency: Double
    /// First non-zero output sample after the event time, in ms (0: on the event's sample).
    public var firstSampleMs: Double
    /// The Hilbert envelope first reaches half its peak, in ms after the event time.
    public var halfEnvelopeMs: Double
    /// The Hilbert envelope's peak, in ms after the event time.
    public var peakMs: Double
}

extension ActuatorProfile {
    /// The felt onset of one full-intensity transient at `sharpness`, rendered through this
    /// profile and its protection chain at `sampleRate`.
    public func feltOnset(sharpness: Double, sampleRate: Double = 48_000) throws(RenderError) -> FeltOnset {
        let eventTime = 0.05
        let pattern = AHAPPattern(elements: [.event(.transient(at: eventTime, intensity: 1, sharpness: sharpness))])
        let prepared = try PreparedPattern(pattern, profile: self, sampleRate: sampleRate)
        let rendered = OfflineRenderer.render(prepared, layout: .hapticMono)
        let onset = Int((eventTime * sampleRate).rounded())
        let envelope = hilbertEnvelope(rendered.samples)
        let onsets = envelopeOnsets(envelope)
        let first = rendered.samples.firstIndex { $0 != 0 } ?? onset
        let ms = { (index: Int) in Double(index - onset) / sampleRate * 1000 }
        return FeltOnset(
            sharpness: sharpness, frequency: prepared.renderedFrequency(forSharpness: sharpness),
            firstSampleMs: ms(first), halfEnvelopeMs: ms(onsets.half), peakMs: ms(onsets.peak))
    }

    /// `feltOnset` at sharpness 0, 0.5 and 1.
    public func feltOnsets(sampleRate: Double = 48_000) throws(RenderError) -> [FeltOnset] {
        var result: [FeltOnset] = []
        for s in [0.0, 0.5, 1.0] { result.append(try feltOnset(sharpness: s, sampleRate: sampleRate)) }
        return result
    }
}

/// The first index where `envelope` reaches half its maximum, and the index of the maximum
/// (both 0 for an empty or silent envelope).
public func envelopeOnsets(_ envelope: [Double]) -> (half: Int, peak: Int) {
    var peak = 0
    for i in envelope.indices where envelope[i] > envelope[peak] { peak = i }
    guard !envelope.isEmpty, envelope[peak] > 0 else { return (0, 0) }
    let half = envelope.firstIndex { $0 >= 0.5 * envelope[peak] } ?? peak
    return (half, peak)
}

/// The Hilbert envelope |x + i·H(x)| of `x`: the analytic signal through an FFT of the
/// signal zero-padded to at least twice its length (so the circular transform does not wrap
/// the end onto the start).
public func hilbertEnvelope(_ x: [Float]) -> [Double] {
    if x.isEmpty { return [] }
    var n = 1
    while n < 2 * x.count { n <<= 1 }
    var re = [Double](repeating: 0, count: n)
    var im = [Double](repeating: 0, count: n)
    for i in x.indices { re[i] = Double(x[i]) }
    fourierTransform(&re, &im, inverse: false)
    // Analytic signal: keep DC and Nyquist, double the positive frequencies, drop the negative.
    for k in 1..<(n / 2) {
        re[k] *= 2
        im[k] *= 2
    }
    for k in (n / 2 + 1)..<n {
        re[k] = 0
        im[k] = 0
    }
    fourierTransform(&re, &im, inverse: true)
    var envelope = [Double](repeating: 0, count: x.count)
    for i in x.indices { envelope[i] = (re[i] * re[i] + im[i] * im[i]).squareRoot() }
    return envelope
}

/// In-place radix-2 FFT (`re.count` a power of two); the inverse divides by n.
func fourierTransform(_ re: inout [Double], _ im: inout [Double], inverse: Bool) {
    let n = re.count
    var j = 0
    for i in 1..<n {
        var bit = n >> 1
        while j & bit != 0 {
            j ^= bit
            bit >>= 1
        }
        j |= bit
        if i < j {
            re.swapAt(i, j)
            im.swapAt(i, j)
        }
    }
    var length = 2
    while length <= n {
        let angle = (inverse ? 2 : -2) * Double.pi / Double(length)
        let wr = cosDouble(angle), wi = sinDouble(angle)
        var start = 0
        while start < n {
            var cr = 1.0, ci = 0.0
            for k in 0..<(length / 2) {
                let a = start + k, b = a + length / 2
                let tr = re[b] * cr - im[b] * ci
                let ti = re[b] * ci + im[b] * cr
                re[b] = re[a] - tr
                im[b] = im[a] - ti
                re[a] += tr
                im[a] += ti
                let next = cr * wr - ci * wi
                ci = cr * wi + ci * wr
                cr = next
            }
            start += length
        }
        length <<= 1
    }
    if inverse {
        let scale = 1 / Double(n)
        for i in 0..<n {
            re[i] *= scale
            im[i] *= scale
        }
    }
}

/// cos(x) for |x| <= 2π (set-up only).
func cosDouble(_ x: Double) -> Double { sinDouble(x + Double.pi / 2) }
