import HapticDSP
import Synchronization

/// The follower's controls that may change while it runs: gain, mute, mode, and how far its
/// drive is ducked while an authored pattern sounds on the same engine. Set from any thread;
/// the render side reads them once per render call (`snapshot`), with atomics only (gains
/// as their bit patterns).
///
/// Hostile values are refused where they are set, never clamped: a gain or ducking that is
/// NaN, infinite, negative or out of range throws ``FollowControlError`` and leaves the
/// control as it was (a NaN reaching the mix would silence the whole protection chain).
public final class FollowControls: Sendable {
    /// The largest gain (+40 dB, `follow --gain`'s bound).
    public static let maximumGain: Float = 100
    /// The default ducking: -12 dB while an authored pattern sounds.
    public static let defaultDuckingDecibels: Float = -12

    private let gainBits: Atomic<UInt32>
    private let duckBits: Atomic<UInt32>
    private let mutedFlag = Atomic<Bool>(false)
    private let modeIndex: Atomic<Int>

    /// What the render side reads once per render call.
    public struct Snapshot: Equatable {
        /// Linear gain on the followed sound (0 when muted).
        public var gain: Float
        /// Linear gain on the follower's drive while an authored voice sounds (1: no ducking).
        public var ducking: Float
        /// Index into `FollowMode.allCases` (the render side maps it through a table made off it).
        public var modeIndex: Int
    }

    /// - Parameters: `gain` linear, `ducking` linear (1: none); both checked as the setters do.
    public init(mode: FollowMode = FollowSettings.defaultMode, gain: Float = 1, duckingDecibels: Float = FollowControls.defaultDuckingDecibels) throws(FollowControlError) {
        gainBits = Atomic(try Self.checkedGain(gain).bitPattern)
        duckBits = Atomic(try Self.checkedDucking(duckingDecibels).bitPattern)
        modeIndex = Atomic(Self.index(of: mode))
    }

    /// The controls for `settings` as a follower starts: a gain out of range (NaN, infinite,
    /// negative: the caller's `FollowSettings` were not checked) is taken as silence, above
    /// the maximum as the maximum; the ducking is the default.
    init(checkedElsewhere settings: FollowSettings) {
        let gain = settings.gain.isNaN || settings.gain < 0 ? 0 : min(settings.gain, Self.maximumGain)
        gainBits = Atomic(gain.bitPattern)
        duckBits = Atomic(Self.linear(Self.defaultDuckingDecibels).bitPattern)
        modeIndex = Atomic(Self.index(of: settings.mode))
    }

    // MARK: control side (any thread)

    /// Linear gain on the followed sound, 0…100 (+40 dB); takes effect at the next render call,
    /// ramped over a few milliseconds. Throws for NaN, infinity, negative or above the maximum.
    public var gain: Float { Float(bitPattern: gainBits.load(ordering: .relaxed)) }

    public func setGain(_ linear: Float) throws(FollowControlError) {
        gainBits.store(try Self.checkedGain(linear).bitPattern, ordering: .relaxed)
    }

    /// The gain in dB (-inf…+40; -inf is silence, as is `muted`).
    public func setGain(decibels: Float) throws(FollowControlError) {
        guard !decibels.isNaN, decibels <= 40 else { throw .gain("\(decibels) dB: expected a number up to +40 dB") }
        try setGain(decibels == -.infinity ? 0 : Self.linear(decibels))
    }

    /// Muted: the capture is still read (so the latency is the same when unmuted), its drive
    /// ramped to silence.
    public var muted: Bool {
        get { mutedFlag.load(ordering: .relaxed) }
        set { mutedFlag.store(newValue, ordering: .relaxed) }
    }

    /// The mode; a change cross-fades from the old mode's drive to the new one's over a few
    /// milliseconds, starting at the next render call.
    public var mode: FollowMode {
        get { FollowMode.allCases[modeIndex.load(ordering: .relaxed)] }
        set { modeIndex.store(Self.index(of: newValue), ordering: .relaxed) }
    }

    /// Ducking while an authored pattern sounds, in dB: -60…0 (0: none). Throws for NaN or out of range.
    public var duckingDecibels: Float {
        let linear = Float(bitPattern: duckBits.load(ordering: .relaxed))
        return Float(gainToDecibels(Double(linear)))
    }

    public func setDucking(decibels: Float) throws(FollowControlError) {
        duckBits.store(try Self.checkedDucking(decibels).bitPattern, ordering: .relaxed)
    }

    // MARK: render side

    /// The controls now (atomic loads only: no lock, no allocation).
    @inline(__always)
    public func snapshot() -> Snapshot {
        let muted = mutedFlag.load(ordering: .relaxed)
        return Snapshot(
            gain: muted ? 0 : Float(bitPattern: gainBits.load(ordering: .relaxed)),
            ducking: Float(bitPattern: duckBits.load(ordering: .relaxed)),
            modeIndex: modeIndex.load(ordering: .relaxed))
    }

    // MARK: checks

    static func checkedGain(_ linear: Float) throws(FollowControlError) -> Float {
        guard linear.isFinite, linear >= 0, linear <= maximumGain else {
            throw .gain("\(linear): expected a linear gain 0...\(Int(maximumGain)) (+40 dB)")
        }
        return linear == 0 ? 0 : linear  // -0 is 0
    }

    static func checkedDucking(_ decibels: Float) throws(FollowControlError) -> Float {
        guard decibels.isFinite, (-60...0).contains(decibels) else {
            throw .ducking("\(decibels) dB: expected -60...0 dB")
        }
        return Self.linear(decibels)
    }

    static func linear(_ decibels: Float) -> Float { Float(decibelsToGain(Double(decibels))) }

    static func index(of mode: FollowMode) -> Int {
        FollowMode.allCases.firstIndex(of: mode)!  // every case is in allCases
    }
}

/// A follower control refused: the value and what was expected.
public enum FollowControlError: Error, Equatable, CustomStringConvertible {
    case gain(String)
    case ducking(String)
    /// A mode name that is not a ``FollowMode``.
    case mode(String)

    public var description: String {
        switch self {
        case .gain(let why): "follow gain \(why)"
        case .ducking(let why): "follow ducking \(why)"
        case .mode(let name): "follow mode \"\(name)\": expected \(FollowMode.allCases.map(\.rawValue).joined(separator: " or "))"
        }
    }
}

extension FollowMode {
    /// The mode named `name`, or a ``FollowControlError`` naming the modes there are.
    public static func named(_ name: String) throws(FollowControlError) -> FollowMode {
        guard let mode = FollowMode(rawValue: name) else { throw .mode(String(name.prefix(64))) }
        return mode
    }
}
