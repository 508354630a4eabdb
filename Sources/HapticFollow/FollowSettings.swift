/// What the follower is told: which captured channels it follows, how loud, in which mode.
public struct FollowSettings: Sendable, Equatable {
    /// The mode (see ``FollowMode``).
    public var mode: FollowMode = .lowpass
    /// Linear gain on the followed sound, before the protection chain.
    public var gain: Float = 1
    /// The captured channels followed (0-based; empty: all of them), mixed as their mean.
    public var inputChannels: [Int] = []

    public init(mode: FollowMode = .lowpass, gain: Float = 1, inputChannels: [Int] = []) {
        self.mode = mode
        self.gain = gain
        self.inputChannels = inputChannels
    }

    /// The capture width to ask a device for: wide enough for the highest channel followed, and
    /// a usual layout's width (stereo, 5.1, 7.1), so that channel 4 of a 5.1 stream is its LFE
    /// and not a sound server's down-mix to four channels.
    public var captureChannels: Int {
        let highest = (inputChannels.max() ?? 0) + 1
        return [2, 6, 8].first { $0 >= highest } ?? highest
    }
}
