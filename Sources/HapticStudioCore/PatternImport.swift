// A pattern file opened on its own (no sound of its stem beside it) as the studio edits it: its
// sounding stretches with their intensity and sharpness curves, and its hits, as a conversion's
// are. The stretches and curves are the pattern as it plays (the `.haptic` flattening, which
// follows the renderer's rule for overlapping events and controls: `HapticClip.converting`);
// each hit is its event's values with the controls at its time (as `convert`'s writer divides
// them, so a converted pattern comes back as converted). What the studio cannot hold is named
// in the notes: audio events, event envelopes, other controls.

import HapticKit

enum PatternImport {
    /// The largest pattern file read (as the list's own check of saved patterns).
    static let maxBytes = 64 << 20

    static func haptics(of pattern: AHAPPattern) -> (haptics: ConvertedHaptics, notes: [String]) {
        let (clip, clipNotes) = HapticClip.converting(pattern)
        var notes = clipNotes.map { $0.replacingOccurrences(of: " (a .haptic holds no sound)", with: "").replacingOccurrences(of: " (a .haptic envelope has breakpoints only)", with: "") }
            .map { $0 + " (not kept when saved)" }
        let sharpnessAt = FrequencyLine(clip.frequency)
        // Stretches: runs of the amplitude above 0, each from its last zero before to its first zero after.
        var stretches: [ConvertedHaptics.Stretch] = []
        var run: [HapticClip.AmplitudeBreakpoint] = []
        var lastZero: HapticClip.AmplitudeBreakpoint?
        func close() {
            guard run.contains(where: { $0.amplitude > 0 }), let first = run.first, let last = run.last, last.time > first.time else { run = []; return }
            let intensity = run.map { CurvePoint(time: $0.time, value: HapticClipMapping.intensity(amplitude: $0.amplitude)) }
            var times = [first.time] + clip.frequency.map(\.time).filter { $0 > first.time && $0 < last.time } + [last.time]
            times = times.reduce(into: []) { if $0.last != $1 { $0.append($1) } }
            let sharpness = times.map { CurvePoint(time: $0, value: sharpnessAt.sharpness(at: $0)) }
            stretches.append(.init(start: first.time, end: last.time, intensity: intensity, sharpness: sharpness))
            run = []
        }
        for point in clip.amplitude {
            if point.amplitude > 0 {
                if run.isEmpty, let zero = lastZero { run.append(.init(time: zero.time, amplitude: 0)) }
                run.append(.init(time: point.time, amplitude: point.amplitude))
            } else {
                if !run.isEmpty {
                    run.append(.init(time: point.time, amplitude: 0))
                    close()
                }
                lastZero = point
            }
        }
        close()

        // Hits: each transient event at its values with the controls at its time.
        let intensityControl = Control(pattern, .hapticIntensityControl)
        let sharpnessControl = Control(pattern, .hapticSharpnessControl)
        var transients: [ConvertedHaptics.Transient] = []
        for case .event(let e) in pattern.elements.prefix(Limits.maxElements) where e.type == .hapticTransient && e.time.isFinite && e.time >= 0 && e.time <= Limits.maxTime {
            func unit(_ v: Double) -> Double { v.isFinite ? min(1, max(0, v)) : 0 }
            transients.append(.init(
                time: e.time, intensity: unit(unit(e.value(of: .hapticIntensity) ?? 1) * intensityControl.value(at: e.time)),
                sharpness: unit((e.value(of: .hapticSharpness) ?? 0.5) + sharpnessControl.value(at: e.time))))
        }
        transients.sort { $0.time < $1.time }
        let others = Set(pattern.elements.compactMap { element -> DynamicParameterID? in
            switch element {
            case .curve(let c) where c.id != .hapticIntensityControl && c.id != .hapticSharpnessControl: c.id
            case .parameter(let p) where p.id != .hapticIntensityControl && p.id != .hapticSharpnessControl: p.id
            default: nil
            }
        })
        if !others.isEmpty { notes.append("\(others.map(\.rawValue).sorted().joined(separator: ", ")) left out (not kept when saved)") }
        let end = max(stretches.last?.end ?? 0, clip.amplitude.last?.time ?? 0, (transients.last?.time ?? 0) + 0.01)
        return (ConvertedHaptics(stretches: stretches, transients: transients, duration: end), notes)
    }

    /// The `.haptic` frequency line as sharpness (0.5 where the pattern sets none).
    struct FrequencyLine {
        let points: [HapticClip.FrequencyBreakpoint]
        init(_ points: [HapticClip.FrequencyBreakpoint]) { self.points = points }

        func sharpness(at t: Double) -> Double {
            guard let first = points.first else { return 0.5 }
            guard t > first.time else { return HapticClipMapping.sharpness(frequency: first.frequency) }
            guard let k = points.firstIndex(where: { $0.time >= t }) else { return HapticClipMapping.sharpness(frequency: points.last!.frequency) }
            let (a, b) = (points[k - 1], points[k])
            let f = b.time > a.time ? a.frequency + (b.frequency - a.frequency) * (t - a.time) / (b.time - a.time) : b.frequency
            return HapticClipMapping.sharpness(frequency: f)
        }
    }

    /// A control's value at a time: the last step or curve started by then (curve points
    /// joined by lines, the first and last values held), else the neutral value.
    struct Control {
        var entries: [(start: Double, points: [(t: Double, v: Double)])] = []
        let neutral: Double

        init(_ pattern: AHAPPattern, _ id: DynamicParameterID) {
            neutral = id.defaultValue
            func clamped(_ v: Double) -> Double { v.isFinite ? min(id.range.upperBound, max(id.range.lowerBound, v)) : id.defaultValue }
            for element in pattern.elements.prefix(Limits.maxElements) {
                switch element {
                case .parameter(let p) where p.id == id && p.time.isFinite: entries.append((p.time, [(p.time, clamped(p.value))]))
                case .curve(let c) where c.id == id && c.time.isFinite && !c.controlPoints.isEmpty:
                    let points = c.controlPoints.filter { $0.time.isFinite }.map { (t: c.time + $0.time, v: clamped($0.value)) }.sorted { $0.t < $1.t }
                    if !points.isEmpty { entries.append((c.time, points)) }
                default: continue
                }
            }
            // A later entry overrides an earlier one from its start (ties in file order: stable sort).
            entries = entries.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        }

        func value(at t: Double) -> Double {
            // The last entry started by t (sorted by start: a binary search, so a pattern of many
            // hits and curves costs no more than its size times a logarithm).
            var (lo, hi) = (0, entries.count)
            while lo < hi {
                let mid = (lo + hi) / 2
                if entries[mid].start <= t { lo = mid + 1 } else { hi = mid }
            }
            guard lo > 0 else { return neutral }
            let points = entries[lo - 1].points
            guard t > points[0].t else { return points[0].v }
            guard let k = points.firstIndex(where: { $0.t > t }) else { return points.last!.v }
            let (a, b) = (points[k - 1], points[k])
            return b.t > a.t ? a.v + (b.v - a.v) * (t - a.t) / (b.t - a.t) : b.v
        }
    }
}
