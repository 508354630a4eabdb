// The `.haptic` reader, writer and conversions: the spec's rules, hostile numbers, and
// round trips (.haptic → AHAP → .haptic keeps the envelopes within 1e-3 away from the 1 ms
// raises around each emphasis, and each emphasis exactly).

import Foundation
import HapticPattern
import HapticTestSupport
import Testing

/// A clip in the spec's shape, our own numbers.
let gearClip = """
    {
      "version": {"major": 1, "minor": 0, "patch": 0},
      "metadata": {"editor": "Meta Haptics Studio 2.1", "source": "gear.wav", "tags": ["machine"], "description": "a gear", "rating": 4},
      "signals": {"continuous": {"envelopes": {
        "amplitude": [
          {"time": 0.0, "amplitude": 0.0},
          {"time": 0.2, "amplitude": 0.12},
          {"time": 0.5, "amplitude": 0.7, "emphasis": {"amplitude": 0.9, "frequency": 0.6}},
          {"time": 0.62, "amplitude": 0.08},
          {"time": 0.9, "amplitude": 0.0}
        ],
        "frequency": [
          {"time": 0.0, "frequency": 0.1},
          {"time": 0.15, "frequency": 0.48},
          {"time": 0.5, "frequency": 0.95},
          {"time": 0.9, "frequency": 0.2}
        ]
      }}}
    }
    """

func clipText(amplitude: String, frequency: String = "[]", extra: String = "") -> String {
    """
    {"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {}, \(extra)
     "signals": {"continuous": {"envelopes": {"amplitude": \(amplitude), "frequency": \(frequency)}}}}
    """
}

func clipError(_ text: String, strict: Bool = false) -> AHAPError? {
    do {
        _ = try HapticClip.decode(text: text, options: .init(strict: strict))
        Issue.record("expected an error, but it decoded")
        return nil
    } catch {
        return error
    }
}

/// The amplitude (or frequency) of a clip's envelope at `t`, linear between breakpoints; at a
/// time with several breakpoints (a jump), the last one's (the value from there on).
func envelope(_ points: [(time: Double, value: Double)], at t: Double, default value: Double = 0) -> Double {
    guard let first = points.first else { return value }
    if t < first.time { return first.value }
    var k = 0
    while k + 1 < points.count && points[k + 1].time <= t { k += 1 }
    guard k + 1 < points.count else { return points[k].value }
    let a = points[k], b = points[k + 1]
    return a.value + (b.value - a.value) * (t - a.time) / (b.time - a.time)
}

