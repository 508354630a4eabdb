// `--layout`: one option for render and every live verb (play, rhythm, serve, and later ones).

import ArgumentParser
import HapticKit

/// `--layout MAP` (alias `--channels`): which channel carries what, by column or by position,
/// with per-channel actuator profiles and gains (`ChannelLayout.parse`).
public struct LayoutOptions: ParsableArguments {
    @Option(
        name: [.long, .customLong("channels")],
        help: ArgumentHelp(
            "Channel layout: by column (L,R,H; 0,0,H,H*0.5), by position (FL,FR,LFE=H; H@LFE), with a profile per actuator (FL=H:bass-shaker,FR=H:voice-coil*0.5), or a preset (mono, stereo+haptic, 2.1, dualsense, dualsense+sound). Default: live verbs choose from the device's channel map (see `hapticsynth devices`); render writes mono, or stereo+haptic when the pattern has audio events.",
            valueName: "map"))
    public var layout: String?

    public init() {}

    public func validate() throws {
        do { _ = try resolved() } catch { throw ValidationError(error.description) }
    }

    /// The layout asked for, or nil (the verb's default). Profiles in it are built-in names or
    /// JSON files (`H:./my-shaker.json`).
    public func resolved() throws(CLIError) -> ChannelLayout? {
        guard let layout else { return nil }
        do {
            return try ChannelLayout.parse(userText: layout)
        } catch {
            throw CLIError("--layout: \(error)")
        }
    }
}
