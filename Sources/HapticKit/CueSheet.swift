import Foundation
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
        /// A pattern of the library (`Haptics/<name>.ahap`).
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
        // Duplicate keys first: JSONSerialization silently keeps one of them.
        // The cue count too, before Foundation parses it all again (a sheet of 50,000 cues).
        // Only the outcome is kept: the tree is released before the second parse.
        let scanned = Result(catching: { () throws(AHAPError) -> CueSheetError? in
            let tree = try JSONValue.parse(bytes)
            if let duplicate = tree.firstDuplicateKey { return fail(duplicate, "given twice (each key once)") }
            if case .object(let root) = tree, case .object(let cues)? = root.first(where: { $0.key == "cues" })?.value,
               cues.count > Limits.maxCues {
                return fail("cues", "\(cues.count) cues; at most \(Limits.maxCues)")
            }
            return nil
        })
        if case .success(let problem?) = scanned { throw problem }
        let top: Any
        do {
            top = try JSONSerialization.jsonObject(with: Data(bytes))
        } catch {
            // The project's scanner says where (line and column) and what, e.g. a number like
            // 1e400 that is not a finite double; Foundation only that the data is wrong.
            if case .failure(let problem) = scanned { throw fail("", "not valid JSON: \(problem)") }
            throw fail("", "not valid JSON (\((error as NSError).localizedDescription))")
        }
        guard let root = top as? [String: Any] else { throw fail("", "the top level is not an object") }
        guard let schema = root["schema"] as? String, schema == "hapticsynth-cues" else {
            throw fail("schema", "expected \"hapticsynth-cues\"")
        }
        guard let version = number(root["version"]), version == 1 else { throw fail("version", "expected 1") }
        guard let cuesObject = root["cues"] as? [String: Any] else { throw fail("cues", "missing or not an object") }
        // Each cue is prepared and its felt alignment measured when a manager loads the sheet.
        guard cuesObject.count <= Limits.maxCues else { throw fail("cues", "\(cuesObject.count) cues; at most \(Limits.maxCues)") }

        var cues: [String: Cue] = [:]
        for name in cuesObject.keys.sorted() {
            let path = "cues.\(name)"
            guard let cue = cuesObject[name] as? [String: Any] else { throw fail(path, "not an object") }
            var haptic: Haptic? = nil
            if let h = cue["haptic"] {
                guard let object = h as? [String: Any] else { throw fail("\(path).haptic", "not an object") }
                let kinds = ["pattern", "transient", "buzz"].filter { object[$0] != nil }
                guard kinds.count == 1 else {
                    throw fail("\(path).haptic", "needs exactly one of pattern, transient, buzz (has \(kinds.isEmpty ? "none" : kinds.joined(separator: ", ")))")
                }
                switch kinds[0] {
                case "pattern":
                    guard let file = object["pattern"] as? String, !file.isEmpty else {
                        throw fail("\(path).haptic.pattern", "not a pattern name")
                    }
                    haptic = .pattern(file)
                case "transient":
                    haptic = .transient(try transient(object["transient"], "\(path).haptic.transient", timed: false, fail))
                default:
                    guard let list = object["buzz"] as? [Any], !list.isEmpty else {
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
            if let s = cue["sfx"] {
                guard let object = s as? [String: Any] else { throw fail("\(path).sfx", "not an object") }
                guard let soundName = object["name"] as? String, !soundName.isEmpty else {
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
                guard let text = m as? String else { throw fail("\(path).moment", "not a string") }
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
        _ cue: [String: Any], _ path: String, _ fail: (String, String) -> CueSheetError
    ) throws(CueSheetError) -> Alignment {
        let align = cue["align"], offset = cue["hapticOffsetMs"]
        if align != nil && offset != nil {
            throw fail(path, "give either align or hapticOffsetMs, not both (hapticOffsetMs is an explicit alignment)")
        }
        if let align {
            switch align as? String {
            case "felt": return .felt
            case "sample": return .sample
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
        _ any: Any?, _ path: String, timed: Bool, _ fail: (String, String) -> CueSheetError
    ) throws(CueSheetError) -> Transient {
        guard let object = any as? [String: Any] else { throw fail(path, "not an object") }
        func value(_ key: String, _ range: ClosedRange<Double>) throws(CueSheetError) -> Double {
            guard let v = number(object[key]) else { throw fail("\(path).\(key)", "missing or not a number") }
            guard range.contains(v) else { throw fail("\(path).\(key)", "\(v) is outside \(range.lowerBound)…\(range.upperBound)") }
            return v
        }
        let time = timed ? try value("time", 0...3600) : 0
        return Transient(time: time, intensity: try value("intensity", 0...1), sharpness: try value("sharpness", 0...1))
    }

    /// A JSON number (not a Boolean, which Foundation also hands over as a number).
    private static func number(_ any: Any?) -> Double? {
        // Foundation hands true/false over as Bool or as an NSNumber stored as a C char
        // ("c"), which no JSON number is; a plain `is Bool` test would also match 0 and 1.
        guard let any, type(of: any) != Bool.self, let n = any as? NSNumber,
            String(cString: n.objCType) != "c"
        else { return nil }
        let d = n.doubleValue
        return d.isFinite ? d : nil
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
