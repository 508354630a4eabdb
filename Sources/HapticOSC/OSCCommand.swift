import HapticPattern

/// One request of the address space (docs/osc.md), decoded and
/// checked: names are short, times are finite monotonic seconds (0: as soon as possible).
public enum OSCCommand: Sendable, Equatable {
    /// `/hapticsynth/play ,s[d]`: a library pattern.
    case play(pattern: String, time: Double)
    /// `/hapticsynth/cue ,s[d]`: a cue of the cue sheet (sound and haptic in lockstep).
    case cue(name: String, time: Double)
    /// `/hapticsynth/transient ,ff[d]`: one transient.
    case transient(intensity: Double, sharpness: Double, time: Double)
    /// `/hapticsynth/loop/start ,ss[f[d]]`: a pattern looping under a client-chosen id.
    case loopStart(id: String, pattern: String, intensity: Double, time: Double)
    /// `/hapticsynth/loop/intensity ,sf`: the loop's intensity control (0…1), at once.
    case loopIntensity(id: String, value: Double)
    /// `/hapticsynth/loop/sharpness ,sf`: the loop's sharpness control (-1…1), at once.
    case loopSharpness(id: String, value: Double)
    /// `/hapticsynth/loop/curve ,ss(ff)+`: a parameter curve of (seconds after `time`, value) points.
    case loopCurve(id: String, parameter: DynamicParameterID, points: [CurvePoint], time: Double)
    /// `/hapticsynth/loop/stop ,s[d]`.
    case loopStop(id: String, time: Double)
    /// `/hapticsynth/stop [,d]`: every loop and every voice the server started.
    case stopAll(time: Double)
    /// `/hapticsynth/status`: the reply goes to the sender.
    case status
    /// `/hapticsynth/clock`: the server's monotonic and wall clocks, replied to the sender.
    case clock
    /// `/hapticsynth/follow/gain ,n`: the follower's gain in dB (-60…+40), at once (`serve --follow`).
    case followGain(decibels: Double)
    /// `/hapticsynth/follow/mute ,n`: non-zero mutes the follower, 0 unmutes it.
    case followMute(Bool)
    /// `/hapticsynth/follow/mode ,s`: the follower's mode by name, one of the decoder's
    /// `followModes` (`FollowMode`'s raw values in the server).
    case followMode(String)
    /// `/hapticsynth/follow/ducking ,n`: how far the follower is ducked while a pattern sounds, dB (-60…0).
    case followDucking(decibels: Double)

    /// One point of a loop's parameter curve.
    public struct CurvePoint: Sendable, Equatable {
        public var time: Double
        public var value: Double
        public init(time: Double, value: Double) {
            self.time = time
            self.value = value
        }
    }
}
