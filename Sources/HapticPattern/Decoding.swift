// CONTRACT: the decoding API. Bodies are placeholders until the real decoder lands.

/// How strictly to read a file.
public struct AHAPDecodeOptions: Sendable, Equatable {
    /// Turn every warning into an error (for authors who want clean files).
    public var strict: Bool
    public init(strict: Bool = false) { self.strict = strict }
}

/// Something the lenient reader fixed or ignored, with where it was.
public struct AHAPWarning: Sendable, Equatable, CustomStringConvertible {
    /// A path into the document, for example `Pattern[12].Event.EventParameters[1].ParameterValue`.
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// A hard error: where (a document path, and line/column for JSON syntax) and what.
public struct AHAPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    /// 1-based line and column, for errors found while reading the JSON text.
    public var line: Int?
    public var column: Int?
    public init(path: String, message: String, line: Int? = nil, column: Int? = nil) {
        self.path = path
        self.message = message
        self.line = line
        self.column = column
    }
    public var description: String {
        if let line, let column { return "line \(line), column \(column): \(message)" }
        return path.isEmpty ? message : "\(path): \(message)"
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
    public static func decode(from bytes: [UInt8], options: AHAPDecodeOptions = .init()) throws(AHAPError) -> DecodedAHAP {
        throw AHAPError(path: "", message: "decoder not implemented yet")
    }

    /// Canonical AHAP JSON text (stable key order, only non-default waveform flags).
    public func encoded() -> String {
        ""
    }
}
