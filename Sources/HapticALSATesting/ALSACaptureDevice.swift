import CALSA
import CALSASupport
import HapticALSA
import HapticEngine
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// When a capture period ended: `framesCaptured` frames had been captured by the device
/// (read so far + still available) at `monotonicNanos` (CLOCK_MONOTONIC).
public struct CaptureStamp: Sendable, Equatable {
    public var framesCaptured: Int64
    public var monotonicNanos: Int64
}

/// What `ALSACaptureDevice` recorded.
public struct ALSARecording: Sendable {
    public var channels: Int
    public var sampleRate: Int
    /// The encoding read from the PCM.
    public var sampleFormat: ALSASampleFormat
    /// Interleaved samples as read when recording S16 (empty for float recordings).
    public var int16Samples: [Int16]
    /// Interleaved samples as float (S16 values / 32768).
    public var floatSamples: [Float]
    /// One stamp per read.
    public var stamps: [CaptureStamp]
    /// Overruns (-EPIPE) the capture had to recover from: each is a gap in the recording.
    public var overruns: Int
    /// True when the preallocated capacity filled up before `stop()`.
    public var overflowed: Bool
    /// Errors other than overruns, with ALSA's messages.
    public var errors: [String]

    public var frames: Int { channels == 0 ? 0 : floatSamples.count / channels }

    /// Estimated CLOCK_MONOTONIC time at which `frame` was captured, from the first stamp
    /// taken after that frame arrived (nil when no stamp covers it).
    public func monotonicNanos(ofFrame frame: Int) -> Int64? {
        guard let stamp = stamps.first(where: { $0.framesCaptured > Int64(frame) }) else { return nil }
        return bound(stamp, frame)
    }

    /// The latest time `frame` can have been captured, by `stamp`.
    private func bound(_ stamp: CaptureStamp, _ frame: Int) -> Int64 {
        stamp.monotonicNanos - (stamp.framesCaptured - Int64(frame)) * 1_000_000_000 / Int64(sampleRate)
    }

    /// Estimated CLOCK_MONOTONIC time at which `frame` was captured, from the earliest of the
    /// bounds the stamps of the `window` seconds after it arrived give (nil when no stamp covers
    /// it). Each stamp bounds the frame's time from above: a read comes late, never early (a
    /// starved reader, or a sound server's sink running behind and catching up), and frames a
    /// recording lost only move later stamps' bounds later. The first stamp alone was late by
    /// 1.5–3.7 ms in follow-bench's runs, and a loaded machine may starve a reader longer. Over a
    /// second, a clock 100 ppm fast skews the bound by 0.1 ms.
    public func monotonicNanos(ofFrame frame: Int, earliestWithin window: Double) -> Int64? {
        guard let first = stamps.firstIndex(where: { $0.framesCaptured > Int64(frame) }) else { return nil }
        let last = stamps[first].monotonicNanos + Int64(max(0, min(window, 60)) * 1e9)
        var best = Int64.max
        for stamp in stamps[first...] {
            if stamp.monotonicNanos > last { break }
            best = min(best, bound(stamp, frame))
        }
        return best
    }

    /// How late the first stamp after `frame` is against ``monotonicNanos(ofFrame:earliestWithin:)``
    /// (ns; nil when no stamp covers it): a reading's lateness, for a measurement's notes.
    public func stampLateness(ofFrame frame: Int, window: Double) -> Int64? {
        guard let first = monotonicNanos(ofFrame: frame), let best = monotonicNanos(ofFrame: frame, earliestWithin: window) else { return nil }
        return first - best
    }
}

/// Records a capture PCM (for example a sound server's monitor of the sink the engine plays
/// to) on its own thread into a buffer allocated up front, stamping every read with
/// CLOCK_MONOTONIC. Used by integration tests and benchmarks.
///
/// `@unchecked Sendable`: the recording thread is the only writer of the buffers between
/// `start()` and `stop()`; `stop()` joins it before reading them, and the flags it polls are atomics.
public final class ALSACaptureDevice: @unchecked Sendable {
    public let name: String
    public let requested: DeviceFormat
    public let sampleFormat: ALSASampleFormat
    public let capacityFrames: Int
    /// SCHED_FIFO priority of the recording thread, when the process may (nil: normal scheduling).
    public let realtimePriority: Int32?
    /// The format granted at `start()`.
    public private(set) var grantedFormat: DeviceFormat?

