import HapticPattern

/// The cue sheet (`Assets/cues.json`, schema in `Assets/README.md`): the app's moments
/// and what each fires — a haptic (a pattern of the library, one inline transient, or
/// a short buzz of transients) and/or a sound effect with an optional offset.
public struct CueSheet: Sendable, Equatable {
    /// One transient given inline, `time` seconds after the cue's time.
    public struct Transient: Sendable, Equatable {
        public var time: Double
        public var intensity: Double
        public var sharpness: Double
        public init(time: Double = 0, intensity: Double, sharpness: Double) {
            self.time = time
            self.intensity = intensity
            self.sharpness = sharpness
        }
    }

    /// What a cue makes the actuator do.
    public enum Haptic: Sendable, Equatable {
        /// A pattern of the library (`Haptics/<name>.ahap`, or `<name>.haptic`).
        case pattern(String)
        /// One transient at the cue's time.
        case transient(Transient)
        /// A few transients at their times after the cue's time.
        case buzz([Transient])
    }

    /// The sound effect a cue plays.
    public struct SoundEffect: Sendable, Equatable {
        /// `Assets/sfx/<name>.wav`.
        public var name: String
        /// Seconds after the cue's time (≥ 0).
        public var offset: Double
        public init(name: String, offset: Double = 0) {
            self.name = name
            self.offset = offset
        }
    }

    /// How a cue's haptic and its sound are placed against each other (only matters when it
    /// has both). Whatever the alignment, it is applied in whole samples by delaying the part
    /// that would otherwise come first: a cue never starts anything before its time.
    public enum Alignment: Sendable, Equatable {
        /// The default: the two parts' felt onsets (the time each one's Hilbert envelope
        /// reaches half its peak) coincide. The part felt earlier is delayed.
        case felt
        /// The first samples coincide (the sound at its `offset`, the haptic at the cue's time).
        case sample
        /// An explicit offset, whatever the envelopes: the haptic comes this many milliseconds
        /// later than in the `.sample` alignment (negative: the sound comes that much later
        /// instead). With no sound offset: the haptic starts this long after the sound.
        /// (`"hapticOffsetMs"`, within ±``maximumHapticOffsetMs``.)
        case hapticOffsetMs(Double)
    }

    /// The largest |`hapticOffsetMs`| a cue sheet may give.
    public static let maximumHapticOffsetMs = 2_000.0

    /// One named moment.
    public struct Cue: Sendable, Equatable {
        public var name: String
        /// What happens in the app (documentation only).
        public var moment: String?
        public var haptic: Haptic?
        public var sfx: SoundEffect?
        /// How the haptic and the sound are aligned (`.felt` unless the sheet says otherwise).
        public var alignment: Alignment
        public init(name: String, moment: String? = nil, haptic: Haptic?, sfx: SoundEffect?, alignment: Alignment = .felt) {
            self.name = name
            self.moment = moment
            self.haptic = haptic
            self.sfx = sfx
            self.alignment = alignment
        }
    }

    /// The cues by name.
    public var cues: [String: Cue]

    public init(cues: [String: Cue] = [:]) { self.cues = cues }

    /// The cue called `name`.
    public subscript(name: String) -> Cue? { cues[name] }

    /// Reads a cue sheet file; `CueSheetError` names the file, the JSON path and the problem.
    public static func load(path: String) throws(CueSheetError) -> CueSheet {
        let bytes: [UInt8]
        switch readWholeFile(path) {
        case .success(let b): bytes = b
        case .failure(let problem): throw CueSheetError(source: path, path: "", message: problem.description)
        }
        return try decode(from: bytes, source: path)
    }

