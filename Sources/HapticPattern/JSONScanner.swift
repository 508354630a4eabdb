// A byte-level JSON pull reader, written for AHAP: UTF-8 bytes in, no Foundation.
//
// Why our own: real AHAP files are not always strict JSON (trailing commas, a UTF-8
// byte-order mark), errors must name a line and column, nesting must be bounded so
// that hostile input is an error and not a stack overflow, and loading must be fast
// (the decoder pulls values straight into the model, with no intermediate tree).

/// Pull reader over a byte buffer. Containers are entered with `beginObject`/`beginArray`
/// and walked with `nextMember`/`nextElement`, which also consume the closing bracket.
struct JSONScanner {
    /// Nesting deeper than this is an error (protects the recursive parts from overflow).
    static let maxDepth = 256
    /// Numbers with more characters than this are refused (no real file has them, and
    /// arbitrary-precision conversion of megabytes of digits would be slow).
    static let maxNumberLength = 1024

    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the text starts (after a byte-order mark); line 1, column 1.
    let origin: Int
    var pos: Int
    var depth = 0

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int) {
        self.bytes = bytes
        self.origin = start
        self.pos = start
    }

    // MARK: basics

    @inline(__always)
    var atEnd: Bool { pos >= bytes.count }

    @inline(__always)
    mutating func skipWhitespace() {
        let n = bytes.count
        while pos < n {
            let b = bytes[pos]
            // space, tab, LF, CR
            if b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 { pos += 1 } else { return }
        }
    }

    /// A syntax error at `offset` (default: the current position), with line and column.
    func fail(_ message: String, at offset: Int? = nil) -> AHAPError {
        let (line, column) = Self.lineAndColumn(of: offset ?? pos, in: bytes, start: origin)
        return AHAPError(path: "", message: message, line: line, column: column, kind: .syntax)
    }

    /// Describes the byte at `pos` for messages ("'x'", "end of file", "byte 0xC3").
    func describeCurrent() -> String {
        guard pos < bytes.count else { return "end of file" }
        let b = bytes[pos]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        return "byte 0x" + String(b, radix: 16, uppercase: true)
    }

    /// The kind of the value that starts at the next non-whitespace byte.
    mutating func peekKind() -> JSONKind {
        skipWhitespace()
        guard pos < bytes.count else { return .invalid }
        switch bytes[pos] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        default: return .invalid
        }
    }

    /// The error for a byte where a value should start.
    func expectedValueError() -> AHAPError {
        if pos >= bytes.count { return fail("unexpected end of file, expected a value") }
        // Give non-JSON number spellings that some tools write a precise message.
        for word in ["NaN", "Infinity", "-Infinity", "inf", "nan"] where matches(word) {
            return fail("'\(word)' is not a JSON number (non-finite numbers are not allowed)")
        }
        return fail("unexpected \(describeCurrent()), expected a value")
    }

    private func matches(_ word: String) -> Bool {
        var i = pos
        for b in word.utf8 {
            guard i < bytes.count, bytes[i] == b else { return false }
            i += 1
        }
        return true
    }

    // MARK: containers

    mutating func enter() throws(AHAPError) {
        depth += 1
        if depth > Self.maxDepth {
            throw fail("nesting deeper than \(Self.maxDepth) levels")
        }
    }

    /// Consumes `{` (the caller has checked `peekKind() == .object`).
    mutating func beginObject() throws(AHAPError) {
        try enter()
        pos += 1
    }

    /// Consumes `[` (the caller has checked `peekKind() == .array`).
    mutating func beginArray() throws(AHAPError) {
        try enter()
        pos += 1
    }

    /// The next member's key (with its `:` consumed), or nil after consuming `}`.
    /// A trailing comma before `}` is accepted.
    mutating func nextMember(_ first: inout Bool) throws(AHAPError) -> JSONStringToken? {
        skipWhitespace()
        guard pos < bytes.count else { throw fail("unexpected end of file inside an object, expected '}'") }
        if bytes[pos] == UInt8(ascii: "}") {
            pos += 1
            depth -= 1
            return nil
        }
        if !first {
            guard bytes[pos] == UInt8(ascii: ",") else {
                throw fail("unexpected \(describeCurrent()) in an object, expected ',' or '}'")
            }
            pos += 1
            skipWhitespace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "}") {  // trailing comma
                pos += 1
                depth -= 1
                return nil
            }
        }
        first = false
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: "\"") else {
            if pos >= bytes.count { throw fail("unexpected end of file inside an object, expected a key") }
            throw fail("unexpected \(describeCurrent()) in an object, expected a quoted key")
        }
        let key = try scanString()
        skipWhitespace()
        guard pos < bytes.count, bytes[pos] == UInt8(ascii: ":") else {
            throw fail("unexpected \(describeCurrent()) after a key, expected ':'")
        }
        pos += 1
        return key
    }

    /// True when another element follows (positioned at it), false after consuming `]`.
    /// A trailing comma before `]` is accepted.
    mutating func nextElement(_ first: inout Bool) throws(AHAPError) -> Bool {
        skipWhitespace()
        guard pos < bytes.count else { throw fail("unexpected end of file inside an array, expected ']'") }
        if bytes[pos] == UInt8(ascii: "]") {
            pos += 1
            depth -= 1
            return false
        }
        if !first {
            guard bytes[pos] == UInt8(ascii: ",") else {
                throw fail("unexpected \(describeCurrent()) in an array, expected ',' or ']'")
            }
            pos += 1
            skipWhitespace()
            if pos < bytes.count, bytes[pos] == UInt8(ascii: "]") {  // trailing comma
                pos += 1
                depth -= 1
                return false
            }
        }
        first = false
        return true
    }

    // MARK: scalars

    /// Scans a string token starting at the opening quote; validates escapes and
    /// refuses raw control characters. Returns the content range.
    mutating func scanString() throws(AHAPError) -> JSONStringToken {
        let open = pos
        pos += 1
        let start = pos
        var escapes = false
        let n = bytes.count
        while pos < n {
            let b = bytes[pos]
            if b == UInt8(ascii: "\"") {
                let token = JSONStringToken(start: start, end: pos, hasEscapes: escapes)
                pos += 1
                return token
            }
            if b == UInt8(ascii: "\\") {
                escapes = true
                pos += 1
                guard pos < n else { break }
                switch bytes[pos] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    pos += 1
                case UInt8(ascii: "u"):
                    for i in 1...4 {
                        guard pos + i < n, hexValue(bytes[pos + i]) != nil else {
                            throw fail("invalid \\u escape in a string", at: pos - 1)
                        }
                    }
                    pos += 5
                default:
                    let e = bytes[pos]
                    let shown = e >= 0x21 && e < 0x7F ? String(Character(Unicode.Scalar(e))) : "(byte 0x\(String(e, radix: 16, uppercase: true)))"
                    throw fail("invalid escape '\\\(shown)' in a string", at: pos - 1)
                }
                continue
            }
            if b < 0x20 {
                throw fail("control character (byte 0x\(String(b, radix: 16, uppercase: true))) inside a string; it must be escaped")
            }
            pos += 1
        }
        throw fail("unterminated string", at: open)
    }

    /// Reads a string value (the caller has checked `peekKind() == .string`).
    mutating func readString() throws(AHAPError) -> String {
        let token = try scanString()
        return string(token)
    }

    /// The text of a scanned string token (escapes resolved, invalid UTF-8 repaired).
    func string(_ token: JSONStringToken) -> String {
        let raw = UnsafeBufferPointer(rebasing: bytes[token.start..<token.end])
        if !token.hasEscapes { return String(decoding: raw, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let b = raw[i]
            guard b == UInt8(ascii: "\\") else {
                out.append(b)
                i += 1
                continue
            }
            let e = raw[i + 1]  // scanString guaranteed a valid escape
            i += 2
            switch e {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = hex4(raw, i)
                i += 4
                // A surrogate pair spelled as two escapes.
                if code >= 0xD800 && code < 0xDC00, i + 5 < raw.count,
                    raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u")
                {
                    let low = hex4(raw, i + 2)
                    if low >= 0xDC00 && low < 0xE000 {
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        i += 6
                    }
                }
                let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                out.append(contentsOf: String(Character(scalar)).utf8)
            default: out.append(e)  // \" \\ \/
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private func hex4(_ raw: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 { v = v << 4 | UInt32(hexValue(raw[at + k]) ?? 0) }
        return v
    }

    /// Reads `true` or `false`.
    mutating func readBool() throws(AHAPError) -> Bool {
        if matches("true") {
            pos += 4
            return true
        }
        if matches("false") {
            pos += 5
            return false
        }
        throw expectedValueError()
    }

    /// Reads `null`.
    mutating func readNull() throws(AHAPError) {
        guard matches("null") else { throw expectedValueError() }
        pos += 4
    }

    /// Reads a JSON number, correctly rounded for every input: a fast path (Clinger's:
    /// a decimal mantissa up to 2^53 and a power of ten up to 1e22 are both exact
    /// doubles, so one IEEE multiply or divide rounds correctly) and the standard
    /// library's correctly rounded conversion otherwise. Refuses numbers that overflow.
    mutating func readNumber() throws(AHAPError) -> Double {
        let start = pos
        let n = bytes.count
        var negative = false
        if bytes[pos] == UInt8(ascii: "-") {
            negative = true
            pos += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0  // significant digits accumulated into mantissa
        var dropped = false  // digits beyond 19 were not accumulated
        var exponent = 0  // decimal exponent adjustment from the fraction / dropped digits
        guard pos < n, isDigit(bytes[pos]) else {
            if matches("Infinity") { throw fail("'-Infinity' is not a JSON number (non-finite numbers are not allowed)", at: start) }
            throw fail("invalid number: expected a digit", at: pos)
        }
        if bytes[pos] == UInt8(ascii: "0") {
            pos += 1
            if pos < n, isDigit(bytes[pos]) { throw fail("invalid number: leading zero", at: start) }
        } else {
            while pos < n, isDigit(bytes[pos]) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[pos] &- 0x30)
                    digits += 1
                } else {
                    exponent += 1
                    if bytes[pos] != UInt8(ascii: "0") { dropped = true }
                }
                pos += 1
            }
        }
        if pos < n, bytes[pos] == UInt8(ascii: ".") {
            pos += 1
            guard pos < n, isDigit(bytes[pos]) else { throw fail("invalid number: expected a digit after '.'", at: pos) }
            while pos < n, isDigit(bytes[pos]) {
                if digits < 19 {
                    if mantissa != 0 || bytes[pos] != UInt8(ascii: "0") {
                        mantissa = mantissa &* 10 &+ UInt64(bytes[pos] &- 0x30)
                        digits += 1
                    }
                    exponent -= 1
                } else if bytes[pos] != UInt8(ascii: "0") {
                    dropped = true
                }
                pos += 1
            }
        }
        var explicitExponent = 0
        var exponentTooLarge = false
        if pos < n, bytes[pos] | 0x20 == UInt8(ascii: "e") {
            pos += 1
            var expNegative = false
            if pos < n, bytes[pos] == UInt8(ascii: "+") || bytes[pos] == UInt8(ascii: "-") {
                expNegative = bytes[pos] == UInt8(ascii: "-")
                pos += 1
            }
            guard pos < n, isDigit(bytes[pos]) else { throw fail("invalid number: expected a digit in the exponent", at: pos) }
            while pos < n, isDigit(bytes[pos]) {
                if explicitExponent < 100_000 {
                    explicitExponent = explicitExponent * 10 + Int(bytes[pos] &- 0x30)
                } else {
                    exponentTooLarge = true
                }
                pos += 1
            }
            if expNegative { explicitExponent = -explicitExponent }
        }
        if pos - start > Self.maxNumberLength {
            throw fail("number longer than \(Self.maxNumberLength) characters", at: start)
        }
        if !dropped && !exponentTooLarge && mantissa <= (1 << 53) {
            let e = exponent + explicitExponent
            if e >= -22 && e <= 22 {
                var value = Double(mantissa)
                if e < 0 { value /= Self.powersOfTen[-e] } else { value *= Self.powersOfTen[e] }
                return negative ? -value : value
            }
            if mantissa == 0 { return negative ? -0.0 : 0.0 }
        }
        // Slow path: the standard library's correctly rounded conversion.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
        guard let value = Double(text) else { throw fail("invalid number '\(text)'", at: start) }
        guard value.isFinite else {
            throw fail("number \(text.count > 40 ? String(text.prefix(40)) + "…" : text) is too large (not a finite double)", at: start)
        }
        return value
    }

    private static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    // MARK: generic values

    /// Skips one value of any kind (depth-bounded).
    mutating func skipValue() throws(AHAPError) {
        switch peekKind() {
        case .object:
            try beginObject()
            var first = true
            while try nextMember(&first) != nil { try skipValue() }
        case .array:
            try beginArray()
            var first = true
            while try nextElement(&first) { try skipValue() }
        case .string: _ = try scanString()
        case .number: _ = try readNumber()
        case .bool: _ = try readBool()
        case .null: try readNull()
        case .invalid: throw expectedValueError()
        }
    }

    /// Reads one value of any kind into a `JSONValue` (depth-bounded).
    mutating func readValue() throws(AHAPError) -> JSONValue {
        switch peekKind() {
        case .object:
            try beginObject()
            var first = true
            var members: [(key: String, value: JSONValue)] = []
            while let key = try nextMember(&first) {
                members.append((string(key), try readValue()))
            }
            return .object(members)
        case .array:
            try beginArray()
            var first = true
            var items: [JSONValue] = []
            while try nextElement(&first) { items.append(try readValue()) }
            return .array(items)
        case .string: return .string(try readString())
        case .number: return .number(try readNumber())
        case .bool: return .bool(try readBool())
        case .null:
            try readNull()
            return .null
        case .invalid: throw expectedValueError()
        }
    }

    /// Whether the string token's raw bytes equal `literal` (escaped tokens compare decoded).
    func equals(_ token: JSONStringToken, _ literal: StaticString) -> Bool {
        if token.hasEscapes { return string(token) == literal.description }
        let count = literal.utf8CodeUnitCount
        guard token.end - token.start == count else { return false }
        let lit = literal.utf8Start
        var i = 0
        while i < count {
            if bytes[token.start + i] != lit[i] { return false }
            i += 1
        }
        return true
    }

    /// Line and column (1-based; columns count characters, not bytes) of a byte offset.
    static func lineAndColumn(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, start: Int) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        var i = start
        let end = min(offset, bytes.count)
        while i < end {
            let b = bytes[i]
            if b == 0x0A {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {  // not a UTF-8 continuation byte
                column += 1
            }
            i += 1
        }
        return (line, column)
    }
}

@inline(__always)
private func isDigit(_ b: UInt8) -> Bool { b &- 0x30 < 10 }

@inline(__always)
private func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: b - 0x30
    case 0x41...0x46: b - 0x41 + 10
    case 0x61...0x66: b - 0x61 + 10
    default: nil
    }
}