    private var pcm: OpaquePointer?
    private var thread: pthread_t?
    private let stopFlag = Atomic<Bool>(false)
    private let capturedFrames = Atomic<Int>(0)
    private let reading = Atomic<Bool>(false)
    /// The recording (frames below `framesRecorded` are complete and no longer written).
    let buffer: UnsafeMutableRawPointer
    private var stamps: UnsafeMutablePointer<CaptureStamp>
    private let stampCapacity: Int
    private var stampCount = 0
    private var overruns = 0
    private var overflowed = false
    private var errors: [String] = []

    /// - Parameters:
    ///   - sampleFormat: `.s16` (exact comparisons with a 16-bit sink) or `.float32`.
    ///   - seconds: capacity of the recording.
    ///   - realtimePriority: the recording thread's SCHED_FIFO priority when permitted (default 60,
    ///     below the engine's render thread): on a loaded machine a starved reader overruns and
    ///     stamps its reads late, and the recording would measure the machine, not the output.
    public init(
        name: String, channels: Int, sampleRate: Int = 48000, periodFrames: Int = 256, bufferFrames: Int = 4096,
        sampleFormat: ALSASampleFormat = .s16, seconds: Double, realtimePriority: Int32? = 60
    ) {
        self.realtimePriority = realtimePriority
        precondition(sampleFormat != .s32, "record S16 or float")
        self.name = name
        self.requested = DeviceFormat(
            channels: channels, sampleRate: sampleRate, periodFrames: periodFrames, bufferFrames: bufferFrames)
        self.sampleFormat = sampleFormat
        self.capacityFrames = max(1, Int(seconds * Double(sampleRate)))
        buffer = UnsafeMutableRawPointer.allocate(
            byteCount: capacityFrames * channels * sampleFormat.bytes, alignment: 16)
        stampCapacity = capacityFrames / max(1, periodFrames / 4) + 1024
        stamps = UnsafeMutablePointer<CaptureStamp>.allocate(capacity: stampCapacity)
    }

    deinit {
        stop()
        buffer.deallocate()
        stamps.deallocate()
    }

    /// Frames recorded so far (readable while recording).
    public var framesRecorded: Int { capturedFrames.load(ordering: .acquiring) }

