import CALSA
import CALSASupport
import HapticEngine

#if canImport(Glibc)
    import Glibc
#endif

/// Sample encodings the ALSA back-end can hand to a PCM. Float is preferred (no conversion);
/// the integer ones are the fallback for devices that refuse float.
public enum ALSASampleFormat: String, Sendable, CaseIterable {
    case float32 = "FLOAT_LE"
    case s32 = "S32_LE"
    case s16 = "S16_LE"

    var alsa: snd_pcm_format_t {
        switch self {
        case .float32: return SND_PCM_FORMAT_FLOAT_LE
        case .s32: return SND_PCM_FORMAT_S32_LE
        case .s16: return SND_PCM_FORMAT_S16_LE
        }
    }

    /// Bytes per sample.
    public var bytes: Int { self == .s16 ? 2 : 4 }
}

/// alsa-lib's message for an error code (`snd_strerror`).
package func alsaMessage(_ code: Int32) -> String {
    String(cString: snd_strerror(code))
}

/// The symbolic errno name for the usual ALSA failures ("EIO"), for messages.
func errnoName(_ code: Int32) -> String {
    switch -code {
    case EPIPE: return "EPIPE"
    case ESTRPIPE: return "ESTRPIPE"
    case EIO: return "EIO"
    case ENODEV: return "ENODEV"
    case EBADFD: return "EBADFD"
    case ENOENT: return "ENOENT"
    case EAGAIN: return "EAGAIN"
    case EINVAL: return "EINVAL"
    case EBUSY: return "EBUSY"
    case ECONNREFUSED: return "ECONNREFUSED"
    case ENXIO: return "ENXIO"
    case ETIMEDOUT: return "ETIMEDOUT"
    default: return "error \(code)"
    }
}

/// The fault a stream's failing call means (playback or capture), for every code but -EPIPE
/// (whose count each stream keeps itself). Literal strings: making it allocates nothing, so
/// the render thread may call it.
func deviceFault(for code: Int32) -> DeviceFault {
    switch -code {
    case EPIPE: return .xrun
    case ESTRPIPE: return .suspended
    case EIO: return .gone("EIO: input/output error (device or sound server gone)")
    case ENODEV: return .gone("ENODEV: device removed")
    case EBADFD: return .gone("EBADFD: PCM in a bad state (device or sound server gone)")
    case ENOTCONN, ECONNRESET, ESHUTDOWN: return .gone("connection to the sound server lost")
    default: return .gone("unexpected ALSA error (see lastErrorCode)")
    }
}

/// An open error carrying ALSA's message, the step and the device name, plus the last
/// line alsa-lib itself reported on this thread (often the most specific one, e.g.
/// "PulseAudio: Unable to connect: Connection refused").
package func openError(_ device: String, _ step: String, _ code: Int32, hint: String? = nil) -> DeviceOpenError {
    var message = "\(step) failed: \(alsaMessage(code)) (\(errnoName(code)))"
    if let hint { message += "; " + hint }
    let detail = String(cString: hs_alsa_last_error())
    if !detail.isEmpty, let text = detail.split(separator: ")", maxSplits: 1).last {
        let trimmed = text.drop { $0 == " " }.reversed().drop { $0 == "\n" || $0 == " " }.reversed()
        message += " [alsa-lib: \(String(trimmed))]"
    }
    hs_alsa_clear_error()
    return DeviceOpenError(device: device, message: message, code: code)
}

/// alsa-lib prints its own errors on stderr unless told otherwise; hapticsynth reports
/// them itself (see `openError`). Installed once, before the first call into alsa-lib.
///
/// PROCESS-WIDE: `snd_lib_error_set_handler` replaces alsa-lib's one global error handler for
/// the whole program (a host that installed its own loses it) and routes every alsa-lib message,
/// from any thread, into a per-thread buffer (CALSASupport.c) instead of stderr. It is not
/// restored on the last close: alsa-lib may report on any thread at any time while one of our
/// PCMs, probes or device listings is in use (the render thread's write on a dying server), it
/// has no way to wait for calls in progress before the handler is swapped back, and the
/// previous handler cannot be chained (it is variadic; a `va_list` cannot be passed on).
/// Installed by the first ALSA output, capture, probe or device listing; never before.
package enum ALSAErrorCapture {
    static let installed: Void = hs_alsa_capture_errors()
    package static func install() { _ = installed }
}

