// Actuator profiles: what intensity and sharpness mean for one kind of hardware.
// Decoded from JSON (the project's scanner and JSONValueDecoder, only at load time, never
// on the render path) and validated with errors that name the offending field.

import HapticDSP
import HapticPattern

/// An actuator profile: the frequency band sharpness maps onto, the transient shape,
/// the intensity law, defaults, envelope time ranges, gain, ceiling and protection.
///
/// The JSON format is documented in `Assets/actuators/README.md`; `ActuatorProfile.decode`
/// reads it, `ActuatorProfile.builtIn(named:)` gives the shipped profiles.
public struct ActuatorProfile: Sendable, Equatable, Codable {
    /// The profile's name (for messages and `--profile NAME`).
    public var name: String
    /// A one-line description of the hardware it is for.
    public var description: String
    /// The frequency band sharpness maps onto: 0 → `low`, 1 → `high`, log-frequency scale.
    public var band: Band
    /// The shape of a HapticTransient burst.
    public var transient: TransientShape
    /// How a (controlled) intensity in 0...1 becomes an amplitude.
    public var intensity: IntensityLaw
    /// Values for an absent HapticIntensity / HapticSharpness.
    public var defaults: Defaults
    /// The seconds the normalised AttackTime/DecayTime/ReleaseTime values map onto.
    public var envelope: EnvelopeRanges
    /// Gain applied to the haptic bus before protection, in dB.
    public var outputGainDB: Double
    /// The most a sample may ever reach, in dBFS (default -1).
    public var ceilingDBFS: Double
    /// The protection high-pass (DC blocking is its double zero at 0 Hz).
    public var protection: Protection
    /// The look-ahead peak limiter that enforces the ceiling.
    public var limiter: Limiter

    /// Sharpness 0 and 1 land on `low` and `high` Hz.
    public struct Band: Sendable, Equatable, Codable {
        public var low: Double
        public var high: Double
        public init(low: Double, high: Double) {
            self.low = low
            self.high = high
        }
    }

    /// A transient lasts `cycles` periods of its frequency, or `milliseconds` (exactly one
    /// of the two). Its shape is felt on its beat: a smooth rise over `attackMs`, then an
    /// exponential decay whose time constant is `decayCycles` periods (a kick-drum-like burst),
    /// tapered to 0 over the last period.
    public struct TransientShape: Sendable, Equatable, Codable {
        public var cycles: Double?
        public var milliseconds: Double?
        /// The rise, in milliseconds (default 1).
        public var attackMs: Double
        /// The decay's time constant in periods of the burst's frequency (default 1), so a
        /// sharper (higher) transient is also a shorter one.
        public var decayCycles: Double
        /// Accepted for profiles written before the attack/decay shape; ignored.
        public var window: Window?
        public init(cycles: Double? = nil, milliseconds: Double? = nil, attackMs: Double = 1, decayCycles: Double = 1, window: Window? = nil) {
            self.cycles = cycles
            self.milliseconds = milliseconds
            self.attackMs = attackMs
            self.decayCycles = decayCycles
            self.window = window
        }
    }

    /// The symmetric windows of the first transient shape (no longer used: see `TransientShape`).
    public enum Window: String, Sendable, Equatable, Codable {
        /// sin²(πx): smooth, the default.
        case hann
        /// sin(πx): more energy, steeper ends.
        case sine
    }

    /// amplitude = intensity (linear) or intensity^exponent (power).
    public struct IntensityLaw: Sendable, Equatable, Codable {
        public enum Law: String, Sendable, Equatable, Codable {
            case linear
            case power
        }
        public var law: Law
        /// Used by `power` only.
        public var exponent: Double?
        public init(law: Law = .linear, exponent: Double? = nil) {
            self.law = law
            self.exponent = exponent
        }
        /// The exponent that is actually applied (1 for linear).
        public var effectiveExponent: Double { law == .power ? (exponent ?? 1) : 1 }
    }

    public struct Defaults: Sendable, Equatable, Codable {
        public var intensity: Double
        public var sharpness: Double
        public init(intensity: Double, sharpness: Double) {
            self.intensity = intensity
            self.sharpness = sharpness
        }
    }

    /// A normalised value v in 0...1 maps to `min * (max/min)^v` seconds (exponential).
    public struct TimeRange: Sendable, Equatable, Codable {
        public var min: Double
        public var max: Double
        public init(min: Double, max: Double) {
            self.min = min
            self.max = max
        }
        /// Seconds for normalised `value` (clamped to 0...1).
        public func seconds(for value: Double) -> Double {
            let v = Swift.min(1, Swift.max(0, value))
            return min * exp2Double(v * log2Double(max / min))
        }
    }

