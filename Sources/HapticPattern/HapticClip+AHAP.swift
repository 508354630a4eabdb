// `.haptic` ↔ AHAP, as Meta Haptics Studio's AHAP export maps them (HapticClipMapping):
//  - the amplitude envelope becomes an intensity curve (√amplitude) over continuous events
//    of intensity 1 spanning the clip (at most 30 s each), the frequency envelope a sharpness
//    curve (√frequency) over events of sharpness 0 (0.5's root when the clip has none);
//  - an emphasis becomes a transient that plays at intensity √amplitude and sharpness = its
//    frequency through the curves (TransientCompensation: its values divided by, or less, the
//    curves there; the curves raised at its time, back to their own values 1 ms either side,
//    where they cannot reach).
// Curves are chained in pieces of at most 16 points with times relative to each curve's
// start (Studio writes one curve with absolute times). Studio also lowers the envelope by
// 20 % at emphasis points for Core Haptics' mixing; we do not, so that the conversion is
// exact both ways: a clip comes back within rounding (1e-6) except within 1 ms of an
// emphasis, where the envelope comes back with the raise the emphasis needed (the raise is
// what plays; it is not undone); each emphasis's amplitude and frequency come back exactly.
//
// AHAP → `.haptic` reads what the pattern plays: the amplitude at each intensity control
// point and event edge is (the loudest sounding continuous event's intensity × the intensity
// control)², the frequency at each sharpness control point is (event sharpness + sharpness
// control)², and each transient becomes an emphasis on a breakpoint at its time, at the values
// it plays at (its intensity × the intensity control at its onset, its sharpness + the
// sharpness control). Event
// envelopes (attack, decay, release) and audio events have no `.haptic` counterpart and are
// left out with a note.

extension HapticClip {
    /// The AHAP pattern for this clip.
    public func ahapPattern() -> AHAPPattern {
        let start = amplitude.first?.time ?? 0
        // Exact times and values (Studio writes breakpoints a few microseconds apart at a jump).
        let events = Event.continuousSpan(
            from: start, to: duration, intensity: 1,
            sharpness: frequency.isEmpty ? HapticClipMapping.sharpness(frequency: HapticClip.defaultFrequency) : 0, rounding: false)
        // Each emphasis plays at its amplitude and frequency through the curves (raising them
        // at its time where they cannot reach: TransientCompensation).
        let emphasised = amplitude.compactMap { point in point.emphasis.map { (time: point.time, emphasis: $0) } }
        // A raise returns to the curve's own values 1 ms either side; the clip's envelopes are
        // straight in amplitude and frequency, not in their roots, so those shoulders are put
        // in first as breakpoints of the clip's own envelope (on its lines: nothing changes
        // outside the raise when the pattern is read back).
        var intensityPoints = amplitude.map { (time: $0.time, value: $0.amplitude) }
        var sharpnessPoints = frequency.map { (time: $0.time, value: $0.frequency) }
        for (t, e) in emphasised {
            if HapticClipMapping.intensity(amplitude: TransientCompensation.value(intensityPoints, at: t)) < HapticClipMapping.intensity(amplitude: e.amplitude) {
                intensityPoints = Self.withShoulders(intensityPoints, at: t)
            }
            if !sharpnessPoints.isEmpty, HapticClipMapping.sharpness(frequency: TransientCompensation.value(sharpnessPoints, at: t)) > e.frequency {
                sharpnessPoints = Self.withShoulders(sharpnessPoints, at: t)
            }
        }
        let compensated = TransientCompensation.compensate(
            intensity: [intensityPoints.map { ($0.time, HapticClipMapping.intensity(amplitude: $0.value)) }],
            sharpness: [sharpnessPoints.map { ($0.time, HapticClipMapping.sharpness(frequency: $0.value)) }],
            hits: emphasised.map {
                .init(time: $0.time, intensity: HapticClipMapping.intensity(amplitude: $0.emphasis.amplitude), sharpness: $0.emphasis.frequency)
            })
        let transients = zip(emphasised, compensated.events).map { point, values in
            Event.transient(at: point.time, intensity: values.intensity, sharpness: values.sharpness)
        }
        let curves =
            ParameterCurve.chained(.hapticIntensityControl, compensated.intensity[0], rounding: false)
            + ParameterCurve.chained(.hapticSharpnessControl, compensated.sharpness[0], rounding: false)
        return .assembled(events: events + transients, curves: curves, metadata: metadata.ahapMetadata)
    }

