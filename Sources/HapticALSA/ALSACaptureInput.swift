import CALSA
import CALSASupport
import HapticEngine

#if canImport(Glibc)
    import Glibc
#endif

/// An ALSA capture PCM (a sound card's input, a sound server's monitor through `pulse`, a
/// loopback device) behind the engine's ``InputDevice`` contract: the live follower's input.
///
/// The PCM is opened non-blocking and read period by period from the render thread without
/// ever waiting: `read` takes what has arrived. Float samples are read as they are when the PCM
/// takes FLOAT_LE; otherwise S32 or S16 are converted through a buffer allocated at `open`.
/// Every read that returns frames is stamped (`snd_pcm_status`: the htstamp, the frames still
/// waiting, the trigger stamp) so that the capture clock can be set against the output's.
/// Overruns (-EPIPE) are recovered in place (`snd_pcm_recover`, then a restart) and counted.
/// `read`, `timestamp` and `recover` allocate nothing and take no locks of their own (a sound
/// server's ALSA plugin may lock internally).
public final class ALSACaptureInput: InputDevice {
    /// Choices beyond the `DeviceFormat` the caller asks for.
    public struct Options: Sendable {
        /// Sample formats to try, in order.
        public var sampleFormats: [ALSASampleFormat] = [.float32, .s32, .s16]
        /// Channel counts to fall back on, in order, when the device does not take the one asked
        /// for (a mono microphone asked for stereo); the first the device takes is used.
        public var fallbackChannelCounts: [Int] = []
        /// An overrun that comes back this many times in a row, with nothing read between,
        /// means the device is gone (what a PipeWire server's death looks like).
        public var maximumConsecutiveOverruns: Int = 3

        public init() {}
    }

    public let name: String
    public let options: Options
    /// The format granted at the last `open` (nil while closed).
    public private(set) var grantedFormat: DeviceFormat?
    /// The sample format the PCM was configured with.
    public private(set) var sampleFormat: ALSASampleFormat = .float32
    /// Frames read since the last `open`.
    public private(set) var framesRead: Int64 = 0
    /// Overruns (-EPIPE) met since the last `open`: each lost captured frames.
    public private(set) var overrunCount: Int = 0
    /// The raw ALSA code behind the last fault (negative errno).
    public private(set) var lastErrorCode: Int32 = 0

    private var pcm: OpaquePointer?
    private var status: OpaquePointer?
    private var conversion: UnsafeMutableRawPointer?
    private var conversionFrames = 0
    private var channels = 0
    private var consecutiveOverruns = 0
    private var lastStamp: CaptureTimestamp?

    public init(name: String, options: Options = Options()) {
        self.name = name
        self.options = options
    }

    deinit { close() }

