#if canImport(Glibc)
import Glibc
#endif
import HapticEngine
import HapticRender
import Synchronization

/// An ``OutputDevice`` without hardware, for tests: it plays frames on a model of
/// a sound card (a ring buffer drained at `sampleRate × (1 + driftPPM/10⁶)` frames
/// per second of its clock) and records every frame written together with the
/// monotonic time at which it played.
///
/// With a ``ManualClock`` nothing happens by itself: a write that finds the buffer
/// full advances the clock to the moment room appears (the way a blocking write
/// would have waited), so a test that calls `renderOnePeriod()` in a loop moves
/// time forward exactly as a real device would. Advancing the clock by hand
/// between writes simulates a stalled render thread (an underrun follows). With
/// the monotonic clock, writes sleep instead (real-time pacing).
///
/// Faults can be injected (`inject`), the device killed and revived, and its
/// open refused (a handle that cannot be reused).
///
/// `@unchecked Sendable`: fault switches are atomics; the playback model and the
/// recording are touched only by the thread that drives the device (the render
/// thread, or the test thread in manual drive); read the recording after the
/// engine stopped (the join orders it) or from the driving thread.
public final class VirtualOutputDevice: OutputDevice, @unchecked Sendable {
    /// Construction options.
    public struct Options: Sendable {
        /// How much faster (positive) the device's clock runs than the monotonic clock.
        public var driftPPM: Double = 0
        /// Peak (±) pseudo-random jitter added to reported timestamps, in nanoseconds.
        public var timestampJitterNanos: Int64 = 0
        /// Frames the recording keeps (later frames are counted, not kept).
        public var recordCapacityFrames: Int = 48_000 * 30
        /// Channels the device grants (nil: what was asked).
        public var grantedChannels: Int? = nil
        /// Period the device grants (nil: what was asked).
        public var grantedPeriodFrames: Int? = nil
        /// Refuse to open (a missing device).
        public var refuseOpen: DeviceOpenError? = nil
        /// What `describeChannels()` answers (nil: the device cannot say). The open device's
        /// `channelMap` is then the map asked for, else the offer of that many channels.
        public var describedChannels: DeviceChannels? = nil
        public init() {}
    }

    public let name: String
    public let clock: EngineClock
    private let options: Options

    // Switches settable from any thread.
    private let killed = Atomic<Bool>(false)
    private let openRefused = Atomic<Bool>(false)
    private let injectedFault = Atomic<Int>(0)  // 0 none, 1 xrun, 2 suspended, 3 timeout, 4 gone
    private let injectedCount = Atomic<Int>(0)
    private let injectedPartial = Atomic<Int>(0)
    private let opens = Atomic<Int>(0)
    private let closes = Atomic<Int>(0)
    private let underruns = Atomic<Int>(0)
    private let isOpenFlag = Atomic<Bool>(false)

    // Playback model (driving thread only).
    private var format = DeviceFormat(channels: 1, sampleRate: 48_000, periodFrames: 256, bufferFrames: 768)
    private var nanosPerFrame: Double = 1e9 / 48_000
    private var written: Int64 = 0
    private var restartFrame: Int64 = 0
    private var started = false
    private var needsRecovery = false
    private var anchorFrame: Int64 = 0
    private var anchorNanos: Double = 0
    private var jitterState: UInt64 = 0x9E37_79B9_7F4A_7C15

    // Recording (driving thread only).
    private var recording: UnsafeMutablePointer<Float>? = nil
    private var recordingChannels = 0
    private var recordedCount = 0
    private var totalFramesWritten = 0
    /// A run of recorded frames that played contiguously from `anchorNanos`.
    struct Segment { var firstIndex: Int; var anchorNanos: Double; var nanosPerFrame: Double }
    private let segmentCapacity = 4096
    private let segments: UnsafeMutablePointer<Segment>
    private var segmentCount = 0
    /// Record index of `restartFrame` (where the next started segment begins).
    private var restartIndex = 0

    /// A device named `name` running on `clock`.
    public init(name: String = "virtual", clock: EngineClock, options: Options = Options()) {
        self.name = name
        self.clock = clock
        self.options = options
        segments = .allocate(capacity: segmentCapacity)
    }

    deinit {
        recording?.deallocate()
        segments.deallocate()
    }

    // MARK: test controls (any thread)