    /// `points` (an envelope, straight between them) with a point of their own line 1 ms before
    /// and after `t` where no point lies closer on that side and the envelope is there.
    static func withShoulders(_ points: [TransientCompensation.Point], at t: Double) -> [TransientCompensation.Point] {
        guard let first = points.first, let last = points.last else { return points }
        var out = points
        for shoulder in [t - TransientCompensation.raiseHalfWidth, t + TransientCompensation.raiseHalfWidth]
        where shoulder > first.time && shoulder < last.time {
            let lo = min(shoulder, t), hi = max(shoulder, t)
            if points.contains(where: { $0.time >= lo && $0.time <= hi && $0.time != t }) { continue }
            let value = TransientCompensation.value(points, at: shoulder)
            let at = out.firstIndex { $0.time > shoulder } ?? out.count
            out.insert((shoulder, value), at: at)
        }
        return out
    }

    /// The clip a pattern plays, and notes on what a `.haptic` cannot hold.
    public init(pattern: AHAPPattern) {
        self = HapticClipFromPattern(pattern).clip
    }

    /// `init(pattern:)` with the notes on what was left out (audio events, event envelopes).
    public static func converting(_ pattern: AHAPPattern) -> (clip: HapticClip, notes: [String]) {
        let conversion = HapticClipFromPattern(pattern)
        return (conversion.clip, conversion.notes)
    }
}

extension HapticClip.Metadata {
    /// The AHAP `Metadata` object for these fields (nil when there are none).
    var ahapMetadata: JSONValue? {
        var members: [(key: String, value: JSONValue)] = []
        if let author { members.append(("Author", .string(author))) }
        if let editor { members.append(("Editor", .string(editor))) }
        if let source { members.append(("Source", .string(source))) }
        if let project { members.append(("Project", .string(project))) }
        if let tags { members.append(("Tags", .array(tags.map(JSONValue.string)))) }
        if let description { members.append(("Description", .string(description))) }
        members += other
        return members.isEmpty ? nil : .object(members)
    }

    /// The fields of an AHAP `Metadata` object (the inverse of `ahapMetadata`).
    init(ahap: JSONValue?) {
        self.init()
        guard case .object(let members) = ahap else { return }
        for (key, value) in members {
            switch (key, value) {
            case ("Author", .string(let s)): author = s
            case ("Editor", .string(let s)): editor = s
            case ("Source", .string(let s)): source = s
            case ("Project", .string(let s)): project = s
            case ("Description", .string(let s)): description = s
            case ("Tags", .array(let items)): tags = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
            default: other.append((key, value))
            }
        }
    }
}

/// AHAP → `.haptic`, one pass over the pattern.
private struct HapticClipFromPattern {
    var clip: HapticClip
    var notes: [String] = []

    private struct Span {
        var start: Double
        var end: Double
        var intensity: Double
        var sharpness: Double

        /// For each of `times` (sorted), the most intense span sounding just before it
        /// (start < t <= end) and at it (start <= t < end): a sweep with a max-heap, so a
        /// pattern of many overlapping events costs O((times + spans) log spans).
        static func loudest(_ spans: [Span], at times: [Double]) -> (left: [Span?], right: [Span?]) {
            func sweep(right: Bool) -> [Span?] {
                var heap = SpanHeap()
                var next = 0
                return times.map { t in
                    while next < spans.count && (right ? spans[next].start <= t : spans[next].start < t) {
                        heap.push(spans[next])
                        next += 1
                    }
                    while let top = heap.top, right ? top.end <= t : top.end < t { heap.pop() }
                    return heap.top
                }
            }
            return (sweep(right: false), sweep(right: true))
        }
    }