/// Checks that two clips' envelopes and emphasis agree within `tolerance` (at every breakpoint
/// of either and halfway between, and on a 1 ms grid, from the later first breakpoint on),
/// except within `TransientCompensation.raiseHalfWidth` (1 ms) of an emphasis of either: there
/// the AHAP's curves are raised so that the emphasis plays at its values, and the clip read
/// back keeps that raise (HapticClip+AHAP.swift). Each emphasis's time and values agree within
/// `emphasisTolerance` (the conversion is exact: 1e-6).
func expectSameEnvelopes(
    _ a: HapticClip, _ b: HapticClip, tolerance: Double = 1e-3, emphasisTolerance: Double = 1e-6, _ name: String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let aa = a.amplitude.map { ($0.time, $0.amplitude) }, ba = b.amplitude.map { ($0.time, $0.amplitude) }
    let af = a.frequency.map { ($0.time, $0.frequency) }, bf = b.frequency.map { ($0.time, $0.frequency) }
    #expect(abs(a.duration - b.duration) <= tolerance, "\(name): duration \(a.duration) vs \(b.duration)", sourceLocation: sourceLocation)
    let start = max(a.amplitude.first?.time ?? 0, b.amplitude.first?.time ?? 0), end = min(a.duration, b.duration)
    let breakpoints = (a.amplitude.map(\.time) + b.amplitude.map(\.time) + a.frequency.map(\.time) + b.frequency.map(\.time)).sorted()
    // Times within 2 µs of a breakpoint are left out: the writer rounds times to the microsecond,
    // which moves a jump by that much.
    let probes = Set(breakpoints + zip(breakpoints, breakpoints.dropFirst()).map { ($0 + $1) / 2 } + stride(from: start, through: end, by: 0.001).map { $0 })
        .filter { t in t >= start && t <= end && !breakpoints.contains { abs($0 - t) < 2e-6 && $0 != t } }
        // The raise's window: 1 ms either side, and the writer's 2 µs of time rounding.
        let emphasisTimes = (a.amplitude + b.amplitude).filter { $0.emphasis != nil }.map(\.time).sorted()
        let window = TransientCompensation.raiseHalfWidth + 2e-6
        let outside = probes.filter { t in !emphasisTimes.contains { abs($0 - t) <= window } }.sorted()
    var worstA = 0.0, worstF = 0.0
    for t in outside {
        worstA = max(worstA, abs(envelope(aa, at: t) - envelope(ba, at: t)))
        worstF = max(worstF, abs(envelope(af, at: t, default: 0.5) - envelope(bf, at: t, default: 0.5)))
    }
    #expect(worstA <= tolerance, "\(name): amplitude differs by \(worstA)", sourceLocation: sourceLocation)
    #expect(worstF <= tolerance, "\(name): frequency differs by \(worstF)", sourceLocation: sourceLocation)
    // (An exact repeat, the same breakpoint and emphasis twice, as Studio's exports have a few
    // of, is one transient: counted once.)
    func emphasis(_ c: HapticClip) -> [(Double, HapticClip.Emphasis)] {
        var seen: [(Double, HapticClip.Emphasis)] = []
        for p in c.amplitude {
            guard let e = p.emphasis else { continue }
            if let last = seen.last, last.0 == p.time, last.1 == e { continue }
            seen.append((p.time, e))
        }
        return seen.sorted { ($0.0, $0.1.amplitude) < ($1.0, $1.1.amplitude) }
    }
    let ea = emphasis(a), eb = emphasis(b)
    #expect(ea.count == eb.count, "\(name): \(ea.count) vs \(eb.count) emphasis", sourceLocation: sourceLocation)
    for (x, y) in zip(ea, eb) {
        #expect(abs(x.0 - y.0) <= emphasisTolerance && abs(x.1.amplitude - y.1.amplitude) <= emphasisTolerance
                    && abs(x.1.frequency - y.1.frequency) <= emphasisTolerance,
                "\(name): emphasis \(x) vs \(y)", sourceLocation: sourceLocation)
    }
}

@Suite(".haptic reading and writing")
struct HapticClipReadingTests {
    @Test func theSpecsShapeReadsAndWritesBackExactly() throws {
        let decoded = try HapticClip.decode(text: gearClip, options: .init(strict: true))
        let clip = decoded.clip
        #expect(decoded.warnings.isEmpty)
        #expect(clip.amplitude.count == 5 && clip.frequency.count == 4)
        #expect(clip.amplitude[2].emphasis == .init(amplitude: 0.9, frequency: 0.6))
        #expect(clip.metadata.editor == "Meta Haptics Studio 2.1" && clip.metadata.tags == ["machine"])
        #expect(clip.metadata.other.first?.key == "rating", "unknown metadata is kept")
        #expect(clip.duration == 0.9)
        let again = try HapticClip.decode(text: clip.encoded(), options: .init(strict: true)).clip
        #expect(again == clip)
    }

