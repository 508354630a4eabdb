// A transient under control curves, written so that it plays at the values meant for it.
// In AHAP the intensity control multiplies, and the sharpness control adds to, every event
// sounding at its time, transients included (a transient takes the controls' values at its
// onset). Converters that shape a continuous layer with pattern-wide curves (`convert`, a
// `.haptic` clip's envelope) therefore write each transient as (meant value) ÷ curve, or
// (meant value) − curve. Where the curve cannot reach — a transient louder than the curve
// there (its intensity at most 1), a sharpness the curve's offset puts out of 0…1 — the
// curve is raised to the nearest value that works at the transient's time only, returning to
// the curve's own values 1 ms on either side. With `holding` (`convert`), a raised curve, or one
// steep at the transient, is held flat at that value for a sample at 8 kHz either side (a
// renderer reads it at the onset rounded to a sample); without (a clip's emphasis), a raise is
// a triangle. Either way the continuous layer differs from its envelope only within 1 ms of a
// transient (Meta Haptics Studio's answer, two files for two players, is not one pattern).

/// The shared rules of writing transients under control curves, and of reading them back.
public enum TransientCompensation {
    /// How far either side of a transient a raised curve returns to its own values (s).
    public static let raiseHalfWidth = 0.001

    /// How far either side of a transient a raised or steep curve is held flat at the value the
    /// transient is written for (s): one sample at the lowest rate rendered (8 kHz). A renderer
    /// reads the controls at the onset rounded to a sample, and starts each curve on a sample
    /// (its points keep their offsets), so the reading lands up to a sample from the hit.
    public static let holdHalfWidth = 1.0 / Double(Limits.sampleRates.lowerBound)

    /// A curve steeper than this change within the hold is held (under it, a rounded onset reads
    /// within the fidelity tests' budget).
    static let steepTolerance = 0.001

    /// Times within this are one (converters round times to the microsecond, and a chained
    /// curve's knot is its start plus a rounded offset).
    static let timeSlack = 2e-6

    /// A point of a control curve (absolute time, seconds).
    public typealias Point = (time: Double, value: Double)

    /// A transient as meant: its effective intensity and sharpness when it plays.
    public struct Hit: Sendable, Equatable {
        public var time: Double
        public var intensity: Double
        public var sharpness: Double
        public init(time: Double, intensity: Double, sharpness: Double) {
            self.time = time
            self.intensity = intensity
            self.sharpness = sharpness
        }
    }

    /// The result: the curves' chains with their raises, and each hit's event values (in the
    /// order of the hits given) that, with the curves, play as meant.
    public struct Result: Sendable {
        public var intensity: [[Point]]
        public var sharpness: [[Point]]
        /// Event intensity and sharpness per hit.
        public var events: [(intensity: Double, sharpness: Double)]
    }