    /// The next `count` writes fail with `fault`. An injected `.xrun`/`.suspended`
    /// models a device that really ran dry: the clock jumps to when the buffer emptied.
    /// With `afterFrames` > 0 the first faulting write hands that many frames to the device
    /// before it fails (a partial write; see `framesWrittenBeforeFault`).
    public func inject(_ fault: DeviceFault, count: Int = 1, afterFrames: Int = 0) {
        injectedPartial.store(afterFrames, ordering: .relaxed)
        let code: Int
        switch fault {
        case .xrun: code = 1
        case .suspended: code = 2
        case .timeout: code = 3
        case .gone: code = 4
        }
        injectedCount.store(count, ordering: .relaxed)
        injectedFault.store(code, ordering: .releasing)
    }

    /// Kills the device: writes fail with `.gone`, `recover` and `open` fail, until `revive()`.
    public func kill() { killed.store(true, ordering: .releasing) }
    /// Brings a killed device back (open works again).
    public func revive() { killed.store(false, ordering: .releasing) }
    /// Makes `open` fail from now on (a handle that can never be reused).
    public func refuseFurtherOpens() { openRefused.store(true, ordering: .releasing) }

    public var openCount: Int { opens.load(ordering: .relaxed) }
    public var closeCount: Int { closes.load(ordering: .relaxed) }
    public var isOpen: Bool { isOpenFlag.load(ordering: .acquiring) }
    /// Underruns the model saw (real ones, from stalls, and injected ones).
    public var underrunCount: Int { underruns.load(ordering: .relaxed) }

    // MARK: recording (driving thread, or after the engine stopped)

    /// Frames recorded so far (up to the capacity).
    public var recordedFrames: Int { recordedCount }
    /// Frames written in all (including those past the recording capacity).
    public var framesWritten: Int { totalFramesWritten }
    /// Interleaved channel count of the recording.
    public var recordedChannels: Int { recordingChannels }

    /// One channel of the recording.
    public func recordedSamples(channel: Int) -> [Float] {
        guard let recording, channel < recordingChannels else { return [] }
        return (0..<recordedCount).map { recording[$0 * recordingChannels + channel] }
    }

    /// Monotonic nanoseconds at which recorded frame `index` played (nil: never started playing).
    public func playTimeNanos(ofRecordedFrame index: Int) -> Double? {
        var i = segmentCount - 1
        while i >= 0 {
            let s = segments[i]
            if s.firstIndex <= index { return s.anchorNanos + Double(index - s.firstIndex) * s.nanosPerFrame }
            i -= 1
        }
        return nil
    }

    /// The recorded frame that plays closest to `nanos` (nil before playback started).
    public func recordedFrame(playingAt nanos: Double) -> Int? {
        guard segmentCount > 0 else { return nil }
        var i = segmentCount - 1
        while i >= 0 {
            let s = segments[i]
            if s.anchorNanos - s.nanosPerFrame / 2 <= nanos || i == 0 {
                return s.firstIndex + Int(((nanos - s.anchorNanos) / s.nanosPerFrame).rounded())
            }
            i -= 1
        }
        return nil
    }

    // MARK: OutputDevice

    private var openedMap: [ChannelPosition]? = nil
    public func describeChannels() -> DeviceChannels? { options.describedChannels }
    public var channelMap: [ChannelPosition]? { openedMap }

