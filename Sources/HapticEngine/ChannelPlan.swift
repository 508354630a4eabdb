import HapticRender

/// How a layout is placed on a device: the layout by device column (reordered and widened to
/// a channel map the device offers, when the layout names positions) and the map to ask for.
///
/// A layout by column (`L,R,H`) is used as it is. A layout by position (`FL,FR,LFE=H`) needs
/// a channel map of the device that has every position it names: the map with the fewest
/// channels is chosen, each layout channel goes to the column of its position, the other
/// columns are silent. Through ALSA's `pulse` plugin, whose maps are fixed by channel count
/// (`ChannelPosition.soundServerMap`), `FL,FR,LFE=H` becomes 6 channels FL FR RL RR FC LFE.
public struct ChannelPlan: Sendable, Equatable {
    /// The layout by device column.
    public var layout: ChannelLayout
    /// The positions to ask the device for (nil: its own map for that many channels).
    public var requestedMap: [ChannelPosition]?

    /// Plans `layout` on a device that describes its channels as `described` (nil: it cannot say).
    public init(layout: ChannelLayout, described: DeviceChannels?, device: String) throws(ChannelPlanError) {
        guard layout.namesPositions else {
            self.layout = layout
            requestedMap = nil
            return
        }
        let wanted = (0..<layout.channels).map { layout.position(ofChannel: $0)! }
        let offers = described?.offers ?? []
        guard !offers.isEmpty else {
            throw ChannelPlanError(
                "\(device): cannot place \(layout.mapDescription) by position: the device reports no channel map "
                    + "(place the channels by column instead, e.g. L,R,H)")
        }
        let fitting = offers.filter { offer in wanted.allSatisfy(offer.positions.contains) }
            .sorted { $0.channels < $1.channels }
        guard let offer = fitting.first else {
            let missing = wanted.filter { p in !offers.contains { $0.positions.contains(p) } }
            throw ChannelPlanError(
                "\(device): no channel map of the device has "
                    + (missing.isEmpty ? wanted.mapDescription + " together" : missing.mapDescription)
                    + " (it offers: " + offers.map(\.description).joined(separator: " | ") + ")")
        }
        if offer.kind == .variable {
            // Any order may be set: the layout's own order, then the rest of the offer's positions.
            let map = wanted + offer.positions.filter { !wanted.contains($0) }
            self.layout = layout.placed(columns: map.indices.map { $0 < wanted.count ? $0 : nil }, positions: map)
            requestedMap = map
        } else {
            self.layout = layout.placed(
                columns: offer.positions.map { p in wanted.firstIndex(of: p) }, positions: offer.positions)
            requestedMap = offer.kind == .paired ? offer.positions : nil
        }
    }
}

/// Why a layout cannot be placed on a device's channel maps (one line).
public struct ChannelPlanError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
