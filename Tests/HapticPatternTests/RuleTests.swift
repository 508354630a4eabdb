import HapticPattern
import Testing

@Suite("Lenient rules (each leaves a warning with a path)")
struct LenientRuleTests {
    @Test("Version is optional; a clean file has no warnings")
    func versionOptional() throws {
        let decoded = try #require(load(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "# + hapticParameters + "}}]}"))
        #expect(decoded.pattern.version == nil)
        #expect(decoded.warnings.isEmpty)
    }

    @Test("absent intensity and sharpness stay absent and are reported")
    func absentIntensitySharpness() throws {
        let decoded = try #require(load(doc(event: #""Time": 0, "EventType": "HapticTransient""#)))
        let event = try #require(decoded.pattern.events.first)
        #expect(event.value(of: .hapticIntensity) == nil)
        #expect(event.value(of: .hapticSharpness) == nil)
        #expect(event.value(of: .hapticIntensity, default: 0.7) == 0.7)
        #expect(decoded.warnings == [
            AHAPWarning(path: "Pattern[0].Event.EventParameters", message: "HapticIntensity is absent; the actuator profile's default applies", kind: .defaultApplied),
            AHAPWarning(path: "Pattern[0].Event.EventParameters", message: "HapticSharpness is absent; the actuator profile's default applies", kind: .defaultApplied),
        ])
    }

    @Test("AHAP defaults apply to absent parameters and waveform flags, without warnings")
    func defaults() throws {
        let decoded = try #require(load(doc(event: #""Time": 1, "EventType": "AudioCustom", "EventWaveformPath": "a.wav""#)))
        let event = try #require(decoded.pattern.events.first)
        #expect(event.useVolumeEnvelope == true)
        #expect(event.loopEnabled == false)
        #expect(event.value(of: .audioPan, default: 9) == 0)
        #expect(event.value(of: .audioBrightness, default: 9) == 1)
        #expect(event.value(of: .sustained, default: 9) == 1)
        #expect(decoded.warnings.isEmpty)
    }

    @Test("a parameter entry without a value is dropped, so its default applies")
    func entryWithoutValue() throws {
        let decoded = try #require(load(doc(event: #""Time": 0, "EventType": "AudioContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "AudioPan"}]"#)))
        #expect(decoded.pattern.events.first?.parameters.isEmpty == true)
        #expect(decoded.warnings == [AHAPWarning(path: "Pattern[0].Event.EventParameters[0]", message: "AudioPan has no ParameterValue; ignored, so its default applies", kind: .defaultApplied)])
    }

    @Test("out-of-range event parameter values are clamped")
    func clampEventParameter() throws {
        let text = doc(event: #""Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 1.5}, {"ParameterID": "AudioPan", "ParameterValue": -3}]"#)
        let decoded = try #require(load(text))
        let event = try #require(decoded.pattern.events.first)
        #expect(event.value(of: .hapticSharpness) == 1)
        #expect(event.value(of: .audioPan) == -1)
        #expect(decoded.warnings == [
            AHAPWarning(path: "Pattern[0].Event.EventParameters[1].ParameterValue", message: "HapticSharpness 1.5 is outside 0.0…1.0; clamped to 1.0", kind: .clamped),
            AHAPWarning(path: "Pattern[0].Event.EventParameters[2].ParameterValue", message: "AudioPan -3.0 is outside -1.0…1.0; clamped to -1.0", kind: .clamped),
        ])
    }

    @Test("out-of-range dynamic parameter and curve values are clamped")
    func clampDynamic() throws {
        let text = #"{"Pattern": [{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterValue": 2}}, {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.2}, {"Time": 0.1, "ParameterValue": -0.5}]}}]}"#
        let decoded = try #require(load(text))
        #expect(decoded.pattern.elements == [
            .parameter(DynamicParameter(.hapticSharpnessControl, time: 0, value: 1)),
            .curve(ParameterCurve(.hapticIntensityControl, time: 0.5, points: [.init(0, 0.2), .init(0.1, 0)])),
        ])
        #expect(decoded.warnings.map(\.path) == ["Pattern[0].Parameter.ParameterValue", "Pattern[1].ParameterCurve.ParameterCurveControlPoints[1].ParameterValue"])
        #expect(decoded.warnings.allSatisfy { $0.kind == .clamped })
    }

    @Test("unknown keys are ignored with a warning at every level")
    func unknownKeys() throws {
        let text = #"{"Version": 1, "Extra": {"deep": [1]}, "Pattern": [{"Note": 1, "Event": {"Time": 0, "EventType": "HapticTransient", "Colour": "red", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1, "Unit": "x"}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}}, {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "Shape": 1, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1, "Ease": 2}]}}]}"#
        let decoded = try #require(load(text))
        #expect(decoded.pattern.elements.count == 2)
        #expect(decoded.warnings.map(\.path) == [
            "Extra", "Pattern[0].Event.Colour", "Pattern[0].Event.EventParameters[0].Unit", "Pattern[0].Note",
            "Pattern[1].ParameterCurve.Shape", "Pattern[1].ParameterCurve.ParameterCurveControlPoints[0].Ease",
        ])
        #expect(decoded.warnings.first?.message == "unknown key 'Extra' ignored")
        #expect(decoded.warnings.allSatisfy { $0.kind == .unknownKey })
    }

    @Test("unknown parameter IDs are ignored with a warning")
    func unknownParameterIDs() throws {
        let text = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}, {"ParameterID": "Wobble", "ParameterValue": 1}]}}, {"Parameter": {"ParameterID": "WobbleControl", "Time": 0, "ParameterValue": 1}}]}"#
        let decoded = try #require(load(text))
        #expect(decoded.pattern.elements.count == 1)
        #expect(decoded.pattern.events.first?.parameters.count == 2)
        #expect(decoded.warnings == [
            AHAPWarning(path: "Pattern[0].Event.EventParameters[2].ParameterID", message: "unknown event parameter 'Wobble' ignored", kind: .unknownParameter),
            AHAPWarning(path: "Pattern[1].Parameter.ParameterID", message: "unknown dynamic parameter 'WobbleControl'; element ignored", kind: .unknownParameter),
        ])
    }

    @Test("unsorted events are kept in file order, with one warning naming the first place")
    func unsorted() throws {
        func ev(_ t: Double) -> String { #"{"Event": {"Time": \#(t), "EventType": "HapticTransient", "# + hapticParameters + "}}" }
        let text = #"{"Pattern": ["# + [ev(0), ev(1), ev(0.5), ev(2), ev(0.25)].joined(separator: ",") + "]}"
        let decoded = try #require(load(text))
        #expect(decoded.pattern.events.map(\.time) == [0, 1, 0.5, 2, 0.25])
        #expect(decoded.warnings == [AHAPWarning(
            path: "Pattern[2].Event.Time",
            message: "event at 0.5 s comes after Pattern[1] at 1.0 s (and 1 more out of order); events play in time order", kind: .unsorted)])
    }

    @Test("continuous events longer than 30 s are capped")
    func capped() throws {
        let decoded = try #require(load(doc(event: #""Time": 1, "EventType": "HapticContinuous", "EventDuration": 45, "# + hapticParameters)))
        #expect(decoded.pattern.events.first?.duration == 30)
        #expect(decoded.warnings == [AHAPWarning(path: "Pattern[0].Event.EventDuration", message: "EventDuration 45.0 s is longer than 30.0 s; capped at 30.0 s", kind: .capped)])
    }

    @Test("duplicate keys and duplicate parameters: the last one applies")
    func duplicates() throws {
        let text = doc(event: #""Time": 0, "Time": 2, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.2}, {"ParameterID": "HapticIntensity", "ParameterValue": 0.9}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]"#)
        let decoded = try #require(load(text))
        let event = try #require(decoded.pattern.events.first)
        #expect(event.time == 2)
        #expect(event.value(of: .hapticIntensity) == 0.9)
        #expect(decoded.warnings.map(\.path) == ["Pattern[0].Event.Time", "Pattern[0].Event.EventParameters[1]"])
        #expect(decoded.warnings.allSatisfy { $0.kind == .duplicate })
    }

    @Test("a waveform path on a non-AudioCustom event is kept but reported")
    func waveformOnHaptic() throws {
        let decoded = try #require(load(doc(event: #""Time": 0, "EventType": "HapticTransient", "EventWaveformPath": "x.wav", "# + hapticParameters)))
        #expect(decoded.pattern.events.first?.waveformPath == "x.wav")
        #expect(decoded.warnings == [AHAPWarning(path: "Pattern[0].Event.EventWaveformPath", message: "EventWaveformPath is only used by AudioCustom events; ignored for HapticTransient", kind: .ignored)])
    }

    @Test("a non-sustained continuous event may leave out its duration")
    func unsustainedWithoutDuration() throws {
        let decoded = try #require(load(doc(event: #""Time": 0, "EventType": "HapticContinuous", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}, {"ParameterID": "Sustained", "ParameterValue": 0}]"#)))
        #expect(decoded.pattern.events.first?.isSustained == false)
        #expect(decoded.pattern.events.first?.duration == nil)
    }

    @Test("curve control points out of time order are reported; missing values take the neutral value")
    func curvePoints() throws {
        let text = #"{"Pattern": [{"ParameterCurve": {"ParameterID": "AudioPanControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0.2, "ParameterValue": 0.5}, {"Time": 0.1}]}}, {"ParameterCurve": {"ParameterID": "AudioVolumeControl", "Time": 1}}]}"#
        let decoded = try #require(load(text))
        #expect(decoded.pattern.elements == [
            .curve(ParameterCurve(.audioPanControl, time: 0, points: [.init(0.2, 0.5), .init(0.1, 0)])),
            .curve(ParameterCurve(.audioVolumeControl, time: 1, points: [])),
        ])
        #expect(decoded.warnings == [
            AHAPWarning(path: "Pattern[0].ParameterCurve.ParameterCurveControlPoints[1]", message: "ParameterValue is missing; the neutral value 0.0 applies", kind: .defaultApplied),
            AHAPWarning(path: "Pattern[0].ParameterCurve.ParameterCurveControlPoints[1].Time", message: "control point at 0.1 s comes before the previous one at 0.2 s", kind: .unsorted),
            AHAPWarning(path: "Pattern[1].ParameterCurve", message: "ParameterCurveControlPoints is missing; the curve has no points", kind: .defaultApplied),
        ])
    }

    @Test("strict mode turns the first warning into an error with the same path and message")
    func strictMode() {
        let text = doc(event: #""Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 2}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]"#)
        let error = failure(text, strict: true)
        #expect(error == AHAPError(path: "Pattern[0].Event.EventParameters[0].ParameterValue", message: "HapticIntensity 2.0 is outside 0.0…1.0; clamped to 1.0", kind: .strict(.clamped)))
        #expect(failure(#"{"Pattern": [], "X": 1}"#, strict: true)?.kind == .strict(.unknownKey))
        // A clean file passes strict mode.
        #expect(load(doc(event: #""Time": 0, "EventType": "HapticTransient", "# + hapticParameters), strict: true)?.warnings == [])
    }

    @Test("warnings beyond the limit are counted, not listed")
    func warningLimit() throws {
        let events = (0..<30).map { #"{"Event": {"Time": \#($0), "EventType": "HapticTransient"}}"# }.joined(separator: ",")
        let decoded = try AHAPPattern.decode(text: #"{"Pattern": ["# + events + "]}", options: .init(maxWarnings: 10))
        #expect(decoded.warnings.count == 11)
        #expect(decoded.warnings.last == AHAPWarning(path: "", message: "50 more warnings not listed", kind: .truncated))
    }
}

@Suite("Hard errors (message and location)")
struct HardErrorTests {
    func expectError(
        _ text: String, _ kind: AHAPError.Kind, _ path: String, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = failure(text, sourceLocation: sourceLocation)
        #expect(error == AHAPError(path: path, message: message, kind: kind), sourceLocation: sourceLocation)
    }

    @Test("the top level must be an object with a Pattern array")
    func missingPattern() {
        expectError(#"{"Version": 1}"#, .missingPattern, "", "Pattern is missing")
        expectError(#"{"Pattern": {}}"#, .missingPattern, "Pattern", "Pattern must be an array, found an object")
        expectError(#"{"Pattern": "x"}"#, .missingPattern, "Pattern", "Pattern must be an array, found a string")
        expectError(#"[1, 2]"#, .missingPattern, "", "the top level must be an object with a Pattern array, found an array")
    }

    @Test("an element needs exactly one of Event, Parameter, ParameterCurve")
    func elementShape() {
        expectError(doc(element: "{}"), .elementShape, "Pattern[0]", "an element must have one of Event, Parameter or ParameterCurve; it is empty")
        expectError(doc(element: #"{"ParameterCurves": {}}"#), .elementShape, "Pattern[0]", "an element must have one of Event, Parameter or ParameterCurve; it has only 'ParameterCurves'")
        expectError(
            doc(element: #"{"Event": {"Time": 0, "EventType": "HapticTransient"}, "Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 1}}"#),
            .elementShape, "Pattern[0]", "an element must have exactly one of Event, Parameter or ParameterCurve; this one has Event and Parameter")
        expectError(doc(element: "42"), .elementShape, "Pattern[0]", "an element must be an object with one of Event, Parameter or ParameterCurve, found a number")
    }

    @Test("an unknown EventType")
    func unknownEventType() {
        expectError(
            doc(event: #""Time": 0, "EventType": "HapticBuzz""#), .unknownEventType, "Pattern[0].Event.EventType",
            "unknown EventType 'HapticBuzz' (expected HapticTransient, HapticContinuous, AudioCustom or AudioContinuous)")
    }

    @Test("negative times, durations and point times")
    func negativeTime() {
        expectError(doc(event: #""Time": -0.5, "EventType": "HapticTransient""#), .invalidTime, "Pattern[0].Event.Time", "Time must be a finite number of seconds, not negative (found -0.5)")
        expectError(doc(event: #""Time": 0, "EventType": "HapticContinuous", "EventDuration": -1"#), .invalidTime, "Pattern[0].Event.EventDuration", "EventDuration must be a finite number of seconds, not negative (found -1.0)")
        expectError(doc(element: #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": -2, "ParameterValue": 1}}"#), .invalidTime, "Pattern[0].Parameter.Time", "Time must be a finite number of seconds, not negative (found -2.0)")
        expectError(
            doc(element: #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": -1, "ParameterValue": 1}]}}"#),
            .invalidTime, "Pattern[0].ParameterCurve.ParameterCurveControlPoints[0].Time", "Time must be a finite number of seconds, not negative (found -1.0)")
    }

    @Test("a non-finite time is refused where the JSON is read")
    func nonFiniteTime() {
        let error = failure(doc(event: #""Time": 1e999, "EventType": "HapticTransient""#))
        #expect(error?.kind == .syntax)
        #expect(error?.message == "number 1e999 is too large (not a finite double)")
    }

    @Test("a sustained continuous event needs a positive duration")
    func missingDuration() {
        expectError(doc(event: #""Time": 0, "EventType": "HapticContinuous", "# + hapticParameters), .missingDuration, "Pattern[0].Event", "a sustained HapticContinuous event needs a positive EventDuration (it has none)")
        expectError(doc(event: #""Time": 0, "EventType": "AudioContinuous", "EventDuration": 0"#), .missingDuration, "Pattern[0].Event.EventDuration", "a sustained AudioContinuous event needs a positive EventDuration (found 0.0)")
    }

    @Test("a non-number where a number belongs")
    func wrongType() {
        expectError(doc(event: #""Time": "0", "EventType": "HapticTransient""#), .wrongType, "Pattern[0].Event.Time", "Time must be a number, found a string")
        expectError(
            doc(event: #""Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": "loud"}]"#),
            .wrongType, "Pattern[0].Event.EventParameters[0].ParameterValue", "ParameterValue must be a number, found a string")
        expectError(#"{"Version": "1.0", "Pattern": []}"#, .wrongType, "Version", "Version must be a number, found a string")
        expectError(doc(event: #""Time": 0, "EventType": "HapticContinuous", "EventDuration": null"#), .wrongType, "Pattern[0].Event.EventDuration", "EventDuration must be a number, found null")
        expectError(doc(element: #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": [1]}}"#), .wrongType, "Pattern[0].Parameter.ParameterValue", "ParameterValue must be a number, found an array")
        expectError(doc(event: #""Time": 0, "EventType": 3"#), .wrongType, "Pattern[0].Event.EventType", "EventType must be a string, found a number")
        expectError(doc(event: #""Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformLoopEnabled": 1"#), .wrongType, "Pattern[0].Event.EventWaveformLoopEnabled", "EventWaveformLoopEnabled must be true or false, found a number")
        expectError(doc(event: #""Time": 0, "EventType": "HapticTransient", "EventParameters": {}"#), .wrongType, "Pattern[0].Event.EventParameters", "EventParameters must be an array, found an object")
    }

    @Test("an AudioCustom event needs a waveform path")
    func missingWaveform() {
        expectError(doc(event: #""Time": 0, "EventType": "AudioCustom""#), .missingWaveformPath, "Pattern[0].Event", "an AudioCustom event needs an EventWaveformPath")
        expectError(doc(event: #""Time": 0, "EventType": "AudioCustom", "EventWaveformPath": """#), .missingWaveformPath, "Pattern[0].Event.EventWaveformPath", "an AudioCustom event needs an EventWaveformPath (it is empty)")
    }

    @Test("required keys")
    func missingValues() {
        expectError(doc(event: #""EventType": "HapticTransient""#), .missingValue, "Pattern[0].Event", "Time is missing")
        expectError(doc(event: #""Time": 0"#), .missingValue, "Pattern[0].Event", "EventType is missing")
        expectError(doc(element: #"{"Parameter": {"Time": 0, "ParameterValue": 1}}"#), .missingValue, "Pattern[0].Parameter", "ParameterID is missing")
        expectError(doc(element: #"{"ParameterCurve": {"ParameterID": "AudioPanControl"}}"#), .missingValue, "Pattern[0].ParameterCurve", "Time is missing")
    }

    @Test("paths count elements by their position in the file")
    func pathIndex() {
        let ok = #"{"Event": {"Time": 0, "EventType": "HapticTransient"}}"#
        let text = #"{"Pattern": ["# + Array(repeating: ok, count: 12).joined(separator: ",") + #", {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": true}]}}]}"#
        expectError(text, .wrongType, "Pattern[12].Event.EventParameters[1].ParameterValue", "ParameterValue must be a number, found true or false")
    }
}
