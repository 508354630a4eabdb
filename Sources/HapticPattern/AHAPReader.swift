// The AHAP rules: pulls values from the JSON scanner straight into the model,
// applying Core Haptics' lenient loading rules (each leaves a warning with a document
// path) and refusing what cannot be played (hard errors with a path).
//
// Paths and messages are built only when a warning or error is actually reported
// (autoclosures), so clean files pay nothing for them.

/// The longest a continuous event may last; longer ones are capped (as Core Haptics does).
public let ahapMaximumContinuousDuration: Double = Limits.maxContinuousDuration

/// The keys the reader knows, matched on raw bytes (no String per key).
private enum Key {
    case version, metadata, pattern
    case event, parameter, parameterCurve
    case time, eventType, eventDuration, eventParameters
    case waveformPath, useVolumeEnvelope, loopEnabled
    case parameterID, parameterValue, controlPoints
    case unknown

    static func match(_ token: JSONStringToken, _ s: JSONScanner) -> Key {
        switch token.end - token.start {
        case 4: return s.equals(token, "Time") ? .time : .unknown
        case 5: return s.equals(token, "Event") ? .event : .unknown
        case 7:
            if s.equals(token, "Pattern") { return .pattern }
            return s.equals(token, "Version") ? .version : .unknown
        case 8: return s.equals(token, "Metadata") ? .metadata : .unknown
        case 9:
            if s.equals(token, "EventType") { return .eventType }
            return s.equals(token, "Parameter") ? .parameter : .unknown
        case 11: return s.equals(token, "ParameterID") ? .parameterID : .unknown
        case 13: return s.equals(token, "EventDuration") ? .eventDuration : .unknown
        case 14:
            if s.equals(token, "ParameterValue") { return .parameterValue }
            return s.equals(token, "ParameterCurve") ? .parameterCurve : .unknown
        case 15: return s.equals(token, "EventParameters") ? .eventParameters : .unknown
        case 17: return s.equals(token, "EventWaveformPath") ? .waveformPath : .unknown
        case 24: return s.equals(token, "EventWaveformLoopEnabled") ? .loopEnabled : .unknown
        case 27: return s.equals(token, "ParameterCurveControlPoints") ? .controlPoints : .unknown
        case 30: return s.equals(token, "EventWaveformUseVolumeEnvelope") ? .useVolumeEnvelope : .unknown
        default:
            // Escaped keys have a different raw length; compare their decoded text.
            if token.hasEscapes { return matchDecoded(s.string(token)) }
            return .unknown
        }
    }