    public struct EnvelopeRanges: Sendable, Equatable, Codable {
        public var attack: TimeRange
        public var decay: TimeRange
        public var release: TimeRange
        public init(attack: TimeRange, decay: TimeRange, release: TimeRange) {
            self.attack = attack
            self.decay = decay
            self.release = release
        }
    }

    public struct Protection: Sendable, Equatable, Codable {
        /// Cutoff of the Butterworth high-pass, Hz.
        public var highPassHz: Double
        /// 2 (12 dB/octave) or 4 (24 dB/octave).
        public var order: Int
        public init(highPassHz: Double, order: Int = 2) {
            self.highPassHz = highPassHz
            self.order = order
        }
    }

    public struct Limiter: Sendable, Equatable, Codable {
        /// Look-ahead (and attack) time; also the stage's latency.
        public var lookaheadMs: Double
        /// Time for the gain to recover after a peak.
        public var releaseMs: Double
        public init(lookaheadMs: Double = 1.5, releaseMs: Double = 80) {
            self.lookaheadMs = lookaheadMs
            self.releaseMs = releaseMs
        }
    }

    /// The built-in profile called `name`, or the bass-shaker values under that name
    /// when no built-in has it (kept for source compatibility; prefer `builtIn(named:)`).
    public init(name: String) {
        self = ActuatorProfile.builtIn(named: name) ?? ActuatorProfile.bassShaker
        self.name = name
    }

    public init(
        name: String, description: String = "", band: Band, transient: TransientShape,
        intensity: IntensityLaw = .init(), defaults: Defaults, envelope: EnvelopeRanges,
        outputGainDB: Double = 0, ceilingDBFS: Double = -1, protection: Protection,
        limiter: Limiter = .init()
    ) {
        self.name = name
        self.description = description
        self.band = band
        self.transient = transient
        self.intensity = intensity
        self.defaults = defaults
        self.envelope = envelope
        self.outputGainDB = outputGainDB
        self.ceilingDBFS = ceilingDBFS
        self.protection = protection
        self.limiter = limiter
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case name, description, band, transient, intensity, defaults, envelope, outputGainDB,
            ceilingDBFS, protection, limiter
    }

    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        band = try c.decode(Band.self, forKey: .band)
        transient = try c.decode(TransientShape.self, forKey: .transient)
        intensity = try c.decodeIfPresent(IntensityLaw.self, forKey: .intensity) ?? IntensityLaw()
        defaults = try c.decode(Defaults.self, forKey: .defaults)
        envelope = try c.decode(EnvelopeRanges.self, forKey: .envelope)
        outputGainDB = try c.decodeIfPresent(Double.self, forKey: .outputGainDB) ?? 0
        ceilingDBFS = try c.decodeIfPresent(Double.self, forKey: .ceilingDBFS) ?? -1
        protection = try c.decode(Protection.self, forKey: .protection)
        limiter = try c.decodeIfPresent(Limiter.self, forKey: .limiter) ?? Limiter()
    }
}

/// A profile that could not be loaded: `source: field: message`.
public struct ProfileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where the profile came from (a file name, or `built-in NAME`).
    public var source: String
    /// The dotted path of the offending field (`band.high`), empty for the whole document.
    public var field: String
    public var message: String
    public init(source: String, field: String, message: String) {
        self.source = source
        self.field = field
        self.message = message
    }
    public var description: String {
        printable(field.isEmpty ? "\(source): \(message)" : "\(source): \(field): \(message)")
    }
}

// MARK: - Unknown keys (a misspelt field must not be silently ignored)

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Marker error carrying the unknown field's name (mapped to a ProfileError later).
struct UnknownFieldError: Error {
    var path: [String]
}

private func rejectUnknownKeys(_ decoder: any Decoder, allowed: [String]) throws {
    let c = try decoder.container(keyedBy: AnyKey.self)
    for key in c.allKeys where !allowed.contains(key.stringValue) {
        throw UnknownFieldError(path: decoder.codingPath.map(\.stringValue) + [key.stringValue])
    }
}

extension ActuatorProfile.Band {
    enum CodingKeys: String, CodingKey, CaseIterable { case low, high }
    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        low = try c.decode(Double.self, forKey: .low)
        high = try c.decode(Double.self, forKey: .high)
    }
}

extension ActuatorProfile.TransientShape {
    enum CodingKeys: String, CodingKey, CaseIterable { case cycles, milliseconds, attackMs, decayCycles, window }
    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        cycles = try c.decodeIfPresent(Double.self, forKey: .cycles)
        milliseconds = try c.decodeIfPresent(Double.self, forKey: .milliseconds)
        attackMs = try c.decodeIfPresent(Double.self, forKey: .attackMs) ?? 1
        decayCycles = try c.decodeIfPresent(Double.self, forKey: .decayCycles) ?? 1
        window = try c.decodeIfPresent(ActuatorProfile.Window.self, forKey: .window)
    }
}