    @Test func anEmptyFrequencyEnvelopeIsValid() throws {
        let clip = try HapticClip.decode(text: clipText(amplitude: #"[{"time": 0, "amplitude": 0.5}, {"time": 1, "amplitude": 0.5}]"#), options: .init(strict: true)).clip
        #expect(clip.frequency.isEmpty)
        let pattern = clip.ahapPattern()
        let continuous = pattern.events.first { $0.type == .hapticContinuous }
        #expect(abs((continuous?.value(of: .hapticSharpness) ?? 0) - 0.5.squareRoot()) < 1e-6, "the default frequency 0.5 plays")
    }

    @Test func theSpecsRulesAreKept() {
        // Fewer than two breakpoints, zero duration, times going back, a bad version.
        #expect(clipError(clipText(amplitude: #"[{"time": 0, "amplitude": 0.5}]"#))?.message.contains("at least two breakpoints") == true)
        #expect(clipError(clipText(amplitude: #"[{"time": 1, "amplitude": 0.5}, {"time": 1, "amplitude": 0.2}]"#))?.message.contains("lasts 0 s") == true)
        let back = clipError(clipText(amplitude: #"[{"time": 0, "amplitude": 0}, {"time": 0.5, "amplitude": 1}, {"time": 0.2, "amplitude": 0}]"#))
        #expect(back?.path == "signals.continuous.envelopes.amplitude[2].time")
        let version = clipError(#"{"version": {"major": 2, "minor": 0, "patch": 0}, "metadata": {}, "signals": {}}"#)
        #expect(version?.message.contains("version 2 is not supported") == true)
        #expect(clipError(#"{"version": {"major": 1.5, "minor": 0, "patch": 0}}"#)?.kind == .wrongType)
        #expect(clipError(#"{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {}}"#)?.message.contains("signals is missing") == true)
        #expect(clipError(#"[1, 2]"#)?.kind == .missingPattern)
        #expect(clipError("")?.kind == .syntax)
    }

    @Test func whatTheLenientReaderFixesStrictRefuses() throws {
        // An amplitude over 1, an emphasis below its breakpoint, a frequency after the end,
        // an unknown key, missing metadata.
        let text = """
            {"version": {"major": 1, "minor": 0, "patch": 0}, "extra": true,
             "signals": {"continuous": {"envelopes": {
               "amplitude": [{"time": 0, "amplitude": 1.5}, {"time": 0.5, "amplitude": 0.6, "emphasis": {"amplitude": 0.3, "frequency": 0.5}}, {"time": 1, "amplitude": 0}],
               "frequency": [{"time": 0, "frequency": 0.2}, {"time": 2, "frequency": 0.3}]}}}}
            """
        let decoded = try HapticClip.decode(text: text)
        let kinds = Set(decoded.warnings.map(\.kind))
        #expect(kinds == [.clamped, .ignored, .unknownKey, .defaultApplied], "\(decoded.warnings)")
        #expect(decoded.clip.amplitude[0].amplitude == 1)
        #expect(decoded.clip.amplitude[1].emphasis?.amplitude == 0.6, "raised to its breakpoint")
        #expect(decoded.clip.frequency.count == 1, "the late breakpoint is left out")
        #expect(clipError(text, strict: true)?.kind == .strict(.unknownKey))
    }

    @Test("hostile numbers: one error naming where, no trap", arguments: [
        (#"[{"time": 0, "amplitude": 0}, {"time": 1e308, "amplitude": 1}]"#, "amplitude[1].time", "past the 3600"),
        (#"[{"time": -1, "amplitude": 0}, {"time": 1, "amplitude": 1}]"#, "amplitude[0].time", "not negative"),
        (#"[{"time": 0, "amplitude": 0}, {"time": 1e400, "amplitude": 1}]"#, "", "too large"),
        (#"[{"time": 0, "amplitude": 0}, {"time": NaN, "amplitude": 1}]"#, "", "NaN"),
        (#"[{"time": 0, "amplitude": "loud"}, {"time": 1, "amplitude": 1}]"#, "amplitude[0].amplitude", "must be a number"),
        (#"[{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 1, "emphasis": {"amplitude": 1}}]"#, "amplitude[1].emphasis", "frequency is missing"),
    ])
    func hostileNumbers(amplitude: String, path: String, message: String) {
        let error = clipError(clipText(amplitude: amplitude))
        #expect(error?.path.hasSuffix(path) == true || error?.line != nil, "\(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    @Test func negativeZeroAndHugeValuesAreClampedOrKept() throws {
        let text = clipText(amplitude: #"[{"time": -0.0, "amplitude": -0.0}, {"time": 1, "amplitude": 1e308, "emphasis": {"amplitude": -1e308, "frequency": 1e308}}]"#)
        let decoded = try HapticClip.decode(text: text)
        #expect(decoded.clip.amplitude[0].time == 0 && decoded.clip.amplitude[0].amplitude == 0)
        #expect(decoded.clip.amplitude[1].amplitude == 1 && decoded.clip.amplitude[1].emphasis == .init(amplitude: 1, frequency: 1))
        _ = decoded.clip.ahapPattern().encoded()
    }

    @Test func hugeArraysAreRefusedAtTheLimit() {
        let point = #"{"time": 0.001, "amplitude": 0.5},"#
        let text = clipText(amplitude: "[" + #"{"time": 0, "amplitude": 0},"# + String(repeating: point, count: Limits.maxControlPoints) + #"{"time": 1, "amplitude": 0}]"#)
        let error = clipError(text)
        #expect(error?.message.contains("more than \(Limits.maxControlPoints) breakpoints") == true, "\(String(describing: error))")
    }

    @Test func aHapticFileIsToldFromAHAPByItsContent() {
        #expect(HapticClip.looksLikeHapticClip(Array(gearClip.utf8)))
        #expect(!HapticClip.looksLikeHapticClip(Array(#"{"Version": 1, "Pattern": []}"#.utf8)))
        #expect(!HapticClip.looksLikeHapticClip(Array("not json".utf8)))
        #expect(!HapticClip.looksLikeHapticClip([]))
    }
}

@Suite(".haptic ↔ AHAP")
struct HapticClipConversionTests {
    @Test func aClipBecomesTheAHAPMetaHapticsStudioWouldExport() throws {
        let clip = try HapticClip.decode(text: gearClip).clip
        let pattern = clip.ahapPattern()
        _ = try pattern.validate(options: .init(strict: true))
        let continuous = pattern.events.filter { $0.type == .hapticContinuous }
        #expect(continuous.count == 1 && continuous[0].time == 0 && continuous[0].duration == 0.9)
        #expect(continuous[0].value(of: .hapticIntensity) == 1 && continuous[0].value(of: .hapticSharpness) == 0)
        // The emphasis (amplitude 0.9 over a breakpoint of 0.7, frequency 0.6 where the sharpness
        // curve is √0.95) plays at √0.9 and 0.6 through the curves: the intensity curve is raised
        // to √0.9 at 0.5 s and the sharpness curve lowered to 0.6 there, each back to its own
        // values 1 ms either side, and the transient is written as 1 and 0.
        let transient = try #require(pattern.events.first { $0.type == .hapticTransient })
        #expect(transient.time == 0.5)
        #expect(transient.value(of: .hapticIntensity) == 1 && transient.value(of: .hapticSharpness) == 0)
        let curves = pattern.elements.compactMap { (e: PatternElement) -> ParameterCurve? in if case .curve(let c) = e { c } else { nil } }
        let intensity = try #require(curves.first { $0.id == .hapticIntensityControl })
        let line = { (a: Double, b: Double, f: Double) in (a + (b - a) * f).squareRoot() }  // the shoulders lie on the clip's own line
        let expectedIntensity = [0, 0.12.squareRoot(), line(0.12, 0.7, 0.299 / 0.3), 0.9.squareRoot(), line(0.7, 0.08, 0.001 / 0.12), 0.08.squareRoot(), 0]
        #expect(zip(intensity.controlPoints.map(\.time), [0, 0.2, 0.499, 0.5, 0.501, 0.62, 0.9]).allSatisfy { abs($0 - $1) < 1e-12 })
        #expect(zip(intensity.controlPoints.map(\.value), expectedIntensity).allSatisfy { abs($0 - $1) < 1e-9 } && intensity.controlPoints.count == 7,
                "\(intensity.controlPoints) vs \(expectedIntensity)")
        let sharpness = try #require(curves.first { $0.id == .hapticSharpnessControl })
        #expect(sharpness.controlPoints.count == 6 && abs(sharpness.controlPoints[3].value - 0.6) < 1e-12, "\(sharpness.controlPoints)")
        let times = sharpness.controlPoints.map(\.time)
        #expect(zip(times, [0, 0.15, 0.499, 0.5, 0.501, 0.9]).allSatisfy { abs($0 - $1) < 1e-12 }, "\(times)")
    }

    @Test func longClipsAreChainedInCurvesOf16PointsAndEventsOf30Seconds() throws {
        let amplitude = (0...400).map { HapticClip.AmplitudeBreakpoint(time: Double($0) * 0.2, amplitude: Double($0 % 7) / 7) }
        let clip = HapticClip(amplitude: amplitude, frequency: [.init(time: 0, frequency: 0.2), .init(time: 80, frequency: 0.9)])
        let pattern = clip.ahapPattern()
        _ = try pattern.validate(options: .init(strict: true))
        let curves = pattern.elements.compactMap { (e: PatternElement) -> ParameterCurve? in if case .curve(let c) = e { c } else { nil } }
            .filter { $0.id == .hapticIntensityControl }
        #expect(curves.allSatisfy { $0.controlPoints.count <= 16 && $0.controlPoints[0].time == 0 })
        #expect(curves.count == 27)  // 401 points, 15 new ones per curve after the first's 16
        let continuous = pattern.events.filter { $0.type == .hapticContinuous }
        #expect(continuous.map(\.time) == [0, 30, 60] && continuous.map { $0.duration ?? 0 } == [30, 30, 20])
        expectSameEnvelopes(clip, HapticClip(pattern: pattern), "chained")
    }

    @Test func aClipComesBackFromAHAPWithin1e3() throws {
        let clip = try HapticClip.decode(text: gearClip).clip
        let back = HapticClip(pattern: clip.ahapPattern())
        expectSameEnvelopes(clip, back, "gear")
        #expect(back.metadata == clip.metadata)
    }

    @Test(arguments: 0..<20)
    func randomClipsComeBackFromAHAPWithin1e3(seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) + 100)
        func uniform() -> Double { Double(random.next() % 1_000_001) / 1_000_000 }
        var t = uniform() < 0.3 ? uniform() : 0
        var amplitude: [HapticClip.AmplitudeBreakpoint] = []
        var repeated = false
        for k in 0..<(2 + Int(random.next() % 120)) {
            // Two breakpoints at one time (a jump) happen; three (a zero-length middle value,
            // which no player can play and AHAP cannot hold) are left out.
            if k > 0 {
                let jump = !repeated && uniform() < 0.1
                t += jump ? 0 : uniform() * 0.4
                repeated = jump
            }
            let a = uniform()
            // At most one emphasis per time: two at one jump share one raise, which can lift the
            // jump's right value above the weaker one, and the reader cannot then put it back on
            // a breakpoint it reaches (a known limit of the round trip, not held here).
            let taken = amplitude.last.map { $0.time == t && $0.emphasis != nil } ?? false
            amplitude.append(.init(time: t, amplitude: a, emphasis: !taken && uniform() < 0.2 ? .init(amplitude: max(a, uniform()), frequency: uniform()) : nil))
        }
        if amplitude[amplitude.count - 1].time == amplitude[0].time { amplitude[amplitude.count - 1].time += 0.5 }
        let end = amplitude[amplitude.count - 1].time
        var frequency: [HapticClip.FrequencyBreakpoint] = []
        var f = 0.0
        while uniform() < 0.9 && f <= end {
            frequency.append(.init(time: f, frequency: uniform()))
            f += uniform() * 0.5
        }
        let clip = HapticClip(amplitude: amplitude, frequency: frequency)
        let text = clip.encoded()
        let decoded = try HapticClip.decode(text: text, options: .init(strict: true)).clip
        #expect(decoded == clip)
        let pattern = clip.ahapPattern()
        _ = try pattern.validate(options: .init(strict: true))
        let back = HapticClip(pattern: try AHAPPattern.decode(text: pattern.encoded()).pattern)
        expectSameEnvelopes(clip, back, "seed \(seed)")
        // And once more: the second round trip changes nothing further.
        expectSameEnvelopes(back, HapticClip(pattern: back.ahapPattern()), tolerance: 1e-6, "seed \(seed), twice")
    }

    @Test func aDesignersAHAPBecomesTheClipItPlays() throws {
        // Two continuous events with a gap, their own intensities and sharpness, a curve, transients.
        let text = """
            {"Pattern": [
              {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.4, "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.2}]}},
              {"Event": {"Time": 0.3, "EventType": "HapticTransient", "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 0.9}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.7}]}},
              {"Event": {"Time": 0.8, "EventType": "HapticContinuous", "EventDuration": 0.2, "EventParameters": [
                {"ParameterID": "HapticIntensity", "ParameterValue": 1.0}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.2}]}},
              {"Event": {"Time": 0.0, "EventType": "AudioCustom", "EventWaveformPath": "x.wav"}},
              {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.1, "ParameterCurveControlPoints": [
                {"Time": 0, "ParameterValue": 1}, {"Time": 0.4, "ParameterValue": 0.5}]}}
            ]}
            """
        let pattern = try AHAPPattern.decode(text: text).pattern
        let (clip, notes) = HapticClip.converting(pattern)
        #expect(notes.count == 1 && notes[0].contains("audio"))
        _ = try HapticClip.decode(text: clip.encoded(), options: .init(strict: true))
        let points = clip.amplitude.map { ($0.time, $0.amplitude) }
        #expect(envelope(points, at: 0.05) == 0, "silent before the first event")
        #expect(abs(envelope(points, at: 0.1) - 0.25) < 1e-9, "(0.5 × 1)² from the event's start")
        #expect(abs(envelope(points, at: 0.499999) - 0.0625) < 1e-5, "(0.5 × 0.5)² at the curve's end")
        #expect(envelope(points, at: 0.65) == 0, "the gap is silent")
        #expect(abs(envelope(points, at: 0.9) - 0.25) < 1e-9, "(1 × 0.5, the curve held)²")
        let emphasis = try #require(clip.amplitude.first { $0.emphasis != nil })
        // The transient plays at 0.9 × the curve's 0.75 there: that is the emphasis.
        #expect(emphasis.time == 0.3 && abs(emphasis.emphasis!.amplitude - 0.675 * 0.675) < 1e-9 && emphasis.emphasis!.frequency == 0.7)
        #expect(clip.frequency.allSatisfy { abs($0.frequency - 0.04) < 1e-9 }, "sharpness 0.2 → frequency 0.04")
    }

    @Test func realClipsFromProfessionalToolsRoundTripWithin1e3() throws {
        let files = EvaluationSet.files(withExtension: "haptic")
        guard !files.isEmpty else { return }
        var checked = 0
        for path in files {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let clip = try HapticClip.decode(from: bytes).clip
            let pattern = clip.ahapPattern()
            _ = try pattern.validate(options: .init(strict: true))
            let back = try HapticClip.decode(text: HapticClip(pattern: try AHAPPattern.decode(text: pattern.encoded()).pattern).encoded()).clip
            expectSameEnvelopes(clip, back, URL(fileURLWithPath: path).lastPathComponent)
            checked += 1
        }
        print("round-tripped \(checked) .haptic clips of the evaluation set within 1e-3")
        #expect(checked == files.count)
    }
}
