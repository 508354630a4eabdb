import HapticPattern

// Transient bursts computed once at preparation. A pattern's transients mostly share a
// few sharpness values (the largest corpus file: 984 transients, 19 sharpnesses), and a
// burst's shape depends on its sharpness only — intensity just scales it — so playing one
// becomes a scaled add of a precomputed grain instead of two polynomial sines per sample.

/// Where one precomputed burst lives in `FlatPattern.grainSamples`.
struct GrainSpan {
    /// The burst's oscillator increment (the lookup key, compared exactly).
    var inc: Double
    var length: Int64
    var offset: Int
}

enum TransientGrains {
    /// At most this many samples of grains per prepared pattern by default (16 MB);
    /// transients beyond it are computed as they play, with identical samples.
    static let sampleBudget = 1 << 22

    /// One grain per distinct burst that the pattern's transients will play when no live
    /// sharpness control is applied (with one, `FlatPattern.grain` finds no match and the
    /// voice computes the burst). Spans are sorted by increment.
    static func build(
        events: [CompiledEvent], sharpnessControl: ControlTimeline, frequencyTable: [Double],
        profile: ActuatorProfile, sampleRate: Double, budget: Int = sampleBudget
    ) -> (spans: [GrainSpan], samples: [Float]) {
        let rule = profile.transientRule(sampleRate: sampleRate)
        let liveSharpness = DynamicParameterID.hapticSharpnessControl.defaultValue
        var seen: Set<UInt64> = []
        var spans: [GrainSpan] = []
        var samples: [Float] = []
        frequencyTable.withUnsafeBufferPointer { table in
            sharpnessControl.raw.withUnsafeBufferPointer { knots in
                for e in events where e.isTransient && e.level > 0 {
                    // The same sharpness as `VoiceState.activate`: the event's own plus the
                    // pattern's control at the onset, combined with the neutral live value.
                    let control = ControlTimeline.value(knots, at: e.onset, neutral: sharpnessControl.neutral)
                    let shape = TransientGeometry(
                        sharpness: e.colour + (control + liveSharpness), frequencyTable: table.baseAddress!,
                        sampleRate: sampleRate, rule: rule)
                    guard seen.insert(shape.inc.bitPattern).inserted else { continue }
                    let padded = Int((shape.length + 7) & ~7)
                    guard samples.count + padded <= budget else { continue }
                    spans.append(GrainSpan(inc: shape.inc, length: shape.length, offset: samples.count))
                    var k: Int64 = 0
                    while k < shape.length {
                        let v = transientLanes(k, shape.length, shape.inc, shape.quarterPerSample, shape.decayRate)
                        for l in 0..<8 { samples.append(v[l]) }
                        k += 8
                    }
                }
            }
        }
        spans.sort { $0.inc < $1.inc }
        return (spans, samples)
    }
}

extension ActuatorProfile {
    /// A transient's rule at `sampleRate`: length (`cycles` periods when > 0, else
    /// `fixedSamples` samples), rise and decay.
    package func transientRule(sampleRate: Double) -> TransientRule {
        TransientRule(
            cycles: transient.cycles ?? 0,
            fixedSamples: transient.cycles == nil ? (transient.milliseconds ?? 10) / 1000 * sampleRate : 0,
            attackSamples: transient.attackMs / 1000 * sampleRate, decayCycles: transient.decayCycles)
    }
}
