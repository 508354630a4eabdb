import CALSA
import CALSASupport
import HapticEngine
import HapticRender

#if canImport(Glibc)
    import Glibc
#endif

/// An ALSA playback PCM (`default`, `hw:1,0`, a plug or pulse PCM...) behind the engine's
/// `OutputDevice` contract.
///
/// The PCM is opened non-blocking and every wait is bounded (`snd_pcm_wait` with about twice
/// the buffer time), because some servers (JACK) die without any error and a blocking write
/// would hang. Float samples are written as they are when the PCM takes FLOAT_LE; otherwise
/// they are converted to S32 or S16 in a buffer allocated at `open`.
/// `write`, `timestamp` and `recover` allocate nothing and take no locks of their own
/// (the sound server's ALSA plugin may lock internally).
public final class ALSAOutputDevice: OutputDevice {
    /// Choices beyond the `DeviceFormat` the engine asks for.
    public struct Options: Sendable {
        /// Sample formats to try, in order.
        public var sampleFormats: [ALSASampleFormat] = [.float32, .s32, .s16]
        /// Frames queued before playback starts (nil: the whole buffer).
        public var startThreshold: Int? = nil
        /// Bound on one wait for room (nil: 2 × the buffer time, at least 200 ms). The floor is
        /// measured: through the PulseAudio plugin the first write after the buffer fills waits
        /// 50–55 ms while the server starts the stream, so 2 × a 16 ms buffer (256 × 3) timed out
        /// at every start. 200 ms still notices a dead JACK server (no error at all) quickly.
        public var waitTimeoutMilliseconds: Int? = nil
        /// An xrun that comes back this many times in a row, with nothing written between,
        /// means the device is gone (what a PipeWire server's death looks like).
        public var maximumConsecutiveXruns: Int = 3

        public init() {}
    }

    public let name: String
    public let options: Options
    /// The format granted at the last `open` (nil while closed).
    public private(set) var grantedFormat: DeviceFormat?
    /// The sample format the PCM was configured with.
    public private(set) var sampleFormat: ALSASampleFormat = .float32
    /// Frames handed to ALSA since the last `open`.
    public private(set) var framesWritten: Int64 = 0
    /// The raw ALSA code behind the last fault (negative errno, or -ETIMEDOUT for a timeout).
    public private(set) var lastErrorCode: Int32 = 0
    /// Bound on one wait for room, in milliseconds.
    public private(set) var waitTimeoutMilliseconds: Int32 = 0
    /// Frames of the last faulting `write` that were handed to ALSA before the fault (they
    /// are counted in `framesWritten`; the caller writes only the rest after recovery).
    public private(set) var framesWrittenBeforeFault: Int = 0
    /// xruns reported by `write` since the last `open`.
    public private(set) var xrunCount: Int = 0

    private var pcm: OpaquePointer?
    private var status: OpaquePointer?
    private var conversion: UnsafeMutableRawPointer?
    private var conversionFrames = 0
    private var channels = 0
    private var consecutiveXruns = 0
    /// Where the PCM leads in ALSA's configuration (looked up once).
    private lazy var route: ALSAPCMRoute? = ALSAPCMRoute.of(name)
    /// The open stream's channel map (see `channelMap`).
    private var openedMap: [ChannelPosition]?
    /// alsa-lib's `null` PCM takes every write at once: without a pace of its own the render
    /// thread (SCHED_FIFO) would spin through the pattern and hold a core (forever for a loop or
    /// `serve`), starving the machine's sound servers. This device paces it instead, as a card
    /// with the granted buffer would: a write returns once the frames before the last buffer's
    /// worth are due at the sample rate (the granted format's). False: the PCM paces itself.
    private var pacedHere = false
    private var pacedStartNanos: Int64 = 0

    public init(name: String, options: Options = Options()) {
        self.name = name
        self.options = options
    }

    deinit { close() }

