// Beat maps for the rhythm chapter: beat times from a tempo or a file (JSON or text), and the
// error that names where a file is wrong.


/// Beat times in seconds from the first beat's reference point (the session's start).
public struct BeatMap: Sendable, Equatable {
    /// Strictly increasing, finite, ≥ 0.
    public var times: [Double]
    /// The tempo when the map was made from one (nil for a file).
    public var bpm: Double?

    /// `beats` beats at `bpm` beats per minute, the first at 0.
    public init(bpm: Double, beats: Int) {
        let spacing = 60 / bpm
        times = (0..<max(0, beats)).map { Double($0) * spacing }
        self.bpm = bpm
    }

    /// Explicit times (validated by ``parse(_:source:)`` when they come from a file).
    public init(times: [Double]) {
        self.times = times
        bpm = nil
    }

    /// The most beats a map may hold (a session schedules one cue per beat).
    public static let maximumBeats = 100_000

    /// Reads a beat map file. Two formats, told apart by the first non-blank character:
    /// - JSON: `[0.0, 0.6, 1.2]` or `{"beats": [0.0, 0.6, 1.2]}` (seconds);
    /// - text: one time in seconds per line; blank lines and `#` comments are ignored.
    /// Times must be finite, ≥ 0 and strictly increasing; at least one, at most ``maximumBeats``.
    public static func parse(_ bytes: [UInt8], source: String) throws(BeatMapError) -> BeatMap {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw BeatMapError(source: source, location: "", message: "not UTF-8 text")
        }
        let trimmed = text.drop { $0.isWhitespace }
        var times: [Double] = []
        if trimmed.first == "[" || trimmed.first == "{" {
            let isObject = trimmed.first == "{"
            let prefix = isObject ? "beats" : ""
            let document: JSONValue
            do { document = try JSONValue.parse(bytes) } catch {
                throw BeatMapError(source: source, location: "", message: "not valid JSON (expected [seconds...] or {\"beats\": [seconds...]}): \(error)")
            }
            let list = isObject ? document["beats"] : document
            guard case .array(let items)? = list else {
                throw BeatMapError(source: source, location: "", message: "JSON object without a \"beats\" array")
            }
            for (i, item) in items.enumerated() {
                switch item {
                case .number(let t): times.append(t)
                case .null: throw BeatMapError(source: source, location: "\(prefix)[\(i)]", message: "expected a number of seconds, found null")
                default: throw BeatMapError(source: source, location: "\(prefix)[\(i)]", message: "expected a number of seconds")
                }
            }
            try check(times, source: source) { "\(prefix)[\($0)]" }
        } else {
            var lineOf: [Int] = []
            for (n, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                var line = Substring(rawLine)
                if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
                let field = String(line.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                if field.isEmpty { continue }
                guard let value = Double(field) else {
                    throw BeatMapError(source: source, location: "line \(n + 1)", message: "expected a time in seconds, found \"\(field.prefix(40))\"")
                }
                times.append(value)
                lineOf.append(n + 1)
            }
            try check(times, source: source) { "line \(lineOf[$0])" }
        }
        return BeatMap(times: times)
    }

    private static func check(_ times: [Double], source: String, location: (Int) -> String) throws(BeatMapError) {
        guard !times.isEmpty else { throw BeatMapError(source: source, location: "", message: "no beat times") }
        guard times.count <= maximumBeats else {
            throw BeatMapError(source: source, location: "", message: "\(times.count) beats; at most \(maximumBeats)")
        }
        for (i, t) in times.enumerated() {
            guard t.isFinite, t >= 0, t <= 86_400 else {
                throw BeatMapError(source: source, location: location(i), message: "time \(t) is not between 0 and 86400 seconds")
            }
            if i > 0 && t <= times[i - 1] {
                throw BeatMapError(source: source, location: location(i), message: "time \(t) does not come after the previous beat (\(times[i - 1])); times must increase")
            }
        }
    }
}

/// A beat map that could not be read: names the file, the place in it, and what is wrong.
public struct BeatMapError: Error, Sendable, Equatable, CustomStringConvertible {
    public var source: String
    /// `line 3`, `beats[2]`, or empty for the whole file.
    public var location: String
    public var message: String
    public init(source: String, location: String, message: String) {
        self.source = source
        self.location = location
        self.message = message
    }
    public var description: String { printable(location.isEmpty ? "\(source): \(message)" : "\(source): \(location): \(message)") }
}