extension ActuatorProfile.IntensityLaw {
    enum CodingKeys: String, CodingKey, CaseIterable { case law, exponent }
    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        law = try c.decode(Law.self, forKey: .law)
        exponent = try c.decodeIfPresent(Double.self, forKey: .exponent)
    }
}

extension ActuatorProfile.Defaults {
    enum CodingKeys: String, CodingKey, CaseIterable { case intensity, sharpness }
    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        intensity = try c.decode(Double.self, forKey: .intensity)
        sharpness = try c.decode(Double.self, forKey: .sharpness)
    }
}

extension ActuatorProfile.TimeRange {
    enum CodingKeys: String, CodingKey, CaseIterable { case min, max }
    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        min = try c.decode(Double.self, forKey: .min)
        max = try c.decode(Double.self, forKey: .max)
    }
}

extension ActuatorProfile.EnvelopeRanges {
    enum CodingKeys: String, CodingKey, CaseIterable { case attack, decay, release }
    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        attack = try c.decode(ActuatorProfile.TimeRange.self, forKey: .attack)
        decay = try c.decode(ActuatorProfile.TimeRange.self, forKey: .decay)
        release = try c.decode(ActuatorProfile.TimeRange.self, forKey: .release)
    }
}

extension ActuatorProfile.Protection {
    enum CodingKeys: String, CodingKey, CaseIterable { case highPassHz, order }
    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        highPassHz = try c.decode(Double.self, forKey: .highPassHz)
        order = try c.decodeIfPresent(Int.self, forKey: .order) ?? 2
    }
}

extension ActuatorProfile.Limiter {
    enum CodingKeys: String, CodingKey, CaseIterable { case lookaheadMs, releaseMs }
    public init(from decoder: any Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: CodingKeys.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: CodingKeys.self)
        lookaheadMs = try c.decodeIfPresent(Double.self, forKey: .lookaheadMs) ?? 1.5
        releaseMs = try c.decodeIfPresent(Double.self, forKey: .releaseMs) ?? 80
    }
}

// MARK: - Loading and validation

extension ActuatorProfile {
    /// Decodes and validates a profile from JSON bytes. Pure: no file access.
    /// `source` names the origin in error messages (for example `bass-shaker.json`).
    public static func decode(from bytes: [UInt8], source: String) throws(ProfileError) -> ActuatorProfile {
        // The project's JSON scanner: syntax errors get a line and column, duplicate keys are
        // found, and a number that is valid JSON but not a valid value of an integer field is
        // named as such; then the Codable initialisers read the tree.
        let tree: JSONValue
        do {
            tree = try JSONValue.parse(bytes)
        } catch {
            throw ProfileError(source: source, field: "", message: "not valid JSON: \(error)")
        }
        if let duplicate = tree.firstDuplicateKey {
            throw ProfileError(source: source, field: duplicate, message: "given twice (each field once)")
        }
        if case .number(let order)? = tree["protection"]?["order"], order != 2, order != 4 {
            throw ProfileError(source: source, field: "protection.order", message: "must be 2 or 4 (got \(order))")
        }
        let profile: ActuatorProfile
        do {
            profile = try JSONValueDecoder.decode(ActuatorProfile.self, from: tree)
        } catch let error as UnknownFieldError {
            throw ProfileError(source: source, field: error.path.joined(separator: "."), message: "unknown field")
        } catch let error as DecodingError {
            throw profileError(from: error, source: source)
        } catch {
            throw ProfileError(source: source, field: "", message: "\(error)")
        }
        try profile.validate(source: source)
        return profile
    }

