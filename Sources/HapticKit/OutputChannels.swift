import HapticALSA
import HapticEngine
import HapticRender

// What an output says about its channels, and the layout chosen from it when none is given
// (the live verbs' and the manager's default; see `DefaultChannelLayout` for the rules).

extension HapticManager.Output {
    /// What an ALSA output's device says about its channels before it is opened: its channel
    /// maps and, through a sound server, the sink behind it (a short probe: the PCM is opened
    /// and closed, a server is asked, within about a second). nil when it cannot say, and for a
    /// device factory (which is not called just to ask: its engine asks its own device).
    public func describeChannels() -> DeviceChannels? {
        switch self {
        case .alsa(let name): ALSAOutputDevice(name: name).describeChannels()
        case .device: nil
        }
    }

    /// The output's name, for messages.
    var deviceName: String {
        switch self {
        case .alsa(let name): name
        case .device: "the device"
        }
    }

    /// The layout to use when none is given: chosen from what the device says
    /// (`DefaultChannelLayout`); `sound`: the layout must carry the sound as well.
    public func defaultLayout(sound: Bool) -> DefaultChannelLayout {
        DefaultChannelLayout(for: describeChannels(), sound: sound, device: deviceName)
    }
}