    /// Compensates `hits` for an intensity control made of `intensity` chains and a sharpness
    /// control made of `sharpness` chains. A chain is a curve's points (absolute times,
    /// increasing; equal times make a jump), written as chained ParameterCurves starting at its
    /// first point: it rules from there until the next chain's first point and holds its last
    /// value (the rule of `controlKnots`); before the first chain the control is neutral
    /// (intensity 1, sharpness 0). Hits at the same time (after `round`) share one raise.
    /// `round` is applied to times and values (a converter's rounding; identity for exact ones).
    /// With `holding`, a curve raised or steep at a hit is held flat around it (`holdHalfWidth`);
    /// without, a raise is a triangle with its apex at the hit.
    public static func compensate(
        intensity: [[Point]], sharpness: [[Point]], hits: [Hit], holding: Bool = false, round: (Double) -> Double = { $0 }
    ) -> Result {
        // Groups of hits at one time: the bounds the control's value must keep there.
        var order = Array(hits.indices)
        order.sort { (round(hits[$0].time), $0) < (round(hits[$1].time), $1) }
        var intensityTargets: [Target] = []
        var sharpnessTargets: [Target] = []
        var groupOfHit = [Int](repeating: 0, count: hits.count)
        for i in order {
            let h = hits[i]
            let t = round(h.time)
            let ia = finiteClamped(h.intensity), sa = finiteClamped(h.sharpness)
            if let last = intensityTargets.last, last.time == t {
                intensityTargets[intensityTargets.count - 1].low = max(last.low, ia)
                sharpnessTargets[sharpnessTargets.count - 1].low = max(sharpnessTargets[sharpnessTargets.count - 1].low, sa - 1)
                sharpnessTargets[sharpnessTargets.count - 1].high = min(sharpnessTargets[sharpnessTargets.count - 1].high, sa)
            } else {
                intensityTargets.append(Target(time: t, low: ia, high: .infinity))
                sharpnessTargets.append(Target(time: t, low: sa - 1, high: sa))
            }
            groupOfHit[i] = intensityTargets.count - 1
        }
        let (intensityChains, c) = raised(intensity, neutral: 1, targets: intensityTargets, holding: holding, round: round)
        let (sharpnessChains, d) = raised(sharpness, neutral: 0, targets: sharpnessTargets, holding: holding, round: round)
        let events = hits.indices.map { i -> (intensity: Double, sharpness: Double) in
            let g = groupOfHit[i]
            let ia = finiteClamped(hits[i].intensity), sa = finiteClamped(hits[i].sharpness)
            let level = c[g] > 0 ? min(1, ia / c[g]) : 0
            return (round(level), round(min(1, max(0, sa - d[g]))))
        }
        return Result(intensity: intensityChains, sharpness: sharpnessChains, events: events)
    }

    private static func finiteClamped(_ v: Double) -> Double { v.isFinite ? min(1, max(0, v)) : 0 }

    /// A time where the control's value must lie within low…high.
    struct Target {
        var time: Double
        var low: Double
        var high: Double
    }

    /// The chains with a knot at each target whose value is out of bounds (moved to the nearest
    /// bound), and the value the control has at each target afterwards.
    static func raised(
        _ chains: [[Point]], neutral: Double, targets: [Target], holding: Bool, round: (Double) -> Double
    ) -> ([[Point]], [Double]) {
        var out = chains.map { $0.map { (time: round($0.time), value: round($0.value)) } }
        var values = [Double](repeating: neutral, count: targets.count)
        // Each target in the chain ruling at its time (none before the first: neutral there,
        // which every target allows: intensity 1, sharpness 0). Targets in time order, so a
        // raise sees the knots of the ones before it (hits closer than 1 ms share their ramps).
        let starts = out.indices.filter { !out[$0].isEmpty }  // empty chains rule nowhere
        var s = -1
        for (j, target) in targets.enumerated() {
            while s + 1 < starts.count && out[starts[s + 1]][0].time <= target.time { s += 1 }
            guard s >= 0 else {
                values[j] = min(target.high, max(target.low, neutral))
                continue
            }
            let domainEnd = s + 1 < starts.count ? out[starts[s + 1]][0].time : .infinity
            let previous = j > 0 ? targets[j - 1].time : -Double.infinity
            let next = j + 1 < targets.count ? targets[j + 1].time : Double.infinity
            values[j] = raise(
                &out[starts[s]], at: target, holdHalfWidth: holding ? holdHalfWidth : 0, previous: previous, next: next,
                domainEnd: domainEnd, round: round)
        }
        return (out, values)
    }

