// A converted pattern plays as its analysis meant: each transient, traced through the voice
// with the curves over it (Core Haptics' rule: the intensity control multiplies and the
// sharpness control adds to every event sounding, transients included), at its analysed
// intensity and sharpness; the continuous layer at its envelope outside the ≤ 2 ms raises
// around transients (measured, not yet held: see `levelIntensity`). The synthetic sounds
// here; the evaluation set's every sound in `convert-bench check`.

import Foundation
import HapticAnalysis
import HapticPattern
import HapticRender
import HapticTestSupport
import Testing

/// How far what a conversion's AHAP plays is from the conversion: the largest differences.
struct PlaybackFidelity {
    var transients = 0
    var transientIntensity = 0.0
    var transientSharpness = 0.0
    /// The continuous layer's largest difference from the envelope away from raises (measured
    /// for the report; up to 0.025 on these sounds, not yet explained, so not asserted).
    var levelIntensity = 0.0
    var levelSharpness = 0.0
    var levelsProbed = 0
    /// The traced transients (time, intensity, sharpness), in time order.
    var traced: [(time: Double, intensity: Double, sharpness: Double)] = []

    init(_ converted: ConvertedHaptics, sampleRate: Double = 48_000) throws {
        let pattern = converted.ahapPattern()
        let trace = PatternTrace(try PreparedPattern(pattern, profile: .bassShaker, sampleRate: sampleRate, sounds: nil))
        // One order for both: time, then intensity (hits at one time are told apart by it).
        let meant = converted.transients.map { (ParameterCurve.roundedTime($0.time), $0.intensity, $0.sharpness) }
            .sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        traced = trace.transients.map { ($0.time, $0.intensity, $0.sharpness) }.sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        transients = traced.count == meant.count ? traced.count : -1
        for (a, b) in zip(meant, traced) {
            transientIntensity = max(transientIntensity, abs(a.1 - b.intensity))
            transientSharpness = max(transientSharpness, abs(min(1, max(0, a.2)) - b.sharpness))
        }
        // Continuous levels on a 1 ms grid, away from raises (a transient ± 1 ms and a sample),
        // from each event's edges (its envelope's attack and release) and from a stretch's start
        // (where the sharpness curve jumps from the one before, over a 1.5 ms ramp).
        let hitTimes = meant.map(\.0)
        let margin = 0.001 + 2 / sampleRate
        for (i, event) in trace.continuous.enumerated() {
            guard let stretch = converted.stretches.first(where: { $0.start <= event.start + 1e-5 && event.start < $0.end }) else { continue }
            var t = event.start + 0.005
            let end = min(stretch.end, event.end) - 0.005
            while t < end {
                defer { t += 0.001 }
                if t < stretch.start + 0.003 { continue }
                var lo = 0, hi = hitTimes.count  // the first hit after t − margin
                while lo < hi { let mid = (lo + hi) / 2; if hitTimes[mid] < t - margin { lo = mid + 1 } else { hi = mid } }
                if lo < hitTimes.count && hitTimes[lo] <= t + margin { continue }
                let level = trace.level(ofContinuous: i, at: t)
                let at = (t * sampleRate).rounded(.down) / sampleRate
                let meantIntensity = value(of: stretch.intensity, at: at)
                let meantSharpness = min(1, max(0, value(of: stretch.sharpness, at: at)))
                levelIntensity = max(levelIntensity, abs(level.intensity - meantIntensity))
                levelSharpness = max(levelSharpness, abs(level.sharpness - meantSharpness))
                levelsProbed += 1
            }
        }
    }

    func expectFaithful(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(transients >= 0, "\(name): a transient is missing from the trace", sourceLocation: sourceLocation)
        #expect(transientIntensity <= 0.02, "\(name): a transient plays \(transientIntensity) off its intensity", sourceLocation: sourceLocation)
        #expect(transientSharpness <= 0.02, "\(name): a transient plays \(transientSharpness) off its sharpness", sourceLocation: sourceLocation)
    }
}

@Suite("Conversion fidelity: transients play at their analysed values")
struct TransientFidelityTests {
    /// A 2 ms noise burst at 1.0 s, alone and over a steady 60 Hz sine.
    static func burst(overTone: Bool) -> [Float] {
        let n = Int(2 * Synth.rate)
        var sound = Synth.clicks(at: [Int(Synth.rate)], length: n, amplitude: 0.7, shape: 2)
        if overTone {
            let tone = Synth.tone(60, seconds: 2, envelope: { t in 0.3 * min(1, t / 0.1) })
            for i in sound.indices { sound[i] += tone[i] }
        }
        return sound
    }