    public func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        close()
        let fallbacks = options.fallbackChannelCounts
        let opened = try openPCM(
            name, capture: true, requested: requested, formats: options.sampleFormats, startThreshold: nil
        ) { handle, wanted in
            wanted.channels = Self.channelCount(handle, [wanted.channels] + fallbacks) ?? wanted.channels
        }
        let negotiated = opened.negotiated
        pcm = opened.handle
        status = opened.status
        sampleFormat = negotiated.sampleFormat
        channels = negotiated.format.channels
        if sampleFormat != .float32 {
            conversionFrames = max(negotiated.format.periodFrames, 256)
            conversion = UnsafeMutableRawPointer.allocate(
                byteCount: conversionFrames * channels * sampleFormat.bytes, alignment: 16)
        }
        framesRead = 0
        overrunCount = 0
        consecutiveOverruns = 0
        lastErrorCode = 0
        lastStamp = nil
        grantedFormat = negotiated.format
        return negotiated.format
    }

    /// The first of `counts` the PCM takes (nil: none; the request then fails with the
    /// device's own range in its message).
    private static func channelCount(_ pcm: OpaquePointer, _ counts: [Int]) -> Int? {
        let hw = HardwareParameters()
        guard snd_pcm_hw_params_any(pcm, hw.pointer) >= 0 else { return nil }
        return counts.first { $0 > 0 && snd_pcm_hw_params_test_channels(pcm, hw.pointer, UInt32($0)) == 0 }
    }

    public func read(into samples: UnsafeMutablePointer<Float>, frames: Int) -> CaptureRead {
        guard let pcm else {
            lastErrorCode = -EBADFD
            return .fault(.gone("device is closed"))
        }
        // Opened (or recovered) but not running yet: the stream starts with the first read,
        // so that nothing piles up (and overruns) between the open and the render thread's start.
        if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED {
            let started = snd_pcm_start(pcm)
            if started < 0 { return .fault(fault(for: started)) }
        }
        var done = 0
        // Bounded: each round reads at least one frame or leaves.
        while done < frames {
            let target = samples + done * channels
            let result: Int
            if sampleFormat == .float32 {
                result = snd_pcm_readi(pcm, target, snd_pcm_uframes_t(frames - done))
            } else {
                let count = min(frames - done, conversionFrames)
                result = snd_pcm_readi(pcm, conversion, snd_pcm_uframes_t(count))
                if result > 0 { convert(into: target, frames: result) }
            }
            if result > 0 {
                done += result
                framesRead += Int64(result)
                consecutiveOverruns = 0
                continue
            }
            let code = Int32(result)
            if result == 0 || code == -EAGAIN { break }
            if code == -EINTR { continue }
            if done > 0 { break }  // frames first; the fault comes back with the next read
            return .fault(fault(for: code))
        }
        if done > 0 { stamp() }
        return .frames(done)
    }

    /// Notes when the frames read so far were captured (render side; allocation-free).
    private func stamp() {
        guard let pcm, let status, snd_pcm_status(pcm, status) == 0 else { return }
        var now = snd_htimestamp_t()
        snd_pcm_status_get_htstamp(status, &now)
        var trigger = snd_htimestamp_t()
        snd_pcm_status_get_trigger_htstamp(status, &trigger)
        // Through server plugins the status stamp may be left 0: take now.
        let nanos = now.tv_sec == 0 && now.tv_nsec == 0
            ? monotonicNanos() : Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        let waiting = max(0, Int64(snd_pcm_status_get_avail(status)))
        lastStamp = CaptureTimestamp(
            framesCaptured: framesRead + waiting, monotonicNanos: nanos,
            triggerNanos: Int64(trigger.tv_sec) * 1_000_000_000 + Int64(trigger.tv_nsec))
    }

    public func timestamp() -> CaptureTimestamp? { lastStamp }

    /// Converts `frames` integer frames of the conversion buffer into float `target`.
    private func convert(into target: UnsafeMutablePointer<Float>, frames: Int) {
        guard let conversion else { return }
        let count = frames * channels
        if sampleFormat == .s16 {
            let source = conversion.assumingMemoryBound(to: Int16.self)
            for i in 0..<count { target[i] = Float(source[i]) * (1 / 32768) }
        } else {
            let source = conversion.assumingMemoryBound(to: Int32.self)
            for i in 0..<count { target[i] = Float(Double(source[i]) * (1 / 2_147_483_648)) }
        }
    }

    private func fault(for code: Int32) -> DeviceFault {
        lastErrorCode = code
        if code == -EPIPE {
            overrunCount += 1
            consecutiveOverruns += 1
            if consecutiveOverruns > options.maximumConsecutiveOverruns {
                return .gone("EPIPE keeps coming back after recovery: device or server gone")
            }
        }
        return deviceFault(for: code)
    }

    public func recover(from fault: DeviceFault) -> Bool {
        guard let pcm else { return false }
        var result: Int32
        switch fault {
        case .xrun:
            // Prepares the stream; the next read starts it again.
            result = snd_pcm_recover(pcm, -EPIPE, 1)
        case .suspended:
            // One resume, else a prepare (alsa-lib's recover would sleep in seconds between
            // resume attempts, on the render thread).
            result = snd_pcm_resume(pcm)
            if result < 0 { result = snd_pcm_prepare(pcm) }
        case .timeout, .gone:
            return false
        }
        if result < 0 { lastErrorCode = result }
        return result == 0
    }

    /// The PCM's state name (`RUNNING`, `XRUN`, ...), for diagnostics.
    public var stateName: String {
        guard let pcm else { return "CLOSED" }
        return String(cString: snd_pcm_state_name(snd_pcm_state(pcm)))
    }

    /// ALSA's message for `lastErrorCode`.
    public var lastErrorMessage: String { alsaMessage(lastErrorCode) }

    public func close() {
        if let pcm {
            snd_pcm_drop(pcm)
            snd_pcm_close(pcm)
        }
        pcm = nil
        if let status { snd_pcm_status_free(status) }
        status = nil
        conversion?.deallocate()
        conversion = nil
        conversionFrames = 0
        grantedFormat = nil
    }
}
