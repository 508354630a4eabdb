// A stretch of time cut out of converted haptics, for auditioning a selection: the hits inside
// it and the curves clipped to it (their values interpolated at the cut), all moved so that
// the selection's start is 0.

import HapticKit

extension ConvertedHaptics {
    /// The haptics from `start` to `end` (seconds on this pattern's time axis), starting at 0.
    /// A hit exactly at `end` belongs to the next pass of a loop, not to this one.
    func window(from start: Double, to end: Double) -> ConvertedHaptics {
        guard start.isFinite, end.isFinite, end > start else { return ConvertedHaptics(duration: 0) }
        let hits = transients.filter { $0.time >= start && $0.time < end }.map {
            Transient(time: $0.time - start, intensity: $0.intensity, sharpness: $0.sharpness)
        }
        let kept = stretches.compactMap { stretch -> Stretch? in
            let from = max(stretch.start, start), to = min(stretch.end, end)
            guard to > from else { return nil }
            return Stretch(
                start: from - start, end: to - start,
                intensity: Self.clipped(stretch.intensity, from: from, to: to, shift: start),
                sharpness: Self.clipped(stretch.sharpness, from: from, to: to, shift: start))
        }
        return ConvertedHaptics(stretches: kept, transients: hits, duration: end - start)
    }

    /// The curve's points inside [from, to], with a point interpolated at each end, shifted by
    /// `-shift`. A curve with no points stays empty.
    static func clipped(_ points: [CurvePoint], from: Double, to: Double, shift: Double) -> [CurvePoint] {
        guard !points.isEmpty else { return [] }
        var result = [CurvePoint(time: from, value: points.value(at: from))]
        result += points.filter { $0.time > from && $0.time < to }
        result.append(CurvePoint(time: to, value: points.value(at: to)))
        return result.map { CurvePoint(time: $0.time - shift, value: $0.value) }
    }
}
