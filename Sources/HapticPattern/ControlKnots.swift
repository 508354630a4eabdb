// A dynamic parameter's value over time as a piecewise-linear function, from its Parameter
// steps and ParameterCurves: the rule Core Haptics plays by, stated once for the renderer
// (HapticRender's ControlTimeline, in samples) and for conversions (in seconds).

/// An entry of a pattern for one dynamic parameter, starting at some time: a step (a
/// `Parameter`) or a curve (its points' times relative to the entry's start, sorted).
public enum ControlEntry: Sendable {
    case step(Double)
    case curve([(time: Double, value: Double)])
}

/// The knots of a parameter's value for `entries` sorted by start (ties in file order): a
/// later entry overrides an earlier one from its start on; a curve gives `neutral` before its
/// first point and holds its last. Equal-time knot pairs are jumps (left value, then right).
/// Times are in whatever unit the entries use.
public func controlKnots(neutral: Double, entries: [(start: Double, entry: ControlEntry)]) -> [(time: Double, value: Double)] {
    guard let first = entries.first else { return [] }
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
    var collapsed: [(time: Double, value: Double)] = []
    var i = 0
    while i < knots.count {
        var j = i
        while j + 1 < knots.count && knots[j + 1].t == knots[i].t { j += 1 }
        collapsed.append((knots[i].t, knots[i].v))
        if j > i && knots[j].v != knots[i].v { collapsed.append((knots[j].t, knots[j].v)) }
        i = j + 1
    }
    return collapsed
}
