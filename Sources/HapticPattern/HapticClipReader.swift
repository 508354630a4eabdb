// Reading `.haptic` files with the AHAP reader's scanner and helpers (typed values,
// warnings that strict mode turns into errors, paths into the document). The spec's rules
// (meta-haptics-sdk resources/haptic-file-spec.md): a version of major 1; an amplitude
// envelope of at least two breakpoints lasting more than 0 s; times not decreasing; values
// 0…1; an emphasis not below its breakpoint's amplitude; no frequency breakpoint after the
// amplitude envelope's end. What the lenient reader fixes (a value out of range, an emphasis
// below its breakpoint, a late frequency breakpoint, unknown keys, missing metadata) leaves a
// warning; strict reading refuses it. Every number is held to `Limits`: times past
// `Limits.maxTime`, and more breakpoints than `Limits.maxControlPoints` (each becomes an
// AHAP control point), are errors.

/// A decoded `.haptic` clip and the warnings the lenient rules left.
public struct DecodedHapticClip: Sendable, Equatable {
    public var clip: HapticClip
    public var warnings: [AHAPWarning]
    public init(clip: HapticClip, warnings: [AHAPWarning]) {
        self.clip = clip
        self.warnings = warnings
    }
}

extension HapticClip {
    /// Decodes `.haptic` bytes (UTF-8, optional BOM). Errors and warnings are the AHAP
    /// reader's types, with paths such as `signals.continuous.envelopes.amplitude[3].time`.
    public static func decode(from bytes: [UInt8], options: AHAPDecodeOptions = .init()) throws(AHAPError) -> DecodedHapticClip {
        let result: Result<DecodedHapticClip, AHAPError> = bytes.withUnsafeBufferPointer { buffer in
            var reader = AHAPReader(bytes: buffer, options: options)
            do throws(AHAPError) {
                return .success(try reader.readHapticClip())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Decodes `.haptic` text.
    public static func decode(text: String, options: AHAPDecodeOptions = .init()) throws(AHAPError) -> DecodedHapticClip {
        try decode(from: Array(text.utf8), options: options)
    }

    /// Whether `bytes` look like a `.haptic` document rather than AHAP: a JSON object whose
    /// top-level keys include `signals` and not `Pattern` (looked at without decoding it all).
    public static func looksLikeHapticClip(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            let bom = buffer.count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF
            var s = JSONScanner(bytes: buffer, start: bom ? 3 : 0)
            guard s.peekKind() == .object, (try? s.beginObject()) != nil else { return false }
            var first = true
            var signals = false
            while let key = try? s.nextMember(&first) {
                if s.equals(key, "Pattern") { return false }
                if s.equals(key, "signals") { signals = true }
                guard (try? s.skipValue()) != nil else { return signals }
            }
            return signals
        }
    }
}

private let envelopesPath = "signals.continuous.envelopes"

extension AHAPReader {
    mutating func readHapticClip() throws(AHAPError) -> DecodedHapticClip {
        let kind = s.peekKind()
        if s.atEnd { throw s.fail("empty file: no JSON value") }
        guard kind == .object else {
            if kind == .invalid { throw s.expectedValueError() }
            throw error(.missingPattern, "", "the top level must be an object with version, metadata and signals, found \(kind.noun)")
        }
        try s.beginObject()
        var version: HapticClip.Version?
        var metadata: HapticClip.Metadata?
        var envelopes: (amplitude: [HapticClip.AmplitudeBreakpoint]?, frequency: [HapticClip.FrequencyBreakpoint]?)?
        var seen = (version: false, metadata: false, signals: false)
        var first = true
        while let key = try s.nextMember(&first) {
            if s.equals(key, "version") {
                try duplicate(&seen.version, key, "")
                version = try readClipVersion()
            } else if s.equals(key, "metadata") {
                try duplicate(&seen.metadata, key, "")
                metadata = try readClipMetadata()
            } else if s.equals(key, "signals") {
                try duplicate(&seen.signals, key, "")
                envelopes = try readClipSignals()
            } else {
                try unknownKey(key, in: "")
            }
        }
        s.skipWhitespace()
        if !s.atEnd { throw s.fail("unexpected \(s.describeCurrent()) after the end of the document") }
        guard let version else { throw error(.missingValue, "", "version is missing") }
        guard version.major == 1 else {
            throw error(.other, "version.major", "version \(version.major) is not supported (this reader knows .haptic version 1)")
        }
        if metadata == nil { try warn(.defaultApplied, "", "metadata is missing; an empty one applies") }
        guard let envelopes else { throw error(.missingPattern, "", "signals is missing") }
        guard let amplitude = envelopes.amplitude else {
            throw error(.missingValue, envelopesPath, "the amplitude envelope is missing")
        }
        let clip = HapticClip(
            version: version, metadata: metadata ?? .init(), amplitude: amplitude, frequency: envelopes.frequency ?? [])
        try checkClip(clip)
        if unlistedWarnings > 0 {
            warnings.append(AHAPWarning(path: "", message: "\(unlistedWarnings) more warnings not listed", kind: .truncated))
        }
        return DecodedHapticClip(clip: try fixClip(clip), warnings: warnings)
    }

    private mutating func integer(_ path: String, _ key: String) throws(AHAPError) -> Int {
        let value = try number(path, key)
        guard value == value.rounded(), abs(value) <= 1e9 else {
            throw error(.wrongType, path, "\(key) must be a whole number, found \(formatNumber(value))")
        }
        return Int(value)
    }

    private mutating func readClipVersion() throws(AHAPError) -> HapticClip.Version {
        try beginObject("version", "version")
        var major: Int?, minor: Int?, patch: Int?
        var first = true
        while let key = try s.nextMember(&first) {
            if s.equals(key, "major") {
                major = try integer("version.major", "major")
            } else if s.equals(key, "minor") {
                minor = try integer("version.minor", "minor")
            } else if s.equals(key, "patch") {
                patch = try integer("version.patch", "patch")
            } else {
                try unknownKey(key, in: "version")
            }
        }
        guard let major else { throw error(.missingValue, "version", "major is missing") }
        if minor == nil { try warn(.defaultApplied, "version", "minor is missing; 0 applies") }
        if patch == nil { try warn(.defaultApplied, "version", "patch is missing; 0 applies") }
        return .init(major: major, minor: minor ?? 0, patch: patch ?? 0)
    }

    private mutating func readClipMetadata() throws(AHAPError) -> HapticClip.Metadata {
        try beginObject("metadata", "metadata")
        var m = HapticClip.Metadata()
        var first = true
        while let key = try s.nextMember(&first) {
            let name = s.string(key)
            let path = "metadata.\(name)"
            switch name {
            case "author", "editor", "source", "project", "description":
                let text = s.string(try string(path, name))
                switch name {
                case "author": m.author = text
                case "editor": m.editor = text
                case "source": m.source = text
                case "project": m.project = text
                default: m.description = text
                }
            case "tags":
                try beginArray(path, "tags")
                var tags: [String] = []
                var firstTag = true
                while try s.nextElement(&firstTag) {
                    tags.append(s.string(try string("\(path)[\(tags.count)]", "a tag")))
                }
                m.tags = tags
            default:
                // Unknown metadata fields are kept (the spec asks parsers to degrade gracefully).
                m.other.append((name, try s.readValue()))
            }
        }
        return m
    }

    private mutating func readClipSignals() throws(AHAPError) -> ([HapticClip.AmplitudeBreakpoint]?, [HapticClip.FrequencyBreakpoint]?) {
        var result: ([HapticClip.AmplitudeBreakpoint]?, [HapticClip.FrequencyBreakpoint]?) = (nil, nil)
        try beginObject("signals", "signals")
        var first = true
        while let key = try s.nextMember(&first) {
            guard s.equals(key, "continuous") else {
                try unknownKey(key, in: "signals")
                continue
            }
            try beginObject("signals.continuous", "continuous")
            var firstInner = true
            while let inner = try s.nextMember(&firstInner) {
                guard s.equals(inner, "envelopes") else {
                    try unknownKey(inner, in: "signals.continuous")
                    continue
                }
                try beginObject(envelopesPath, "envelopes")
                var firstEnvelope = true
                while let envelope = try s.nextMember(&firstEnvelope) {
                    if s.equals(envelope, "amplitude") {
                        result.0 = try readAmplitudeBreakpoints()
                    } else if s.equals(envelope, "frequency") {
                        result.1 = try readFrequencyBreakpoints()
                    } else {
                        try unknownKey(envelope, in: envelopesPath)
                    }
                }
            }
        }
        return result
    }

    /// A breakpoint time: finite, not negative, within `Limits.maxTime`.
    private mutating func clipTime(_ path: @autoclosure () -> String) throws(AHAPError) -> Double {
        let t = try time(path(), "time")
        guard t <= Limits.maxTime else {
            throw error(.invalidTime, path(), "time \(formatNumber(t)) s is past the \(Int(Limits.maxTime)) s limit")
        }
        return t
    }

    private mutating func checkCount(_ count: Int, _ path: String) throws(AHAPError) {
        guard count < Limits.maxControlPoints else {
            throw error(.other, path, "more than \(Limits.maxControlPoints) breakpoints (the limit of control points in a pattern)")
        }
    }

    private mutating func readAmplitudeBreakpoints() throws(AHAPError) -> [HapticClip.AmplitudeBreakpoint] {
        let base = envelopesPath + ".amplitude"
        try beginArray(base, "amplitude")
        var points: [HapticClip.AmplitudeBreakpoint] = []
        var first = true
        while try s.nextElement(&first) {
            try checkCount(points.count, base)
            let path = "\(base)[\(points.count)]"
            try beginObject(path, "an amplitude breakpoint")
            var time: Double?, amplitude: Double?, emphasis: HapticClip.Emphasis?
            var firstKey = true
            while let key = try s.nextMember(&firstKey) {
                if s.equals(key, "time") {
                    time = try clipTime(path + ".time")
                } else if s.equals(key, "amplitude") {
                    amplitude = try clamp(try number(path + ".amplitude", "amplitude"), 0...1, "amplitude", path + ".amplitude")
                } else if s.equals(key, "emphasis") {
                    emphasis = try readEmphasis(path + ".emphasis")
                } else {
                    try unknownKey(key, in: path)
                }
            }
            guard let time else { throw error(.missingValue, path, "time is missing") }
            guard let amplitude else { throw error(.missingValue, path, "amplitude is missing") }
            points.append(.init(time: time, amplitude: amplitude, emphasis: emphasis))
        }
        return points
    }

    private mutating func readEmphasis(_ path: String) throws(AHAPError) -> HapticClip.Emphasis {
        try beginObject(path, "emphasis")
        var amplitude: Double?, frequency: Double?
        var first = true
        while let key = try s.nextMember(&first) {
            if s.equals(key, "amplitude") {
                amplitude = try clamp(try number(path + ".amplitude", "amplitude"), 0...1, "emphasis amplitude", path + ".amplitude")
            } else if s.equals(key, "frequency") {
                frequency = try clamp(try number(path + ".frequency", "frequency"), 0...1, "emphasis frequency", path + ".frequency")
            } else {
                try unknownKey(key, in: path)
            }
        }
        guard let amplitude else { throw error(.missingValue, path, "amplitude is missing") }
        guard let frequency else { throw error(.missingValue, path, "frequency is missing") }
        return .init(amplitude: amplitude, frequency: frequency)
    }

    private mutating func readFrequencyBreakpoints() throws(AHAPError) -> [HapticClip.FrequencyBreakpoint] {
        let base = envelopesPath + ".frequency"
        try beginArray(base, "frequency")
        var points: [HapticClip.FrequencyBreakpoint] = []
        var first = true
        while try s.nextElement(&first) {
            try checkCount(points.count, base)
            let path = "\(base)[\(points.count)]"
            try beginObject(path, "a frequency breakpoint")
            var time: Double?, frequency: Double?
            var firstKey = true
            while let key = try s.nextMember(&firstKey) {
                if s.equals(key, "time") {
                    time = try clipTime(path + ".time")
                } else if s.equals(key, "frequency") {
                    frequency = try clamp(try number(path + ".frequency", "frequency"), 0...1, "frequency", path + ".frequency")
                } else {
                    try unknownKey(key, in: path)
                }
            }
            guard let time else { throw error(.missingValue, path, "time is missing") }
            guard let frequency else { throw error(.missingValue, path, "frequency is missing") }
            points.append(.init(time: time, frequency: frequency))
        }
        return points
    }

    /// The spec's hard rules: at least two amplitude breakpoints lasting more than 0 s, and
    /// times in order in both envelopes.
    private mutating func checkClip(_ clip: HapticClip) throws(AHAPError) {
        let amplitude = envelopesPath + ".amplitude"
        guard clip.amplitude.count >= 2 else {
            throw error(.missingValue, amplitude, "the amplitude envelope needs at least two breakpoints (found \(clip.amplitude.count))")
        }
        for k in 1..<clip.amplitude.count where clip.amplitude[k].time < clip.amplitude[k - 1].time {
            throw error(
                .invalidTime, "\(amplitude)[\(k)].time",
                "time \(formatNumber(clip.amplitude[k].time)) s comes before the previous breakpoint's \(formatNumber(clip.amplitude[k - 1].time)) s")
        }
        guard clip.duration > clip.amplitude[0].time else {
            throw error(.invalidTime, amplitude, "the amplitude envelope lasts 0 s (its first and last breakpoints are at the same time)")
        }
        let frequency = envelopesPath + ".frequency"
        for k in clip.frequency.indices.dropFirst() where clip.frequency[k].time < clip.frequency[k - 1].time {
            throw error(
                .invalidTime, "\(frequency)[\(k)].time",
                "time \(formatNumber(clip.frequency[k].time)) s comes before the previous breakpoint's \(formatNumber(clip.frequency[k - 1].time)) s")
        }
    }

    /// The lenient rules: an emphasis below its breakpoint is raised to it; frequency
    /// breakpoints after the amplitude envelope's end are left out.
    private mutating func fixClip(_ clip: HapticClip) throws(AHAPError) -> HapticClip {
        var fixed = clip
        for k in fixed.amplitude.indices {
            guard let e = fixed.amplitude[k].emphasis, e.amplitude < fixed.amplitude[k].amplitude else { continue }
            try warn(
                .clamped, "\(envelopesPath).amplitude[\(k)].emphasis.amplitude",
                "emphasis amplitude \(formatNumber(e.amplitude)) is below its breakpoint's \(formatNumber(fixed.amplitude[k].amplitude)); raised to it")
            let floor = fixed.amplitude[k].amplitude
            fixed.amplitude[k].emphasis?.amplitude = floor
        }
        if let late = fixed.frequency.firstIndex(where: { $0.time > clip.duration }) {
            try warn(
                .ignored, "\(envelopesPath).frequency[\(late)].time",
                "frequency breakpoints after the amplitude envelope's end (\(formatNumber(clip.duration)) s) are left out (\(fixed.frequency.count - late) of them)")
            fixed.frequency.removeSubrange(late...)
        }
        return fixed
    }
}
