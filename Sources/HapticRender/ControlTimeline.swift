// A dynamic parameter's pattern-level value over time, compiled once per pattern:
// Parameter steps and ParameterCurves become one piecewise-linear function of the
// pattern position (in samples). Two forms are kept: `raw` (steps are instant, what
// a transient reads at its onset) and `smooth` (every jump becomes a short ramp, so
// continuous events never click or zipper).

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
    /// Jumps replaced by ramps of at most `rampSamples`; strictly increasing times.
    let smooth: [ControlKnot]

    var isEmpty: Bool { raw.isEmpty }

    /// An entry of the pattern for one parameter: a step or a curve, starting at `start` samples.
    enum Entry {
        case step(Double)
        /// Point times relative to the curve start, in samples, sorted.
        case curve([(time: Double, value: Double)])
    }

    init(neutral: Double) {
        self.neutral = neutral
        self.raw = []
        self.smooth = []
    }

    /// Builds the timeline from entries sorted by start (ties in file order; a later
    /// entry overrides an earlier one from its start on).
    init(neutral: Double, entries: [(start: Double, entry: Entry)], rampSamples: Double) {
        self.neutral = neutral
        guard let first = entries.first else {
            self.raw = []
            self.smooth = []
            return
        }
        var knots: [(t: Double, v: Double)] = [(first.start, neutral)]
        for (i, item) in entries.enumerated() {
            let end = i + 1 < entries.count ? entries[i + 1].start : Double.infinity
            let s = item.start
            // Hold the previous value up to this entry's start, then jump.
            knots.append((s, knots[knots.count - 1].v))
            switch item.entry {
            case .step(let v):
                knots.append((s, v))
            case .curve(let points):
                // Before its first point a curve gives the default.
                knots.append((s, neutral))
                var previous: (t: Double, v: Double)? = nil
                for p in points {
                    let t = s + max(0, p.time)
                    if t >= end {
                        if let prev = previous, t > prev.t {
                            let v = prev.v + (p.value - prev.v) * (end - prev.t) / (t - prev.t)
                            knots.append((end, v))
                        }
                        break
                    }
                    if previous == nil && t > s {
                        knots.append((t, neutral))  // hold the default up to the first point, then jump
                    }
                    knots.append((t, p.value))
                    previous = (t, p.value)
                }
            }
        }
        // Collapse runs of equal times to (left value, right value).
        var collapsed: [(t: Double, v: Double)] = []
        var i = 0
        while i < knots.count {
            var j = i
            while j + 1 < knots.count && knots[j + 1].t == knots[i].t { j += 1 }
            collapsed.append(knots[i])
            if j > i && knots[j].v != knots[i].v { collapsed.append(knots[j]) }
            i = j + 1
        }
        self.raw = ControlTimeline.withSlopes(collapsed)

        // Smooth form: a jump at t (pair t,a / t,b) becomes a ramp to t + δ.
        var smoothKnots: [(t: Double, v: Double)] = []
        var k = 0
        while k < collapsed.count {
            let knot = collapsed[k]
            if k + 1 < collapsed.count && collapsed[k + 1].t == knot.t {
                let after = k + 2 < collapsed.count ? collapsed[k + 2].t : Double.infinity
                let delta = min(rampSamples, (after - knot.t) / 2)
                smoothKnots.append(knot)
                smoothKnots.append((knot.t + delta, collapsed[k + 1].v))
                k += 2
            } else {
                smoothKnots.append(knot)
                k += 1
            }
        }
        self.smooth = ControlTimeline.withSlopes(smoothKnots)
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