    /// Opens the PCM, starts recording, and returns once the thread is reading.
    public func start() throws(DeviceOpenError) {
        precondition(thread == nil, "already recording")
        var handle: OpaquePointer?
        ALSAErrorCapture.install()
        hs_alsa_clear_error()
        // The plugin's own I/O thread (PulseAudio's mainloop) inherits the recording thread's priority.
        let err = HapticEngine.withInheritedRealtimeScheduling(priority: realtimePriority) {
            snd_pcm_open(&handle, name, SND_PCM_STREAM_CAPTURE, SND_PCM_NONBLOCK)
        }
        guard err >= 0, let handle else { throw openError(name, "snd_pcm_open (capture)", err) }
        do {
            let negotiated = try configurePCM(
                handle, device: name, requested: requested, formats: [sampleFormat], startThreshold: nil,
                capture: true)
            grantedFormat = negotiated.format
        } catch {
            snd_pcm_close(handle)
            throw error
        }
        let startErr = snd_pcm_start(handle)
        if startErr < 0 {
            snd_pcm_close(handle)
            throw openError(name, "snd_pcm_start (capture)", startErr)
        }
        pcm = handle
        stopFlag.store(false, ordering: .releasing)
        capturedFrames.store(0, ordering: .releasing)
        reading.store(false, ordering: .releasing)
        stampCount = 0
        overruns = 0
        overflowed = false
        errors = []
        var tid = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&tid, nil, { arg in
            let device = Unmanaged<ALSACaptureDevice>.fromOpaque(arg!).takeRetainedValue()
            device.run()
            return nil
        }, context)
        precondition(created == 0, "pthread_create failed")
        thread = tid
        let deadline = monotonicNanos() + 2_000_000_000
        while !reading.load(ordering: .acquiring) && monotonicNanos() < deadline { usleep(1000) }
    }

    private func run() {
        guard let pcm, let format = grantedFormat else { return }
        let frameBytes = format.channels * sampleFormat.bytes
        let status = UnsafeMutablePointer<OpaquePointer?>.allocate(capacity: 1)
        snd_pcm_status_malloc(status)
        defer {
            snd_pcm_status_free(status.pointee)
            status.deallocate()
        }
        if let realtimePriority {
            var parameters = sched_param(sched_priority: realtimePriority)
            _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)  // best effort
        }
        var position = 0
        let waitMs = Int32(max(50, 4 * format.bufferFrames * 1000 / format.sampleRate))
        reading.store(true, ordering: .releasing)
        while !stopFlag.load(ordering: .acquiring) {
            let room = capacityFrames - position
            if room == 0 {
                overflowed = true
                break
            }
            let want = min(room, format.periodFrames)
            let got = snd_pcm_readi(pcm, buffer + position * frameBytes, snd_pcm_uframes_t(want))
            if got == -Int(EAGAIN) {
                let woke = snd_pcm_wait(pcm, waitMs)
                if woke < 0 && woke != -EPIPE {
                    errors.append("snd_pcm_wait: \(alsaMessage(woke))")
                    if snd_pcm_recover(pcm, woke, 1) < 0 { break }
                }
                if woke == -EPIPE {
                    overruns += 1
                    snd_pcm_recover(pcm, woke, 1)
                    snd_pcm_start(pcm)
                }
                continue
            }
            if got < 0 {
                let code = Int32(got)
                if code == -EPIPE { overruns += 1 } else { errors.append("snd_pcm_readi: \(alsaMessage(code))") }
                if snd_pcm_recover(pcm, code, 1) < 0 || errors.count > 20 { break }
                snd_pcm_start(pcm)
                continue
            }
            position += got
            capturedFrames.store(position, ordering: .releasing)
            if snd_pcm_status(pcm, status.pointee) == 0, stampCount < stampCapacity {
                var stamp = snd_htimestamp_t()
                snd_pcm_status_get_htstamp(status.pointee, &stamp)
                let avail = Int64(snd_pcm_status_get_avail(status.pointee))
                stamps[stampCount] = CaptureStamp(
                    framesCaptured: Int64(position) + avail,
                    monotonicNanos: Int64(stamp.tv_sec) * 1_000_000_000 + Int64(stamp.tv_nsec))
                stampCount += 1
            }
        }
    }

    /// Stops recording (idempotent) and returns what was recorded.
    @discardableResult
    public func stop() -> ALSARecording {
        if let thread {
            stopFlag.store(true, ordering: .releasing)
            pthread_join(thread, nil)
            self.thread = nil
        }
        if let pcm {
            snd_pcm_drop(pcm)
            snd_pcm_close(pcm)
            self.pcm = nil
        }
        let channels = grantedFormat?.channels ?? requested.channels
        let count = capturedFrames.load(ordering: .acquiring) * channels
        var ints: [Int16] = []
        var floats: [Float]
        if sampleFormat == .s16 {
            ints = Array(UnsafeBufferPointer(start: buffer.assumingMemoryBound(to: Int16.self), count: count))
            floats = ints.map { Float($0) / 32768 }
        } else {
            floats = Array(UnsafeBufferPointer(start: buffer.assumingMemoryBound(to: Float.self), count: count))
        }
        return ALSARecording(
            channels: channels, sampleRate: grantedFormat?.sampleRate ?? requested.sampleRate,
            sampleFormat: sampleFormat, int16Samples: ints, floatSamples: floats,
            stamps: Array(UnsafeBufferPointer(start: stamps, count: stampCount)), overruns: overruns,
            overflowed: overflowed, errors: errors)
    }
}