/// CLOCK_MONOTONIC now, in nanoseconds (allocation-free).
@inline(__always)
package func monotonicNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// Owns a `snd_pcm_hw_params_t` (the `alloca` macros do not import into Swift).
final class HardwareParameters {
    let pointer: OpaquePointer
    init() {
        var p: OpaquePointer?
        precondition(snd_pcm_hw_params_malloc(&p) == 0 && p != nil, "out of memory")
        pointer = p!
    }
    deinit { snd_pcm_hw_params_free(pointer) }
}

/// Owns a `snd_pcm_sw_params_t`.
final class SoftwareParameters {
    let pointer: OpaquePointer
    init() {
        var p: OpaquePointer?
        precondition(snd_pcm_sw_params_malloc(&p) == 0 && p != nil, "out of memory")
        pointer = p!
    }
    deinit { snd_pcm_sw_params_free(pointer) }
}

/// The hardware configuration that `configurePCM` negotiated.
package struct NegotiatedFormat {
    package var sampleFormat: ALSASampleFormat
    package var format: DeviceFormat
}

/// Negotiates interleaved access, the first accepted sample format of `formats`, the exact
/// channel count, the nearest rate, period and buffer; then software parameters (start
/// threshold, avail_min = one period, CLOCK_MONOTONIC timestamps).
/// Errors name the step and carry ALSA's message.
package func configurePCM(
    _ pcm: OpaquePointer, device: String, requested: DeviceFormat, formats: [ALSASampleFormat],
    startThreshold: Int?, capture: Bool
) throws(DeviceOpenError) -> NegotiatedFormat {
    let hw = HardwareParameters()
    var err = snd_pcm_hw_params_any(pcm, hw.pointer)
    if err < 0 { throw openError(device, "snd_pcm_hw_params_any", err) }
    err = snd_pcm_hw_params_set_access(pcm, hw.pointer, SND_PCM_ACCESS_RW_INTERLEAVED)
    if err < 0 { throw openError(device, "setting interleaved access", err) }

    guard let sampleFormat = formats.first(where: { snd_pcm_hw_params_test_format(pcm, hw.pointer, $0.alsa) == 0 })
    else {
        throw DeviceOpenError(
            device: device,
            message: "the device accepts none of the sample formats "
                + formats.map(\.rawValue).joined(separator: ", "),
            code: -EINVAL)
    }
    err = snd_pcm_hw_params_set_format(pcm, hw.pointer, sampleFormat.alsa)
    if err < 0 { throw openError(device, "setting sample format \(sampleFormat.rawValue)", err) }

    err = snd_pcm_hw_params_set_channels(pcm, hw.pointer, UInt32(requested.channels))
    if err < 0 {
        var minimum: UInt32 = 0
        var maximum: UInt32 = 0
        snd_pcm_hw_params_get_channels_min(hw.pointer, &minimum)
        snd_pcm_hw_params_get_channels_max(hw.pointer, &maximum)
        throw DeviceOpenError(
            device: device,
            message: "the device does not take \(requested.channels) channel(s) (it offers \(minimum)"
                + (maximum != minimum ? "–\(maximum)" : "") + "): \(alsaMessage(err))",
            code: err)
    }
    var rate = UInt32(requested.sampleRate)
    err = snd_pcm_hw_params_set_rate_near(pcm, hw.pointer, &rate, nil)
    if err < 0 { throw openError(device, "setting rate \(requested.sampleRate) Hz", err) }
    if requested.bufferFrames > 0 {
        // Buffer first, then period: the buffer bounds latency, so it gets the nearer match.
        var buffer = snd_pcm_uframes_t(requested.bufferFrames)
        err = snd_pcm_hw_params_set_buffer_size_near(pcm, hw.pointer, &buffer)
        if err < 0 { throw openError(device, "setting buffer size \(requested.bufferFrames)", err) }
    }
    if requested.periodFrames > 0 {
        var period = snd_pcm_uframes_t(requested.periodFrames)
        err = snd_pcm_hw_params_set_period_size_near(pcm, hw.pointer, &period, nil)
        if err < 0 { throw openError(device, "setting period size \(requested.periodFrames)", err) }
    }
    err = snd_pcm_hw_params(pcm, hw.pointer)
    if err < 0 {
        let hint =
            err == -EIO
            ? "the sound server refused the stream (with a pulse PCM: does the sink or source it names exist?)"
            : nil
        throw openError(device, "applying hardware parameters (snd_pcm_hw_params)", err, hint: hint)
    }
    var period: snd_pcm_uframes_t = 0
    var buffer: snd_pcm_uframes_t = 0
    snd_pcm_hw_params_get_period_size(hw.pointer, &period, nil)
    snd_pcm_hw_params_get_buffer_size(hw.pointer, &buffer)
    var grantedRate: UInt32 = 0
    snd_pcm_hw_params_get_rate(hw.pointer, &grantedRate, nil)
    var grantedChannels: UInt32 = 0
    snd_pcm_hw_params_get_channels(hw.pointer, &grantedChannels)

    let sw = SoftwareParameters()
    err = snd_pcm_sw_params_current(pcm, sw.pointer)
    if err < 0 { throw openError(device, "snd_pcm_sw_params_current", err) }
    let threshold = capture ? 1 : snd_pcm_uframes_t(min(startThreshold ?? Int(buffer), Int(buffer)))
    snd_pcm_sw_params_set_start_threshold(pcm, sw.pointer, threshold)
    snd_pcm_sw_params_set_avail_min(pcm, sw.pointer, period)
    snd_pcm_sw_params_set_tstamp_mode(pcm, sw.pointer, SND_PCM_TSTAMP_ENABLE)
    snd_pcm_sw_params_set_tstamp_type(pcm, sw.pointer, SND_PCM_TSTAMP_TYPE_MONOTONIC)
    err = snd_pcm_sw_params(pcm, sw.pointer)
    if err < 0 { throw openError(device, "applying software parameters (snd_pcm_sw_params)", err) }

    return NegotiatedFormat(
        sampleFormat: sampleFormat,
        format: DeviceFormat(
            channels: Int(grantedChannels), sampleRate: Int(grantedRate), periodFrames: Int(period),
            bufferFrames: Int(buffer)))
}

