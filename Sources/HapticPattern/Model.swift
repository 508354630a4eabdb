// The AHAP pattern model: plain value types that mirror Apple's AHAP JSON
// (https://developer.apple.com/documentation/corehaptics/representing-haptic-patterns-in-ahap-files).
// Decoding, validation and encoding live beside this file; the renderer reads
// these types and nothing else.

/// A whole AHAP document: an optional version, the pattern, and metadata that is
/// kept for round trips but ignored for playback.
public struct AHAPPattern: Sendable, Equatable {
    /// `Version` as written (files without it exist; Core Haptics treats them as 1.0).
    public var version: Double?
    /// `Metadata`, kept verbatim and written back; never used for playback.
    public var metadata: JSONValue?
    /// The `Pattern` array, in file order (events need not be sorted).
    public var elements: [PatternElement]

    public init(version: Double? = 1.0, metadata: JSONValue? = nil, elements: [PatternElement] = []) {
        self.version = version
        self.metadata = metadata
        self.elements = elements
    }
}

/// One entry of the `Pattern` array: exactly one of Event, Parameter or ParameterCurve.
public enum PatternElement: Sendable, Equatable {
    case event(Event)
    case parameter(DynamicParameter)
    case curve(ParameterCurve)
}

/// The kinds of event AHAP knows.
public enum EventType: String, Sendable, Equatable, CaseIterable, Codable {
    case hapticTransient = "HapticTransient"
    case hapticContinuous = "HapticContinuous"
    case audioCustom = "AudioCustom"
    case audioContinuous = "AudioContinuous"

    /// Whether the event drives the actuator (as opposed to the audio channels).
    public var isHaptic: Bool { self == .hapticTransient || self == .hapticContinuous }
    /// Whether the event needs an `EventDuration` (when sustained).
    public var isContinuous: Bool { self == .hapticContinuous || self == .audioContinuous }
}

/// An `Event` element.
public struct Event: Sendable, Equatable {
    /// Start time in seconds, relative to the pattern's start.
    public var time: Double
    public var type: EventType
    /// `EventDuration` in seconds; nil when the file leaves it out.
    public var duration: Double?
    /// `EventParameters` in file order. Absent parameters are simply not listed, so
    /// "absent" stays distinguishable from an explicit value.
    public var parameters: [EventParameter]
    /// `EventWaveformPath` (AudioCustom only).
    public var waveformPath: String?
    /// `EventWaveformUseVolumeEnvelope` (AudioCustom only; default true).
    public var useVolumeEnvelope: Bool
    /// `EventWaveformLoopEnabled` (AudioCustom only; default false).
    public var loopEnabled: Bool

    public init(
        time: Double,
        type: EventType,
        duration: Double? = nil,
        parameters: [EventParameter] = [],
        waveformPath: String? = nil,
        useVolumeEnvelope: Bool = true,
        loopEnabled: Bool = false
    ) {
        self.time = time
        self.type = type
        self.duration = duration
        self.parameters = parameters
        self.waveformPath = waveformPath
        self.useVolumeEnvelope = useVolumeEnvelope
        self.loopEnabled = loopEnabled
    }

    /// A transient, the most common event.
    public static func transient(at time: Double, intensity: Double? = nil, sharpness: Double? = nil) -> Event {
        Event(time: time, type: .hapticTransient, parameters: .haptic(intensity: intensity, sharpness: sharpness))
    }

    /// A continuous haptic event of the given duration.
    public static func continuous(
        at time: Double, duration: Double, intensity: Double? = nil, sharpness: Double? = nil,
        extra: [EventParameter] = []
    ) -> Event {
        Event(
            time: time, type: .hapticContinuous, duration: duration,
            parameters: .haptic(intensity: intensity, sharpness: sharpness) + extra)
    }

    /// The value the file gives for `id`, or nil when it is absent (last one wins on duplicates).
    public func value(of id: EventParameterID) -> Double? {
        parameters.last(where: { $0.id == id })?.value
    }

    /// The value for `id`, or its AHAP default, or `fallback` for parameters whose
    /// default belongs to someone else (intensity and sharpness: the actuator profile).
    public func value(of id: EventParameterID, default fallback: Double) -> Double {
        value(of: id) ?? id.defaultValue ?? fallback
    }

    /// Whether a continuous event holds until its end (Sustained = 1, the default).
    public var isSustained: Bool { (value(of: .sustained) ?? 1) >= 0.5 }
}

extension [EventParameter] {
    /// Intensity and sharpness entries for the values that are given.
    public static func haptic(intensity: Double?, sharpness: Double?) -> [EventParameter] {
        var list: [EventParameter] = []
        if let intensity { list.append(EventParameter(.hapticIntensity, intensity)) }
        if let sharpness { list.append(EventParameter(.hapticSharpness, sharpness)) }
        return list
    }
}

/// One `{ParameterID, ParameterValue}` entry of an event.
public struct EventParameter: Sendable, Equatable {
    public var id: EventParameterID
    public var value: Double
    public init(_ id: EventParameterID, _ value: Double) {
        self.id = id
        self.value = value
    }
}

