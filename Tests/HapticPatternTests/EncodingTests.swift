import HapticTestSupport
import HapticPattern
import Testing

@Suite("Encoding")
struct EncodingTests {
    @Test("canonical text: stable key order, only non-default waveform flags")
    func canonicalText() throws {
        let pattern = AHAPPattern(
            version: 1.0, metadata: .object([(key: "Project", value: .string("Demo"))]),
            elements: [
                .event(.transient(at: 0, intensity: 1, sharpness: 0.5)),
                .event(Event(time: 0.1, type: .audioCustom, parameters: [EventParameter(.audioVolume, 0.8)], waveformPath: "s/a \"b\".wav", useVolumeEnvelope: false)),
                .parameter(DynamicParameter(.hapticIntensityControl, time: 0.2, value: 0.5)),
                .curve(ParameterCurve(.hapticSharpnessControl, time: 0.3, points: [.init(0, -0.25), .init(0.1, 0.25)])),
            ])
        let expected = """
            {
              "Version": 1.0,
              "Metadata": {
                "Project": "Demo"
              },
              "Pattern": [
                {
                  "Event": {
                    "Time": 0.0,
                    "EventType": "HapticTransient",
                    "EventParameters": [
                      { "ParameterID": "HapticIntensity", "ParameterValue": 1.0 },
                      { "ParameterID": "HapticSharpness", "ParameterValue": 0.5 }
                    ]
                  }
                },
                {
                  "Event": {
                    "Time": 0.1,
                    "EventType": "AudioCustom",
                    "EventWaveformPath": "s/a \\"b\\".wav",
                    "EventWaveformUseVolumeEnvelope": false,
                    "EventParameters": [
                      { "ParameterID": "AudioVolume", "ParameterValue": 0.8 }
                    ]
                  }
                },
                {
                  "Parameter": {
                    "ParameterID": "HapticIntensityControl",
                    "Time": 0.2,
                    "ParameterValue": 0.5
                  }
                },
                {
                  "ParameterCurve": {
                    "ParameterID": "HapticSharpnessControl",
                    "Time": 0.3,
                    "ParameterCurveControlPoints": [
                      { "Time": 0.0, "ParameterValue": -0.25 },
                      { "Time": 0.1, "ParameterValue": 0.25 }
                    ]
                  }
                }
              ]
            }

            """
        #expect(pattern.encoded() == expected)
        #expect(try AHAPPattern.decode(text: pattern.encoded()).pattern == pattern)
    }

    @Test("a loop flag and an empty pattern are written as expected")
    func loopFlagAndEmpty() throws {
        let event = Event(time: 0, type: .audioCustom, waveformPath: "x.wav", loopEnabled: true)
        let text = AHAPPattern(version: nil, elements: [.event(event)]).encoded()
        #expect(text.contains(#""EventWaveformLoopEnabled": true"#))
        #expect(!text.contains("UseVolumeEnvelope"))
        #expect(!text.contains("Version"))
        #expect(AHAPPattern(version: nil).encoded() == "{\n  \"Pattern\": []\n}\n")
        #expect(try AHAPPattern.decode(text: text).pattern.events == [event])
    }