    /// Decodes cue-sheet JSON. `source` names it in errors (a file path).
    public static func decode(from bytes: [UInt8], source: String = "cues.json") throws(CueSheetError) -> CueSheet {
        func fail(_ path: String, _ message: String) -> CueSheetError { CueSheetError(source: source, path: path, message: message) }
        // The project's scanner: where (line and column) and what, e.g. a number like 1e400
        // that is not a finite double; and every key once (the last would silently win).
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch { throw fail("", "not valid JSON: \(error)") }
        if let duplicate = root.firstDuplicateKey { throw fail(duplicate, "given twice (each key once)") }
        guard case .object = root else { throw fail("", "the top level is not an object") }
        guard case .string("hapticsynth-cues")? = root["schema"] else { throw fail("schema", "expected \"hapticsynth-cues\"") }
        guard let version = number(root["version"]), version == 1 else { throw fail("version", "expected 1") }
        guard case .object(let cueMembers)? = root["cues"] else { throw fail("cues", "missing or not an object") }
        // Each cue is prepared and its felt alignment measured when a manager loads the sheet.
        guard cueMembers.count <= Limits.maxCues else { throw fail("cues", "\(cueMembers.count) cues; at most \(Limits.maxCues)") }

        var cues: [String: Cue] = [:]
        for (name, cue) in cueMembers.sorted(by: { $0.key < $1.key }) {
            let path = "cues.\(name)"
            guard case .object = cue else { throw fail(path, "not an object") }
            var haptic: Haptic? = nil
            if let object = cue["haptic"] {
                guard case .object = object else { throw fail("\(path).haptic", "not an object") }
                let kinds = ["pattern", "transient", "buzz"].filter { object[$0] != nil }
                guard kinds.count == 1 else {
                    throw fail("\(path).haptic", "needs exactly one of pattern, transient, buzz (has \(kinds.isEmpty ? "none" : kinds.joined(separator: ", ")))")
                }
                switch kinds[0] {
                case "pattern":
                    guard case .string(let file)? = object["pattern"], !file.isEmpty else {
                        throw fail("\(path).haptic.pattern", "not a pattern name")
                    }
                    haptic = .pattern(file)
                case "transient":
                    haptic = .transient(try transient(object["transient"], "\(path).haptic.transient", timed: false, fail))
                default:
                    guard case .array(let list)? = object["buzz"], !list.isEmpty else {
                        throw fail("\(path).haptic.buzz", "not a non-empty array")
                    }
                    var buzz: [Transient] = []
                    for (i, item) in list.enumerated() {
                        let t = try transient(item, "\(path).haptic.buzz[\(i)]", timed: true, fail)
                        if let last = buzz.last, t.time <= last.time {
                            throw fail("\(path).haptic.buzz[\(i)].time", "times must ascend")
                        }
                        buzz.append(t)
                    }
                    haptic = .buzz(buzz)
                }
            }
            var sfx: SoundEffect? = nil
            if let object = cue["sfx"] {
                guard case .object = object else { throw fail("\(path).sfx", "not an object") }
                guard case .string(let soundName)? = object["name"], !soundName.isEmpty else {
                    throw fail("\(path).sfx.name", "missing or not a string")
                }
                var offset = 0.0
                if object["offset"] != nil {
                    guard let o = number(object["offset"]), o >= 0 else { throw fail("\(path).sfx.offset", "not a number ≥ 0") }
                    // Bounded like a buzz's times: the felt alignment measures the haptic from there.
                    guard o <= 3600 else { throw fail("\(path).sfx.offset", "\(o) is outside 0…3600 seconds") }
                    offset = o
                }
                sfx = SoundEffect(name: soundName, offset: offset)
            }
            guard haptic != nil || sfx != nil else { throw fail(path, "fires nothing (needs haptic, sfx or both)") }
            var moment: String? = nil
            if let m = cue["moment"] {
                guard case .string(let text) = m else { throw fail("\(path).moment", "not a string") }
                moment = text
            }
            let alignment = try parseAlignment(cue, path, fail)
            cues[name] = Cue(name: name, moment: moment, haptic: haptic, sfx: sfx, alignment: alignment)
        }
        return CueSheet(cues: cues)
    }

    /// A cue's `"align"` (`"felt"` or `"sample"`) or `"hapticOffsetMs"` (finite, within
    /// ±``maximumHapticOffsetMs``); at most one of the two.
    private static func parseAlignment(
        _ cue: JSONValue, _ path: String, _ fail: (String, String) -> CueSheetError
    ) throws(CueSheetError) -> Alignment {
        let align = cue["align"], offset = cue["hapticOffsetMs"]
        if align != nil && offset != nil {
            throw fail(path, "give either align or hapticOffsetMs, not both (hapticOffsetMs is an explicit alignment)")
        }
        if let align {
            switch align {
            case .string("felt"): return .felt
            case .string("sample"): return .sample
            default: throw fail("\(path).align", "expected \"felt\" or \"sample\"")
            }
        }
        if let offset {
            let limit = maximumHapticOffsetMs
            // JSON has no NaN or infinity, but a literal like 1e400 overflows to one: `number` refuses both.
            guard let ms = number(offset) else {
                throw fail("\(path).hapticOffsetMs", "not a finite number of milliseconds")
            }
            guard abs(ms) <= limit else {
                throw fail("\(path).hapticOffsetMs", "\(ms) ms is outside -\(Int(limit))…\(Int(limit)) ms")
            }
            return .hapticOffsetMs(ms == 0 ? 0 : ms)  // -0 is 0
        }
        return .felt
    }

    private static func transient(
        _ object: JSONValue?, _ path: String, timed: Bool, _ fail: (String, String) -> CueSheetError
    ) throws(CueSheetError) -> Transient {
        guard case .object? = object, let object else { throw fail(path, "not an object") }
        func value(_ key: String, _ range: ClosedRange<Double>) throws(CueSheetError) -> Double {
            guard let v = number(object[key]) else { throw fail("\(path).\(key)", "missing or not a number") }
            guard range.contains(v) else { throw fail("\(path).\(key)", "\(v) is outside \(range.lowerBound)…\(range.upperBound)") }
            return v
        }
        let time = timed ? try value("time", 0...3600) : 0
        return Transient(time: time, intensity: try value("intensity", 0...1), sharpness: try value("sharpness", 0...1))
    }

    /// A finite JSON number (not a Boolean, a string or null).
    private static func number(_ value: JSONValue?) -> Double? {
        guard case .number(let d)? = value, d.isFinite else { return nil }
        return d
    }
}

/// Why a cue sheet could not be read: the file, the JSON path inside it, and the problem.
public struct CueSheetError: Error, Sendable, Equatable, CustomStringConvertible {
    public var source: String
    /// Dotted path of the offending value (`cues.beat_hit.sfx.offset`); empty for the whole file.
    public var path: String
    public var message: String
    public init(source: String, path: String, message: String) {
        self.source = source
        self.path = path
        self.message = message
    }
    /// Escaped (`printable`): the path holds the sheet's cue names.
    public var description: String { printable(path.isEmpty ? "\(source): \(message)" : "\(source): \(path): \(message)") }
}
