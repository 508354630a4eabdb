import HapticRender

/// The layout to use when none is given, chosen from what the device says about its channels
/// (`DeviceChannels`): the sink's map through a sound server, else the maps the device offers.
///
/// - A DualSense: its actuators on channels 3–4 (`dualsense`); the sound only when asked for.
/// - A device with LFE (2.1, 5.1, 7.1): the sound on the fronts and the haptic on LFE.
/// - A device with AUX channels (a pro-audio sink): the sound on the fronts, the haptic on AUX0.
/// - A surround device without LFE (4.0): the sound on the fronts, the haptic on the rears.
/// - A stereo device: with sound, the sound's left channel on FL and the haptic on FR (said in
///   one line); for haptics only, the haptic on both channels. A mono device: the haptic.
/// - Nothing known: L,R,H (or H) by column; through a sound server whose sink is unknown, the
///   haptic goes on LFE, which 2.1, 5.1 and 7.1 sinks keep (every ordinary sink drops AUX0).
public struct DefaultChannelLayout: Sendable, Equatable {
    /// The layout chosen.
    public var layout: ChannelLayout
    /// One line saying what was chosen and how to change it, when the choice gives something
    /// up (a stereo device carrying both, the sound left out); nil otherwise.
    public var note: String?

    /// - Parameters:
    ///   - sound: whether the layout must carry the sound as well as the haptic.
    public init(for described: DeviceChannels?, sound: Bool, device: String) {
        func make(_ text: String, _ note: String? = nil) -> DefaultChannelLayout {
            // The texts below are valid layouts (tests parse every choice).
            DefaultChannelLayout(layout: (try? ChannelLayout.parse(text)) ?? .hapticMono, note: note)
        }
        let byColumn = sound ? ChannelLayout.stereoPlusHaptic : .hapticMono
        guard let described else {
            self = DefaultChannelLayout(layout: byColumn, note: nil)
            return
        }
        if described.isDualSense {
            self = make(
                "dualsense",
                sound
                    ? "\(device) is a DualSense: haptics on its actuators (channels 3-4); the sound is not played "
                        + "(--layout dualsense+sound sends it to the controller's headphone jack too)" : nil)
            return
        }
        guard let speakers = described.speakerPositions, !speakers.isEmpty else {
            if described.server != nil {
                self = make(sound ? "2.1" : "mono")
            } else {
                self = DefaultChannelLayout(layout: byColumn, note: nil)
            }
            return
        }
        let has = Set(speakers)
        if has.contains(.lfe) {
            self = make(sound ? "FL,FR,LFE=H" : "LFE=H")
        } else if let aux = speakers.first(where: \.isAux), has.contains(.frontLeft), has.contains(.frontRight) {
            self = make(sound ? "FL,FR,\(aux)=H" : "\(aux)=H")
        } else if speakers.count >= 3, has.contains(.frontLeft), has.contains(.frontRight),
            let rears = [(ChannelPosition.rearLeft, ChannelPosition.rearRight), (.sideLeft, .sideRight)]
                .first(where: { has.contains($0.0) && has.contains($0.1) })
        {
            self = make(
                sound ? "FL,FR,\(rears.0)=H,\(rears.1)=H" : speakers.map { "\($0)=H" }.joined(separator: ","))
        } else if speakers.count == 2 {
            self = make(
                sound ? "L,H" : "H,H",
                sound
                    ? "\(device) is stereo and carries sound and haptic: the sound's left channel on FL, the haptic "
                        + "on FR (--layout L,R for sound only, H,H for haptics only, or --haptic-device for a second card)"
                    : nil)
        } else if speakers == [.mono] {
            self = make(
                "H",
                sound ? "\(device) is mono: the haptic only, the sound is not played (--haptic-device for a second card)" : nil)
        } else {
            self = DefaultChannelLayout(layout: byColumn, note: nil)
        }
    }

    init(layout: ChannelLayout, note: String?) {
        self.layout = layout
        self.note = note
    }
}
