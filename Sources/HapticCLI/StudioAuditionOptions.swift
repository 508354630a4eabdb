// The studio's audition devices: the live verbs' option groups (-D and the engine's period,
// buffer and scheduling; --layout; --profile) and --haptic-device as rhythm and serve spell
// it. `hapticsynth studio` takes them and hands them to `hapticsynth-studio`, which takes
// the same group.

import ArgumentParser
import HapticKit

/// `-D`, `--haptic-device`, `--layout`, `--profile`, `--period`, `--buffer-periods`,
/// `--no-realtime`, `--verbose` for the studio's audition.
public struct StudioAuditionOptions: ParsableArguments {
    @OptionGroup public var live: LiveOutputOptions

    @Option(name: .customLong("haptic-device"), help: ArgumentHelp("Two-device mode: the haptic goes to this ALSA device, the sound to -D.", valueName: "device"))
    public var hapticDevice: String?

    @OptionGroup public var channelLayout: LayoutOptions
    @OptionGroup public var profileOption: ProfileOption

    public init() {}

    public func validate() throws { try profileOption.checkName() }

    /// The arguments that give a program these options (what `hapticsynth studio` passes on).
    public var arguments: [String] {
        var result = ["-D", live.device, "--period", String(live.period), "--profile", profileOption.profile]
        if let periods = live.requestedBufferPeriods { result += ["--buffer-periods", String(periods)] }
        if live.noRealtime { result.append("--no-realtime") }
        if live.verbose { result.append("--verbose") }
        if let hapticDevice { result += ["--haptic-device", hapticDevice] }
        if let layout = channelLayout.layout { result += ["--layout", layout] }
        return result
    }

    /// The manager the audition plays through: the sound on -D and the haptic with it (one
    /// stream, laid out from the device's channel map unless --layout says), or on
    /// --haptic-device. The studio is a server beside the engine, not a live verb that owns its
    /// process: it never locks memory.
    public func managerConfiguration() throws(CLIError) -> HapticManager.Configuration {
        let profile = try profileOption.resolved()
        var config = live.managerConfiguration(
            haptics: "", assets: "", output: .alsa(hapticDevice ?? live.device),
            audioOutput: hapticDevice == nil ? nil : .alsa(live.device), layout: try channelLayout.resolved(), profile: profile,
            managerLogLevel: .error)
        config.lockMemory = false
        return config
    }
}