    /// Checks every field's range; the error names the first bad field.
    public func validate(source: String) throws(ProfileError) {
        func fail(_ field: String, _ message: String) -> ProfileError {
            ProfileError(source: source, field: field, message: message)
        }
        func positive(_ value: Double, _ field: String) throws(ProfileError) {
            guard value.isFinite, value > 0 else { throw fail(field, "must be a positive number (got \(value))") }
        }
        func unit(_ value: Double, _ field: String) throws(ProfileError) {
            guard value.isFinite, (0...1).contains(value) else { throw fail(field, "must be between 0 and 1 (got \(value))") }
        }
        if name.isEmpty { throw fail("name", "must not be empty") }
        func within(_ value: Double, _ range: ClosedRange<Double>, _ field: String, _ unit: String) throws(ProfileError) {
            guard value.isFinite, range.contains(value) else {
                throw fail(field, "must be between \(range.lowerBound) and \(range.upperBound)\(unit) (got \(value))")
            }
        }
        try within(band.low, Limits.bandHz, "band.low", " Hz")
        try within(band.high, Limits.bandHz, "band.high", " Hz")
        guard band.high > band.low else { throw fail("band.high", "must be greater than band.low") }
        guard band.high < 20_000 else { throw fail("band.high", "must be below 20000 Hz") }
        switch (transient.cycles, transient.milliseconds) {
        case (nil, nil): throw fail("transient", "needs either cycles or milliseconds")
        case (.some, .some): throw fail("transient", "give either cycles or milliseconds, not both")
        case (let c?, nil):
            try positive(c, "transient.cycles")
            guard c <= 1000 else { throw fail("transient.cycles", "must be at most 1000") }
        case (nil, let ms?):
            try positive(ms, "transient.milliseconds")
            guard ms <= 10_000 else { throw fail("transient.milliseconds", "must be at most 10000") }
        }
        try positive(transient.attackMs, "transient.attackMs")
        guard transient.attackMs <= 20 else { throw fail("transient.attackMs", "must be at most 20 (a transient is felt on time only with a fast rise)") }
        try positive(transient.decayCycles, "transient.decayCycles")
        guard transient.decayCycles <= 1000 else { throw fail("transient.decayCycles", "must be at most 1000") }
        // The longest burst (at band.low) is bounded, whatever the shape's own limits.
        if let c = transient.cycles, c / band.low > Limits.maxTransientSeconds {
            throw fail("transient.cycles", "\(c) cycles at band.low (\(band.low) Hz) last \(c / band.low) s; at most \(Limits.maxTransientSeconds) s")
        }
        if let ms = transient.milliseconds, ms / 1000 > Limits.maxTransientSeconds {
            throw fail("transient.milliseconds", "must be at most \(Limits.maxTransientSeconds * 1000)")
        }
        if intensity.law == .power {
            guard let e = intensity.exponent else { throw fail("intensity.exponent", "is required for the power law") }
            guard e.isFinite, e > 0, e <= 10 else { throw fail("intensity.exponent", "must be in (0, 10] (got \(e))") }
        }
        try unit(defaults.intensity, "defaults.intensity")
        try unit(defaults.sharpness, "defaults.sharpness")
        for (range, field) in [(envelope.attack, "envelope.attack"), (envelope.decay, "envelope.decay"), (envelope.release, "envelope.release")] {
            try within(range.min, Limits.envelopeSeconds, field + ".min", " s")
            try within(range.max, Limits.envelopeSeconds, field + ".max", " s")
            guard range.max >= range.min else { throw fail(field + ".max", "must not be less than \(field).min") }
        }
        guard outputGainDB.isFinite, outputGainDB <= 24, outputGainDB >= -120 else {
            throw fail("outputGainDB", "must be between -120 and 24 (got \(outputGainDB))")
        }
        guard ceilingDBFS.isFinite, ceilingDBFS <= 0, ceilingDBFS >= -60 else {
            throw fail("ceilingDBFS", "must be between -60 and 0 (got \(ceilingDBFS))")
        }
        try within(protection.highPassHz, Limits.minHighPassHz...Limits.bandHz.upperBound, "protection.highPassHz", " Hz")
        guard protection.highPassHz < band.low else {
            throw fail("protection.highPassHz", "must be below band.low (\(band.low) Hz), or it would cut the actuator's own band")
        }
        guard protection.order == 2 || protection.order == 4 else {
            throw fail("protection.order", "must be 2 or 4 (got \(protection.order))")
        }
        guard limiter.lookaheadMs.isFinite, limiter.lookaheadMs >= 0.1, limiter.lookaheadMs <= 20 else {
            throw fail("limiter.lookaheadMs", "must be between 0.1 and 20")
        }
        guard limiter.releaseMs.isFinite, limiter.releaseMs >= 1, limiter.releaseMs <= 5000 else {
            throw fail("limiter.releaseMs", "must be between 1 and 5000")
        }
    }

    private static func profileError(from error: DecodingError, source: String) -> ProfileError {
        func path(_ keys: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            (keys + (last.map { [$0] } ?? [])).map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
                .joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return ProfileError(source: source, field: path(context.codingPath, key), message: "is required")
        case .typeMismatch(let type, let context):
            return ProfileError(source: source, field: path(context.codingPath), message: "expected \(typeName(type))")
        case .valueNotFound(let type, let context):
            return ProfileError(source: source, field: path(context.codingPath), message: "expected \(typeName(type)), got null")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty {
                return ProfileError(source: source, field: "", message: "not valid JSON")
            }
            return ProfileError(source: source, field: path(context.codingPath), message: "invalid value (\(context.debugDescription))")
        @unknown default:
            return ProfileError(source: source, field: "", message: "\(error)")
        }
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Double.Type, is Int.Type: "a number"
        case is String.Type: "a string"
        default: "an object"
        }
    }
}