    /// Raises `chain` at `target` if its value there is out of bounds, and holds it flat
    /// (`holdHalfWidth` either side, 0 for a triangle's apex; at most halfway to the next
    /// target, within the chain's rule) where it is raised or steep; returns the value there. The knots: the
    /// value at the hold's ends (and at the target's time) replacing the knots between, the
    /// chain's first knot kept (its value set) if inside; and the chain's own value 1 ms before
    /// and after unless a knot lies closer (then the hold ramps from that knot), and unless the
    /// chain does not rule there (before its start; at or after `domainEnd`, where the next
    /// chain starts, the right shoulder moves to `domainEnd`).
    static func raise(
        _ chain: inout [Point], at target: Target, holdHalfWidth: Double, previous: Double, next: Double, domainEnd: Double,
        round: (Double) -> Double
    ) -> Double {
        let t = target.time
        let own = value(chain, at: t)
        let wanted = min(target.high, max(target.low, own))
        let lo = round(max(t - holdHalfWidth, (previous + t) / 2, chain.first?.time ?? t))
        let hi = round(min(t + holdHalfWidth, (t + next) / 2, domainEnd))
        // Steep: the chain leaves the value within the hold (a rounded onset would read that).
        var steep = false
        for x in [lo, hi] where abs(value(chain, at: x) - wanted) > steepTolerance { steep = true }
        for p in chain where p.time > lo && p.time < hi && abs(p.value - wanted) > steepTolerance { steep = true }
        if wanted == own && !steep { return own }
        let v = round(wanted)
        let left = round(t - raiseHalfWidth)
        let right = min(round(t + raiseHalfWidth), domainEnd)
        let ownLeft = round(value(chain, at: left)), ownRight = round(value(chain, at: right))
        // The knots within the hold go, but for the chain's first (kept at its time, at the
        // value) and, at the hold's start, a jump's left value or a previous hold's end (the
        // hold then starts halfway to the previous target: a jump between two holds).
        let slack = timeSlack / 2
        let clippedLeft = lo > round(t - holdHalfWidth) + slack
        var kept: [Point] = []
        kept.reserveCapacity(chain.count + 5)
        for (k, p) in chain.enumerated() {
            let inside = p.time >= lo - slack && p.time <= hi + slack
            if k == 0 && inside {
                kept.append((p.time, v))
            } else if !inside {
                kept.append(p)
            } else if abs(p.time - lo) <= slack, k + 1 < chain.count, abs(chain[k + 1].time - lo) <= slack || clippedLeft,
                      kept.last.map({ abs($0.time - lo) > slack }) ?? true {
                kept.append(p)
            }
        }
        chain = kept
        // Insert the hold after the last knot at or before lo (or at the first knot set above).
        var i = chain.count - 1
        while i >= 0 && chain[i].time > lo + slack { i -= 1 }
        var hold: [Point] = []
        let startsAtI = i >= 0 && abs(chain[i].time - lo) <= slack && chain[i].value == v
        if !startsAtI { hold.append((lo, v)) }
        if t > lo + slack && t < hi - slack { hold.append((t, v)) }
        if hi > lo + slack { hold.append((hi, v)) }
        chain.insert(contentsOf: hold, at: i + 1)
        let last = i + hold.count  // the hold's last knot
        let first = startsAtI ? i : i + 1  // the hold's first knot
        // Right shoulder: the chain's own value at t + 1 ms (or where the next chain starts),
        // unless a knot is closer.
        let after = last + 1 < chain.count ? chain[last + 1].time : Double.infinity
        if after > right + slack && right > hi + slack { chain.insert((right, ownRight), at: last + 1) }
        // Left shoulder: the own value at t − 1 ms, when the chain rules there and no knot is
        // closer.
        if first > 0, chain[first - 1].time < left - slack, left < lo - slack { chain.insert((left, ownLeft), at: first) }
        return v
    }

    /// The value of a chain's points at `t` (before the first: its first value; after the
    /// last: held; at a jump: the right value), as a transient there reads it.
    public static func value(_ points: [Point], at t: Double) -> Double {
        guard let first = points.first else { return 0 }
        if t < first.time { return first.value }
        var lo = 0, hi = points.count  // the last point with time <= t
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if points[mid].time <= t { lo = mid } else { hi = mid }
        }
        let a = points[lo]
        guard lo + 1 < points.count else { return a.value }
        let b = points[lo + 1]
        return b.time > a.time ? a.value + (b.value - a.value) * (t - a.time) / (b.time - a.time) : a.value
    }
}
