// What a conversion's AHAP plays, against what the conversion meant: the pattern traced through
// the voice (PatternTrace: the controls over every event, transients included), each transient's
// played intensity and sharpness next to its analysed values, and the continuous layer's
// played level next to its envelope (the stretches' curves) on a 1 ms grid, away from the
// ≤ 2 ms raises around transients (TransientCompensation) and from the events' edges (and the
// joins of a long stretch's 30 s events). The
// fidelity tests and `convert-bench check` hold conversions to it.

/// How far what a conversion's AHAP plays is from the conversion: the largest differences.
public struct ConversionPlayback: Sendable {
    /// A transient as the voice plays it.
    public struct Played: Sendable, Equatable {
        public var time: Double
        public var intensity: Double
        public var sharpness: Double
    }

    /// Transients analysed, and transients the trace finds.
    public var transientsMeant = 0
    public var transientsPlayed = 0
    /// The largest |played − analysed| over transients (paired in time order).
    public var transientIntensity = 0.0
    public var transientSharpness = 0.0
    /// The continuous layer's largest |played − envelope| away from raises and edges.
    public var levelIntensity = 0.0
    public var levelSharpness = 0.0
    /// Levels compared (0: nothing of the layer was looked at).
    public var levelsProbed = 0
    /// Curve knots that are neither the envelope's own points (as written: to the microsecond
    /// and 1e-6) nor within 1 ms of a transient (a raise: its knot and shoulders).
    public var raisedAwayFromTransients = 0
    /// The traced transients, in time order.
    public var played: [Played] = []

    /// Traces `converted`'s AHAP on the bass-shaker profile at `sampleRate`.
    public init(_ converted: ConvertedHaptics, sampleRate: Double = 48_000) throws {
        let pattern = converted.ahapPattern()
        let trace = PatternTrace(try PreparedPattern(pattern, profile: .bassShaker, sampleRate: sampleRate, sounds: nil))
        // One order for both: time, then intensity (hits at one time are told apart by it).
        let meant = converted.transients.map {
            Played(time: ParameterCurve.roundedTime($0.time), intensity: $0.intensity, sharpness: min(1, max(0, $0.sharpness)))
        }.sorted { ($0.time, $0.intensity, $0.sharpness) < ($1.time, $1.intensity, $1.sharpness) }
        played = trace.transients.map { Played(time: $0.time, intensity: $0.intensity, sharpness: $0.sharpness) }
            .sorted { ($0.time, $0.intensity, $0.sharpness) < ($1.time, $1.intensity, $1.sharpness) }
        transientsMeant = meant.count
        transientsPlayed = played.count
        for (a, b) in zip(meant, played) {
            transientIntensity = max(transientIntensity, abs(a.intensity - b.intensity))
            transientSharpness = max(transientSharpness, abs(a.sharpness - b.sharpness))
        }
        let hitTimes = meant.map(\.time)
        func nearAHit(_ t: Double, within margin: Double) -> Bool {
            var lo = 0, hi = hitTimes.count  // the first hit at or after t − margin
            while lo < hi {
                let mid = (lo + hi) / 2
                if hitTimes[mid] < t - margin { lo = mid + 1 } else { hi = mid }
            }
            return lo < hitTimes.count && hitTimes[lo] <= t + margin
        }

        func key(_ id: Int, _ t: Double, _ v: Double) -> [Int] { [id, Int((t * 1e6).rounded()), Int((v * 1e6).rounded())] }
        var own = Set<[Int]>()
        for stretch in converted.stretches {
            for p in stretch.intensity { own.insert(key(0, p.time, ParameterCurve.roundedValue(p.value))) }
            for p in stretch.sharpness { own.insert(key(1, p.time, ParameterCurve.roundedValue(p.value))) }
        }
        for element in pattern.elements {
            guard case .curve(let curve) = element else { continue }
            let id = curve.id == .hapticIntensityControl ? 0 : 1
            for point in curve.controlPoints {
                let t = curve.time + point.time
                if !own.contains(key(id, t, point.value)), !nearAHit(t, within: TransientCompensation.raiseHalfWidth + 2e-6) {
                    raisedAwayFromTransients += 1
                }
            }
        }

        // Levels on a 1 ms grid, away from raises (a transient ± 1 ms and two samples), from each
        // event's edges (its envelope's attack and release) and from a stretch's start (where
        // the sharpness curve jumps from the one before, over the renderer's 1.5 ms ramp).
        let margin = TransientCompensation.raiseHalfWidth + 2 / sampleRate
        for (i, event) in trace.continuous.enumerated() {
            guard let stretch = converted.stretches.first(where: { $0.start <= event.start + 1e-5 && event.start < $0.end }) else { continue }
            // A stretch longer than 30 s is several events, one after the other: each is probed
            // up to where the next begins (its release under the next one's attack, the join
            // itself, is left out).
            let next = trace.continuous.indices.contains(i + 1) ? trace.continuous[i + 1].start : Double.infinity
            var t = max(event.start + 0.005, stretch.start + 0.003)
            let end = min(stretch.end, event.end, next) - 0.005
            while t < end {
                defer { t += 0.001 }
                if nearAHit(t, within: margin) { continue }
                let level = trace.level(ofContinuous: i, at: t)
                // The level is the sample's at or before t: the envelope there.
                let at = (t * sampleRate).rounded(.down) / sampleRate
                levelIntensity = max(levelIntensity, abs(level.intensity - stretch.intensity.value(at: at)))
                levelSharpness = max(levelSharpness, abs(level.sharpness - min(1, max(0, stretch.sharpness.value(at: at)))))
                levelsProbed += 1
            }
        }
    }
}
