// The floor the issue names: a trivial converter. The envelope is the RMS of the sound
// low-passed at 200 Hz, in 20 ms frames every 10 ms (on the same square-root intensity scale
// as ours); the transients are the peaks of the linear spectral flux (1024-point frames every
// 512 samples) above its mean plus one standard deviation over the whole file, 50 ms apart.

import HapticAnalysis
import HapticKit

enum TrivialConverter {
    static func convert(_ mono: [Float], sampleRate fs: Double) -> Haptics {
        // Envelope: a second-order Butterworth low-pass at 200 Hz, then framed RMS.
        let w0 = 2 * Double.pi * 200 / fs
        let c = cosine(w0), alpha = sine(w0) / (2 * 0.7071067811865476)
        let a0 = 1 + alpha
        let b0 = (1 - c) / 2 / a0, b1 = (1 - c) / a0, a1 = -2 * c / a0, a2 = (1 - alpha) / a0
        var s1 = 0.0, s2 = 0.0
        let low: [Double] = mono.map { x in
            let y = b0 * Double(x) + s1
            s1 = b1 * Double(x) - a1 * y + s2
            s2 = b0 * Double(x) - a2 * y
            return y
        }
        let frame = Int(0.02 * fs), hop = Int(0.01 * fs)
        var envelope: [(time: Double, value: Double)] = []
        var start = 0
        while start + frame <= low.count {
            var sum = 0.0
            for i in start..<start + frame { sum += low[i] * low[i] }
            let rms = (sum / Double(frame)).squareRoot() * 2.squareRoot()
            envelope.append((Double(start + frame / 2) / fs, min(1, rms).squareRoot()))
            start += hop
        }
        // Transients: peaks of the linear spectral flux over mean + 1 σ.
        let n = 1024, step = 512
        let fft = RealFFT(size: n)
        defer { fft.deallocate() }
        var window = [Float](repeating: 0, count: n)
        var power = [Float](repeating: 0, count: n / 2 + 1)
        var previous = [Float](repeating: 0, count: n / 2 + 1)
        var flux: [(time: Double, value: Double)] = []
        start = 0
        while start + n <= mono.count {
            for i in 0..<n { window[i] = mono[start + i] * Float(0.5 - 0.5 * cosine(2 * Double.pi * Double(i) / Double(n))) }
            window.withUnsafeBufferPointer { w in power.withUnsafeMutableBufferPointer { fft.powerSpectrum(w.baseAddress!, $0.baseAddress!) } }
            var value = 0.0
            for k in power.indices {
                let m = power[k].squareRoot()
                value += Double(max(0, m - previous[k]))
                previous[k] = m
            }
            flux.append((Double(start + n / 2) / fs, value))
            start += step
        }
        var transients: [Double] = []
        if flux.count > 2 {
            let mean = flux.reduce(0) { $0 + $1.value } / Double(flux.count)
            let sd = (flux.reduce(0) { $0 + ($1.value - mean) * ($1.value - mean) } / Double(flux.count)).squareRoot()
            for k in 1..<flux.count - 1 where flux[k].value > mean + sd && flux[k].value >= flux[k - 1].value && flux[k].value > flux[k + 1].value {
                if let last = transients.last, flux[k].time - last < 0.05 { continue }
                transients.append(flux[k].time)
            }
        }
        return Haptics(envelope: envelope, transients: transients, duration: Double(mono.count) / fs)
    }
}
