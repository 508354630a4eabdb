import HapticALSA

/// What ALSA offers for playback now (the `devices` verb): the sound cards, the playback
/// PCMs it lists (each probed briefly: channels, rates, or why it cannot open), and the
/// `default` PCM probed on its own.
public struct PlaybackDevices: Sendable {
    public let cards: [ALSACardInfo]
    /// The PCMs ALSA lists that can play (capture-only ones left out).
    public let pcms: [ALSAPCMInfo]
    /// `default`, probed.
    public let defaultPCM: ALSAPCMInfo

    /// Asks ALSA now (alsa-lib and its plugins may print their own complaints on stderr).
    public static func survey() -> PlaybackDevices {
        PlaybackDevices(
            cards: ALSADevices.cards(),
            pcms: ALSADevices.list().filter { $0.direction != .capture },
            defaultPCM: ALSADevices.probe("default"))
    }
}
