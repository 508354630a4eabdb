// The voice's control rows by name. They are `DynamicParameterID.index` written as constants:
// that switch lives in HapticPattern, and in debug builds the real-time checker rejects a call
// into another module whose body it cannot see. A test checks that the two agree.

/// The row of each dynamic parameter in a voice's control tables (`VoiceState.controls`,
/// the live layer), equal to its `DynamicParameterID.index`.
enum ControlIndex {
    static var hapticIntensity: Int { @_noLocks @inline(__always) get { 0 } }
    static var hapticSharpness: Int { @_noLocks @inline(__always) get { 1 } }
    static var hapticAttackTime: Int { @_noLocks @inline(__always) get { 2 } }
    static var hapticDecayTime: Int { @_noLocks @inline(__always) get { 3 } }
    static var hapticReleaseTime: Int { @_noLocks @inline(__always) get { 4 } }
    static var audioVolume: Int { @_noLocks @inline(__always) get { 5 } }
    static var audioPan: Int { @_noLocks @inline(__always) get { 6 } }
    static var audioPitch: Int { @_noLocks @inline(__always) get { 7 } }
    static var audioBrightness: Int { @_noLocks @inline(__always) get { 8 } }
    static var audioAttackTime: Int { @_noLocks @inline(__always) get { 9 } }
    static var audioDecayTime: Int { @_noLocks @inline(__always) get { 10 } }
    static var audioReleaseTime: Int { @_noLocks @inline(__always) get { 11 } }

    /// Whether the control multiplies the event's value (intensity, volume) rather than adds
    /// to it (`DynamicParameterID.combination`).
    @_noLocks @inline(__always)
    static func multiplies(_ id: Int) -> Bool {
        id == hapticIntensity || id == audioVolume
    }
}
