// A dynamic parameter's pattern-level value over time, compiled once per pattern:
// Parameter steps and ParameterCurves become one piecewise-linear function of the
// pattern position (in samples). Two forms are kept: `raw` (steps are instant, what
// a transient reads at its onset) and `smooth` (every jump becomes a short ramp, so
// continuous events never click or zipper; past the ramp the control is the curve again).

import HapticPattern

/// One point of a piecewise-linear function; `time` in pattern samples.
struct ControlKnot: Sendable, Equatable {
    var time: Double
    var value: Double
    /// Slope towards the next knot (value per sample); 0 for the last knot.
    var slope: Double
}

struct ControlTimeline: Sendable {
    /// The neutral value (1 for multiplying controls, 0 for adding ones).
    let neutral: Double
    /// Instant steps: equal-time knot pairs mark a jump (left value, then right value).
    let raw: [ControlKnot]
    /// Jumps replaced by ramps of at most `rampSamples` onto the line that follows them;
    /// strictly increasing times.
    let smooth: [ControlKnot]

    var isEmpty: Bool { raw.isEmpty }

    /// An entry of the pattern for one parameter: a step or a curve, starting at `start` samples
    /// (point times relative to the curve start, in samples, sorted).
    typealias Entry = ControlEntry

    init(neutral: Double) {
        self.neutral = neutral
        self.raw = []
        self.smooth = []
    }

    /// Builds the timeline from entries sorted by start (ties in file order; a later
    /// entry overrides an earlier one from its start on).
    init(neutral: Double, entries: [(start: Double, entry: Entry)], rampSamples: Double) {
        self.neutral = neutral
        guard !entries.isEmpty else {
            self.raw = []
            self.smooth = []
            return
        }
        let collapsed = controlKnots(neutral: neutral, entries: entries).map { (t: $0.time, v: $0.value) }
        self.raw = ControlTimeline.withSlopes(collapsed)

        // Smooth form: a jump at t (pair t,a / t,b) becomes a ramp to t + δ; a step no larger
        // than the line moves in a sample is no jump (see `isHandOver`) and keeps the line.
        var smoothKnots: [(t: Double, v: Double)] = []
        var k = 0
        while k < collapsed.count {
            let knot = collapsed[k]
            if k + 1 < collapsed.count && collapsed[k + 1].t == knot.t
                && ControlTimeline.isHandOver(collapsed, at: k)
            {
                smoothKnots.append(collapsed[k + 1])
                k += 2
            } else if k + 1 < collapsed.count && collapsed[k + 1].t == knot.t {
                // The ramp ends on the line that follows the jump (where the curve is at its
                // end), so past the ramp the control is the curve itself, not a line delayed by it.
                let target = collapsed[k + 1]
                let after = k + 2 < collapsed.count ? collapsed[k + 2] : (t: Double.infinity, v: target.v)
                let delta = min(rampSamples, (after.t - knot.t) / 2)
                let landing = after.t.isFinite && after.t > knot.t ? target.v + (after.v - target.v) * (delta / (after.t - knot.t)) : target.v
                smoothKnots.append(knot)
                smoothKnots.append((knot.t + delta, landing.isFinite ? landing : target.v))
                k += 2
            } else {
                smoothKnots.append(knot)
                k += 1
            }
        }
        self.smooth = ControlTimeline.withSlopes(smoothKnots)
    }

    /// Whether the equal-time pair at `k`, `k + 1` is a chained curve handing over rather than a
    /// jump: the next curve starts where the one before is, within the slope of either side over
    /// one sample (and 1e-6, a written value's rounding). Each curve's start is put on a whole
    /// sample while its points keep their fractional offsets, so a continuous chain steps there
    /// by up to a sample's worth of slope; ramping that step over `rampSamples` would hold the
    /// curve flat for the ramp and depart from it by its slope × 1.5 ms.
    static func isHandOver(_ knots: [(t: Double, v: Double)], at k: Int) -> Bool {
        let t = knots[k].t, step = abs(knots[k + 1].v - knots[k].v)
        var slope = 0.0
        if k > 0, t > knots[k - 1].t { slope = abs(knots[k].v - knots[k - 1].v) / (t - knots[k - 1].t) }
        if k + 2 < knots.count, knots[k + 2].t > t {
            slope = max(slope, abs(knots[k + 2].v - knots[k + 1].v) / (knots[k + 2].t - t))
        }
        // A finite slope only (hostile times: knots a denormal apart give an infinite one).
        return step <= 1e-6 + (slope.isFinite ? min(slope, 1) : 0)
    }

    private static func withSlopes(_ knots: [(t: Double, v: Double)]) -> [ControlKnot] {
        var out: [ControlKnot] = []
        out.reserveCapacity(knots.count)
        for (i, k) in knots.enumerated() {
            var slope = 0.0
            if i + 1 < knots.count, knots[i + 1].t > k.t {
                slope = (knots[i + 1].v - k.v) / (knots[i + 1].t - k.t)
            }
            out.append(ControlKnot(time: k.t, value: k.v, slope: slope))
        }
        return out
    }
}

extension ControlKnot {
    init(time: Double, value: Double) {
        self.time = time
        self.value = value
        self.slope = 0
    }
}


extension ControlTimeline {
    /// Index of the last knot with time <= t, or -1 (binary search; no allocation).
    @_noLocks @inline(__always)
    static func lastIndex(_ knots: UnsafeBufferPointer<ControlKnot>, atOrBefore t: Double) -> Int {
        var lo = 0
        var hi = knots.count  // answer in [lo-1, hi-1]
        while lo < hi {
            let mid = (lo + hi) >> 1
            if knots[mid].time <= t { lo = mid + 1 } else { hi = mid }
        }
        return lo - 1
    }

    /// Value of a piecewise-linear knot list at `t` (before the first knot: its value;
    /// after the last: held). Equal-time pairs resolve to the right (post-jump) value.
    @_noLocks @inline(__always)
    static func value(_ knots: UnsafeBufferPointer<ControlKnot>, at t: Double, neutral: Double) -> Double {
        if knots.isEmpty { return neutral }
        let i = lastIndex(knots, atOrBefore: t)
        if i < 0 { return knots[0].value }
        let k = knots[i]
        return k.value + (t - k.time) * k.slope
    }
}
