import Foundation
import Testing
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
}