    private static func matchDecoded(_ text: String) -> Key {
        switch text {
        case "Version": .version
        case "Metadata": .metadata
        case "Pattern": .pattern
        case "Event": .event
        case "Parameter": .parameter
        case "ParameterCurve": .parameterCurve
        case "Time": .time
        case "EventType": .eventType
        case "EventDuration": .eventDuration
        case "EventParameters": .eventParameters
        case "EventWaveformPath": .waveformPath
        case "EventWaveformUseVolumeEnvelope": .useVolumeEnvelope
        case "EventWaveformLoopEnabled": .loopEnabled
        case "ParameterID": .parameterID
        case "ParameterValue": .parameterValue
        case "ParameterCurveControlPoints": .controlPoints
        default: .unknown
        }
    }
}

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

    // MARK: elements

    /// One element; nil when it is dropped (with a warning, e.g. an unknown parameter ID).
    /// Element indices in paths are file positions.
    mutating func readElement(_ i: Int) throws(AHAPError) -> PatternElement? {
        let kind = s.peekKind()
        guard kind == .object else {
            if kind == .invalid { throw s.expectedValueError() }
            throw error(.elementShape, "Pattern[\(i)]", "an element must be an object with one of Event, Parameter or ParameterCurve, found \(kind.noun)")
        }
        try s.beginObject()
        var result: PatternElement??
        var firstKey: String?
        var unknown: [String] = []
        var first = true
        while let key = try s.nextMember(&first) {
            let matched = Key.match(key, s)
            switch matched {
            case .event, .parameter, .parameterCurve:
                let name = s.string(key)
                if let firstKey {
                    throw error(.elementShape, "Pattern[\(i)]", "an element must have exactly one of Event, Parameter or ParameterCurve; this one has \(firstKey) and \(name)")
                }
                firstKey = name
                switch matched {
                case .event: result = .some(.event(try readEvent(i)))
                case .parameter: result = .some(try readParameter(i).map(PatternElement.parameter))
                default: result = .some(try readCurve(i).map(PatternElement.curve))
                }
            default:
                unknown.append(s.string(key))
                try s.skipValue()
            }
        }
        guard let result else {
            let found = unknown.isEmpty ? "it is empty" : "it has only " + unknown.map { "'\($0)'" }.joined(separator: ", ")
            throw error(.elementShape, "Pattern[\(i)]", "an element must have one of Event, Parameter or ParameterCurve; \(found)")
        }
        for name in unknown {
            try warn(.unknownKey, "Pattern[\(i)].\(name)", "unknown key '\(name)' ignored")
        }
        return result
    }

    mutating func readEvent(_ i: Int) throws(AHAPError) -> Event {
        try beginObject("Pattern[\(i)].Event", "Event")
        var time: Double?
        var type: EventType?
        var duration: Double?
        var parameters: [EventParameter] = []
        var waveformPath: String?
        var useVolumeEnvelope = true
        var loopEnabled = false
        var seenTime = false, seenType = false, seenParameters = false, seenPath = false, seenEnvelope = false, seenLoop = false
        var first = true
        while let key = try s.nextMember(&first) {
            switch Key.match(key, s) {
            case .time:
                try duplicate(&seenTime, key, "Pattern[\(i)].Event")
                time = try self.time("Pattern[\(i)].Event.Time", "Time")
            case .eventType:
                try duplicate(&seenType, key, "Pattern[\(i)].Event")
                let token = try string("Pattern[\(i)].Event.EventType", "EventType")
                guard let matched = matchEventType(token) else {
                    throw error(
                        .unknownEventType, "Pattern[\(i)].Event.EventType",
                        "unknown EventType '\(s.string(token))' (expected HapticTransient, HapticContinuous, AudioCustom or AudioContinuous)")
                }
                type = matched
            case .eventDuration:
                if duration != nil { try warn(.duplicate, "Pattern[\(i)].Event.EventDuration", "'EventDuration' given twice; the last one applies") }
                duration = try self.time("Pattern[\(i)].Event.EventDuration", "EventDuration")
            case .eventParameters:
                try duplicate(&seenParameters, key, "Pattern[\(i)].Event")
                parameters = try readEventParameters(i)
            case .waveformPath:
                try duplicate(&seenPath, key, "Pattern[\(i)].Event")
                waveformPath = s.string(try string("Pattern[\(i)].Event.EventWaveformPath", "EventWaveformPath"))
            case .useVolumeEnvelope:
                try duplicate(&seenEnvelope, key, "Pattern[\(i)].Event")
                useVolumeEnvelope = try bool("Pattern[\(i)].Event.EventWaveformUseVolumeEnvelope", "EventWaveformUseVolumeEnvelope")
            case .loopEnabled:
                try duplicate(&seenLoop, key, "Pattern[\(i)].Event")
                loopEnabled = try bool("Pattern[\(i)].Event.EventWaveformLoopEnabled", "EventWaveformLoopEnabled")
            default:
                try unknownKey(key, in: "Pattern[\(i)].Event")
            }
        }
        guard let time else { throw error(.missingValue, "Pattern[\(i)].Event", "Time is missing") }
        guard let type else { throw error(.missingValue, "Pattern[\(i)].Event", "EventType is missing") }
        var event = Event(
            time: time, type: type, duration: duration, parameters: parameters, waveformPath: waveformPath,
            useVolumeEnvelope: useVolumeEnvelope, loopEnabled: loopEnabled)

        if type.isHaptic {
            for id in [EventParameterID.hapticIntensity, .hapticSharpness] where event.value(of: id) == nil {
                try warn(
                    .defaultApplied, "Pattern[\(i)].Event.EventParameters",
                    "\(id.rawValue) is absent; the actuator profile's default applies")
            }
        }
        if type.isContinuous && event.isSustained {
            guard let d = duration, d > 0 else {
                throw error(
                    .missingDuration, duration == nil ? "Pattern[\(i)].Event" : "Pattern[\(i)].Event.EventDuration",
                    "a sustained \(type.rawValue) event needs a positive EventDuration"
                        + (duration == nil ? " (it has none)" : " (found \(formatNumber(duration!)))"))
            }
        }
        if type.isContinuous, let d = duration, d > ahapMaximumContinuousDuration {
            try warn(
                .capped, "Pattern[\(i)].Event.EventDuration",
                "EventDuration \(formatNumber(d)) s is longer than \(formatNumber(ahapMaximumContinuousDuration)) s; capped at \(formatNumber(ahapMaximumContinuousDuration)) s")
            event.duration = ahapMaximumContinuousDuration
        }
        if type == .audioCustom {
            guard let path = waveformPath else {
                throw error(.missingWaveformPath, "Pattern[\(i)].Event", "an AudioCustom event needs an EventWaveformPath")
            }
            if path.isEmpty {
                throw error(.missingWaveformPath, "Pattern[\(i)].Event.EventWaveformPath", "an AudioCustom event needs an EventWaveformPath (it is empty)")
            }
        } else {
            if waveformPath != nil {
                try warn(.ignored, "Pattern[\(i)].Event.EventWaveformPath", "EventWaveformPath is only used by AudioCustom events; ignored for \(type.rawValue)")
            }
        }
        return event
    }

    mutating func readEventParameters(_ i: Int) throws(AHAPError) -> [EventParameter] {
        try beginArray("Pattern[\(i)].Event.EventParameters", "EventParameters")
        var list: [EventParameter] = []
        var first = true
        var j = 0
        while try s.nextElement(&first) {
            defer { j += 1 }
            // Built only when reported (a String per entry would cost on large files).
            func base() -> String { "Pattern[\(i)].Event.EventParameters[\(j)]" }
            try beginObject(base(), "an event parameter")
            var id: EventParameterID?
            var idText: String?
            var value: Double?
            var firstKey = true
            while let key = try s.nextMember(&firstKey) {
                switch Key.match(key, s) {
                case .parameterID:
                    let token = try string(base() + ".ParameterID", "ParameterID")
                    id = matchEventParameterID(token)
                    idText = id == nil ? s.string(token) : nil
                case .parameterValue:
                    value = try number(base() + ".ParameterValue", "ParameterValue")
                default:
                    try unknownKey(key, in: base())
                }
            }
            guard let id else {
                if let idText {
                    try warn(.unknownParameter, base() + ".ParameterID", "unknown event parameter '\(idText)' ignored")
                } else {
                    try warn(.defaultApplied, base(), "event parameter without ParameterID ignored")
                }
                continue
            }
            guard let raw = value else {
                try warn(.defaultApplied, base(), "\(id.rawValue) has no ParameterValue; ignored, so its default applies")
                continue
            }
            let clamped = try clamp(raw, id.range, id.rawValue, base() + ".ParameterValue")
            if list.contains(where: { $0.id == id }) {
                try warn(.duplicate, base(), "\(id.rawValue) given twice in this event; the last one applies")
            }
            list.append(EventParameter(id, clamped))
        }
        return list
    }

    mutating func readParameter(_ i: Int) throws(AHAPError) -> DynamicParameter? {
        func base() -> String { "Pattern[\(i)].Parameter" }
        try beginObject(base(), "Parameter")
        var id: DynamicParameterID?
        var idText: String?
        var time: Double?
        var value: Double?
        var first = true
        while let key = try s.nextMember(&first) {
            switch Key.match(key, s) {
            case .parameterID:
                let token = try string(base() + ".ParameterID", "ParameterID")
                id = matchDynamicParameterID(token)
                idText = s.string(token)
            case .time: time = try self.time(base() + ".Time", "Time")
            case .parameterValue: value = try number(base() + ".ParameterValue", "ParameterValue")
            default: try unknownKey(key, in: base())
            }
        }
        guard let idText else { throw error(.missingValue, base(), "ParameterID is missing") }
        guard let time else { throw error(.missingValue, base(), "Time is missing") }
        guard let id else {
            try warn(.unknownParameter, base() + ".ParameterID", "unknown dynamic parameter '\(idText)'; element ignored")
            return nil
        }
        let v: Double
        if let value {
            v = try clamp(value, id.range, id.rawValue, base() + ".ParameterValue")
        } else {
            try warn(.defaultApplied, base(), "ParameterValue is missing; the neutral value \(formatNumber(id.defaultValue)) applies")
            v = id.defaultValue
        }
        return DynamicParameter(id, time: time, value: v)
    }

    mutating func readCurve(_ i: Int) throws(AHAPError) -> ParameterCurve? {
        func base() -> String { "Pattern[\(i)].ParameterCurve" }
        try beginObject(base(), "ParameterCurve")
        var id: DynamicParameterID?
        var idText: String?
        var time: Double?
        var rawPoints: [(time: Double, value: Double?)]?
        var first = true
        while let key = try s.nextMember(&first) {
            switch Key.match(key, s) {
            case .parameterID:
                let token = try string(base() + ".ParameterID", "ParameterID")
                id = matchDynamicParameterID(token)
                idText = s.string(token)
            case .time: time = try self.time(base() + ".Time", "Time")
            case .controlPoints: rawPoints = try readControlPoints(base)
            default: try unknownKey(key, in: base())
            }
        }
        guard let idText else { throw error(.missingValue, base(), "ParameterID is missing") }
        guard let time else { throw error(.missingValue, base(), "Time is missing") }
        guard let id else {
            try warn(.unknownParameter, base() + ".ParameterID", "unknown dynamic parameter '\(idText)'; curve ignored")
            return nil
        }
        if rawPoints == nil {
            try warn(.defaultApplied, base(), "ParameterCurveControlPoints is missing; the curve has no points")
        }
        var points: [ParameterCurve.ControlPoint] = []
        var previous = -Double.infinity
        var warnedOrder = false
        for (k, point) in (rawPoints ?? []).enumerated() {
            func pointPath() -> String { "\(base()).ParameterCurveControlPoints[\(k)]" }
            let v: Double
            if let value = point.value {
                v = try clamp(value, id.range, id.rawValue, pointPath() + ".ParameterValue")
            } else {
                try warn(.defaultApplied, pointPath(), "ParameterValue is missing; the neutral value \(formatNumber(id.defaultValue)) applies")
                v = id.defaultValue
            }
            if point.time < previous && !warnedOrder {
                warnedOrder = true
                try warn(.unsorted, pointPath() + ".Time", "control point at \(formatNumber(point.time)) s comes before the previous one at \(formatNumber(previous)) s")
            }
            previous = max(previous, point.time)
            points.append(.init(point.time, v))
        }
        return ParameterCurve(id, time: time, points: points)
    }

    mutating func readControlPoints(_ base: () -> String) throws(AHAPError) -> [(time: Double, value: Double?)] {
        try beginArray(base() + ".ParameterCurveControlPoints", "ParameterCurveControlPoints")
        var points: [(time: Double, value: Double?)] = []
        var first = true
        var k = 0
        while try s.nextElement(&first) {
            defer { k += 1 }
            func pointPath() -> String { "\(base()).ParameterCurveControlPoints[\(k)]" }
            try beginObject(pointPath(), "a control point")
            var time: Double?
            var value: Double?
            var firstKey = true
            while let key = try s.nextMember(&firstKey) {
                switch Key.match(key, s) {
                case .time: time = try self.time(pointPath() + ".Time", "Time")
                case .parameterValue: value = try number(pointPath() + ".ParameterValue", "ParameterValue")
                default: try unknownKey(key, in: pointPath())
                }
            }
            guard let time else { throw error(.missingValue, pointPath(), "Time is missing") }
            points.append((time, value))
        }
        return points
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
