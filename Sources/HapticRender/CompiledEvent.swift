// One event of a prepared pattern with every value resolved, and what kind of sound it makes.

/// What kind of sound an event makes.
enum EventKind: UInt8, Sendable {
    case transient
    case continuous
    case audioCustom
    case audioContinuous
}

/// One event with every value resolved (defaults applied, clamped).
struct CompiledEvent: Sendable {
    var kind: EventKind
    /// Onset in pattern samples: round(time · fs).
    var onset: Double
    /// HapticIntensity (haptic) or AudioVolume (audio), 0...1.
    var level: Double
    /// HapticSharpness (haptic) or AudioBrightness (audio continuous), 0...1.
    var colour: Double
    /// AudioPan, -1...1.
    var pan: Double
    /// AudioPitch, -1...1.
    var pitch: Double
    /// Normalised AttackTime/DecayTime/ReleaseTime, 0...1 (controls are added at onset).
    var attack: Double
    var decay: Double
    var release: Double
    var sustained: Bool
    /// EventDuration in pattern samples (nil: absent).
    var duration: Double?
    /// Index into the prepared pattern's sounds (`FlatPattern.sounds`) (AudioCustom with a loaded sound), else -1.
    var sound: Int
    var useVolumeEnvelope: Bool
    var loop: Bool
}

extension CompiledEvent {
    // Pattern matching, not ==: enum equality goes through Equatable, which the
    // performance checker (rightly, in debug builds) treats as metadata access.
    var isTransient: Bool {
        @_noLocks @inline(__always) get {
            if case .transient = kind { return true }
            return false
        }
    }
    var isHapticContinuous: Bool {
        @_noLocks @inline(__always) get {
            if case .continuous = kind { return true }
            return false
        }
    }
}
