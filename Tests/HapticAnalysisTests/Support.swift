// Synthetic sounds with known answers, and small measures, for the analysis tests.

import Foundation
import HapticAnalysis
import HapticTestSupport

enum Synth {
    static let rate = 48_000.0

    /// Silence of `seconds`.
    static func silence(_ seconds: Double, rate: Double = rate) -> [Float] {
        [Float](repeating: 0, count: Int(seconds * rate))
    }

    /// Clicks at `samples`: an impulse (`shape` 0), a 1 ms decaying 3 kHz burst starting at
    /// its peak (1), or a 2 ms decaying noise burst (2).
    static func clicks(at samples: [Int], length: Int, amplitude: Float = 0.8, shape: Int = 0, seed: UInt64 = 1) -> [Float] {
        var out = [Float](repeating: 0, count: length)
        var random = SeededRandom(seed: seed)
        for s in samples {
            switch shape {
            case 0:
                out[s] += amplitude
            case 1:
                for k in 0..<48 where s + k < length {
                    let phase = 2 * Double.pi * 3000 * Double(k) / rate + Double.pi / 2
                    out[s + k] += amplitude * Float(cosLike(phase - Double.pi / 2) * exp(-Double(k) / 10))
                }
            default:
                for k in 0..<96 where s + k < length {
                    let noise = Float(Double(random.next() % 20001) / 10000 - 1)
                    let decay = Float(exp(-Double(k) / 20))
                    if k > 0 { out[s + k] += amplitude * noise * decay }
                }
                out[s] = amplitude * 1.2  // the burst's peak is its first sample
            }
        }
        return out
    }

    /// A sine of `frequency` shaped by `envelope(t)`.
    static func tone(_ frequency: Double, seconds: Double, rate: Double = rate, envelope: (Double) -> Double) -> [Float] {
        (0..<Int(seconds * rate)).map { i in
            let t = Double(i) / rate
            return Float(envelope(t) * sin(2 * Double.pi * frequency * t))
        }
    }

    /// A logarithmic sine sweep from `f0` to `f1` Hz.
    static func sweep(from f0: Double, to f1: Double, seconds: Double, amplitude: Double = 0.5) -> [Float] {
        let k = log(f1 / f0) / seconds
        return (0..<Int(seconds * rate)).map { i in
            let t = Double(i) / rate
            return Float(amplitude * sin(2 * Double.pi * f0 * (exp(k * t) - 1) / k))
        }
    }

    /// White noise at `level` (peak of a uniform distribution), faded in from -80 dB over
    /// `fade` seconds, evenly in decibels (so no moment of it is an onset).
    static func noise(seconds: Double, level: Float, fade: Double, seed: UInt64 = 7) -> [Float] {
        var random = SeededRandom(seed: seed)
        return (0..<Int(seconds * rate)).map { i in
            let t = Double(i) / rate
            let gain = Float(pow(10, -4 * (1 - min(1, t / fade))))
            return gain * level * Float(Double(random.next() % 2_000_001) / 1_000_000 - 1)
        }
    }

    private static func cosLike(_ x: Double) -> Double { sin(x + Double.pi / 2) }
}

/// Runs the streaming analyser over `samples` in blocks of `block` (0: random sizes);
/// returns every frame and hit.
func analyse(_ samples: [Float], settings: AnalysisSettings, block: Int) throws -> (frames: [FeatureFrame], hits: [Hit]) {
    let analyzer = try StreamingAnalyzer(settings: settings)
    var frames: [FeatureFrame] = []
    var hits: [Hit] = []
    var random = SeededRandom(seed: 3)
    try samples.withUnsafeBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return }
        var done = 0
        while done < buffer.count {
            let want = block > 0 ? block : Int(random.next() % 5000) + 1
            let took = analyzer.process(base + done, count: min(want, buffer.count - done))
            guard took > 0 else { throw AnalysisSettings.Invalid(setting: "test", message: "no progress") }
            done += took
            frames += analyzer.frames
            hits += analyzer.hits
        }
    }
    return (frames, hits)
}
