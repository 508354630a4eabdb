import HapticPattern
import Testing

/// What lies past `Limits`: the reader keeps its lenient rules (a warning that says what
/// render and play will do) and strict mode refuses it; plain JSON documents report
/// duplicate keys by path.
@Suite("Limits in the reader")
struct LimitTests {
    func event(_ time: String) -> String {
        #"{"Pattern": [{"Event": {"Time": \#(time), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}]}"#
    }

    @Test("a time past the limit warns (lenient) and fails (strict)", arguments: ["1e15", "1e5", "3600.001", "1.7976931348623157e308"])
    func timePastLimit(time: String) throws {
        let decoded = try AHAPPattern.decode(text: event(time))
        let warning = try #require(decoded.warnings.first { $0.kind == .beyondLimit })
        print("Time \(time): \(warning)")
        #expect(warning.path == "Pattern[0].Event.Time")
        #expect(warning.message.contains("render and play skip this event"))
        #expect(throws: AHAPError.self) { try AHAPPattern.decode(text: event(time), options: .init(strict: true)) }
    }

    @Test("a time at the limit is fine")
    func timeAtLimit() throws {
        #expect(try AHAPPattern.decode(text: event("3600"), options: .init(strict: true)).warnings.isEmpty)
    }

    @Test("a curve reaching past the limit warns with its path")
    func curvePastLimit() throws {
        let text = #"{"Pattern": [{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 3000, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 601, "ParameterValue": 0}]}}]}"#
        let decoded = try AHAPPattern.decode(text: text)
        let warning = try #require(decoded.warnings.first { $0.kind == .beyondLimit })
        print("curve: \(warning)")
        #expect(warning.path == "Pattern[0].ParameterCurve")
        #expect(warning.message.contains("3601"))
    }

    @Test("more elements than the limit: one warning naming the first skipped")
    func tooManyElements() throws {
        let one = #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 1}}"#
        let text = #"{"Pattern": ["# + Array(repeating: one, count: Limits.maxElements + 1).joined(separator: ",") + "]}"
        let decoded = try AHAPPattern.decode(text: text)
        let warnings = decoded.warnings.filter { $0.kind == .beyondLimit }
        print("elements: \(warnings.first.map(\.description) ?? "none")")
        #expect(warnings.count == 1)
        #expect(warnings.first?.path == "Pattern[\(Limits.maxElements)]")
    }

    @Test("duplicate keys in plain JSON documents are found with their path")
    func duplicateKeys() throws {
        let cases: [(String, String?)] = [
            (#"{"a": 1, "b": {"c": 1, "c": 2}}"#, "b.c"),
            (#"{"cues": {"x": {"sfx": {}}, "x": {}}}"#, "cues.x"),
            (#"{"list": [{"k": 1}, {"k": 1, "k": 2}]}"#, "list[1].k"),
            (#"{"a": 1, "b": {"a": 1}}"#, nil),
        ]
        for (text, expected) in cases {
            let found = try JSONValue.parse(Array(text.utf8)).firstDuplicateKey
            print("duplicates in \(text): \(found ?? "none")")
            #expect(found == expected)
        }
        #expect(throws: AHAPError.self) { try JSONValue.parse(Array("{} x".utf8)) }
    }
}
