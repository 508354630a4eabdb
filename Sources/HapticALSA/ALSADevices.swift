import CALSA
import CALSASupport
import HapticEngine

#if canImport(Glibc)
    import Glibc
#endif

/// A PCM a user can name, as ALSA's configuration lists it.
public struct ALSAPCMInfo: Sendable, Equatable {
    public enum Direction: String, Sendable { case playback, capture, both }
    /// The name to pass to `-D` / `ALSAOutputDevice(name:)`.
    public var name: String
    /// ALSA's description (may span lines).
    public var description: String?
    public var direction: Direction
    /// Channel counts the PCM accepts, when probing could open it.
    public var channels: ClosedRange<Int>?
    /// Sample rates the PCM accepts, when probing could open it.
    public var rates: ClosedRange<Int>?
    /// Why probing failed (ALSA's message), when it did.
    public var probeError: String?
    /// The channel maps it can take and where its channels go (a sound server's sink), when
    /// probing could ask (`ALSAOutputDevice.describeChannels`).
    public var channelMaps: DeviceChannels? = nil
}

/// A sound card.
public struct ALSACardInfo: Sendable, Equatable {
    public var index: Int
    public var id: String
    public var name: String
    public var longName: String
}

/// Lists what ALSA can open here.
public enum ALSADevices {
    /// The PCMs of ALSA's configuration (`snd_device_name_hint`), probed for channel counts and
    /// rates (non-blocking open + hw_params refinement) until `probeBudgetMilliseconds` is spent.
    public static func list(probe: Bool = true, probeBudgetMilliseconds: Int = 3000) -> [ALSAPCMInfo] {
        ALSAErrorCapture.install()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var result: [ALSAPCMInfo] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = hintString(hint, "NAME") else { continue }
            let direction: ALSAPCMInfo.Direction
            switch hintString(hint, "IOID") {
            case "Output": direction = .playback
            case "Input": direction = .capture
            default: direction = .both
            }
            result.append(
                ALSAPCMInfo(
                    name: name, description: hintString(hint, "DESC"), direction: direction, channels: nil,
                    rates: nil, probeError: nil))
        }
        guard probe else { return result }
        let deadline = monotonicNanos() + Int64(probeBudgetMilliseconds) * 1_000_000
        for i in result.indices {
            guard monotonicNanos() < deadline else {
                result[i].probeError = "not probed (time budget spent)"
                continue
            }
            let stream = result[i].direction == .capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK
            switch probeRanges(result[i].name, stream: stream) {
            case .success(let ranges):
                result[i].channels = ranges.channels
                result[i].rates = ranges.rates
                if stream == SND_PCM_STREAM_PLAYBACK {
                    result[i].channelMaps = ALSAOutputDevice(name: result[i].name).describeChannels()
                }
            case .failure(let error):
                result[i].probeError = error.message
            }
        }
        return result
    }

    struct ProbeError: Error { var message: String }

    /// Opens `name` non-blocking and reads the channel and rate ranges it allows.
    static func probeRanges(_ name: String, stream: snd_pcm_stream_t)
        -> Result<(channels: ClosedRange<Int>, rates: ClosedRange<Int>), ProbeError>
    {
        var pcm: OpaquePointer?
        ALSAErrorCapture.install()
        hs_alsa_clear_error()
        let err = snd_pcm_open(&pcm, name, stream, SND_PCM_NONBLOCK)
        guard err >= 0, let pcm else { return .failure(ProbeError(message: alsaMessage(err))) }
        defer { snd_pcm_close(pcm) }
        let hw = HardwareParameters()
        let anyErr = snd_pcm_hw_params_any(pcm, hw.pointer)
        guard anyErr >= 0 else { return .failure(ProbeError(message: alsaMessage(anyErr))) }
        var cmin: UInt32 = 0
        var cmax: UInt32 = 0
        var rmin: UInt32 = 0
        var rmax: UInt32 = 0
        snd_pcm_hw_params_get_channels_min(hw.pointer, &cmin)
        snd_pcm_hw_params_get_channels_max(hw.pointer, &cmax)
        snd_pcm_hw_params_get_rate_min(hw.pointer, &rmin, nil)
        snd_pcm_hw_params_get_rate_max(hw.pointer, &rmax, nil)
        return .success((Int(cmin) ... Int(max(cmin, cmax)), Int(rmin) ... Int(max(rmin, rmax))))
    }

    /// Channel and rate ranges of one PCM (nil ranges with the error when it cannot be opened).
    public static func probe(_ name: String, capture: Bool = false) -> ALSAPCMInfo {
        var info = ALSAPCMInfo(
            name: name, description: nil, direction: capture ? .capture : .playback, channels: nil, rates: nil,
            probeError: nil)
        switch probeRanges(name, stream: capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK) {
        case .success(let ranges):
            info.channels = ranges.channels
            info.rates = ranges.rates
            if !capture { info.channelMaps = ALSAOutputDevice(name: name).describeChannels() }
        case .failure(let error):
            info.probeError = error.message
        }
        return info
    }

    /// The sound cards (`snd_card_next` + `snd_ctl_card_info`); empty on a machine without any.
    public static func cards() -> [ALSACardInfo] {
        var cards: [ALSACardInfo] = []
        var card: Int32 = -1
        var info: OpaquePointer?
        guard snd_ctl_card_info_malloc(&info) == 0, let info else { return [] }
        defer { snd_ctl_card_info_free(info) }
        while snd_card_next(&card) == 0 && card >= 0 {
            var ctl: OpaquePointer?
            guard snd_ctl_open(&ctl, "hw:\(card)", 0) == 0, let ctl else { continue }
            defer { snd_ctl_close(ctl) }
            guard snd_ctl_card_info(ctl, info) == 0 else { continue }
            cards.append(
                ALSACardInfo(
                    index: Int(card), id: String(cString: snd_ctl_card_info_get_id(info)),
                    name: String(cString: snd_ctl_card_info_get_name(info)),
                    longName: String(cString: snd_ctl_card_info_get_longname(info))))
        }
        return cards
    }

    private static func hintString(_ hint: UnsafeMutableRawPointer, _ id: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, id) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}
