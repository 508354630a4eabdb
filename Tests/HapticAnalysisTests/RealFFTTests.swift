// The analysis's own real FFT against a direct DFT in double precision.

import Foundation
@testable import HapticAnalysis
import HapticTestSupport
import Testing

@Suite("Analysis: the real FFT's power spectrum")
struct RealFFTTests {
    @Test(arguments: [16, 32, 64, 256, 512, 4096])
    func powerSpectrumMatchesADirectDFT(size: Int) {
        var random = SeededRandom(seed: UInt64(size))
        // Noise plus a tone on a bin and one between bins: every bin has something.
        let input: [Float] = (0..<size).map { i in
            let noise = Float(Int64(bitPattern: random.next()) >> 40) / Float(1 << 23)
            let t = Double(i) / Double(size)
            return noise * 0.3 + Float(0.5 * Foundation.sin(2 * .pi * 3 * t) + 0.2 * Foundation.cos(2 * .pi * 7.5 * t))
        }
        let fft = RealFFT(size: size)
        defer { fft.deallocate() }
        var power = [Float](repeating: -1, count: size / 2 + 1)
        input.withUnsafeBufferPointer { i in power.withUnsafeMutableBufferPointer { fft.powerSpectrum(i.baseAddress!, $0.baseAddress!) } }
        var largest = 0.0
        var expected = [Double](repeating: 0, count: size / 2 + 1)
        for k in 0...size / 2 {
            var xr = 0.0, xi = 0.0
            for (n, x) in input.enumerated() {
                let angle = 2 * Double.pi * Double(k * n % size) / Double(size)
                xr += Double(x) * Foundation.cos(angle)
                xi -= Double(x) * Foundation.sin(angle)
            }
            expected[k] = xr * xr + xi * xi
            largest = max(largest, expected[k])
        }
        var worst = 0.0
        for k in 0...size / 2 { worst = max(worst, abs(Double(power[k]) - expected[k])) }
        // Single precision: within 1e-5 of the largest bin's power.
        #expect(worst <= 1e-5 * largest, "size \(size): largest error \(worst) against \(largest)")

        // A window applied by the transform is the window applied before it, and asking for
        // fewer bins gives those bins the same.
        let window: [Float] = (0..<size).map { Float(0.5 - 0.5 * Foundation.cos(2 * .pi * Double($0) / Double(size))) }
        let windowed = zip(input, window).map { $0 * $1 }
        var direct = [Float](repeating: -1, count: size / 2 + 1)
        var applied = [Float](repeating: -1, count: size / 2 + 1)
        windowed.withUnsafeBufferPointer { i in direct.withUnsafeMutableBufferPointer { fft.powerSpectrum(i.baseAddress!, $0.baseAddress!) } }
        input.withUnsafeBufferPointer { i in
            window.withUnsafeBufferPointer { w in
                applied.withUnsafeMutableBufferPointer { fft.powerSpectrum(i.baseAddress!, window: w.baseAddress!, $0.baseAddress!, bins: size / 8) }
            }
        }
        #expect(Array(applied[0...size / 8]) == Array(direct[0...size / 8]))
    }
}
