// Building patterns from envelopes, as converters do (from a `.haptic` clip, from a sound):
// chained curves of at most 16 points (Core Haptics' limit per curve), and continuous
// events of at most 30 s (`Limits.maxContinuousDuration`) covering a stretch.

extension ParameterCurve {
    /// Core Haptics takes at most this many control points in one curve.
    public static let maxControlPoints = 16

    /// Curves for `points` (absolute times, not decreasing): each starts at its first point's
    /// time with point times relative to it, holds at most `maxControlPoints` points, and
    /// begins with the previous curve's last point, so the chain is one continuous curve.
    /// With `rounding`, times are rounded to the microsecond and values to 1e-6 (a converter's
    /// points are at least a sample apart; the files stay small); without, they are exact.
    public static func chained(_ id: DynamicParameterID, _ points: [(time: Double, value: Double)], rounding: Bool = true) -> [ParameterCurve] {
        guard !points.isEmpty else { return [] }
        func time(_ t: Double) -> Double { rounding ? roundedTime(t) : t }
        func value(_ v: Double) -> Double { rounding ? roundedValue(v) : v }
        var curves: [ParameterCurve] = []
        var start = 0
        repeat {
            let end = min(points.count, start + maxControlPoints)
            let t0 = time(points[start].time)
            let controlPoints = points[start..<end].map {
                ControlPoint(time(max(0, time($0.time) - t0)), value($0.value))
            }
            curves.append(ParameterCurve(id, time: t0, points: controlPoints))
            start = end - 1
        } while start < points.count - 1
        return curves
    }

    /// A time rounded to the microsecond, as converters write them.
    public static func roundedTime(_ t: Double) -> Double { (t * 1e6).rounded() / 1e6 }
    /// A value rounded to 1e-6, as converters write them.
    public static func roundedValue(_ v: Double) -> Double { (v * 1e6).rounded() / 1e6 }
}

extension Event {
    /// Continuous haptic events covering `start…end`, each at most 30 s long, with the given
    /// intensity and sharpness (converters give 1 and 0 and shape them with curves).
    public static func continuousSpan(
        from start: Double, to end: Double, intensity: Double, sharpness: Double, rounding: Bool = true
    ) -> [Event] {
        func time(_ t: Double) -> Double { rounding ? ParameterCurve.roundedTime(t) : t }
        var events: [Event] = []
        var t = start
        while end - t > 1e-9 {
            let duration = min(Limits.maxContinuousDuration, end - t)
            events.append(.continuous(at: time(t), duration: time(duration), intensity: intensity, sharpness: sharpness))
            t += duration
        }
        return events
    }
}

extension AHAPPattern {
    /// A pattern of `events` and `curves`, with the events in time order (the reader warns
    /// about unsorted events) and the curves after them.
    public static func assembled(events: [Event], curves: [ParameterCurve], metadata: JSONValue? = nil) -> AHAPPattern {
        let sorted = events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        return AHAPPattern(
            version: 1, metadata: metadata,
            elements: sorted.map(PatternElement.event) + curves.map(PatternElement.curve))
    }
}
