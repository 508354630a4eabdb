// `convert-bench check`'s fidelity rule: a conversion's AHAP, traced through the voice
// (PatternTrace: the controls over every event, transients included), plays each transient at
// its analysed intensity and sharpness (within 0.02); the continuous layer's difference from its
// envelope (the stretches' curves) away from the ≤ 2 ms raises around transients and from the
// events' edges is reported. HapticAnalysisTests' TransientFidelityTests hold the synthetic sounds to
// the same rule.

import HapticAnalysis
import HapticKit

/// The largest differences between what `haptics`' AHAP plays and `haptics`.
func playbackDeviation(_ haptics: ConvertedHaptics, sampleRate: Double = 48_000) throws
    -> (transientsAgree: Bool, intensity: Double, sharpness: Double, level: Double)
{
    let trace = PatternTrace(try PreparedPattern(haptics.ahapPattern(), profile: .bassShaker, sampleRate: sampleRate, sounds: nil))
    let meant = haptics.transients.map { (ParameterCurve.roundedTime($0.time), $0.intensity, min(1, max(0, $0.sharpness))) }
        .sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
    let traced = trace.transients.map { ($0.time, $0.intensity, $0.sharpness) }.sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
    var intensity = 0.0, sharpness = 0.0, level = 0.0
    for (a, b) in zip(meant, traced) {
        intensity = max(intensity, abs(a.1 - b.1))
        sharpness = max(sharpness, abs(a.2 - b.2))
    }
    func value(_ points: [CurvePoint], _ t: Double) -> Double {
        guard let first = points.first, let last = points.last else { return 0 }
        if t <= first.time { return first.value }
        if t >= last.time { return last.value }
        var lo = 0, hi = points.count - 1
        while hi - lo > 1 { let mid = (lo + hi) / 2; if points[mid].time <= t { lo = mid } else { hi = mid } }
        let a = points[lo], b = points[hi]
        return a.value + (b.value - a.value) * (t - a.time) / (b.time - a.time)
    }
    let hitTimes = meant.map(\.0)
    let margin = 0.001 + 2 / sampleRate
    for (i, event) in trace.continuous.enumerated() {
        guard let stretch = haptics.stretches.first(where: { $0.start <= event.start + 1e-5 && event.start < $0.end }) else { continue }
        var t = max(event.start + 0.005, stretch.start + 0.003)
        let end = min(stretch.end, event.end) - 0.005
        while t < end {
            defer { t += 0.001 }
            var lo = 0, hi = hitTimes.count
            while lo < hi { let mid = (lo + hi) / 2; if hitTimes[mid] < t - margin { lo = mid + 1 } else { hi = mid } }
            if lo < hitTimes.count && hitTimes[lo] <= t + margin { continue }
            let played = trace.level(ofContinuous: i, at: t)
            let at = (t * sampleRate).rounded(.down) / sampleRate
            level = max(level, abs(played.intensity - value(stretch.intensity, at)))
            level = max(level, abs(played.sharpness - min(1, max(0, value(stretch.sharpness, at)))))
        }
    }
    return (meant.count == traced.count, intensity, sharpness, level)
}
