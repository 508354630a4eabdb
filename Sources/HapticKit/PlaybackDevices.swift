import HapticALSA

/// What ALSA offers for playback now (the `devices` verb): the sound cards, the playback
/// PCMs it lists (each probed briefly: channels, rates, or why it cannot open), and the
/// `default` PCM probed on its own.
public struct PlaybackDevices: Sendable {
    /// A sound card as /proc/asound lists it (its USB id tells a DualSense).
    public typealias SoundCard = SoundCardDirectory.Card

    public let cards: [ALSACardInfo]
    /// The PCMs ALSA lists that can play (capture-only ones left out).
    public let pcms: [ALSAPCMInfo]
    /// `default`, probed.
    public let defaultPCM: ALSAPCMInfo
    /// The DualSense controllers plugged in over USB (their sound cards, from /proc/asound or
    /// sysfs under `root`).
    public let dualSenses: [SoundCardDirectory.Card]

    /// Asks ALSA now (alsa-lib and its plugins may print their own complaints on stderr);
    /// `root` is where /proc and /sys are looked for (tests give a fake tree).
    public static func survey(root: String = "/") -> PlaybackDevices {
        PlaybackDevices(
            cards: ALSADevices.cards(),
            pcms: ALSADevices.list().filter { $0.direction != .capture },
            defaultPCM: ALSADevices.probe("default"),
            dualSenses: SoundCardDirectory(root: root).dualSenses())
    }
}
