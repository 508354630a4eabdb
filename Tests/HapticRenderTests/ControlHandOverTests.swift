// A chained curve's hand-over is not a jump: the renderer puts each curve's start on a whole
// sample, so where one curve of a continuous chain hands over to the next the value steps by a
// sub-sample's worth of slope. Ramped like a jump (1.5 ms), that step held the line flat and
// the played value left the curve; a real jump is still ramped, onto the curve's line.

import HapticPattern
import Testing

@testable import HapticRender

@Suite("Control timeline: chained curves hand over without a ramp; jumps still ramp")
struct ControlHandOverTests {
    static let ramp = PreparedPattern.stepRampSeconds * 48_000  // 72 samples

    /// A line from 0.2 at sample 100 to 0.8 at 1100.3, then back down to 0.2 over 1000 samples,
    /// written as two curves; the second starts at 1100.3 s·fs, put on sample 1100 (its
    /// first point `second`: 0.8, where the line is, or a real jump).
    func timeline(second: Double) -> ControlTimeline {
        ControlTimeline(neutral: 1, entries: [
            (start: 100, entry: .curve([(time: 0, value: 0.2), (time: 1000.3, value: 0.8)])),
            (start: 1100, entry: .curve([(time: 0, value: second), (time: 1000, value: 0.2)])),
        ], rampSamples: Self.ramp)
    }

    func value(_ knots: [ControlKnot], _ t: Double) -> Double {
        knots.withUnsafeBufferPointer { ControlTimeline.value($0, at: t, neutral: 1) }
    }

    @Test("a hand-over: the smooth control follows the next curve from its first sample")
    func handOverFollowsTheCurve() {
        let timeline = timeline(second: 0.8)
        var worst = 0.0
        for n in stride(from: 1100.0, through: 1300, by: 1) {
            worst = max(worst, abs(value(timeline.smooth, n) - (0.8 - 0.6 * (n - 1100) / 1000)))
        }
        // The step at the hand-over is the line's slope × 0.3 sample (0.00018); ramped, the control
        // stayed near 0.8 while the curve fell 0.043 over the ramp.
        #expect(worst <= 0.0002, "the played control leaves the curve by \(worst)")
        // Before it, the first curve within that step (its last knot is the next curve's first).
        #expect(abs(value(timeline.smooth, 600) - (0.2 + 0.6 * 500 / 1000.3)) <= 0.0002)
    }

    @Test("a real jump at a curve's start is still ramped over the anti-zipper ramp, and lands on the curve")
    func jumpIsRamped() {
        let timeline = timeline(second: 0.5)
        // The raw form jumps at once; the smooth one moves over the ramp.
        #expect(abs(value(timeline.raw, 1100) - 0.5) < 1e-9)
        let justAfter = value(timeline.smooth, 1101)
        #expect(abs(justAfter - 0.8) < 0.01, "one sample into the ramp: \(justAfter)")
        let halfway = value(timeline.smooth, 1100 + Self.ramp / 2)
        #expect(halfway > 0.6 && halfway < 0.7, "halfway through the ramp: \(halfway)")
        // From the ramp's end on, the control is the curve (a ramp to the jump's value, 0.5, held
        // the line back: 0.022 off at the ramp's end, less and less up to the next point).
        var worst = 0.0
        for n in stride(from: 1100 + Self.ramp, through: 2100, by: 1) {
            worst = max(worst, abs(value(timeline.smooth, n) - (0.5 - 0.3 * (n - 1100) / 1000)))
        }
        #expect(worst < 1e-9, "past the ramp the control leaves the curve by \(worst)")
    }
}
