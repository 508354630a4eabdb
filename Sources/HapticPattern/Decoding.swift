// CONTRACT: the decoding API. The reader itself is in AHAPReader.swift (rules) and
// JSONScanner.swift (bytes); the writer in Encoding.swift.

/// How strictly to read a file.
public struct AHAPDecodeOptions: Sendable, Equatable {
    /// Turn every warning into an error (for authors who want clean files).
    public var strict: Bool
    /// At most this many warnings are listed; the rest are counted in one final warning
    /// (a hostile file could otherwise produce millions of them).
    public var maxWarnings: Int
    public init(strict: Bool = false, maxWarnings: Int = 1000) {
        self.strict = strict
        self.maxWarnings = maxWarnings
    }
}

/// Something the lenient reader fixed or ignored, with where it was.
public struct AHAPWarning: Sendable, Equatable, CustomStringConvertible {
    /// What kind of leniency the reader applied.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A key the format does not know; ignored.
        case unknownKey
        /// A key given twice in one object, or a parameter given twice in one event; the last applies.
        case duplicate
        /// A value was left out; its default applies (for intensity and sharpness: the actuator profile's).
        case defaultApplied
        /// A value outside its range; clamped into it.
        case clamped
        /// Events not in time order (they play by time regardless).
        case unsorted
        /// A continuous event longer than 30 s; capped at 30 s.
        case capped
        /// A parameter ID the format does not know; the entry is ignored.
        case unknownParameter
        /// A value that has no effect where it is (for example a waveform path on a haptic event).
        case ignored
        /// Past one of `Limits` (a time, the number of elements or control points): `render`
        /// and `play` skip the element.
        case beyondLimit
        /// Stands for warnings beyond `AHAPDecodeOptions.maxWarnings`.
        case truncated
    }

    /// A path into the document, for example `Pattern[12].Event.EventParameters[1].ParameterValue`.
    public var path: String
    public var message: String
    public var kind: Kind
    public init(path: String, message: String, kind: Kind = .ignored) {
        self.path = path
        self.message = message
        self.kind = kind
    }
    /// Escaped (`printable`): the path and message hold the file's keys and values.
    public var description: String { printable(path.isEmpty ? message : "\(path): \(message)") }
}

/// A hard error: where (a document path, and line/column for JSON syntax) and what.
public struct AHAPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of error, so that callers and tests can tell them apart without parsing messages.
    public enum Kind: Sendable, Equatable {
        /// Not JSON (or beyond the reader's limits: nesting depth, number size); has line and column.
        case syntax
        /// The top level is not an object, or `Pattern` is missing or not an array.
        case missingPattern
        /// A pattern element with none, or more than one, of Event / Parameter / ParameterCurve.
        case elementShape
        /// An `EventType` the format does not know.
        case unknownEventType
        /// A negative or non-finite time (or duration).
        case invalidTime
        /// A sustained continuous event without a positive `EventDuration`.
        case missingDuration
        /// A value of the wrong JSON type (for example a string where a number belongs).
        case wrongType
        /// An `AudioCustom` event without `EventWaveformPath`.
        case missingWaveformPath
        /// A required key is missing (`Time`, `EventType`, `ParameterID`).
        case missingValue
        /// A warning turned into an error by strict mode.
        case strict(AHAPWarning.Kind)
        /// Not from the reader (for example an error built by other code).
        case other
    }

    public var path: String
    public var message: String
    /// 1-based line and column, for errors found while reading the JSON text.
    public var line: Int?
    public var column: Int?
    public var kind: Kind
    public init(path: String, message: String, line: Int? = nil, column: Int? = nil, kind: Kind = .other) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
        self.kind = kind
    }
    /// Escaped (`printable`): the path and message hold the file's keys and values.
    public var description: String {
        if let line, let column { return printable("line \(line), column \(column): \(message)") }
        return printable(path.isEmpty ? message : "\(path): \(message)")
    }
}

/// A decoded pattern and the warnings the lenient rules left.
public struct DecodedAHAP: Sendable, Equatable {
    public var pattern: AHAPPattern
    public var warnings: [AHAPWarning]
    public init(pattern: AHAPPattern, warnings: [AHAPWarning]) {
        self.pattern = pattern
        self.warnings = warnings
    }
}

extension AHAPPattern {
    /// Decodes AHAP bytes (UTF-8, optional BOM, trailing commas accepted).
    ///
    /// Lenient by default, as Core Haptics loads files: defaults, clamping, unknown keys,
    /// unsorted events and over-long continuous events each leave an `AHAPWarning`.
    /// `options.strict` turns the first such warning into an error.
    public static func decode(from bytes: [UInt8], options: AHAPDecodeOptions = .init()) throws(AHAPError) -> DecodedAHAP {
        let result: Result<DecodedAHAP, AHAPError> = bytes.withUnsafeBufferPointer { buffer in
            var reader = AHAPReader(bytes: buffer, options: options)
            do throws(AHAPError) {
                return .success(try reader.readDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Decodes AHAP text (a convenience over `decode(from:options:)`).
    public static func decode(text: String, options: AHAPDecodeOptions = .init()) throws(AHAPError) -> DecodedAHAP {
        try decode(from: Array(text.utf8), options: options)
    }

    /// Canonical AHAP JSON text (stable key order, only non-default waveform flags).
    public func encoded() -> String {
        var writer = AHAPWriter()
        writer.write(self)
        return writer.output
    }

    /// Checks a pattern built in code against the same rules as a file: returns the
    /// warnings the lenient reader would give, or throws its first hard error (or, when
    /// `options.strict`, its first warning). Paths refer to the canonical encoding.
    public func validate(options: AHAPDecodeOptions = .init()) throws(AHAPError) -> [AHAPWarning] {
        try AHAPPattern.decode(from: Array(encoded().utf8), options: options).warnings
    }
}
