import HapticTestSupport
import HapticPattern
import Testing

@Suite("JSON reading")
struct JSONSyntaxTests {
    @Test("a UTF-8 byte-order mark is accepted")
    func byteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array(doc(event: #""Time": 0, "EventType": "HapticTransient", "# + hapticParameters).utf8)
        let decoded = try AHAPPattern.decode(from: bytes)
        #expect(decoded.pattern.events.count == 1)
        #expect(decoded.warnings.isEmpty)
    }

    @Test("trailing commas in arrays and objects are accepted")
    func trailingCommas() throws {
        let text = """
            {"Version": 1.0, "Pattern": [
              {"Event": {"Time": 0.5, "EventType": "HapticTransient",
                "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8,},
                                    {"ParameterID": "HapticSharpness", "ParameterValue": 0.2,},],},},
            ],}
            """
        let decoded = try AHAPPattern.decode(text: text)
        #expect(decoded.pattern.events.first?.value(of: .hapticIntensity) == 0.8)
        #expect(decoded.pattern.events.first?.value(of: .hapticSharpness) == 0.2)
    }

    @Test("an empty or blank file is a syntax error at line 1")
    func emptyFile() {
        for text in ["", "   ", "\u{FEFF}"] {
            let error = failure(text)
            #expect(error?.kind == .syntax)
            #expect(error?.message == "empty file: no JSON value")
            #expect(error?.line == 1)
        }
    }

    @Test("syntax errors carry 1-based line and column")
    func lineAndColumn() {
        let text = "{\n  \"Pattern\": [\n    {\"Event\" {}}\n  ]\n}"
        let error = failure(text)
        #expect(error?.kind == .syntax)
        #expect(error?.line == 3)
        #expect(error?.column == 14)
        #expect(error?.message == "unexpected '{' after a key, expected ':'")
        #expect(error?.description == "line 3, column 14: unexpected '{' after a key, expected ':'")
    }

    @Test("columns count characters, not bytes")
    func columnsCountCharacters() {
        // "é" is two bytes; the stray 'x' is the 18th character of line 1.
        let error = failure(#"{"Metadata": "é" x}"#)
        #expect(error?.line == 1)
        #expect(error?.column == 18)
        #expect(error?.message == "unexpected 'x' in an object, expected ',' or '}'")
    }

    @Test("text that is not JSON at all")
    func notJSON() {
        let error = failure("hello, world")
        #expect(error?.kind == .syntax)
        #expect(error?.message == "unexpected 'h', expected a value")
        #expect(error?.line == 1 && error?.column == 1)
    }

    @Test("unterminated strings and documents")
    func unterminated() {
        #expect(failure(#"{"Pattern": ["#)?.message == "unexpected end of file inside an array, expected ']'")
        #expect(failure(#"{"Pattern": [], "#)?.message == "unexpected end of file inside an object, expected a key")
        let string = failure("{\"Metadata\": \"abc")
        #expect(string?.message == "unterminated string")
        #expect(string?.column == 14)
    }

    @Test("content after the document is an error")
    func trailingContent() {
        let error = failure(#"{"Pattern": []} {"#)
        #expect(error?.kind == .syntax)
        #expect(error?.message == "unexpected '{' after the end of the document")
        #expect(error?.column == 17)
    }

    @Test("raw control characters in strings and bad escapes are errors; good escapes decode")
    func strings() throws {
        #expect(failure("{\"Metadata\": \"a\u{01}b\", \"Pattern\": []}")?.message == "control character (byte 0x1) inside a string; it must be escaped")
        #expect(failure(#"{"Metadata": "a\qb", "Pattern": []}"#)?.message == "invalid escape '\\q' in a string")
        #expect(failure(#"{"Metadata": "\u12G4", "Pattern": []}"#)?.message == "invalid \\u escape in a string")
        let decoded = try AHAPPattern.decode(text: #"{"Metadata": "tab\there \"q\" \u00e9 \ud83d\ude00 \/", "Pattern": []}"#)
        #expect(decoded.pattern.metadata == .string("tab\there \"q\" é 😀 /"))
        // Escaped keys are matched by their meaning.
        let escapedKey = try AHAPPattern.decode(text: #"{"Patt\u0065rn": []}"#)
        #expect(escapedKey.pattern.elements.isEmpty)
    }

    @Test("nesting deeper than the limit is an error, not a stack overflow")
    func depthLimit() {
        let depth = 100_000
        let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        for text in [#"{"Metadata": "# + nested + "}", #"{"Unknown": "# + nested + "}"] {
            let error = failure(text)
            #expect(error?.kind == .syntax)
            #expect(error?.message == "nesting deeper than 256 levels")
            #expect(error?.line == 1)
            // The 256th '[' would open level 257.
            let prefix = text.prefix { $0 != "[" }.count
            #expect(error?.column == prefix + 256)
        }
        // Exactly at the limit is fine (the top-level object is level 1).
        let ok = #"{"Metadata": "# + String(repeating: "[", count: 255) + String(repeating: "]", count: 255) + #", "Pattern": []}"#
        #expect(throws: Never.self) { try AHAPPattern.decode(text: ok) }
    }

    @Test("numbers parse exactly like the standard library's correctly rounded conversion")
    func numbersExact() throws {
        var rng = SeededRandom(seed: 42)
        var texts: [String] = ["0", "-0", "0.1", "1e-5", "1E+2", "0.30000001192092896", "123456789012345678901234567890",
                               "9007199254740993", "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308", "1e-400"]
        for _ in 0..<2000 {
            let bits = rng.next()
            let value = Double(bitPattern: bits)
            if value.isFinite { texts.append(value.description) }
        }
        for _ in 0..<2000 {
            let digits = Int.random(in: 1...22, using: &rng)
            var mantissa = String(Int.random(in: 1...9, using: &rng))
            for _ in 1..<digits { mantissa += String(Int.random(in: 0...9, using: &rng)) }
            let point = Int.random(in: 0...digits, using: &rng)
            var text = point == digits ? mantissa : String(mantissa.prefix(point == 0 ? 1 : point)) + "." + String(mantissa.dropFirst(point == 0 ? 1 : point))
            if text.hasSuffix(".") { text.removeLast() }
            if Bool.random(using: &rng) { text += "e\(Int.random(in: -30...30, using: &rng))" }
            texts.append(text)
        }
        for text in texts {
            let decoded = try AHAPPattern.decode(text: #"{"Version": "# + text + #", "Pattern": []}"#)
            let expected = Double(text)!
            #expect(decoded.pattern.version?.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    @Test("huge, over-long and non-finite numbers are errors with a location")
    func badNumbers() {
        let huge = failure(#"{"Version": 1e400, "Pattern": []}"#)
        #expect(huge?.kind == .syntax)
        #expect(huge?.message == "number 1e400 is too large (not a finite double)")
        #expect(huge?.column == 13)
        let long = failure(#"{"Version": 1"# + String(repeating: "0", count: 5000) + #", "Pattern": []}"#)
        #expect(long?.message == "number longer than 1024 characters")
        for word in ["NaN", "Infinity", "-Infinity"] {
            let error = failure(#"{"Version": "# + word + #", "Pattern": []}"#)
            #expect(error?.kind == .syntax)
            #expect(error?.message == "'\(word)' is not a JSON number (non-finite numbers are not allowed)")
        }
        #expect(failure(#"{"Version": 01, "Pattern": []}"#)?.message == "invalid number: leading zero")
        #expect(failure(#"{"Version": 1., "Pattern": []}"#)?.message == "invalid number: expected a digit after '.'")
        #expect(failure(#"{"Version": -, "Pattern": []}"#)?.message == "invalid number: expected a digit")
    }

    @Test("metadata of every JSON type is kept verbatim, in key order")
    func metadataKept() throws {
        let text = #"{"Metadata": {"b": [1, 2.5, true, false, null], "a": {"x": "y"}}, "Pattern": []}"#
        let decoded = try AHAPPattern.decode(text: text)
        let expected: JSONValue = .object([
            (key: "b", value: .array([.number(1), .number(2.5), .bool(true), .bool(false), .null])),
            (key: "a", value: .object([(key: "x", value: .string("y"))])),
        ])
        #expect(decoded.pattern.metadata == expected)
        #expect(decoded.pattern.version == nil)
    }
}
