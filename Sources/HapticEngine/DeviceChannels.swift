import HapticRender

/// A channel map a device can take (ALSA's `snd_pcm_query_chmaps`): its positions, one per
/// channel, and whether they are fixed or may be set in another order.
public struct ChannelMapOffer: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, Equatable {
        /// The positions are what they are for this channel count.
        case fixed
        /// Any order of these positions may be set (`snd_pcm_set_chmap`).
        case variable
        /// Pairs of positions may be swapped.
        case paired
    }
    public var kind: Kind
    public var positions: [ChannelPosition]
    public var channels: Int { positions.count }

    public init(_ kind: Kind, _ positions: [ChannelPosition]) {
        self.kind = kind
        self.positions = positions
    }

    public var description: String { positions.mapDescription + (kind == .fixed ? "" : " (\(kind.rawValue))") }
}

/// A sound server's sink that a device's stream plays into (PulseAudio, or PipeWire through
/// its PulseAudio protocol), and the sink's own channel map: the server keeps a stream's
/// channel where the sink has a channel of that name and drops or remixes the others.
public struct SoundServerSink: Sendable, Equatable {
    /// The server's sink name (`alsa_output.pci-0000_00_1f.3.analog-stereo`), or nil when the
    /// stream goes to the server's default sink and the server could not be asked.
    public var name: String?
    /// The sink's description, when the server said.
    public var description: String?
    /// The sink's channel map (nil: the server could not be asked).
    public var positions: [ChannelPosition]?
    /// How the device reaches the server (`ALSA pulse plugin`, `ALSA pipewire plugin`).
    public var via: String

    public init(name: String?, description: String? = nil, positions: [ChannelPosition]?, via: String) {
        self.name = name
        self.description = description
        self.positions = positions
        self.via = via
    }

    /// `sink hs_sink (FL FR AUX0)`.
    public var summary: String {
        "sink \(name ?? "(default)")" + (positions.map { " (\($0.mapDescription))" } ?? " (channel map unknown)")
    }
}

/// What a device says about its channels before it is opened: the channel maps it can take,
/// the sound-server sink behind it (if any), and what it is called (a card or sink
/// description, used to recognise a DualSense). Nothing in it is guessed: an empty `offers`
/// means the device cannot say.
public struct DeviceChannels: Sendable, Equatable {
    /// The maps the device can take, fewest channels first.
    public var offers: [ChannelMapOffer]
    /// The sink behind a sound-server plugin; nil for a device that plays itself (`hw:`).
    public var server: SoundServerSink?
    /// A card name or sink description, when known.
    public var deviceDescription: String?
    /// The USB vendor:product of the card, when it is a USB device (`054c:0ce6`).
    public var usbID: String?

    public init(
        offers: [ChannelMapOffer], server: SoundServerSink? = nil, deviceDescription: String? = nil, usbID: String? = nil
    ) {
        self.offers = offers
        self.server = server
        self.deviceDescription = deviceDescription
        self.usbID = usbID
    }

    /// The positions that finally sound: the sink's (through a server), else the widest map
    /// the device offers; nil when neither is known.
    public var speakerPositions: [ChannelPosition]? {
        if let server { return server.positions }
        return offers.max { $0.channels < $1.channels }?.positions
    }

    /// Whether this is a Sony DualSense or DualSense Edge (by USB id, card name or sink name).
    public var isDualSense: Bool {
        if let usbID, DualSenseIDs.all.contains(usbID.lowercased()) { return true }
        let names = [deviceDescription, server?.name, server?.description].compactMap { $0?.lowercased() }
        return names.contains {
            $0.contains("dualsense") || $0.contains("sony_interactive_entertainment_wireless_controller")
        }
    }
}

/// The USB ids of the controllers whose audio device drives their voice-coil actuators.
public enum DualSenseIDs {
    /// Sony DualSense (CFI-ZCT1).
    public static let dualSense = "054c:0ce6"
    /// Sony DualSense Edge (CFI-ZCP1).
    public static let dualSenseEdge = "054c:0df2"
    public static let all: Set<String> = [dualSense, dualSenseEdge]
}