    public func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        close()
        let opened = try openPCM(
            name, capture: false, requested: requested, formats: options.sampleFormats,
            startThreshold: options.startThreshold)
        let handle = opened.handle, negotiated = opened.negotiated
        pcm = handle
        status = opened.status
        sampleFormat = negotiated.sampleFormat
        channels = negotiated.format.channels
        if let wanted = requested.channelMap, wanted.count == channels, route?.kind != .pulse {
            // After hw_params (the PCM is prepared): hw refuses it in any other state. A device
            // that cannot set it keeps its own map, which is what is read back below.
            ALSAChannelMapCalls.set(handle, wanted)
        }
        openedMap = ALSAChannelMapCalls.current(handle)
        if openedMap == nil, route?.kind == .pulse {
            // The pulse plugin cannot say, but its map is fixed by the channel count.
            openedMap = ChannelPosition.soundServerMap(channels: channels)
        }
        if sampleFormat != .float32 {
            conversionFrames = max(negotiated.format.periodFrames, 256)
            conversion = UnsafeMutableRawPointer.allocate(
                byteCount: conversionFrames * channels * sampleFormat.bytes, alignment: 16)
        }
        let format = negotiated.format
        let bufferMs = Double(format.bufferFrames) * 1000 / Double(format.sampleRate)
        waitTimeoutMilliseconds = Int32(options.waitTimeoutMilliseconds ?? max(200, Int((2 * bufferMs).rounded(.up))))
        framesWritten = 0
        xrunCount = 0
        consecutiveXruns = 0
        lastErrorCode = 0
        pacedHere = snd_pcm_type(handle) == SND_PCM_TYPE_NULL
        pacedStartNanos = 0
        grantedFormat = format
        return format
    }

    /// For a PCM this device paces (`pacedHere`): sleeps until `frames` more fit in the buffer.
    private func waitForPace(frames: Int, format: DeviceFormat) {
        let now = monotonicNanos()
        if pacedStartNanos == 0 { pacedStartNanos = now }
        let ahead = framesWritten + Int64(frames) - Int64(format.bufferFrames)
        guard ahead > 0 else { return }
        let due = pacedStartNanos + Self.nanoseconds(ofFrames: ahead, rate: Int64(format.sampleRate))
        guard due > now else { return }
        var until = timespec(tv_sec: Int(due / 1_000_000_000), tv_nsec: Int(due % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
    }

    /// Frames a paced PCM has played by now, at the sample rate since the first write.
    private func pacedFramesPlayed(at nanos: Int64, format: DeviceFormat) -> Int64 {
        min(framesWritten, Self.frames(inNanoseconds: max(0, nanos - pacedStartNanos), rate: Int64(format.sampleRate)))
    }

    // Whole seconds and the rest apart: frames × 10⁹ (or nanoseconds × rate) overflows Int64
    // after 53 hours at 48 kHz, and a paced `serve` runs for weeks.
    static func nanoseconds(ofFrames frames: Int64, rate: Int64) -> Int64 {
        frames / rate * 1_000_000_000 + frames % rate * 1_000_000_000 / rate
    }

    static func frames(inNanoseconds nanos: Int64, rate: Int64) -> Int64 {
        nanos / 1_000_000_000 * rate + nanos % 1_000_000_000 * rate / 1_000_000_000
    }

    public func write(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault? {
        framesWrittenBeforeFault = 0
        guard let pcm else {
            lastErrorCode = -EBADFD
            return .gone("device is closed")
        }
        if pacedHere, let format = grantedFormat { waitForPace(frames: frames, format: format) }
        var done = 0
        var waitedSinceProgress: Int64 = 0
        let timeoutNanos = Int64(waitTimeoutMilliseconds) * 1_000_000
        while done < frames {
            let source = samples + done * channels
            let result: Int
            if sampleFormat == .float32 {
                result = snd_pcm_writei(pcm, source, snd_pcm_uframes_t(frames - done))
            } else {
                let count = min(frames - done, conversionFrames)
                convert(source, frames: count)
                result = snd_pcm_writei(pcm, conversion, snd_pcm_uframes_t(count))
            }
            if result >= 0 {
                done += result
                framesWritten += Int64(result)
                if result > 0 {
                    waitedSinceProgress = 0
                    consecutiveXruns = 0
                }
                continue
            }
            let code = Int32(result)
            if code == -EAGAIN {
                // No room: wait for it, but never longer than the bound in total without progress
                // (spurious wake-ups must not extend the wait forever).
                let start = monotonicNanos()
                let woke = snd_pcm_wait(pcm, waitTimeoutMilliseconds)
                waitedSinceProgress += monotonicNanos() - start
                if woke < 0 {
                    framesWrittenBeforeFault = done
                    return fault(for: woke)
                }
                if woke == 0 || waitedSinceProgress >= timeoutNanos {
                    framesWrittenBeforeFault = done
                    lastErrorCode = -ETIMEDOUT
                    return .timeout
                }
                continue
            }
            if code == -EINTR { continue }
            framesWrittenBeforeFault = done
            return fault(for: code)
        }
        return nil
    }

    public func waitForRoom(frames: Int) -> DeviceFault? {
        guard let pcm else { return .gone("device is closed") }
        let deadline = monotonicNanos() + Int64(waitTimeoutMilliseconds) * 1_000_000
        while true {
            let state = snd_pcm_state(pcm)
            // Before the start threshold is reached the buffer is simply filling: no wait.
            if state == SND_PCM_STATE_PREPARED { return nil }
            let avail = snd_pcm_avail_update(pcm)
            if avail < 0 {
                let code = Int32(avail)
                // The write reports (and counts) xruns and suspends itself.
                if code == -EPIPE || code == -ESTRPIPE { return nil }
                return fault(for: code)
            }
            if Int(avail) >= frames { return nil }
            let left = deadline - monotonicNanos()
            if left <= 0 {
                lastErrorCode = -ETIMEDOUT
                return .timeout
            }
            let woke = snd_pcm_wait(pcm, Int32(max(1, left / 1_000_000)))
            if woke < 0 {
                if woke == -EPIPE || woke == -ESTRPIPE { return nil }
                return fault(for: woke)
            }
        }
    }

    /// Converts `frames` float frames into the integer conversion buffer (clipped, rounded).
    private func convert(_ source: UnsafePointer<Float>, frames: Int) {
        guard let conversion else { return }
        let count = frames * channels
        if sampleFormat == .s16 {
            let out = conversion.assumingMemoryBound(to: Int16.self)
            for i in 0 ..< count {
                let v = (source[i] * 32768).rounded()
                out[i] = v.isNaN ? 0 : Int16(min(max(v, -32768), 32767))
            }
        } else {
            let out = conversion.assumingMemoryBound(to: Int32.self)
            for i in 0 ..< count {
                // Double keeps 32-bit integer precision; Float would round to 24 bits.
                let v = (Double(source[i]) * 2_147_483_648).rounded()
                out[i] = v.isNaN ? 0 : Int32(min(max(v, -2_147_483_648), 2_147_483_647))
            }
        }
    }

    private func fault(for code: Int32) -> DeviceFault {
        lastErrorCode = code
        // Literal strings: making the fault must not allocate on the render thread.
        switch -code {
        case EPIPE:
            xrunCount += 1
            consecutiveXruns += 1
            if consecutiveXruns > options.maximumConsecutiveXruns {
                return .gone("EPIPE keeps coming back after recovery: device or server gone")
            }
            return .xrun
        default: return deviceFault(for: code)
        }
    }

    public func timestamp() -> DeviceTimestamp? {
        guard let pcm, let status else { return nil }
        if pacedHere, let format = grantedFormat {
            let now = monotonicNanos()
            return pacedStartNanos == 0 ? nil : DeviceTimestamp(framesPlayed: pacedFramesPlayed(at: now, format: format), monotonicNanos: now)
        }
        guard snd_pcm_status(pcm, status) == 0 else { return nil }
        let state = snd_pcm_status_get_state(status)
        guard state == SND_PCM_STATE_RUNNING || state == SND_PCM_STATE_DRAINING else { return nil }
        var stamp = snd_htimestamp_t()
        snd_pcm_status_get_htstamp(status, &stamp)
        // Through server plugins the status stamp is simply "now"; if a plugin leaves it 0, take now.
        let nanos = stamp.tv_sec == 0 && stamp.tv_nsec == 0
            ? monotonicNanos() : Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec)
        let delay = Int64(snd_pcm_status_get_delay(status))
        return DeviceTimestamp(framesPlayed: framesWritten - delay, monotonicNanos: nanos)
    }

    public func recover(from fault: DeviceFault) -> Bool {
        guard let pcm else { return false }
        switch fault {
        case .xrun:
            if consecutiveXruns > options.maximumConsecutiveXruns { return false }
            // A dead server can show up as -EPIPE first; then the prepare inside recover fails (-EIO).
            let result = snd_pcm_recover(pcm, -EPIPE, 1)
            if result < 0 { lastErrorCode = result }
            return result == 0
        case .suspended:
            // Resume; a device that cannot resume in place is restarted with prepare.
            var err = snd_pcm_resume(pcm)
            var tries = 0
            while err == -EAGAIN && tries < 10 {
                usleep(10_000)
                err = snd_pcm_resume(pcm)
                tries += 1
            }
            if err < 0 { err = snd_pcm_prepare(pcm) }
            return err == 0
        case .timeout, .gone:
            // No progress within the bound, or the server/device went away: the handle cannot be
            // trusted again (alsa-lib's recover handles only EPIPE/ESTRPIPE/EINTR). Reopen.
            return false
        }
    }

    /// Waits (bounded) until everything written has been played, then stops the PCM.
    /// Returns false if it did not finish within `timeoutMilliseconds`.
    @discardableResult
    public func drain(timeoutMilliseconds: Int = 2000) -> Bool {
        guard let pcm else { return true }
        let deadline = monotonicNanos() + Int64(timeoutMilliseconds) * 1_000_000
        var finished = false
        while monotonicNanos() < deadline {
            let state = snd_pcm_state(pcm)
            if state == SND_PCM_STATE_PREPARED {
                // Never started (less than the start threshold written): start it so it plays out.
                if snd_pcm_start(pcm) < 0 { break }
                continue
            }
            if state != SND_PCM_STATE_RUNNING { finished = true; break }
            var delay: snd_pcm_sframes_t = 0
            if snd_pcm_delay(pcm, &delay) < 0 { break }
            if delay <= 0 { finished = true; break }
            usleep(UInt32(min(20_000, max(1_000, Int(delay) * 1_000_000 / max(grantedFormat?.sampleRate ?? 48000, 1)))))
        }
        snd_pcm_drop(pcm)
        snd_pcm_prepare(pcm)
        return finished
    }

    /// The PCM's state name (`RUNNING`, `XRUN`, ...), for diagnostics.
    public var stateName: String {
        guard let pcm else { return "CLOSED" }
        return String(cString: snd_pcm_state_name(snd_pcm_state(pcm)))
    }

    /// ALSA's message for `lastErrorCode`.
    public var lastErrorMessage: String {
        lastErrorCode == -ETIMEDOUT
            ? "no progress within \(waitTimeoutMilliseconds) ms" : alsaMessage(lastErrorCode)
    }

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
        openedMap = nil
    }

    /// The open stream's channel map: what the PCM says (`snd_pcm_get_chmap`), or through the
    /// `pulse` plugin (which cannot say) the map it gives every stream of that width. Through
    /// `plug` this is the slave's map, which may be narrower or wider than the stream when plug
    /// converts the channel count (the engine then treats it as unknown).
    public var channelMap: [ChannelPosition]? { openedMap }

    /// The PCM's channel maps (`snd_pcm_query_chmaps`, on a short non-blocking open), its card,
    /// and through a sound server's plugin the sink behind it with the sink's map (asked of the
    /// server, at most 1 s). nil when the PCM cannot be opened.
    public func describeChannels() -> DeviceChannels? {
        ALSAErrorCapture.install()
        if let route, route.kind == .pulse {
            // The pulse plugin offers nothing; its maps by channel count are these.
            let offers = (1...8).map { ChannelMapOffer(.fixed, ChannelPosition.soundServerMap(channels: $0)) }
            let sink = route.serverSink()
            return DeviceChannels(offers: offers, server: sink, deviceDescription: sink?.description)
        }
        var handle: OpaquePointer?
        hs_alsa_clear_error()
        let wasOpen = pcm
        let probe: OpaquePointer
        if let wasOpen {
            probe = wasOpen
        } else {
            guard snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) >= 0, let handle else {
                hs_alsa_clear_error()
                return nil
            }
            probe = handle
        }
        defer { if wasOpen == nil { snd_pcm_close(probe) } }
        let offers = ALSAChannelMapCalls.query(probe)
        let card = ALSACardIdentity.of(probe)
        let sink = route.flatMap { $0.kind == .pipewire ? $0.serverSink() : nil }
        return DeviceChannels(
            offers: offers, server: sink, deviceDescription: sink?.description ?? card?.name, usbID: card?.usbID)
    }
}