/// Event parameter IDs with their ranges and defaults.
public enum EventParameterID: String, Sendable, Equatable, CaseIterable, Codable {
    case hapticIntensity = "HapticIntensity"
    case hapticSharpness = "HapticSharpness"
    case attackTime = "AttackTime"
    case decayTime = "DecayTime"
    case releaseTime = "ReleaseTime"
    case sustained = "Sustained"
    case audioVolume = "AudioVolume"
    case audioPan = "AudioPan"
    case audioPitch = "AudioPitch"
    case audioBrightness = "AudioBrightness"

    /// The range Core Haptics accepts; values outside are clamped (with a warning).
    public var range: ClosedRange<Double> {
        switch self {
        case .audioPan, .audioPitch: -1...1
        default: 0...1
        }
    }

    /// The AHAP default for an absent value. Nil for intensity and sharpness, whose
    /// defaults belong to the actuator profile.
    public var defaultValue: Double? {
        switch self {
        case .hapticIntensity, .hapticSharpness: nil
        case .attackTime, .decayTime, .releaseTime: 0
        case .sustained: 1
        case .audioVolume: 1
        case .audioPan, .audioPitch: 0
        case .audioBrightness: 1
        }
    }
}

/// A `Parameter` element: a dynamic parameter set at a time.
public struct DynamicParameter: Sendable, Equatable {
    public var id: DynamicParameterID
    public var time: Double
    public var value: Double
    public init(_ id: DynamicParameterID, time: Double, value: Double) {
        self.id = id
        self.time = time
        self.value = value
    }
}

/// A `ParameterCurve` element: a control interpolated linearly between points.
public struct ParameterCurve: Sendable, Equatable {
    public var id: DynamicParameterID
    /// The curve's start time; point times are relative to it.
    public var time: Double
    public var controlPoints: [ControlPoint]
    public init(_ id: DynamicParameterID, time: Double, points: [ControlPoint]) {
        self.id = id
        self.time = time
        self.controlPoints = points
    }

    /// One `{Time, ParameterValue}` point; `time` is relative to the curve's start.
    public struct ControlPoint: Sendable, Equatable {
        public var time: Double
        public var value: Double
        public init(_ time: Double, _ value: Double) {
            self.time = time
            self.value = value
        }
    }
}

/// How a dynamic parameter combines with the event value it controls.
public enum ControlCombination: Sendable, Equatable {
    /// Multiplies (intensity, audio volume).
    case multiply
    /// Adds (everything else).
    case add
}

/// Dynamic parameter IDs with their ranges, defaults and combination rule.
public enum DynamicParameterID: String, Sendable, Equatable, CaseIterable, Codable {
    case hapticIntensityControl = "HapticIntensityControl"
    case hapticSharpnessControl = "HapticSharpnessControl"
    case hapticAttackTimeControl = "HapticAttackTimeControl"
    case hapticDecayTimeControl = "HapticDecayTimeControl"
    case hapticReleaseTimeControl = "HapticReleaseTimeControl"
    case audioVolumeControl = "AudioVolumeControl"
    case audioPanControl = "AudioPanControl"
    case audioPitchControl = "AudioPitchControl"
    case audioBrightnessControl = "AudioBrightnessControl"
    case audioAttackTimeControl = "AudioAttackTimeControl"
    case audioDecayTimeControl = "AudioDecayTimeControl"
    case audioReleaseTimeControl = "AudioReleaseTimeControl"

    public var combination: ControlCombination {
        switch self {
        case .hapticIntensityControl, .audioVolumeControl: .multiply
        default: .add
        }
    }

    /// The range Core Haptics accepts; values outside are clamped (with a warning).
    public var range: ClosedRange<Double> {
        combination == .multiply ? 0...1 : -1...1
    }

    /// The neutral value: 1 for multiplying controls, 0 for adding ones.
    public var defaultValue: Double { combination == .multiply ? 1 : 0 }

    /// A dense index 0..<count, for fixed-size tables on the render thread.
    /// (A switch, not `allCases.firstIndex`, so that it never allocates.)
    public var index: Int {
        switch self {
        case .hapticIntensityControl: 0
        case .hapticSharpnessControl: 1
        case .hapticAttackTimeControl: 2
        case .hapticDecayTimeControl: 3
        case .hapticReleaseTimeControl: 4
        case .audioVolumeControl: 5
        case .audioPanControl: 6
        case .audioPitchControl: 7
        case .audioBrightnessControl: 8
        case .audioAttackTimeControl: 9
        case .audioDecayTimeControl: 10
        case .audioReleaseTimeControl: 11
        }
    }

    /// The number of dynamic parameter IDs (the size of an index-addressed table), counted
    /// from the cases so that a new case cannot outgrow the tables (`index` must stay dense:
    /// 0..<count, one per case; HapticRender's tests check it).
    public static let count = allCases.count
}

/// A JSON value, for `Metadata` and other content kept verbatim.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    /// Keys in document order (AHAP metadata is small; order is kept for round trips).
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }
}
