// What a conversion writes: strict-valid AHAP with Core Haptics' shapes (curves of at most
// 16 points with relative times, continuous events of at most 30 s, silence left silent,
// ducking under hits), a valid `.haptic`, and the breakpoint budget.

import Foundation
import HapticAnalysis
import HapticPattern
import HapticRender
import HapticTestSupport
import Testing

/// 40 s at 16 kHz (a rate other than the usual, and quick in a debug build): a drum-like
/// pattern of decaying 45 Hz thumps with clicks, a silent gap, and a long tone (a stretch
/// longer than 30 s).
private let busyRate = 16_000.0
private let busySound: [Float] = {
        var sound = Synth.tone(45, seconds: 40, rate: busyRate) { t in
            if t > 6 && t < 7.5 { return 0 }  // silence
            if t >= 7.5 { return 0.3 + 0.2 * sin(t) }  // a long swelling tone
            let beat = t.truncatingRemainder(dividingBy: 0.5)
            return 0.8 * exp(-beat / 0.08)
        }
        let clicks = Synth.clicks(at: stride(from: 0.25, to: 6, by: 0.5).map { Int($0 * busyRate) }, length: sound.count, amplitude: 0.5, shape: 2)
        for i in sound.indices { sound[i] += clicks[i] }
        return sound
}()
/// Its conversion with the default settings, made once for the suite.
private let busyConverted = try! SoundConverter.convert(busySound, analysis: AnalysisSettings(sampleRate: busyRate))

@Suite("Conversion output: AHAP and .haptic shapes")
struct ConversionOutputTests {
    let settings = AnalysisSettings(sampleRate: busyRate)

    @Test func theAHAPIsStrictValidAndShapedForCoreHaptics() throws {
        let converted = busyConverted
        let pattern = converted.ahapPattern(audio: "busy.wav")
        _ = try pattern.validate(options: .init(strict: true))
        var curves = 0
        for element in pattern.elements {
            switch element {
            case .curve(let c):
                curves += 1
                #expect(c.controlPoints.count <= 16 && c.controlPoints.count >= 2)
                #expect(c.controlPoints.first?.time == 0, "point times are relative to the curve's start")
                #expect(zip(c.controlPoints, c.controlPoints.dropFirst()).allSatisfy { $0.time <= $1.time })
            case .event(let e) where e.type == .hapticContinuous:
                #expect((e.duration ?? 0) <= 30 && (e.duration ?? 0) > 0)
            default: break
            }
        }
        #expect(curves > 4)
        // The gap stays silent: no continuous event covers 6.2…7.4 s.
        let continuous = pattern.events.filter { $0.type == .hapticContinuous }
        #expect(!continuous.contains { $0.time < 7.4 && $0.time + ($0.duration ?? 0) > 6.2 })
        // The long tone is covered by chained events with no gap.
        #expect(continuous.filter { $0.time >= 7 }.count >= 2)
        // A transient at every thump (0, 0.5, 1, ... 5.5 s: the sound starts with one), every
        // click (0.25, 0.75, ... 5.75 s) and the tone's start (7.5 s), within 5 ms; nothing else.
        let transients = pattern.events.filter { $0.type == .hapticTransient }.map(\.time)
        let expected = stride(from: 0, to: 6, by: 0.25).map { $0 } + [7.5]
        #expect(transients.count == expected.count, "\(transients)")
        for t in expected { #expect(transients.contains { abs($0 - t) < 0.005 }, "no transient at \(t) s") }
        #expect(pattern.events.first?.type == .audioCustom && pattern.events.first?.waveformPath == "busy.wav")
        // It renders.
        let prepared = try PreparedPattern(pattern, profile: .bassShaker, sampleRate: 48000, sounds: nil)
        #expect(prepared.duration > 39)
    }

    @Test func theContinuousLayerGivesWayUnderATransient() throws {
        // The ducking takes its share of the amplitude (intensity²), as Meta Haptics Studio's
        // does: at the default 50 % the intensity 10 ms after a hit is √0.5 of the layer
        // converted without ducking, and 50 ms after the two are the same again.
        let stretch = try #require(busyConverted.stretches.first)
        var c = ConversionSettings()
        c.ducking = 0
        let plain = try SoundConverter.convert(busySound, analysis: settings, conversion: c)
        let points = try #require(plain.stretches.first).intensity
        let kept = (1 - ConversionSettings().ducking).squareRoot()
        #expect(plain.transients == busyConverted.transients)
        for hit in busyConverted.transients where hit.time < 5.5 {
            let under = stretch.intensity.value(at: hit.time + 0.01), undipped = points.value(at: hit.time + 0.01)
            #expect(abs(under - kept * undipped) <= 0.05 * undipped + 0.01, "at \(hit.time + 0.01): \(under) vs \(undipped)")
            #expect(under < 0.8 * undipped)
            let ducked = stretch.intensity.value(at: hit.time + 0.05), back = points.value(at: hit.time + 0.05)
            #expect(abs(ducked - back) <= 0.1 * back + 0.01, "at \(hit.time + 0.05): \(ducked) vs \(back)")
        }
    }

    @Test(arguments: [5.0, 20, 40])
    func theBreakpointBudgetHolds(perSecond: Double) throws {
        var c = ConversionSettings()
        c.breakpointsPerSecond = perSecond
        let converted = try SoundConverter.convert(busySound, analysis: settings, conversion: c)
        // Per stretch and per one-second region: the budget plus the hits' mandatory points
        // (four per hit) plus the region's end point carried over.
        for stretch in converted.stretches {
            for second in Int(stretch.start)..<Int(stretch.end.rounded(.up)) {
                let region = stretch.intensity.filter { $0.time >= Double(second) && $0.time < Double(second + 1) }
                let hits = converted.transients.filter { $0.time >= Double(second) - 0.05 && $0.time < Double(second + 1) }.count
                #expect(region.count <= Int(perSecond) + 4 * hits + 2, "second \(second): \(region.count) points")
            }
        }
        #expect(converted.breakpointsPerSecond <= 2 * perSecond + 10)
    }

    @Test func theHapticClipIsValidAndMatchesTheAHAP() throws {
        let converted = busyConverted
        let clip = converted.hapticClip(metadata: .init(editor: "hapticsynth", source: "busy.wav"))
        let decoded = try HapticClip.decode(text: clip.encoded(), options: .init(strict: true))
        #expect(decoded.clip == clip)
        #expect(clip.amplitude.first?.time == 0)
        #expect(abs(clip.duration - 40) < 0.01)
        #expect(clip.amplitude.filter { $0.emphasis != nil }.count == converted.transients.count)
        // The clip's envelopes are the AHAP curves' (amplitude = intensity²) at every breakpoint.
        for stretch in converted.stretches {
            for p in stretch.intensity.prefix(50) {
                let t = ParameterCurve.roundedTime(p.time)
                if let bp = clip.amplitude.first(where: { $0.time == t }) {
                    #expect(abs(bp.amplitude - p.value * p.value) < 1e-6)
                }
            }
        }
    }
}