    public func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        if let refusal = options.refuseOpen { throw refusal }
        if openRefused.load(ordering: .acquiring) {
            throw DeviceOpenError(device: name, message: "handle is unusable", code: -77)  // EBADFD
        }
        if killed.load(ordering: .acquiring) {
            throw DeviceOpenError(device: name, message: "no such device (virtual device killed)", code: -19)
        }
        var granted = requested
        if let channels = options.grantedChannels { granted.channels = channels }
        if let period = options.grantedPeriodFrames {
            granted.periodFrames = period
            granted.bufferFrames = period * max(2, requested.bufferFrames / max(1, requested.periodFrames))
        }
        format = granted
        let offer = options.describedChannels?.offers.first { $0.channels == granted.channels }
        openedMap = options.describedChannels == nil ? nil : (requested.channelMap ?? offer?.positions)
        nanosPerFrame = 1e9 / (Double(granted.sampleRate) * (1 + options.driftPPM / 1e6))
        if recording == nil || recordingChannels != granted.channels {
            recording?.deallocate()
            recordingChannels = granted.channels
            recording = .allocate(capacity: max(1, options.recordCapacityFrames * granted.channels))
            recordedCount = 0
            segmentCount = 0
        }
        written = 0
        restartFrame = 0
        restartIndex = recordedCount
        started = false
        needsRecovery = false
        opens.add(1, ordering: .relaxed)
        isOpenFlag.store(true, ordering: .releasing)
        return granted
    }

    /// Frames of the last faulting write that reached the device before the fault.
    public private(set) var framesWrittenBeforeFault = 0

    public func write(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault? {
        framesWrittenBeforeFault = 0
        if killed.load(ordering: .acquiring) { return .gone("virtual device killed") }
        if injectedCount.load(ordering: .acquiring) > 0 {
            injectedCount.subtract(1, ordering: .relaxed)
            let partial = min(injectedPartial.exchange(0, ordering: .relaxed), frames)
            if partial > 0 {
                if let fault = writeFrames(samples, frames: partial) { return fault }
                framesWrittenBeforeFault = partial
            }
            switch injectedFault.load(ordering: .acquiring) {
            case 1, 2:
                let fault: DeviceFault = injectedFault.load(ordering: .relaxed) == 1 ? .xrun : .suspended
                runDry()
                return fault
            case 3: return .timeout
            case 4: return .gone("injected fault")
            default: break
            }
        }
        return writeFrames(samples, frames: frames)
    }

    private func writeFrames(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault? {
        if needsRecovery { return .xrun }
        if started {
            let now = Double(clock.nanos())
            if position(at: now) >= Double(written) {
                // The buffer emptied before this write: an underrun.
                started = false
                needsRecovery = true
                underruns.add(1, ordering: .relaxed)
                return .xrun
            }
            let needPlayed = written + Int64(frames) - Int64(format.bufferFrames)
            let roomAt = anchorNanos + Double(needPlayed - anchorFrame) * nanosPerFrame
            if roomAt > now { wait(untilNanos: roomAt) }
        }
        record(samples, frames: frames)
        written += Int64(frames)
        if !started && written - restartFrame >= Int64(format.bufferFrames) {
            started = true
            anchorFrame = restartFrame
            anchorNanos = Double(clock.nanos())
            if segmentCount < segmentCapacity {
                segments[segmentCount] = Segment(firstIndex: restartIndex, anchorNanos: anchorNanos, nanosPerFrame: nanosPerFrame)
                segmentCount += 1
            }
        }
        return nil
    }

    public func timestamp() -> DeviceTimestamp? {
        guard started, !killed.load(ordering: .relaxed) else { return nil }
        let now = Double(clock.nanos())
        let played = min(Int64(position(at: now).rounded(.down)), written)
        var at = anchorNanos + Double(played - anchorFrame) * nanosPerFrame
        if options.timestampJitterNanos > 0 {
            // xorshift64*: deterministic jitter in ±timestampJitterNanos.
            jitterState ^= jitterState >> 12
            jitterState ^= jitterState << 25
            jitterState ^= jitterState >> 27
            let unit = Double((jitterState &* 2_685_821_657_736_338_717) >> 11) / Double(1 << 53)
            at += (unit * 2 - 1) * Double(options.timestampJitterNanos)
        }
        return DeviceTimestamp(framesPlayed: played, monotonicNanos: Int64(at.rounded()))
    }

    public func recover(from fault: DeviceFault) -> Bool {
        guard !killed.load(ordering: .acquiring) else { return false }
        switch fault {
        case .xrun, .suspended:
            needsRecovery = false
            started = false
            restartFrame = written
            restartIndex = recordedCount
            return true
        case .timeout, .gone:
            return false
        }
    }

    public func close() {
        if isOpenFlag.exchange(false, ordering: .acquiringAndReleasing) { closes.add(1, ordering: .relaxed) }
        started = false
    }

    // MARK: model

    private func position(at nanos: Double) -> Double {
        Double(anchorFrame) + (nanos - anchorNanos) / nanosPerFrame
    }

    /// An injected underrun: time moves to when the buffer would have emptied.
    private func runDry() {
        if started {
            let empty = anchorNanos + Double(written - anchorFrame) * nanosPerFrame
            wait(untilNanos: empty)
        }
        started = false
        needsRecovery = true
        underruns.add(1, ordering: .relaxed)
    }

    private func wait(untilNanos target: Double) {
        switch clock.source {
        case .manual(let manual):
            // A VirtualOutputDevice's clock is made by EngineClock.manual(_:), from a ManualClock.
            (manual as? ManualClock)?.advance(toNanos: Int64(target.rounded(.up)))
        case .monotonic:
            let delta = target - Double(MonotonicClock.nanos())
            if delta > 0 { sleep(nanos: delta) }
        }
    }

    private func sleep(nanos: Double) {
        let seconds = nanos / 1e9
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int((seconds - Double(Int(seconds))) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private func record(_ samples: UnsafePointer<Float>, frames: Int) {
        totalFramesWritten += frames
        guard let recording else { return }
        let room = options.recordCapacityFrames - recordedCount
        let kept = min(room, frames)
        if kept > 0 {
            (recording + recordedCount * recordingChannels).update(from: samples, count: kept * recordingChannels)
            recordedCount += kept
        }
    }
}
