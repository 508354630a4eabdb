/// How the follower makes haptic drive from the captured sound.
///
/// One mode today; the streaming analysis (HapticAnalysis's `StreamingAnalyzer`: loudness,
/// hits, sharpness, then synthesis in the actuator's band) is to be the second: a case here,
/// and beside ``CrossoverFilter`` a processor that `CaptureFollower.render` runs for it.
public enum FollowMode: String, Sendable, CaseIterable {
    /// A plain crossover: the sound itself, low-passed to the band the actuator can play
    /// (the profile's `band.high`, fourth-order Butterworth: minimum delay).
    case lowpass
}
