// The AHAP rules: pulls values from the JSON scanner straight into the model,
// applying Core Haptics' lenient loading rules (each leaves a warning with a document
// path) and refusing what cannot be played (hard errors with a path).
//
// Paths and messages are built only when a warning or error is actually reported
// (autoclosures), so clean files pay nothing for them.

/// The longest a continuous event may last; longer ones are capped (as Core Haptics does).
public let ahapMaximumContinuousDuration: Double = Limits.maxContinuousDuration

/// Formats a number for messages the way the encoder writes it.
func formatNumber(_ value: Double) -> String { value.description }

struct AHAPReader {
    var s: JSONScanner
    let options: AHAPDecodeOptions
    var warnings: [AHAPWarning] = []
    var unlistedWarnings = 0

    init(bytes: UnsafeBufferPointer<UInt8>, options: AHAPDecodeOptions) {
        // A UTF-8 byte-order mark is skipped (some editors write one).
        let bom = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        self.s = JSONScanner(bytes: bytes, start: bom ? 3 : 0)
        self.options = options
    }

    // MARK: reporting

    mutating func warn(
        _ kind: AHAPWarning.Kind, _ path: @autoclosure () -> String, _ message: @autoclosure () -> String
    ) throws(AHAPError) {
        if options.strict {
            throw AHAPError(path: path(), message: message(), kind: .strict(kind))
        }
        if warnings.count < options.maxWarnings {
            warnings.append(AHAPWarning(path: path(), message: message(), kind: kind))
        } else {
            unlistedWarnings += 1
        }
    }

    func error(_ kind: AHAPError.Kind, _ path: String, _ message: String) -> AHAPError {
        AHAPError(path: path, message: message, kind: kind)
    }

    // MARK: typed values

    /// Checks that the next value is of `kind`, or throws: the scanner's own error for text
    /// that is no value at all, else a wrong-type error "`key` must be `expected`, found …" at `path`.
    mutating func expect(_ kind: JSONKind, _ path: @autoclosure () -> String, _ key: String, _ expected: String) throws(AHAPError) {
        let found = s.peekKind()
        guard found == kind else {
            if found == .invalid { throw s.expectedValueError() }
            throw error(.wrongType, path(), "\(key) must be \(expected), found \(found.noun)")
        }
    }

    /// Reads a number or throws a wrong-type error naming `key` at `path`.
    mutating func number(_ path: @autoclosure () -> String, _ key: String) throws(AHAPError) -> Double {
        try expect(.number, path(), key, "a number")
        return try s.readNumber()
    }

    /// Reads a time (seconds): a number that is finite and not negative.
    mutating func time(_ path: @autoclosure () -> String, _ key: String) throws(AHAPError) -> Double {
        let value = try number(path(), key)
        guard value.isFinite, value >= 0 else {
            throw error(.invalidTime, path(), "\(key) must be a finite number of seconds, not negative (found \(formatNumber(value)))")
        }
        return value
    }

    mutating func string(_ path: @autoclosure () -> String, _ key: String) throws(AHAPError) -> JSONStringToken {
        try expect(.string, path(), key, "a string")
        return try s.scanString()
    }

    mutating func bool(_ path: @autoclosure () -> String, _ key: String) throws(AHAPError) -> Bool {
        try expect(.bool, path(), key, "true or false")
        return try s.readBool()
    }

    mutating func beginObject(_ path: @autoclosure () -> String, _ what: String) throws(AHAPError) {
        try expect(.object, path(), what, "an object")
        try s.beginObject()
    }

    mutating func beginArray(_ path: @autoclosure () -> String, _ what: String) throws(AHAPError) {
        try expect(.array, path(), what, "an array")
        try s.beginArray()
    }

    mutating func unknownKey(_ token: JSONStringToken, in path: @autoclosure () -> String) throws(AHAPError) {
        let name = s.string(token)
        let base = path()
        try warn(.unknownKey, base.isEmpty ? name : "\(base).\(name)", "unknown key '\(name)' ignored")
        try s.skipValue()
    }

    mutating func duplicate(_ seen: inout Bool, _ token: JSONStringToken, _ path: @autoclosure () -> String) throws(AHAPError) {
        if seen {
            let name = s.string(token)
            let base = path()
            try warn(.duplicate, base.isEmpty ? name : "\(base).\(name)", "'\(name)' given twice; the last one applies")
        }
        seen = true
    }

    /// Clamps `value` into `range`, warning when it was outside.
    mutating func clamp(
        _ value: Double, _ range: ClosedRange<Double>, _ name: String, _ path: @autoclosure () -> String
    ) throws(AHAPError) -> Double {
        if range.contains(value) { return value }
        let clamped = min(max(value, range.lowerBound), range.upperBound)
        try warn(
            .clamped, path(),
            "\(name) \(formatNumber(value)) is outside \(formatNumber(range.lowerBound))…\(formatNumber(range.upperBound)); clamped to \(formatNumber(clamped))"
        )
        return clamped
    }

    // MARK: document

