import HapticTestSupport
import HapticPattern
import Testing

/// Decodes text, failing the test on an error.
func load(_ text: String, strict: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) -> DecodedAHAP? {
    do {
        return try AHAPPattern.decode(text: text, options: .init(strict: strict))
    } catch {
        Issue.record("unexpected error: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The error decoding `text` throws (records an issue when it decodes).
func failure(_ text: String, strict: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) -> AHAPError? {
    failure(Array(text.utf8), strict: strict, sourceLocation: sourceLocation)
}

func failure(_ bytes: [UInt8], strict: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) -> AHAPError? {
    do {
        _ = try AHAPPattern.decode(from: bytes, options: .init(strict: strict))
        Issue.record("expected an error, but it decoded", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// A document with one element.
func doc(element: String) -> String { #"{"Version": 1.0, "Pattern": [ "# + element + " ]}" }

/// A document with one event whose members are `members`.
func doc(event members: String) -> String { doc(element: #"{"Event": {"# + members + "}}") }

/// Intensity and sharpness entries, so that haptic events carry no "absent" warnings.
let hapticParameters = #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]"#

