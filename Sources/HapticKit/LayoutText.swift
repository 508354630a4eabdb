import HapticRender

// The channel map a user writes (`--layout` of render and the live verbs, the C library's
// `layout`): one reader for all of them, so that each accepts exactly what the others do.

extension ChannelLayout {
    /// Reads a channel map in the grammar of `parse(_:profile:)` (by column, by position,
    /// presets), a channel's profile being a built-in name or a profile JSON file
    /// (`H:./my-shaker.json`).
    public static func parse(userText text: String) throws(ChannelLayoutError) -> ChannelLayout {
        try parse(text) { name throws(ChannelLayoutError) in
            do { return try ActuatorProfile.named(orPath: name) } catch { throw ChannelLayoutError("\(error)") }
        }
    }

    /// This layout as a file or a pulled buffer carries it: channel i is the map's entry i.
    /// Positions (`FL,FR,LFE=H`) place channels on a device's channel map; without a device
    /// (`render`, an offline engine) they only name the channels, in the map's order.
    public var byColumn: ChannelLayout {
        namesPositions ? ChannelLayout(sources, positions: [], profiles: profiles) : self
    }
}
