import CALSA
import CALSASupport
import HapticEngine
import HapticRender

#if canImport(Glibc)
    import Glibc
#endif

// Channel maps through alsa-lib: snd_pcm_query_chmaps / snd_pcm_get_chmap / snd_pcm_set_chmap,
// and what the sound servers' ALSA plugins do instead.
//
// What the plugins do (read in their sources, measured in the rig):
// - alsa-plugins 1.2.7.1 `pulse` implements none of the three calls: query and get return
//   NULL, set fails with -ENXIO. Its stream's map is fixed by the channel count
//   (`ChannelPosition.soundServerMap`: 3 channels are FL FR AUX0), and the server keeps a
//   channel only where the sink has one of that name.
// - alsa-lib's `plug` (and route, softvol, rate...) pass the three calls to their slave
//   unchanged (snd_pcm_generic_*): through plug the slave's map is what is read, even when plug
//   converts the channel count (then the map's width differs from the stream's).
// - PipeWire's `pipewire` plugin offers fixed maps for 1, 2, 4, 5, 6 and 8 channels (the same
//   positions as pulse's) and reads back the stream's positions.

extension ChannelPosition {
    /// ALSA's number for the position (`SND_CHMAP_*`); AUX positions have none (UNKNOWN).
    var alsaValue: Int32 {
        Int32(ChannelPosition.alsaOrder.firstIndex(of: self) ?? 0)
    }

    /// The position for ALSA's number (flag bits already masked off); nil for unknown ones.
    init?(alsaValue: Int32) {
        guard alsaValue >= 0, Int(alsaValue) < ChannelPosition.alsaOrder.count else { return nil }
        self = ChannelPosition.alsaOrder[Int(alsaValue)]
    }

    /// The position for PulseAudio's `pa_channel_position_t`.
    init?(pulseValue v: Int32) {
        switch v {
        case 0: self = .mono
        case 1: self = .frontLeft
        case 2: self = .frontRight
        case 3: self = .frontCenter
        case 4: self = .rearCenter
        case 5: self = .rearLeft
        case 6: self = .rearRight
        case 7: self = .lfe
        case 8: self = .frontLeftCenter
        case 9: self = .frontRightCenter
        case 10: self = .sideLeft
        case 11: self = .sideRight
        case 12...43: self = .aux(Int(v - 12))
        case 44: self = .topCenter
        case 45: self = .topFrontLeft
        case 46: self = .topFrontRight
        case 47: self = .topFrontCenter
        case 48: self = .topRearLeft
        case 49: self = .topRearRight
        case 50: self = .topRearCenter
        default: return nil
        }
    }
}

/// The channel-map calls on an open PCM.
enum ALSAChannelMapCalls {
    /// snd_pcm_query_chmaps; empty when the PCM offers none (it cannot say).
    static func query(_ pcm: OpaquePointer) -> [ChannelMapOffer] {
        var buffer = [Int32](repeating: 0, count: 8192)
        let n = Int(buffer.withUnsafeMutableBufferPointer { hs_chmap_query(pcm, $0.baseAddress, Int32($0.count)) })
        guard n > 0 else { return [] }
        var offers: [ChannelMapOffer] = []
        var i = 0
        while i + 2 <= n {
            let type = buffer[i]
            let channels = Int(buffer[i + 1])
            i += 2
            guard channels >= 0, i + channels <= n else { break }
            let positions = buffer[i..<(i + channels)].map { ChannelPosition(alsaValue: $0) ?? .unknown }
            i += channels
            let kind: ChannelMapOffer.Kind
            switch UInt32(type) {
            case SND_CHMAP_TYPE_VAR.rawValue: kind = .variable
            case SND_CHMAP_TYPE_PAIRED.rawValue: kind = .paired
            default: kind = .fixed
            }
            if channels > 0 { offers.append(ChannelMapOffer(kind, positions)) }
        }
        return offers.sorted { $0.channels < $1.channels }
    }

    /// snd_pcm_get_chmap; nil when the PCM cannot say.
    static func current(_ pcm: OpaquePointer) -> [ChannelPosition]? {
        var buffer = [Int32](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBufferPointer { hs_chmap_get(pcm, $0.baseAddress, Int32($0.count)) }
        guard n > 0 else { return nil }
        return buffer[0..<Int(n)].map { ChannelPosition(alsaValue: $0) ?? .unknown }
    }

    /// snd_pcm_set_chmap; alsa-lib's result (0 or a negative errno; -ENXIO: not supported).
    @discardableResult
    static func set(_ pcm: OpaquePointer, _ positions: [ChannelPosition]) -> Int32 {
        var values = positions.map(\.alsaValue)
        return values.withUnsafeMutableBufferPointer { hs_chmap_set(pcm, $0.baseAddress, Int32($0.count)) }
    }
}

/// A sound card's identity, for messages and for recognising a DualSense.
struct ALSACardIdentity {
    var name: String?
    var usbID: String?

    /// The card a PCM plays on (nil for plugins that name no card).
    static func of(_ pcm: OpaquePointer) -> ALSACardIdentity? {
        var info: OpaquePointer?
        guard snd_pcm_info_malloc(&info) == 0, let info else { return nil }
        defer { snd_pcm_info_free(info) }
        guard snd_pcm_info(pcm, info) == 0 else { return nil }
        let card = snd_pcm_info_get_card(info)
        guard card >= 0 else { return nil }
        var name: UnsafeMutablePointer<CChar>?
        var identity = ALSACardIdentity()
        if snd_card_get_name(card, &name) == 0, let name {
            identity.name = String(cString: name)
            free(name)
        }
        identity.usbID = SoundCardDirectory(root: "/").usbID(ofCard: Int(card))
        return identity
    }
}