    @Test func theSameHitPlaysTheSameAloneAndOverATone() throws {
        let settings = AnalysisSettings(sampleRate: Synth.rate)
        var played: [(intensity: Double, sharpness: Double)] = []
        var analysed: [Double] = []
        for overTone in [false, true] {
            let converted = try SoundConverter.convert(Self.burst(overTone: overTone), analysis: settings)
            let hit = try #require(converted.transients.first { abs($0.time - 1) < 0.005 }, "the burst is found (over the tone: \(overTone))")
            let fidelity = try PlaybackFidelity(converted)
            fidelity.expectFaithful(overTone ? "over the tone" : "alone")
            let traced = try #require(fidelity.traced.first { abs($0.time - hit.time) < 1e-5 })
            #expect(abs(traced.intensity - hit.intensity) <= 0.02, "intensity \(traced.intensity), analysed \(hit.intensity)")
            #expect(abs(traced.sharpness - hit.sharpness) <= 0.02, "sharpness \(traced.sharpness), analysed \(hit.sharpness)")
            played.append((traced.intensity, traced.sharpness))
            analysed.append(hit.sharpness)
            if overTone { #expect(!converted.stretches.isEmpty, "the tone is a continuous layer under the hit") }
        }
        // The same intensity alone and over the tone; the sharpness as far apart as the analysis
        // put them (it hears the tone's low end in the hit: 0.05 here), no further.
        #expect(abs(played[0].intensity - played[1].intensity) <= 0.02, "alone \(played[0]), over the tone \(played[1])")
        #expect(abs(abs(played[0].sharpness - played[1].sharpness) - abs(analysed[0] - analysed[1])) <= 0.02,
                "alone \(played[0]), over the tone \(played[1]), analysed sharpness \(analysed)")
    }

    /// Synthetic sounds of every kind the analysis meets: thumps with clicks and a gap (hits
    /// outside stretches, in gaps, at stretch starts), hits closer than 1 ms, a dull tone under
    /// sharp clicks (sharpness raised), loud clicks over a quiet hum (intensity raised).
    @Test(arguments: 0..<4)
    func syntheticSoundsPlayAsAnalysed(kind: Int) throws {
        let rate = Synth.rate
        var sound: [Float]
        switch kind {
        case 0:
            sound = Synth.tone(45, seconds: 4) { t in
                if t > 2 && t < 2.6 { return 0 }
                let beat = t.truncatingRemainder(dividingBy: 0.5)
                return 0.8 * exp(-beat / 0.06)
            }
            let clicks = Synth.clicks(at: stride(from: 0.25, to: 4, by: 0.5).map { Int($0 * rate) }, length: sound.count, amplitude: 0.5, shape: 2)
            for i in sound.indices { sound[i] += clicks[i] }
        case 1:
            sound = Synth.clicks(at: [24_000, 24_030, 48_000, 48_040, 48_080, 72_000], length: 96_000, amplitude: 0.8, shape: 1)
            let hum = Synth.tone(80, seconds: 2) { _ in 0.05 }
            for i in sound.indices { sound[i] += hum[i] }
        case 2:
            sound = Synth.tone(40, seconds: 3) { t in 0.6 * min(1, t / 0.2) }
            let clicks = Synth.clicks(at: stride(from: 0.3, to: 3, by: 0.37).map { Int($0 * rate) }, length: sound.count, amplitude: 0.9, shape: 1)
            for i in sound.indices { sound[i] += clicks[i] }
        default:
            sound = Synth.noise(seconds: 3, level: 0.4, fade: 0.5)
            let clicks = Synth.clicks(at: stride(from: 0.7, to: 3, by: 0.21).map { Int($0 * rate) }, length: sound.count, amplitude: 0.9, shape: 0)
            for i in sound.indices { sound[i] += clicks[i] }
        }
        let converted = try SoundConverter.convert(sound, analysis: AnalysisSettings(sampleRate: rate))
        #expect(!converted.transients.isEmpty)
        let fidelity = try PlaybackFidelity(converted)
        fidelity.expectFaithful("sound \(kind)")
    }

    @Test func theBusyPatternPlaysAsAnalysedAtAnotherRate() throws {
        // 16 kHz, as the shape suite's sound: a half sample is 31 µs of a 1 ms raise.
        let rate = 16_000.0
        let sound = Synth.tone(45, seconds: 6, rate: rate) { t in
            let beat = t.truncatingRemainder(dividingBy: 0.5)
            return 0.8 * exp(-beat / 0.08)
        }
        let converted = try SoundConverter.convert(sound, analysis: AnalysisSettings(sampleRate: rate))
        try PlaybackFidelity(converted, sampleRate: 48_000).expectFaithful("busy, played at 48 kHz")
        try PlaybackFidelity(converted, sampleRate: 16_000).expectFaithful("busy, played at 16 kHz")
    }
}