    mutating func readDocument() throws(AHAPError) -> DecodedAHAP {
        let kind = s.peekKind()
        if s.atEnd { throw s.fail("empty file: no JSON value") }
        guard kind == .object else {
            if kind == .invalid { throw s.expectedValueError() }
            throw error(.missingPattern, "", "the top level must be an object with a Pattern array, found \(kind.noun)")
        }
        try s.beginObject()
        var pattern = AHAPPattern(version: nil, metadata: nil, elements: [])
        var seenVersion = false, seenMetadata = false, seenPattern = false
        var first = true
        while let key = try s.nextMember(&first) {
            switch Key.match(key, s) {
            case .version:
                try duplicate(&seenVersion, key, "")
                pattern.version = try number("Version", "Version")
            case .metadata:
                try duplicate(&seenMetadata, key, "")
                pattern.metadata = try s.readValue()
            case .pattern:
                try duplicate(&seenPattern, key, "")
                pattern.elements = try readPattern()
            default:
                try unknownKey(key, in: "")
            }
        }
        s.skipWhitespace()
        if !s.atEnd { throw s.fail("unexpected \(s.describeCurrent()) after the end of the document") }
        guard seenPattern else { throw error(.missingPattern, "", "Pattern is missing") }
        try checkOrder(pattern.elements)
        try checkLimits(pattern.elements)
        if unlistedWarnings > 0 {
            warnings.append(AHAPWarning(path: "", message: "\(unlistedWarnings) more warnings not listed", kind: .truncated))
        }
        return DecodedAHAP(pattern: pattern, warnings: warnings)
    }

    mutating func readPattern() throws(AHAPError) -> [PatternElement] {
        let kind = s.peekKind()
        guard kind == .array else {
            if kind == .invalid { throw s.expectedValueError() }
            throw error(.missingPattern, "Pattern", "Pattern must be an array, found \(kind.noun)")
        }
        try s.beginArray()
        var elements: [PatternElement] = []
        var first = true
        var index = 0
        while try s.nextElement(&first) {
            if let element = try readElement(index) { elements.append(element) }
            index += 1
        }
        return elements
    }

    /// Warns once when events are not in time order (they play by time regardless).
    mutating func checkOrder(_ elements: [PatternElement]) throws(AHAPError) {
        var latest = -Double.infinity
        var latestIndex = 0
        var firstPlace: (index: Int, time: Double, previous: Double, previousIndex: Int)?
        var places = 0
        for (index, element) in elements.enumerated() {
            guard case .event(let event) = element else { continue }
            if event.time < latest {
                places += 1
                if firstPlace == nil { firstPlace = (index, event.time, latest, latestIndex) }
            } else {
                latest = event.time
                latestIndex = index
            }
        }
        if let place = firstPlace {
            let more = places > 1 ? " (and \(places - 1) more out of order)" : ""
            try warn(
                .unsorted, "Pattern[\(place.index)].Event.Time",
                "event at \(formatNumber(place.time)) s comes after Pattern[\(place.previousIndex)] at \(formatNumber(place.previous)) s\(more); events play in time order"
            )
        }
    }

    /// Warns (strict: fails) about what lies past `Limits`: what `render` and `play` skip.
    /// Paths are file positions, as everywhere else.
    mutating func checkLimits(_ elements: [PatternElement]) throws(AHAPError) {
        if elements.count > Limits.maxElements {
            try warn(
                .beyondLimit, "Pattern[\(Limits.maxElements)]",
                "the pattern has \(elements.count) elements, more than the limit of \(Limits.maxElements); render and play skip Pattern[\(Limits.maxElements)] and after")
        }
        let limit = formatNumber(Limits.maxTime)
        var points = 0
        for (i, element) in elements.prefix(Limits.maxElements).enumerated() {
            switch element {
            case .event(let event) where event.time > Limits.maxTime:
                try warn(
                    .beyondLimit, "Pattern[\(i)].Event.Time",
                    "Time \(formatNumber(event.time)) s is past the \(limit) s limit; render and play skip this event")
            case .parameter(let parameter) where parameter.time > Limits.maxTime:
                try warn(
                    .beyondLimit, "Pattern[\(i)].Parameter.Time",
                    "Time \(formatNumber(parameter.time)) s is past the \(limit) s limit; render and play skip this parameter")
            case .curve(let curve):
                let last = curve.time + (curve.controlPoints.map(\.time).max() ?? 0)
                points += curve.controlPoints.count
                if last > Limits.maxTime {
                    try warn(
                        .beyondLimit, "Pattern[\(i)].ParameterCurve",
                        "the curve reaches \(formatNumber(last)) s, past the \(limit) s limit; render and play skip this curve")
                } else if points > Limits.maxControlPoints {
                    try warn(
                        .beyondLimit, "Pattern[\(i)].ParameterCurve",
                        "more than \(Limits.maxControlPoints) control points in all curves together; render and play skip this curve")
                }
            default: continue
            }
        }
    }

    // MARK: enum matching on bytes

    func matchEventType(_ token: JSONStringToken) -> EventType? {
        switch token.end - token.start {
        case 15:
            if s.equals(token, "HapticTransient") { return .hapticTransient }
            if s.equals(token, "AudioContinuous") { return .audioContinuous }
        case 16: if s.equals(token, "HapticContinuous") { return .hapticContinuous }
        case 11: if s.equals(token, "AudioCustom") { return .audioCustom }
        default: break
        }
        return token.hasEscapes ? EventType(rawValue: s.string(token)) : nil
    }

    func matchEventParameterID(_ token: JSONStringToken) -> EventParameterID? {
        switch token.end - token.start {
        case 15:
            if s.equals(token, "HapticIntensity") { return .hapticIntensity }
            if s.equals(token, "HapticSharpness") { return .hapticSharpness }
            if s.equals(token, "AudioBrightness") { return .audioBrightness }
        default: break
        }
        return EventParameterID(rawValue: s.string(token))
    }

    func matchDynamicParameterID(_ token: JSONStringToken) -> DynamicParameterID? {
        if s.equals(token, "HapticIntensityControl") { return .hapticIntensityControl }
        if s.equals(token, "HapticSharpnessControl") { return .hapticSharpnessControl }
        return DynamicParameterID(rawValue: s.string(token))
    }
}
