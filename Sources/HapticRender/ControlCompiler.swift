// A pattern's dynamic parameters and parameter curves compiled into one control timeline
// per parameter (values clamped, unusable entries skipped with a warning).

import HapticPattern

/// The control timelines of a pattern (see `compile`).
struct ControlCompiler {
    let sampleRate: Double

    /// What `compile` produces.
    struct Result {
        /// Indexed by `DynamicParameterID.index`.
        var controls: [ControlTimeline]
        /// The time of the last parameter or curve point, in seconds (0 without any).
        var end: Double
    }

    func compile(_ elements: ArraySlice<PatternElement>, _ warnings: inout PreparationWarnings) throws(RenderError) -> Result {
        let fs = sampleRate
        let pastLimit = "past the \(Limits.maxTime) s limit"
        var end = 0.0  // seconds
        // Dynamic parameters and curves, grouped by parameter.
        var entries = [[(start: Double, order: Int, entry: ControlTimeline.Entry)]](repeating: [], count: DynamicParameterID.count)
        var controlPoints = 0
        for (position, element) in elements.enumerated() {
            switch element {
            case .event: continue
            case .parameter(let p):
                guard p.time.isFinite, p.value.isFinite else {
                    try warnings.warn("Pattern[\(position)] (\(p.id.rawValue)): time or value is not finite; ignored")
                    continue
                }
                guard p.time <= Limits.maxTime else {
                    try warnings.warn("Pattern[\(position)] (\(p.id.rawValue)): time \(pastLimit)", otherwise: "ignored")
                    continue
                }
                let v = min(p.id.range.upperBound, max(p.id.range.lowerBound, p.value))
                entries[p.id.index].append(((max(0, p.time) * fs).rounded(), position, .step(v)))
                // A pattern lasts until its last parameter too (AHAP's duration rule; a
                // trailing neutral parameter is how a file gives itself a rest, e.g. a loop length).
                end = max(end, max(0, p.time))
            case .curve(let c):
                guard c.time.isFinite, !c.controlPoints.isEmpty,
                    c.controlPoints.allSatisfy({ $0.time.isFinite && $0.value.isFinite })
                else {
                    try warnings.warn("Pattern[\(position)] (\(c.id.rawValue) curve): no usable control points; ignored")
                    continue
                }
                let reach = c.time + (c.controlPoints.map(\.time).max() ?? 0)
                guard reach <= Limits.maxTime else {
                    try warnings.warn("Pattern[\(position)] (\(c.id.rawValue) curve): reaches \(reach) s, \(pastLimit)", otherwise: "ignored")
                    continue
                }
                controlPoints += c.controlPoints.count
                guard controlPoints <= Limits.maxControlPoints else {
                    try warnings.warn(
                        "Pattern[\(position)] (\(c.id.rawValue) curve): more than \(Limits.maxControlPoints) control points in all curves",
                        otherwise: "ignored")
                    continue
                }
                var points = c.controlPoints.enumerated().sorted { a, b in
                    a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
                }.map { (time: $0.element.time * fs, value: min(c.id.range.upperBound, max(c.id.range.lowerBound, $0.element.value))) }
                // Points closer than 1/1024 sample to the one before (or to the curve's start)
                // are moved onto it: a jump, as for equal times. Otherwise the slope between
                // them (a change over a denormal number of samples) is infinite and the
                // control NaN (found by the extreme-pattern property test).
                var previous = 0.0
                for k in points.indices {
                    if points[k].time - previous < PreparedPattern.minimumPointSpacing { points[k].time = previous }
                    previous = points[k].time
                }
                entries[c.id.index].append(((max(0, c.time) * fs).rounded(), position, .curve(points)))
                end = max(end, max(0, c.time) + (points.last.map { $0.time / fs } ?? 0))
            }
        }
        let ramp = PreparedPattern.stepRampSeconds * fs
        let controls = DynamicParameterID.allCases.sorted { $0.index < $1.index }.map { id in
            let list = entries[id.index].sorted { $0.start != $1.start ? $0.start < $1.start : $0.order < $1.order }
            return ControlTimeline(neutral: id.defaultValue, entries: list.map { ($0.start, $0.entry) }, rampSamples: ramp)
        }

        return Result(controls: controls, end: end)
    }
}
