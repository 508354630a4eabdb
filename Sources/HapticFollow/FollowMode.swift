/// How the follower makes haptic drive from the captured sound.
public enum FollowMode: String, Sendable, CaseIterable {
    /// The streaming analysis (``AnalysisVoice``): a loudness follower, hits and sharpness
    /// from the spectrum, then synthesis in the actuator's band, the hits as transients.
    case analysis
    /// A plain crossover: the sound itself, low-passed to the band the actuator can play
    /// (the profile's `band.high`, fourth-order Butterworth: minimum delay).
    case lowpass
}