    /// A max-heap of spans by intensity.
    private struct SpanHeap {
        private var items: [Span] = []
        var top: Span? { items.first }
        mutating func push(_ span: Span) {
            items.append(span)
            var i = items.count - 1
            while i > 0, items[(i - 1) / 2].intensity < items[i].intensity {
                items.swapAt(i, (i - 1) / 2)
                i = (i - 1) / 2
            }
        }
        mutating func pop() {
            let last = items.removeLast()
            guard !items.isEmpty else { return }
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var best = i
                if l < items.count && items[l].intensity > items[best].intensity { best = l }
                if r < items.count && items[r].intensity > items[best].intensity { best = r }
                if best == i { return }
                items.swapAt(i, best)
                i = best
            }
        }
    }

    init(_ pattern: AHAPPattern) {
        var spans: [Span] = []
        var transients: [(time: Double, intensity: Double, sharpness: Double)] = []
        var audio = 0, envelopes = 0
        for element in pattern.elements.prefix(Limits.maxElements) {
            guard case .event(let e) = element, e.time <= Limits.maxTime else { continue }
            switch e.type {
            case .hapticContinuous:
                let duration = min(max(0, e.duration ?? 0), Limits.maxContinuousDuration)
                if e.value(of: .attackTime) ?? 0 > 0 || e.value(of: .decayTime) ?? 0 > 0 || e.value(of: .releaseTime) ?? 0 > 0 {
                    envelopes += 1
                }
                guard duration > 0 else { continue }
                spans.append(Span(
                    start: e.time, end: e.time + duration, intensity: e.value(of: .hapticIntensity) ?? 1,
                    sharpness: e.value(of: .hapticSharpness) ?? 0.5))
            case .hapticTransient:
                transients.append((e.time, e.value(of: .hapticIntensity) ?? 1, e.value(of: .hapticSharpness) ?? 0.5))
            case .audioCustom, .audioContinuous:
                audio += 1
            }
        }
        if audio > 0 { notes.append("\(audio) audio event\(audio == 1 ? "" : "s") left out (a .haptic holds no sound)") }
        if envelopes > 0 {
            notes.append("\(envelopes) continuous event\(envelopes == 1 ? "'s" : "s'") attack, decay or release left out (a .haptic envelope has breakpoints only)")
        }
        spans.sort { $0.start < $1.start }
        // A transient plays at its values with the controls at its onset: that is its emphasis.
        let intensityKnots = ControlKnots(pattern, .hapticIntensityControl)
        let sharpnessKnots = ControlKnots(pattern, .hapticSharpnessControl)
        transients = transients.map { transient in
            func clamped(_ v: Double) -> Double { v.isFinite ? min(1, max(0, v)) : 0 }
            return (
                transient.time, clamped(clamped(transient.intensity) * intensityKnots.value(at: transient.time, right: true)),
                clamped(transient.sharpness + sharpnessKnots.value(at: transient.time, right: true)))
        }
        // By time, and at one time the weakest first (each takes the first breakpoint there it reaches).
        transients.sort { ($0.time, $0.intensity) < ($1.time, $1.intensity) }

        var end = max(spans.map(\.end).max() ?? 0, (transients.last?.time ?? 0) + (spans.isEmpty ? 0.01 : 0))
        if end <= 0 { end = 0.01 }
        let spanEdges = spans.flatMap { [$0.start, $0.end] }

        // Amplitude: at intensity control points, event edges and transients.
        let amplitudeTimes = Set(spanEdges + intensityKnots.times + transients.map(\.time) + [0, end])
            .filter { $0 >= 0 && $0 <= end }.sorted()
        let amplitudeSpans = Span.loudest(spans, at: amplitudeTimes)
        let intensityKnotTimes = Set(intensityKnots.times), transientTimes = Set(transients.map(\.time))
        var amplitude: [HapticClip.AmplitudeBreakpoint] = []
        for (i, t) in amplitudeTimes.enumerated() {
            func value(_ span: Span?, right: Bool) -> Double {
                guard let span else { return 0 }
                return HapticClipMapping.amplitude(intensity: span.intensity * intensityKnots.value(at: t, right: right))
            }
            var left = value(amplitudeSpans.left[i], right: false)
            let right = value(amplitudeSpans.right[i], right: true)
            // A jump at the very first knot (the clip's first breakpoints share a time).
            if let leading = intensityKnots.leading, leading.time == t, let span = amplitudeSpans.right[i] {
                left = HapticClipMapping.amplitude(intensity: span.intensity * leading.value)
                if abs(left - right) > 1e-12 {
                    amplitude.append(.init(time: t, amplitude: left))
                    amplitude.append(.init(time: t, amplitude: right))
                    continue
                }
            }
            // An event edge where nothing changes (events in a row) is no breakpoint: sampling
            // the curve there would bend the envelope (linear in intensity, not amplitude).
            if 0 < t && t < end && abs(right - left) <= 1e-12 && !intensityKnotTimes.contains(t) && !transientTimes.contains(t) { continue }
            if t > 0 { amplitude.append(.init(time: t, amplitude: left)) }
            if t < end && (t == 0 || abs(right - left) > 1e-12) { amplitude.append(.init(time: t, amplitude: right)) }
            // A jump in the control at the very end (the clip's last breakpoints share a time).
            if t == end, t > 0, let span = amplitudeSpans.left[i] {
                let last = value(span, right: true)
                if abs(last - left) > 1e-12 { amplitude.append(.init(time: t, amplitude: last)) }
            }
        }
        // Each transient on a breakpoint at its time: of several there (a jump), the first still
        // free whose amplitude the transient's reaches (the spec's rule), else the first free one.
        var k = 0
        for transient in transients {
            while k < amplitude.count && amplitude[k].time < transient.time { k += 1 }
            var same = k
            while same + 1 < amplitude.count && amplitude[same + 1].time == transient.time { same += 1 }
            let level = HapticClipMapping.amplitude(intensity: transient.intensity)
            let candidates = Array(k...min(same, amplitude.count - 1))
            let free = candidates.filter { amplitude[$0].emphasis == nil }
            let chosen = free.first { amplitude[$0].amplitude <= level } ?? free.first
                ?? candidates.max { (amplitude[$0].emphasis?.amplitude ?? 0) > (amplitude[$1].emphasis?.amplitude ?? 0) }!
            let e = HapticClip.Emphasis(amplitude: max(amplitude[chosen].amplitude, level), frequency: min(1, max(0, transient.sharpness)))
            if let existing = amplitude[chosen].emphasis, existing.amplitude >= e.amplitude { continue }
            amplitude[chosen].emphasis = e
        }

        // Frequency: at sharpness control points and event edges, unless nothing sets it
        // (no sharpness control, events at the default): then empty, which means 0.5.
        var frequency: [HapticClip.FrequencyBreakpoint] = []
        let atDefault = sharpnessKnots.times.isEmpty
            && spans.allSatisfy { abs(HapticClipMapping.frequency(sharpness: $0.sharpness) - HapticClip.defaultFrequency) < 1e-9 }
        if !atDefault {
            let times = Set(spanEdges + sharpnessKnots.times + [0, end]).filter { $0 >= 0 && $0 <= end }.sorted()
            let frequencySpans = Span.loudest(spans, at: times)
            let sharpnessKnotTimes = Set(sharpnessKnots.times)
            // Where no event sounds, the last one's sharpness is held (the first's before it).
            var held = spans.first?.sharpness ?? 0.5
            for (i, t) in times.enumerated() {
                func value(_ span: Span?, right: Bool) -> Double {
                    if let span { held = span.sharpness }
                    return HapticClipMapping.frequency(sharpness: held + sharpnessKnots.value(at: t, right: right))
                }
                let left = value(frequencySpans.left[i], right: false), right = value(frequencySpans.right[i], right: true)
                if 0 < t && t < end && abs(right - left) <= 1e-12 && !sharpnessKnotTimes.contains(t) { continue }
                if t > 0 { frequency.append(.init(time: t, frequency: left)) }
                if t < end && (t == 0 || abs(right - left) > 1e-12) { frequency.append(.init(time: t, frequency: right)) }
                if t == end, t > 0, frequencySpans.left[i] != nil {
                    let last = value(frequencySpans.left[i], right: true)
                    if abs(last - left) > 1e-12 { frequency.append(.init(time: t, frequency: last)) }
                }
            }
        }
        clip = HapticClip(
            metadata: HapticClip.Metadata(ahap: pattern.metadata), amplitude: amplitude.removingRepeats(),
            frequency: frequency.removingRepeats())
    }
}

