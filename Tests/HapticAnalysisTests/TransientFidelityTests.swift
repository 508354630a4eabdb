// A converted pattern plays as its analysis meant: each transient, traced through the voice
// with the curves over it (Core Haptics' rule: the intensity control multiplies and the
// sharpness control adds to every event sounding, transients included), at its analysed
// intensity and sharpness; the continuous layer at its envelope outside the ≤ 2 ms raises
// around transients (see `levelTolerance` for the tolerance and why). The synthetic sounds
// here; the evaluation set's every sound in `convert-bench check`.

import Foundation
import HapticAnalysis
import HapticKit
import HapticPattern
import HapticRender
import HapticTestSupport
import Testing

/// The fidelity rule: transients within 0.02 of their analysed values, none missing; the
/// continuous layer within `levelTolerance` of its envelope; no curve raised away from a transient.
extension ConversionPlayback {
    /// The continuous layer's largest difference from the envelope away from raises. Not 0:
    /// the renderer puts each curve's start on a whole sample (ControlCompiler) while its points
    /// keep their fractional offsets, so the layer plays its envelope shifted by up to half a
    /// sample (its slope × 10 µs), and its control rows are Float. Measured on these sounds:
    /// at most 0.00014 (the tests print it). Before the control timeline told a chained curve's
    /// hand-over from a jump and ramped jumps onto the curve's line, 0.026.
    static let levelTolerance = 0.001

    func expectFaithful(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(transientsPlayed == transientsMeant, "\(name): \(transientsPlayed) transients traced of \(transientsMeant)", sourceLocation: sourceLocation)
        #expect(transientIntensity <= 0.02, "\(name): a transient plays \(transientIntensity) off its intensity", sourceLocation: sourceLocation)
        #expect(transientSharpness <= 0.02, "\(name): a transient plays \(transientSharpness) off its sharpness", sourceLocation: sourceLocation)
        #expect(raisedAwayFromTransients == 0, "\(name): \(raisedAwayFromTransients) curve knots raised farther than 1 ms from a transient", sourceLocation: sourceLocation)
        #expect(levelsProbed > 0, "\(name): the continuous layer is probed", sourceLocation: sourceLocation)
        #expect(levelIntensity <= Self.levelTolerance, "\(name): the continuous layer is \(levelIntensity) off its envelope", sourceLocation: sourceLocation)
        #expect(levelSharpness <= Self.levelTolerance, "\(name): the continuous layer's sharpness is \(levelSharpness) off", sourceLocation: sourceLocation)
        print("fidelity \(name): \(transientsPlayed) transients, largest off \(transientIntensity) / \(transientSharpness); "
              + "continuous layer (\(levelsProbed) levels) off \(levelIntensity) / \(levelSharpness)")
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
            let fidelity = try ConversionPlayback(converted)
            fidelity.expectFaithful(overTone ? "over the tone" : "alone")
            let traced = try #require(fidelity.played.first { abs($0.time - hit.time) < 1e-5 })
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
        let fidelity = try ConversionPlayback(converted)
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
        try ConversionPlayback(converted, sampleRate: 48_000).expectFaithful("busy, played at 48 kHz")
        try ConversionPlayback(converted, sampleRate: 16_000).expectFaithful("busy, played at 16 kHz")
    }
}

@Suite(".haptic ↔ AHAP fidelity: an emphasis plays at its values, a transient is read at what it plays")
struct ClipTransientFidelityTests {
    /// A clip as Lofelt's tools write them: breakpoints about 1 ms apart (so a raise has no room
    /// for shoulders), emphasis above and below the envelope, a frequency envelope that a
    /// transient's sharpness lies above and below.
    static let lofeltLike: HapticClip = {
        var amplitude: [HapticClip.AmplitudeBreakpoint] = []
        for k in 0..<200 {
            let t = Double(k) * 0.000998
            let a = 0.3 + 0.25 * sin(Double(k) / 9)
            let emphasis: HapticClip.Emphasis? = k % 37 == 5 ? .init(amplitude: min(1, a + 0.4), frequency: Double(k % 3) / 2) : nil
            amplitude.append(.init(time: t, amplitude: a, emphasis: emphasis))
        }
        let frequency = stride(from: 0, to: 0.2, by: 0.000998).enumerated().map {
            HapticClip.FrequencyBreakpoint(time: $0.element, frequency: 0.4 + 0.3 * cos(Double($0.offset) / 7))
        }
        return HapticClip(amplitude: amplitude, frequency: frequency)
    }()

