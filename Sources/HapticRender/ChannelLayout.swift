/// Where each output channel's samples come from. The renderer fills any layout:
/// haptic mono, audio stereo + haptic, or a user map for multi-channel cards.
public struct ChannelLayout: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case haptic(gain: Float)
        case audioLeft(gain: Float)
        case audioRight(gain: Float)
        case silence
    }
    public var sources: [Source]
    /// Where each channel is to go, by name (nil: by its column number). Set by names in a
    /// layout (`FL,FR,LFE=H`); the engine places such a layout on the device's channel map.
    /// Shorter than `sources` means nil for the rest (see `position(ofChannel:)`).
    public var positions: [ChannelPosition?] = []
    /// The actuator profile each haptic channel's drive is rendered for (nil: the render's or
    /// engine's own profile). The pattern is rendered once per distinct profile.
    /// Shorter than `sources` means nil for the rest (see `profile(ofChannel:)`).
    public var profiles: [ActuatorProfile?] = []
    public var channels: Int { sources.count }
    public init(_ sources: [Source]) { self.sources = sources }
    public init(_ sources: [Source], positions: [ChannelPosition?], profiles: [ActuatorProfile?] = []) {
        self.sources = sources
        self.positions = positions
        self.profiles = profiles
    }

    /// Equal when every channel has the same source, position and profile (a missing entry of
    /// `positions` or `profiles` counts as nil).
    public static func == (a: ChannelLayout, b: ChannelLayout) -> Bool {
        a.sources == b.sources
            && (0..<a.channels).allSatisfy { a.position(ofChannel: $0) == b.position(ofChannel: $0) }
            && (0..<a.channels).allSatisfy { a.profile(ofChannel: $0) == b.profile(ofChannel: $0) }
    }

    /// One haptic channel (the default without audio events).
    public static let hapticMono = ChannelLayout([.haptic(gain: 1)])
    /// Left, right, haptic (the default when a pattern has audio events).
    public static let stereoPlusHaptic = ChannelLayout([.audioLeft(gain: 1), .audioRight(gain: 1), .haptic(gain: 1)])
}