/// A dynamic parameter's value over pattern time in seconds, by the renderer's rule
/// (`controlKnots`); equal-time knot pairs are jumps (left value, then right value).
struct ControlKnots {
    let neutral: Double
    private(set) var knots: [(t: Double, v: Double)] = []

    init(_ pattern: AHAPPattern, _ id: DynamicParameterID) {
        neutral = id.defaultValue
        var entries: [(start: Double, order: Int, entry: ControlEntry)] = []
        func clamped(_ v: Double) -> Double { min(id.range.upperBound, max(id.range.lowerBound, v)) }
        for (order, element) in pattern.elements.prefix(Limits.maxElements).enumerated() {
            switch element {
            case .parameter(let p) where p.id == id && p.time <= Limits.maxTime:
                entries.append((p.time, order, .step(clamped(p.value))))
            case .curve(let c) where c.id == id && c.time <= Limits.maxTime:
                let points = c.controlPoints.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
                entries.append((c.time, order, .curve(points.map { ($0.element.time, clamped($0.element.value)) })))
            default: continue
            }
        }
        entries.sort { ($0.start, $0.order) < ($1.start, $1.order) }
        if let first = entries.first, case .curve(let points) = first.entry, points.count >= 2, points[0].time <= 0, points[1].time <= 0 {
            leading = (first.start, points[0].value)
        }
        knots = controlKnots(neutral: neutral, entries: entries.map { ($0.start, $0.entry) }).map { (t: $0.time, v: $0.value) }
    }