    @Test func anEmphasisPlaysAtItsAmplitudeAndFrequency() throws {
        let clip = Self.lofeltLike
        let emphasised = clip.amplitude.filter { $0.emphasis != nil }
        #expect(emphasised.count == 6)
        let trace = PatternTrace(try PreparedPattern(clip.ahapPattern(), profile: .bassShaker, sampleRate: 48_000, sounds: nil))
        #expect(trace.transients.count == emphasised.count)
        for (point, played) in zip(emphasised, trace.transients) {
            let e = try #require(point.emphasis)
            #expect(abs(played.time - point.time) < 1 / 48_000.0)
            #expect(abs(played.intensity - e.amplitude.squareRoot()) <= 0.02, "at \(point.time): plays \(played.intensity), emphasis √\(e.amplitude)")
            #expect(abs(played.sharpness - e.frequency) <= 0.02, "at \(point.time): plays \(played.sharpness), emphasis frequency \(e.frequency)")
        }
    }

    @Test func aTransientUnderACurveBecomesAnEmphasisAtWhatItPlays() throws {
        // Intensity 0.8 under a curve at 0.5, sharpness 0.3 over a curve at 0.2: it plays at 0.4
        // and 0.5, so the emphasis is 0.4² and 0.5 (over the layer's (0.6 × 0.5)²).
        let text = """
            {"Pattern": [
              {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5, "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 0.6}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}},
              {"Event": {"Time": 0.2, "EventType": "HapticTransient", "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 0.8}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.3}]}},
              {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [
                {"Time": 0, "ParameterValue": 0.5}, {"Time": 0.5, "ParameterValue": 0.5}]}},
              {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterCurveControlPoints": [
                {"Time": 0, "ParameterValue": 0.2}, {"Time": 0.5, "ParameterValue": 0.2}]}}
            ]}
            """
        let pattern = try AHAPPattern.decode(text: text).pattern
        let played = try #require(PatternTrace(try PreparedPattern(pattern, profile: .bassShaker, sampleRate: 48_000, sounds: nil)).transients.first)
        #expect(abs(played.intensity - 0.4) < 1e-6 && abs(played.sharpness - 0.5) < 1e-6)
        let clip = HapticClip(pattern: pattern)
        let emphasis = try #require(clip.amplitude.first { $0.emphasis != nil })
        #expect(emphasis.time == 0.2)
        #expect(abs(emphasis.emphasis!.amplitude - 0.16) < 1e-9 && abs(emphasis.emphasis!.frequency - 0.5) < 1e-9, "\(emphasis)")
        // And back: the emphasis plays as the transient did.
        let again = try #require(PatternTrace(try PreparedPattern(clip.ahapPattern(), profile: .bassShaker, sampleRate: 48_000, sounds: nil)).transients.first)
        #expect(abs(again.intensity - 0.4) < 1e-6 && abs(again.sharpness - 0.5) < 1e-6, "\(again)")
    }
}

@Suite("Conversion fidelity: a hit on a steep curve, read at its onset rounded to a sample")
struct SteepCurveFidelityTests {
    /// A 44.1 kHz sound as the evaluation set's Kick1: a loud click 5 samples in (0.113 ms, a
    /// fractional sample at 48 kHz) over a tone from the first sample, so the hit's raise sits
    /// on the curve's rise from 0 at the stretch's start; more clicks over the tone later.
    static func kick() -> [Float] {
        let rate = 44_100.0
        var sound = Synth.tone(55, seconds: 2, rate: rate) { _ in 0.3 }
        let clicks = Synth.clicks(at: [5, 30_005, 60_007], length: sound.count, amplitude: 0.9, shape: 1)
        for i in sound.indices { sound[i] += clicks[i] }
        return sound
    }

    @Test(arguments: [44_100.0, 48_000.0, 8_000.0])
    func hitsOnASteepCurvePlayAsAnalysed(playedAt rate: Double) throws {
        let converted = try SoundConverter.convert(Self.kick(), analysis: AnalysisSettings(sampleRate: 44_100))
        let first = try #require(converted.transients.first)
        #expect(first.time < 0.0005, "the first click is a hit at the sound's start: \(first.time)")
        try ConversionPlayback(converted, sampleRate: rate).expectFaithful("kick, played at \(Int(rate)) Hz")
    }
}