/// A PCM opened non-blocking and configured (`configurePCM`), with a status object for its
/// timestamps: what the playback and capture devices share of their `open`.
package struct OpenedPCM {
    package let handle: OpaquePointer
    package let status: OpaquePointer
    package let negotiated: NegotiatedFormat
}

/// Opens `name` non-blocking for playback or capture and configures it for `requested`
/// (`adjust` may change the request once the PCM is open, before the configuration: a capture
/// picks its channel count from what the device takes). Errors name the step and carry ALSA's
/// message; nothing is left open when it throws.
package func openPCM(
    _ name: String, capture: Bool, requested: DeviceFormat, formats: [ALSASampleFormat], startThreshold: Int?,
    adjust: (OpaquePointer, inout DeviceFormat) -> Void = { _, _ in }
) throws(DeviceOpenError) -> OpenedPCM {
    guard requested.channels > 0, requested.sampleRate > 0 else {
        throw DeviceOpenError(
            device: name, message: "invalid request: \(requested.channels) channel(s) at \(requested.sampleRate) Hz",
            code: -EINVAL)
    }
    var handle: OpaquePointer?
    ALSAErrorCapture.install()
    hs_alsa_clear_error()
    let err = snd_pcm_open(&handle, name, capture ? SND_PCM_STREAM_CAPTURE : SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK)
    guard err >= 0, let handle else {
        throw openError(
            name, capture ? "snd_pcm_open (capture)" : "snd_pcm_open", err,
            hint: err == -ENOENT ? "no PCM of that name is defined" : nil)
    }
    var wanted = requested
    adjust(handle, &wanted)
    let negotiated: NegotiatedFormat
    do {
        negotiated = try configurePCM(
            handle, device: name, requested: wanted, formats: formats, startThreshold: startThreshold, capture: capture)
    } catch {
        snd_pcm_close(handle)
        throw error
    }
    var status: OpaquePointer?
    guard snd_pcm_status_malloc(&status) == 0, let status else {
        snd_pcm_close(handle)
        throw DeviceOpenError(device: name, message: "out of memory", code: -ENOMEM)
    }
    return OpenedPCM(handle: handle, status: status, negotiated: negotiated)
}