    var times: [Double] { knots.map(\.t) }

    /// When the first entry is a curve with two or more points at its start, the first of them
    /// (the knots keep only the last value of a time's run, and before it the neutral value).
    private(set) var leading: (time: Double, value: Double)?

    /// The value just before (`right` false) or at and after (`right` true) `t`.
    func value(at t: Double, right: Bool) -> Double {
        guard let first = knots.first else { return neutral }
        if t < first.t || (t == first.t && !right) { return neutral }
        // The last knot at or before t (for the left value: the first knot at t, when there are two).
        var lo = 0, hi = knots.count
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if knots[mid].t < t || (right && knots[mid].t == t) { lo = mid } else { hi = mid }
        }
        let a = knots[lo]
        guard lo + 1 < knots.count else { return a.v }
        let b = knots[lo + 1]
        if b.t == a.t { return right ? b.v : a.v }
        if t >= b.t { return b.v }
        return a.v + (b.v - a.v) * (t - a.t) / (b.t - a.t)
    }
}

extension Array where Element == HapticClip.AmplitudeBreakpoint {
    /// Without a breakpoint that repeats its predecessor exactly (chained curves share points).
    fileprivate func removingRepeats() -> [Element] {
        var out: [Element] = []
        for p in self {
            if let last = out.last, last.time == p.time, last.amplitude == p.amplitude, p.emphasis == nil { continue }
            out.append(p)
        }
        return out
    }
}

extension Array where Element == HapticClip.FrequencyBreakpoint {
    fileprivate func removingRepeats() -> [Element] {
        var out: [Element] = []
        for p in self {
            if let last = out.last, last.time == p.time, last.frequency == p.frequency { continue }
            out.append(p)
        }
        return out
    }
}
