import HapticTestSupport
import Foundation
import Testing
import HapticDSP
@testable import HapticRender

@Suite("Math kernels (no libm on the render path)")
struct KernelTests {
    @Test func floorAndFractionMatchTheStandardLibrary() {
        var g = SeededRandom(seed: 7)
        for _ in 0..<100_000 {
            let x = Double.random(in: -1e9...1e9, using: &g) * (Bool.random(using: &g) ? 1e-9 : 1)
            #expect(floorFast(x) == x.rounded(.down))
            #expect(roundFast(x) == x.rounded())
            if x >= 0 { #expect(phaseFraction(x) == x - x.rounded(.down)) }
        }
        #expect(floorFast(-0.5) == -1 && floorFast(-1e-300) == -1 && floorFast(2.0) == 2)
    }

    @Test func sineExpAndLogAreAccurate() {
        for i in 0...10_000 {
            let x = Double(i) / 10_000
            #expect(abs(Double(sin2pi(Float(x))) - sin(2 * Double.pi * x)) < 3e-7)
            let y = x * 40 - 20
            #expect(abs(exp2Double(y) / Foundation.exp2(y) - 1) < 1e-12)
            if x > 0 { #expect(abs(log2Double(x * 1000) - Foundation.log2(x * 1000)) < 1e-12) }
        }
        #expect(abs(decibelsToGain(-6) - 0.501187233627) < 1e-12)
    }

    /// Loud bursts (limiting) separated by quiet stretches long enough for the idle path.
    static func bursts(_ n: Int, seed: UInt64) -> [Float] {
        var g = SeededRandom(seed: seed)
        return (0..<n).map { i in Float.random(in: -1...1, using: &g) * ((i / 1_000) % 8 == 0 ? 3 : 0.5) }
    }

    @Test(arguments: [0, 300])
    func limiterIsSplitIndependentAndNeverExceedsTheCeiling(hold: Int) {
        let n = 40_000
        let left = Self.bursts(n, seed: 11), right = Self.bursts(n, seed: 12)
        func run(_ blocks: [Int], channels: Int) -> ([Float], [Float]) {
            var limiter = LookAheadLimiter(lookahead: 48, ceiling: 0.9, releaseSamples: 100, holdSamples: hold, channels: channels)
            defer { limiter.deallocate() }
            var l = left, r = channels == 2 ? right : left
            l.withUnsafeMutableBufferPointer { lb in
                r.withUnsafeMutableBufferPointer { rb in
                    var i = 0, k = 0
                    while i < n {
                        let length = min(blocks[k % blocks.count], n - i)
                        let second = channels == 2 ? rb.baseAddress! + i : lb.baseAddress! + i
                        limiter.process(lb.baseAddress! + i, second, length)
                        i += length
                        k += 1
                    }
                }
            }
            return (l, r)
        }
        for channels in [1, 2] {
            let whole = run([n], channels: channels)
            #expect(whole.0.allSatisfy { abs($0) <= 0.9 }, "channels \(channels)")
            if channels == 2 { #expect(whole.1.allSatisfy { abs($0) <= 0.9 }) }
            // Quiet stretches pass unchanged (delayed by the look-ahead) once the gain has recovered.
            #expect(whole.0[7_000 + 48] == left[7_000])
            for blocks in [[1], [7], [3, 64, 5], [513]] {
                let split = run(blocks, channels: channels)
                #expect(split.0 == whole.0 && split.1 == whole.1, "channels \(channels) blocks \(blocks)")
            }
        }
    }

    /// A steady tone over the ceiling: held for a period of the lowest frequency, the gain is
    /// flat once settled (the tone comes out clean, with no sub-band products); released
    /// between the cycles' peaks, it ripples once per cycle.
    @Test func limiterHoldKeepsTheGainFlatOnASteadyLowTone() {
        let n = 48_000, lookahead = 24
        let x = (0..<n).map { i in Float(2 * sin(2 * Double.pi * 24 * Double(i) / 48_000)) }
        func gainSpread(hold: Int) -> Float {
            var y = x
            var limiter = LookAheadLimiter(lookahead: lookahead, ceiling: 0.9, releaseSamples: 5_760, holdSamples: hold, channels: 1)
            defer { limiter.deallocate() }
            y.withUnsafeMutableBufferPointer { limiter.process($0.baseAddress!, $0.baseAddress!, n) }
            // The gain where the input is large enough to measure it well, after the first 0.25 s.
            var low: Float = .infinity, high: Float = 0
            for i in 12_000..<n where abs(x[i - lookahead]) > 0.5 {
                let g = y[i] / x[i - lookahead]
                low = min(low, g)
                high = max(high, g)
            }
            #expect(y.allSatisfy { abs($0) <= 0.9 })
            return high - low
        }
        #expect(gainSpread(hold: 2_000) < 1e-4)
        #expect(gainSpread(hold: 0) > 0.01)
    }

    @Test func halfPowersAreAccurateAndTheSameOnEveryLane() {
        #expect(squareRootFast(0) == 0 && squareRootFast(1) == 1 && squareRootFast(0.25) == 0.5)
        var g = SeededRandom(seed: 3)
        // 0, 1, tiny values, and uniform ones.
        let xs = (0..<4_096).map { i in
            i < 2 ? Float(i) : i < 64 ? Float.random(in: 0...1, using: &g) * 1e-30 : Float.random(in: 0...1, using: &g)
        }
        for halves in 1...8 {
            for start in stride(from: 0, to: xs.count, by: 8) {
                var v = SIMD8<Float>()
                for l in 0..<8 { v[l] = xs[start + l] }
                let lanes = halfPower(v, halves)
                for l in 0..<8 {
                    let x = xs[start + l]
                    let scalar = halfPower(x, halves)
                    #expect(lanes[l] == scalar, "x^\(Double(halves) / 2) at \(x): lane \(lanes[l]), scalar \(scalar)")
                    // The root is within 1 ulp and each product rounds once.
                    let exact = Foundation.pow(Double(x), Double(halves) / 2)
                    let ulps = abs(Double(scalar) - exact) / Double(Float(exact).ulp)
                    #expect(ulps <= Double(halves / 2 + 1), "x^\(Double(halves) / 2) at \(x): \(ulps) ulp")
                    if halves & 1 == 1 {
                        let root = abs(Double(squareRootFast(x)) - Double(x).squareRoot())
                        #expect(root <= Double(Float(Double(x).squareRoot()).ulp), "√\(x): \(squareRootFast(x))")
                    }
                }
            }
        }
    }

    @Test func blockHighPassIsTheBiquadCascadeAndSplitIndependent() {
        // Bursts, then silence long enough for the state to be flushed.
        let x = Self.bursts(20_000, seed: 5) + [Float](repeating: 0, count: 60_000)
        let n = x.count
        let orders: [[Double]] = [[0.7071067811865476], [0.5411961001461970, 1.3065629648763766]]
        let cases: [(Double, [Double])] = [16.0, 80].flatMap { c in orders.map { (c, $0) } }
        for (cutoff, qs) in cases {
            let label = "\(cutoff) Hz order \(2 * qs.count)"
            let sections = qs.map { Biquad.highPass(cutoff: cutoff, q: $0, sampleRate: 48_000) }
            // The reference: the cascade one sample at a time in double precision.
            var reference = x
            reference.withUnsafeMutableBufferPointer { b in
                for var section in sections { section.process(b.baseAddress!, n) }
            }
            func run(_ blocks: [Int], _ input: [Float] = x) -> [Float] {
                var filter = BlockHighPass(sections: sections)
                defer { filter.deallocate() }
                var y = input
                y.withUnsafeMutableBufferPointer { b in
                    var i = 0, k = 0
                    while i < b.count {
                        let length = min(blocks[k % blocks.count], b.count - i)
                        filter.process(b.baseAddress! + i, length)
                        i += length
                        k += 1
                    }
                }
                return y
            }
            let whole = run([n])
            let error = zip(whole, reference).map { abs($0 - $1) }.max()!
            #expect(error < 1e-5, "\(label): max difference \(error)")
            // The tail is cut to exact zeros once what remains is negligible, and not before.
            let silentFrom = (whole.lastIndex { $0 != 0 } ?? -1) + 1
            #expect(silentFrom > 20_000 && silentFrom < n, "\(label): silent from \(silentFrom)")
            let cut = reference[silentFrom...].map { abs($0) }.max() ?? 0
            #expect(cut < 1e-9, "\(label): the reference still reaches \(cut) after the cut")
            for blocks in [[1], [7], [3, 64, 5], [513]] { #expect(run(blocks) == whole, "\(label) blocks \(blocks)") }
            // Delaying the input by a multiple of 8 samples delays the output, sample for sample
            // (what lets a cue on an 8-frame boundary render as it does alone).
            let delayed = run([n + 24], [Float](repeating: 0, count: 24) + x)
            #expect(Array(delayed[24...]) == whole, "\(label): delayed by 24 samples")
        }
    }
}