    @Test("validate() checks a pattern built in code against the file rules")
    func validateBuiltPattern() throws {
        let good = AHAPPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0))])
        #expect(try good.validate() == [])
        let noDuration = AHAPPattern(elements: [.event(Event(time: 0, type: .hapticContinuous, parameters: .haptic(intensity: 1, sharpness: 1)))])
        #expect(throws: AHAPError.self) { try noDuration.validate() }
        let nan = AHAPPattern(elements: [.event(.transient(at: .nan, intensity: 1, sharpness: 1))])
        #expect(throws: AHAPError.self) { try nan.validate() }
        let loud = AHAPPattern(elements: [.event(.transient(at: 0, intensity: 3, sharpness: 1))])
        #expect(try loud.validate().map(\.kind) == [.clamped])
    }

    /// A random valid pattern: every value in range, every rule satisfied.
    static func randomPattern(_ rng: inout SeededRandom) -> AHAPPattern {
        func value(_ range: ClosedRange<Double>) -> Double {
            // Mix short decimals (typical files) with arbitrary doubles (worst case for printing).
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return (Double.random(in: range, using: &rng) * 1000).rounded() / 1000
            case 1: return range.lowerBound + Double(Int.random(in: 0...1, using: &rng)) * (range.upperBound - range.lowerBound)
            default: return Double.random(in: range, using: &rng)
            }
        }
        var elements: [PatternElement] = []
        for _ in 0..<Int.random(in: 0...40, using: &rng) {
            let time = value(0...10)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0, 1:
                let type = EventType.allCases.randomElement(using: &rng)!
                var parameters: [EventParameter] = []
                for id in EventParameterID.allCases.shuffled(using: &rng).prefix(Int.random(in: 0...4, using: &rng)) where id != .sustained {
                    parameters.append(EventParameter(id, value(id.range)))
                }
                if type.isHaptic {
                    for id in [EventParameterID.hapticIntensity, .hapticSharpness] where !parameters.contains(where: { $0.id == id }) {
                        parameters.append(EventParameter(id, value(0...1)))
                    }
                }
                let duration: Double? = type.isContinuous ? value(0.001...30) : (Bool.random(using: &rng) ? value(0...5) : nil)
                elements.append(.event(Event(
                    time: time, type: type, duration: duration, parameters: parameters,
                    waveformPath: type == .audioCustom ? "sounds/s\(Int.random(in: 0...9, using: &rng)) é \"q\".wav" : nil,
                    useVolumeEnvelope: type == .audioCustom ? Bool.random(using: &rng) : true,
                    loopEnabled: type == .audioCustom ? Bool.random(using: &rng) : false)))
            case 2, 3:
                let id = DynamicParameterID.allCases.randomElement(using: &rng)!
                elements.append(.parameter(DynamicParameter(id, time: time, value: value(id.range))))
            default:
                let id = DynamicParameterID.allCases.randomElement(using: &rng)!
                var t = 0.0
                var points: [ParameterCurve.ControlPoint] = []
                for _ in 0..<Int.random(in: 0...16, using: &rng) {
                    t += value(0...0.5)
                    points.append(.init(t, value(id.range)))
                }
                elements.append(.curve(ParameterCurve(id, time: time, points: points)))
            }
        }
        // Events in time order, so the lenient reader has nothing to warn about.
        var events = elements.compactMap { if case .event(let e) = $0 { e } else { nil } }.sorted { $0.time < $1.time }.makeIterator()
        elements = elements.map { if case .event = $0 { .event(events.next()!) } else { $0 } }
        let metadata: JSONValue? = Bool.random(using: &rng)
            ? .object([(key: "Project", value: .string("p\(Int.random(in: 0...99, using: &rng))\n\t\u{01}")), (key: "n", value: .array([.number(value(-1e6...1e6)), .bool(true), .null]))])
            : nil
        return AHAPPattern(version: Bool.random(using: &rng) ? 1.0 : nil, metadata: metadata, elements: elements)
    }

    @Test("round trip: decode(encode(p)) == p for 500 generated patterns, with no warnings")
    func roundTrip() throws {
        var rng = SeededRandom(seed: 0xA4A9)
        for caseIndex in 0..<500 {
            let pattern = Self.randomPattern(&rng)
            let text = pattern.encoded()
            let decoded = try AHAPPattern.decode(text: text, options: .init(strict: true))
            #expect(decoded.pattern == pattern, "case \(caseIndex)")
            // Encoding is canonical: the re-encoded text is identical.
            #expect(decoded.pattern.encoded() == text, "case \(caseIndex)")
        }
    }
}

@Suite("Summaries")
struct SummaryTests {
    @Test("duration, counts, audio files, ranges and curves")
    func summary() {
        let pattern = AHAPPattern(elements: [
            .event(.transient(at: 0.5, intensity: 0.2, sharpness: 0.9)),
            .event(.continuous(at: 1, duration: 2, intensity: 0.8, sharpness: 0.1)),
            .event(Event(time: 0.25, type: .audioCustom, waveformPath: "a.wav")),
            .event(Event(time: 4, type: .audioCustom, waveformPath: "b.wav")),
            .event(Event(time: 4.5, type: .audioCustom, waveformPath: "a.wav")),
            .parameter(DynamicParameter(.hapticIntensityControl, time: 2.5, value: 0.5)),
            .curve(ParameterCurve(.hapticIntensityControl, time: 3, points: [.init(0, 1), .init(2.5, 0.25)])),
            .curve(ParameterCurve(.hapticIntensityControl, time: 0, points: [.init(0, 0.75)])),
        ])
        let summary = pattern.summary
        #expect(summary.duration == 5.5)
        #expect(pattern.duration == 5.5)
        #expect(summary.eventCounts == [.hapticTransient: 1, .hapticContinuous: 1, .audioCustom: 3, .audioContinuous: 0])
        #expect(summary.eventCount == 5)
        #expect(summary.parameterCount == 1)
        #expect(summary.curveCount == 2)
        #expect(summary.audioFiles == ["a.wav", "b.wav"])
        #expect(summary.eventParameterRanges[.hapticIntensity] == ValueRange(min: 0.2, max: 0.8, count: 2))
        #expect(summary.eventParameterRanges[.audioVolume] == nil)
        #expect(summary.dynamicParameterRanges[.hapticIntensityControl] == ValueRange(min: 0.25, max: 1, count: 4))
        #expect(summary.curves == [CurveSummary(id: .hapticIntensityControl, curves: 2, controlPoints: 3, maxControlPoints: 2, start: 0, end: 5.5)])
    }

    @Test("an event's end is its time plus duration; the empty pattern lasts 0 s")
    func durations() {
        #expect(AHAPPattern().duration == 0)
        #expect(AHAPPattern(elements: [.event(.continuous(at: 2, duration: 3))]).duration == 5)
        #expect(AHAPPattern(elements: [.event(.transient(at: 7))]).duration == 7)
    }
}
