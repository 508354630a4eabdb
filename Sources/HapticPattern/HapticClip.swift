// The `.haptic` model (Meta / Lofelt haptic clip, version 1): amplitude and frequency
// envelopes with optional emphasis, as specified in meta-haptics-sdk's
// resources/haptic-file-spec.md. Reading is in HapticClipReader.swift, writing in
// HapticClipWriter.swift, conversion to and from AHAP in HapticClip+AHAP.swift.

/// A `.haptic` clip.
public struct HapticClip: Sendable, Equatable {
    /// `version`: major.minor.patch (this model reads and writes major version 1).
    public var version: Version
    /// `metadata`: the known fields, plus any others kept verbatim for round trips.
    public var metadata: Metadata
    /// `signals.continuous.envelopes.amplitude`: at least two breakpoints, times not
    /// decreasing; the last one's time is the clip's duration.
    public var amplitude: [AmplitudeBreakpoint]
    /// `signals.continuous.envelopes.frequency`: may be empty (then 0.5 applies throughout).
    public var frequency: [FrequencyBreakpoint]

    public init(
        version: Version = .init(), metadata: Metadata = .init(), amplitude: [AmplitudeBreakpoint],
        frequency: [FrequencyBreakpoint] = []
    ) {
        self.version = version
        self.metadata = metadata
        self.amplitude = amplitude
        self.frequency = frequency
    }

    /// The clip's length: the last amplitude breakpoint's time.
    public var duration: Double { amplitude.last?.time ?? 0 }

    /// The frequency an empty frequency envelope stands for (the spec's default).
    public static let defaultFrequency = 0.5

    public struct Version: Sendable, Equatable {
        public var major: Int
        public var minor: Int
        public var patch: Int
        public init(major: Int = 1, minor: Int = 0, patch: Int = 0) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }
    }

    public struct Metadata: Sendable, Equatable {
        public var author: String?
        public var editor: String?
        public var source: String?
        public var project: String?
        public var tags: [String]?
        public var description: String?
        /// Fields the spec does not name, in file order (kept, as the spec asks of parsers).
        public var other: [(key: String, value: JSONValue)]

        public init(
            author: String? = nil, editor: String? = nil, source: String? = nil, project: String? = nil,
            tags: [String]? = nil, description: String? = nil, other: [(key: String, value: JSONValue)] = []
        ) {
            self.author = author
            self.editor = editor
            self.source = source
            self.project = project
            self.tags = tags
            self.description = description
            self.other = other
        }

        public static func == (a: Metadata, b: Metadata) -> Bool {
            a.author == b.author && a.editor == b.editor && a.source == b.source && a.project == b.project
                && a.tags == b.tags && a.description == b.description && a.other.count == b.other.count
                && zip(a.other, b.other).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        }
    }

    /// `{time, amplitude, emphasis?}`: amplitude 0…1.
    public struct AmplitudeBreakpoint: Sendable, Equatable {
        public var time: Double
        public var amplitude: Double
        public var emphasis: Emphasis?
        public init(time: Double, amplitude: Double, emphasis: Emphasis? = nil) {
            self.time = time
            self.amplitude = amplitude
            self.emphasis = emphasis
        }
    }

    /// A transient on an amplitude breakpoint: amplitude (at least the breakpoint's) and
    /// frequency, both 0…1.
    public struct Emphasis: Sendable, Equatable {
        public var amplitude: Double
        public var frequency: Double
        public init(amplitude: Double, frequency: Double) {
            self.amplitude = amplitude
            self.frequency = frequency
        }
    }

    /// `{time, frequency}`: frequency 0…1.
    public struct FrequencyBreakpoint: Sendable, Equatable {
        public var time: Double
        public var frequency: Double
        public init(time: Double, frequency: Double) {
            self.time = time
            self.frequency = frequency
        }
    }
}

/// How `.haptic` values and AHAP values correspond, as Meta Haptics Studio's AHAP export
/// does it: Core Haptics' intensity and sharpness are perceptual (square-root) scales of the
/// clip's linear amplitude and frequency. An emphasis's frequency is the transient's
/// sharpness as it is.
public enum HapticClipMapping {
    /// AHAP intensity for a `.haptic` amplitude: √a.
    public static func intensity(amplitude: Double) -> Double { min(1, max(0, amplitude)).squareRoot() }
    /// `.haptic` amplitude for an AHAP intensity: i².
    public static func amplitude(intensity: Double) -> Double {
        let i = min(1, max(0, intensity))
        return i * i
    }
    /// AHAP sharpness for a `.haptic` frequency: √f.
    public static func sharpness(frequency: Double) -> Double { min(1, max(0, frequency)).squareRoot() }
    /// `.haptic` frequency for an AHAP sharpness: s².
    public static func frequency(sharpness: Double) -> Double {
        let s = min(1, max(0, sharpness))
        return s * s
    }
}
