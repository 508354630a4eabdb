import HapticPattern
import HapticRender
import Synchronization

// The render side of the engine. Everything reachable from `renderOnePeriod()`
// runs on the render thread (or on the test thread that drives a virtual device
// step by step): no allocation, no locks, no logging, no Foundation. Memory is
// allocated in `init`/`configure` on the control side while the render side is
// not running.

/// What a control call asks the render thread to do.
enum CommandKind: UInt8 {
    case start, stop, cancel, control, pause, resume, seek, rate, loop, mute
}

/// One timed command. Fixed size; curves are sent as one command per segment.
struct Command {
    var kind: CommandKind
    var slot: Int32
    var generation: UInt32
    /// Monotonic nanoseconds at which it takes effect; 0 = the next block rendered.
    var timeNanos: Int64
    /// When set, the device frame that is to PLAY the command's effect (it is applied the
    /// output stage's look-ahead earlier), instead of `timeNanos`: a start on the device's
    /// own clock, independent of the frame ↔ monotonic mapping. A frame already past when
    /// the command is collected takes effect at the next block (counted as late).
    var frame: Int64? = nil
    var value: Double = 0
    var ramp: Double = 0
    var parameter: DynamicParameterID = .hapticIntensityControl
    /// The voice (start only): +1 retained; ownership passes to the render side.
    var box: Unmanaged<VoiceBox>? = nil
    /// Render side: arrival order (stable ordering of same-frame commands).
    var sequence: UInt64 = 0
    /// Render side: frame offset inside the current block.
    var offset: Int32 = 0
}

/// Why a voice ended (reported to the control side with the voice).
enum FinishReason: UInt8 {
    case completed, cancelled, engineStopped, dropped
}

/// A message from the render side to the control side.
struct RenderEvent {
    enum Kind: UInt8 { case finished, deviceLost }
    var kind: Kind
    var slot: Int32 = -1
    var generation: UInt32 = 0
    var box: Unmanaged<VoiceBox>? = nil
    var reason: FinishReason = .completed
}

/// One playback's voice, allocated on the control side, owned by the render side
/// between its start command and its return in a `.finished` event.
/// `@unchecked Sendable`: `voice` is touched by exactly one side at a time (the
/// hand-over is ordered by the lock-free queues' acquire/release).
final class VoiceBox: @unchecked Sendable {
    var voice: PatternVoice
    /// Control side only: what to tell when the voice comes back.
    let onFinish: (@Sendable (FinishReason) -> Void)?
    init(voice: PatternVoice, onFinish: (@Sendable (FinishReason) -> Void)?) {
        self.voice = voice
        self.onFinish = onFinish
    }
}

/// Per-voice render state, in a preallocated table indexed by slot.
struct VoiceSlot {
    enum Phase: UInt8 { case empty, scheduled, playing, pausing, paused, cancelling, finished }
    var box: Unmanaged<VoiceBox>? = nil
    var generation: UInt32 = 0
    var phase: Phase = .empty
    var gain: Float = 1
    var muted = false
    var reason: FinishReason = .completed
    var dueStart: Int32 = 0
    var dueEnd: Int32 = 0
}

/// The result of rendering and writing one period.
public enum PeriodOutcome: Sendable, Equatable {
    /// A period was rendered and written.
    case rendered
    /// The stop fade (and the buffer's worth of silence after it) is complete.
    case stopped
    /// The device failed beyond in-place recovery.
    case deviceLost(DeviceFault)
    /// Nothing to do: the engine is not running.
    case notRunning
}

/// Render-time statistics (per period, CPU time spent rendering, excluding the device write).
public struct RenderStatistics: Sendable, Equatable {
    /// Periods rendered since the engine was created.
    public var periods: Int
    /// Mean render time per period (seconds).
    public var meanSeconds: Double
    /// Longest render time of a period (seconds).
    public var maxSeconds: Double
    /// Median and 99th percentile (seconds; quarter-octave histogram bucket upper bounds).
    public var p50Seconds: Double
    public var p99Seconds: Double
    /// The period's duration (seconds): the budget.
    public var periodSeconds: Double
    /// 1 − p99 / period: the fraction of the period left at the 99th percentile.
    public var headroom: Double { periodSeconds > 0 ? 1 - p99Seconds / periodSeconds : 0 }
}

/// The frame grid scheduled times are converted on (render side).
///
/// Why not the filter directly: the filter's estimate moves with every timestamp (jitter of
/// the server's delay reports, the acquisition bandwidth), so two onsets scheduled Δ apart
/// could land a few frames more or less than Δ·fs apart (72002–72064 frames for Δ = 1.5 s
/// were seen through PulseAudio). The grid runs at exactly the nominal rate from an anchor,
/// so onsets Δ apart are round(Δ·fs) frames apart; the anchor follows the filter's estimate
/// only while the filter settles after a (re)lock, and afterwards moves, by whole frames,
/// only when the two disagree by more than a threshold. Drift therefore cannot accumulate
/// beyond the threshold (measured through the PulseAudio rig: +70…+360 ppm, so with the
/// default 2 ms a correction every 6–30 s), and the absolute error stays within threshold +
/// the filter's own error (≈ 0.05–0.2 ms there).
struct ScheduleGrid: Equatable {
    var anchorFrame: Int64 = 0
    var anchorNanos: Double = 0
    var nanosPerFrame: Double = 1e9 / 48_000
    var framesPerNano: Double = 48_000 / 1e9
    /// Whether the grid holds its anchor (the filter has settled); otherwise it tracks the filter.
    var holding = false

    init(sampleRate: Double = 48_000) {
        nanosPerFrame = 1e9 / sampleRate
        framesPerNano = sampleRate / 1e9
    }

    @_noLocks
    func nanos(forFrame frame: Int64) -> Double {
        anchorNanos + Double(frame - anchorFrame) * nanosPerFrame
    }

    /// The fractional frame that plays at `nanos` (multiplying by the rate: Δ·fs is exact for
    /// whole nanoseconds whenever it is a whole number of frames).
    @_noLocks
    func frame(forNanos nanos: Double) -> Double {
        Double(anchorFrame) + (nanos - anchorNanos) * framesPerNano
    }
}

/// The render side: command intake, voice table, mix, output stage, device write.
/// `@unchecked Sendable`: fields below "render side" are touched only by the render
/// side while it runs and by the control side only while it is stopped (the thread
/// join / manual-drive contract orders the hand-over); cross-thread values are atomics.
final class RenderCore: @unchecked Sendable {
    // MARK: shared, fixed at init
    let maxVoices: Int
    let commands: LockFreeQueue<Command>
    let events: LockFreeQueue<RenderEvent>

    // MARK: atomics readable from any thread
    let xrunCount = Atomic<Int>(0)
    /// Device stalls ridden out in place (no progress within one bounded wait, then progress again).
    let stallCount = Atomic<Int>(0)
    /// Scheduled starts whose time passed while the device was away (beyond the late window): dropped.
    let droppedOnsetCount = Atomic<Int>(0)
    let lateCommandCount = Atomic<Int>(0)
    let droppedCommandCount = Atomic<Int>(0)
    let stopRequested = Atomic<Bool>(false)
    /// Test support: the render thread sleeps this long (ns) before its next period (a starved
    /// render thread, on purpose). 0 = none; taken once.
    let stallRequestNanos = Atomic<Int64>(0)
    /// 0 = haptics and audio, 1 = haptics only, 2 = audio only.
    let outputMode = Atomic<UInt8>(0)
    private let statPeriods = Atomic<Int>(0)
    private let statSumNanos = Atomic<Int>(0)
    private let statMaxNanos = Atomic<Int>(0)
    private static let histogramBuckets = 160
    private let histogram: UnsafeMutablePointer<Atomic<Int>>
    // Seqlock-published mapping for the control side.
    private let mapSequence = Atomic<UInt64>(0)
    private let mapAnchorFrame = Atomic<Int64>(0)
    private let mapAnchorNanosBits = Atomic<UInt64>(0)
    private let mapNanosPerFrameBits = Atomic<UInt64>(0)
    private let mapNextFrame = Atomic<Int64>(0)
    private let mapLocked = Atomic<Bool>(false)
    private let mapFilterNanosPerFrameBits = Atomic<UInt64>(0)

    // MARK: render side
    private let slots: UnsafeMutablePointer<VoiceSlot>
    private let active: UnsafeMutablePointer<Int32>
    private var activeCount = 0
    private let pendingCapacity: Int
    private let pending: UnsafeMutablePointer<Command>
    private var pendingCount = 0
    private let due: UnsafeMutablePointer<Command>
    private var dueCount = 0
    private var sequenceCounter: UInt64 = 0

    private(set) var periodFrames = 0
    private(set) var channels = 0
    private(set) var bufferFrames = 0
    private(set) var sampleRate = 48_000
    private var buffers: UnsafeMutablePointer<Float>? = nil
    private var mix = MixBus(haptic: .allocate(capacity: 1), audioLeft: .allocate(capacity: 1), audioRight: .allocate(capacity: 1), frames: 0)
    private var scratch = MixBus(haptic: .allocate(capacity: 1), audioLeft: .allocate(capacity: 1), audioRight: .allocate(capacity: 1), frames: 0)
    private var output: UnsafeMutablePointer<Float> = .allocate(capacity: 1)
    private var outputStage: OutputStage? = nil
    private var voiceFadeStep: Float = 1.0 / 96
    private var masterFadeFrames = 240
    /// A device that makes no progress for this long is lost (ns); shorter stalls are ridden out.
    private var stallLimitNanos: Int64 = 500_000_000
    /// One period's device calls taking longer than this (and succeeding) count as a stall (ns).
    private var slowDeviceNanos: Int64 = 100_000_000
    private var stallCountedThisPeriod = false

    var device: (any OutputDevice)? = nil
    var clock: EngineClock = .monotonic
    private(set) var filter = FrameTimeFilter(sampleRate: 48_000)
    private(set) var grid = ScheduleGrid()
    private var previousGrid = ScheduleGrid()
    /// The grid follows the filter until it has been locked this long (device time, ns).
    private var gridSettleNanos: Double = 500_000_000
    /// After settling, the grid moves only when it is this far from the filter (ns).
    private var gridThresholdNanos: Double = 2_000_000
    /// Added to every scheduled time before conversion: latency the device does not report (ns).
    private var compensationNanos: Double = 0
    /// Scheduled commands are applied this many frames before their grid frame: the output
    /// stage's look-ahead delay, so the frame that plays at T carries the onset.
    private(set) var scheduleAdvanceFrames: Int64 = 0
    /// Locked device time since the filter last (re)locked (ns).
    private var lockedNanos: Double = 0
    /// Times the grid was re-anchored after it had settled (drift corrections and resyncs).
    let gridCorrections = Atomic<Int>(0)
    private var resyncPending = false
    private(set) var nextFrame: Int64 = 0
    /// Engine frame of the device's frame 0 (non-zero after a reconnection: the engine's frame
    /// count continues across device handles).
    private var frameOffset: Int64 = 0
    private var running = false
    private var masterGain: Float = 1
    private var stopTailFrames = -1
    /// The last fault that ended rendering (read by the control side after `.deviceLost`).
    private(set) var lastFault: DeviceFault? = nil

    /// Test support: when set, every applied command is recorded (preallocated ring).
    struct AppliedCommand: Equatable {
        var kind: CommandKind
        var slot: Int32
        var frame: Int64
    }
    private let traceCapacity: Int
    private let trace: UnsafeMutablePointer<AppliedCommand>
    private var traceCount = 0

    init(maxVoices: Int, commandCapacity: Int, traceCapacity: Int = 0) {
        self.maxVoices = maxVoices
        commands = LockFreeQueue(minimumCapacity: commandCapacity)
        // Every voice comes back exactly once; the margin carries device-lost notes.
        events = LockFreeQueue(minimumCapacity: maxVoices + 64)
        slots = .allocate(capacity: maxVoices)
        slots.initialize(repeating: VoiceSlot(), count: maxVoices)
        active = .allocate(capacity: maxVoices)
        pendingCapacity = max(commandCapacity, 16)
        pending = .allocate(capacity: pendingCapacity)
        due = .allocate(capacity: pendingCapacity)
        histogram = .allocate(capacity: Self.histogramBuckets)
        for i in 0..<Self.histogramBuckets { (histogram + i).initialize(to: Atomic(0)) }
        self.traceCapacity = traceCapacity
        trace = .allocate(capacity: max(traceCapacity, 1))
    }

    deinit {
        // Voices still held (engine dropped while playing) are released here, off the render thread.
        for i in 0..<maxVoices { slots[i].box?.release() }
        for i in 0..<pendingCount { pending[i].box?.release() }
        while let command = commands.pop() { command.box?.release() }
        while let event = events.pop() { event.box?.release() }
        slots.deinitialize(count: maxVoices)
        slots.deallocate()
        active.deallocate()
        pending.deallocate()
        due.deallocate()
        histogram.deinitialize(count: Self.histogramBuckets)
        histogram.deallocate()
        trace.deallocate()
        freeBuffers()
    }

    // MARK: control side (render side not running)

    /// Sizes the buffers for a granted format and builds the output stage.
    func configure(format: DeviceFormat, layout: ChannelLayout, profile: ActuatorProfile, stopFadeSeconds: Double,
                   latencyCompensationSeconds: Double, gridThresholdSeconds: Double, gridSettleSeconds: Double,
                   stallLimitSeconds: Double) {
        if format.periodFrames != periodFrames || format.channels != channels || buffers == nil {
            freeBuffers()
            let n = format.periodFrames
            let storage = UnsafeMutablePointer<Float>.allocate(capacity: n * 6 + n * format.channels)
            storage.initialize(repeating: 0, count: n * 6 + n * format.channels)
            buffers = storage
            mix = MixBus(haptic: storage, audioLeft: storage + n, audioRight: storage + 2 * n, frames: n)
            scratch = MixBus(haptic: storage + 3 * n, audioLeft: storage + 4 * n, audioRight: storage + 5 * n, frames: n)
            output = storage + 6 * n
        }
        periodFrames = format.periodFrames
        channels = format.channels
        bufferFrames = format.bufferFrames
        if sampleRate != format.sampleRate || filter.updates == 0 {
            filter = FrameTimeFilter(sampleRate: Double(format.sampleRate))
        }
        sampleRate = format.sampleRate
        outputStage = OutputStage(profile: profile, sampleRate: Double(format.sampleRate), layout: layout)
        scheduleAdvanceFrames = Int64(outputStage!.latencyFrames)
        compensationNanos = latencyCompensationSeconds * 1e9
        gridThresholdNanos = max(0, gridThresholdSeconds) * 1e9
        gridSettleNanos = max(0, gridSettleSeconds) * 1e9
        if grid.framesPerNano != Double(format.sampleRate) / 1e9 { grid = ScheduleGrid(sampleRate: Double(format.sampleRate)) }
        voiceFadeStep = 1 / Float(max(1, format.sampleRate / 500))  // 2 ms voice fades (mute, pause, cancel)
        masterFadeFrames = max(1, Int(stopFadeSeconds * Double(format.sampleRate)))
        stallLimitNanos = Int64(min(max(stallLimitSeconds, 0), 3600) * 1e9)
        // Twice the buffer's time, at least 100 ms (a PulseAudio stream's first start waits 50–55 ms).
        slowDeviceNanos = max(100_000_000, 2 * Int64(format.bufferFrames) * 1_000_000_000 / Int64(max(1, format.sampleRate)))
    }

    private func freeBuffers() {
        if let buffers {
            buffers.deallocate()
        } else {
            mix.haptic.deallocate(); mix.audioLeft.deallocate(); mix.audioRight.deallocate()
            scratch.haptic.deallocate(); scratch.audioLeft.deallocate(); scratch.audioRight.deallocate()
            output.deallocate()
        }
        buffers = nil
    }

    /// Arms the render side for a freshly opened device: frame 0 is guessed to play now.
    func begin(device: any OutputDevice) {
        self.device = device
        nextFrame = 0
        frameOffset = 0
        filter.guess(frame: 0, atNanos: clock.nanos())
        grid.holding = false
        lockedNanos = 0
        followFilter()
        resyncPending = false
        masterGain = 1
        stopTailFrames = -1
        lastFault = nil
        stopRequested.store(false, ordering: .releasing)
        running = true
        publishMapping()
    }

    /// What a resumption after a lost device did to the timeline.
    struct Resumption {
        /// Seconds of the timeline that passed while the device was away (playing voices moved on by it).
        var gapSeconds: Double
        /// Scheduled starts whose time had passed (beyond the late window): dropped.
        var droppedOnsets: Int
    }

    /// Arms the render side for the reopened device after a loss, keeping voices, schedule and
    /// the clock mapping: the engine's frame count continues on the old timeline (the new
    /// device's frame 0 is the frame the old mapping puts at now; its timestamps are offset to
    /// match), so times and frames given before stay valid. Playing voices move on by the frames
    /// that passed (a loop keeps its grid); scheduled starts that fell due more than
    /// `lateWindowSeconds` ago are dropped and counted. Once the filter locks on the new device,
    /// the guess is corrected like a resync after an xrun. Control side, render side not running.
    func resume(device: any OutputDevice, lateWindowSeconds: Double) -> Resumption {
        let oldGrid = grid
        let oldNext = nextFrame
        drainCommands(all: true)
        begin(device: device)
        let now = clock.nanos()
        let continued = max(oldNext, Int64(oldGrid.frame(forNanos: Double(now)).rounded()))
        frameOffset = continued
        nextFrame = continued
        grid = oldGrid
        grid.holding = false
        filter.guess(frame: continued, atNanos: now)
        followFilter()
        let gapFrames = continued - oldNext
        let gap = Double(gapFrames) * grid.nanosPerFrame
        skipPlayingVoices(byNanos: gap)
        previousGrid = grid
        resyncPending = true
        // Starts that fell due while the device was away.
        let window = Int64(min(max(lateWindowSeconds, 0), 3600) * Double(sampleRate))
        var dropped = 0
        var kept = 0
        for i in 0..<pendingCount {
            let command = pending[i]
            let s = Int(command.slot)
            var playFrame: Int64? = command.frame
            if playFrame == nil && command.timeNanos != 0 {
                playFrame = Int64(grid.frame(forNanos: Double(command.timeNanos) - compensationNanos).rounded())
            }
            if command.kind == .start, let playFrame, playFrame < continued - window,
               slots[s].generation == command.generation, slots[s].phase == .scheduled {
                finish(s, .dropped)
                dropped += 1
                continue
            }
            pending[kept] = command
            kept += 1
        }
        pendingCount = kept
        droppedOnsetCount.add(dropped, ordering: .relaxed)
        retireFinished()
        publishMapping()
        return Resumption(gapSeconds: gap / 1e9, droppedOnsets: dropped)
    }

    /// Disarms (after `.stopped` / `.deviceLost`, or when the thread was joined).
    func end() {
        running = false
        device = nil
    }

    /// Ends every voice (engine stop or reset): drains the command queue so that
    /// voices in flight come back too, and reports them all through `events`.
    func discardAllVoices(reason: FinishReason) {
        drainCommands(all: true)
        pendingCount = 0
        for i in 0..<activeCount {
            let s = Int(active[i])
            if slots[s].phase != .finished { finish(s, reason) }
        }
        retireFinished()
    }

    var activeVoiceCount: Int { activeCount }

    /// The applied-command trace (tests).
    func appliedCommands() -> [AppliedCommand] { Array(UnsafeBufferPointer(start: trace, count: traceCount)) }
    func clearTrace() { traceCount = 0 }

    // MARK: published values (any thread)

    /// The filter's current rate estimate (ns per device frame on the monotonic clock).
    func measuredNanosPerFrame() -> Double {
        Double(bitPattern: mapFilterNanosPerFrameBits.load(ordering: .relaxed))
    }

    /// The current mapping and the next frame to be rendered (seqlock read). This is the
    /// schedule grid the render side converts times with (``ScheduleGrid``), latency
    /// compensation included: device frame `f` plays at `anchorNanos + (f − anchorFrame) ·
    /// nanosPerFrame`; a start at T is applied `scheduleAdvanceFrames` (the output stage's
    /// look-ahead) before the frame that plays at T, so that frame carries the onset.
    func mappingSnapshot() -> (anchorFrame: Int64, anchorNanos: Double, nanosPerFrame: Double, nextFrame: Int64, locked: Bool) {
        while true {
            let before = mapSequence.load(ordering: .acquiring)
            if before & 1 == 1 { continue }
            let a = mapAnchorFrame.load(ordering: .relaxed)
            let t = Double(bitPattern: mapAnchorNanosBits.load(ordering: .relaxed))
            let p = Double(bitPattern: mapNanosPerFrameBits.load(ordering: .relaxed))
            let n = mapNextFrame.load(ordering: .relaxed)
            let l = mapLocked.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            if mapSequence.load(ordering: .relaxed) == before { return (a, t, p, n, l) }
        }
    }

    private func publishMapping() {
        let s = mapSequence.load(ordering: .relaxed)
        mapSequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        mapAnchorFrame.store(grid.anchorFrame, ordering: .relaxed)
        mapAnchorNanosBits.store((grid.anchorNanos + compensationNanos).bitPattern, ordering: .relaxed)
        mapNanosPerFrameBits.store(grid.nanosPerFrame.bitPattern, ordering: .relaxed)
        mapFilterNanosPerFrameBits.store(filter.nanosPerFrame.bitPattern, ordering: .relaxed)
        mapNextFrame.store(nextFrame, ordering: .relaxed)
        mapLocked.store(filter.isLocked, ordering: .relaxed)
        mapSequence.store(s &+ 2, ordering: .releasing)
    }

    func statistics() -> RenderStatistics {
        let periods = statPeriods.load(ordering: .relaxed)
        let sum = statSumNanos.load(ordering: .relaxed)
        let maxNanos = statMaxNanos.load(ordering: .relaxed)
        var counts = [Int](repeating: 0, count: Self.histogramBuckets)
        var total = 0
        for i in 0..<Self.histogramBuckets {
            counts[i] = histogram[i].load(ordering: .relaxed)
            total += counts[i]
        }
        func percentile(_ p: Double) -> Double {
            guard total > 0 else { return 0 }
            let target = Int((Double(total) * p).rounded(.up))
            var seen = 0
            for i in 0..<Self.histogramBuckets {
                seen += counts[i]
                if seen >= max(target, 1) { return min(Self.bucketUpperNanos(i), Double(maxNanos)) / 1e9 }
            }
            return Double(maxNanos) / 1e9
        }
        return RenderStatistics(
            periods: periods,
            meanSeconds: periods > 0 ? Double(sum) / Double(periods) / 1e9 : 0,
            maxSeconds: Double(maxNanos) / 1e9,
            p50Seconds: percentile(0.5), p99Seconds: percentile(0.99),
            periodSeconds: sampleRate > 0 ? Double(periodFrames) / Double(sampleRate) : 0)
    }

    /// Quarter-octave bucket of a duration, from integer bit tricks (no libm).
    @_noLocks
    static func bucket(nanos: Int) -> Int {
        let v = UInt64(max(nanos, 1))
        let octave = 63 - v.leadingZeroBitCount
        let quarter = octave >= 2 ? Int((v >> UInt64(octave - 2)) & 3) : 0
        return min(octave * 4 + quarter, histogramBuckets - 1)
    }

    static func bucketUpperNanos(_ bucket: Int) -> Double {
        let octave = bucket / 4, quarter = bucket % 4
        return Double(UInt64(1) << UInt64(octave)) * (1 + Double(quarter + 1) / 4)
    }

    // MARK: render side

    /// Renders one period and writes it to the device. The render thread calls this
    /// in a loop; tests driving a virtual device call it directly.
    // Not @_noLocks: the compiler counts the retain/release of the device and voice
    // references as possible locks (the zero-allocation test covers this loop instead).
    func renderOnePeriod() -> PeriodOutcome {
        guard running, let device else { return .notRunning }
        let stall = stallRequestNanos.exchange(0, ordering: .relaxed)
        if stall > 0 { EngineThread.sleep(seconds: Double(stall) / 1e9) }
        // Render as late as possible: wait for room first (an xrun found here is left to the
        // write below, which recovers it; a dead device ends rendering now).
        let deviceCallsStarted = MonotonicClock.nanos()
        stallCountedThisPeriod = false
        if let fault = device.waitForRoom(frames: periodFrames) {
            switch fault {
            case .timeout:
                if !rideOutStall(device) { return stopRequested.load(ordering: .relaxed) ? halt() : lose(fault) }
            case .gone: return lose(fault)
            case .xrun, .suspended: break
            }
        }
        let started = MonotonicClock.nanos()
        let n = periodFrames
        let blockStart = nextFrame
        drainCommands()
        collectDue(blockStart: blockStart, blockEnd: blockStart + Int64(n))
        mix.haptic.update(repeating: 0, count: n)
        mix.audioLeft.update(repeating: 0, count: n)
        mix.audioRight.update(repeating: 0, count: n)
        renderVoices(frames: n, blockStart: blockStart)
        switch outputMode.load(ordering: .relaxed) {
        case 1:
            mix.audioLeft.update(repeating: 0, count: n)
            mix.audioRight.update(repeating: 0, count: n)
        case 2:
            mix.haptic.update(repeating: 0, count: n)
        default: break
        }
        if outputStage != nil { outputStage!.process(mix, into: output) }
        let finishing = applyMasterFade(frames: n)
        retireFinished()
        let renderEnded = MonotonicClock.nanos()
        recordRenderTime(renderEnded - started)

        var attempts = 0
        var written = 0
        while let fault = device.write(output + written * channels, frames: n - written) {
            // Frames that reached the device before the fault count: the rest is written after
            // recovery, so the device's frame counter and ours stay equal.
            written += min(max(0, device.framesWrittenBeforeFault), n - written)
            attempts += 1
            switch fault {
            case .xrun, .suspended:
                if case .xrun = fault { xrunCount.add(1, ordering: .relaxed) }
                // -EPIPE that keeps coming back after recovery is a dead server (PipeWire).
                if attempts > 3 || !device.recover(from: fault) { return lose(fault) }
                markResync()
            case .timeout:
                // Bounded: a device that keeps stalling part-way through writes is lost.
                if attempts > 8 { return lose(fault) }
                if !rideOutStall(device) { return stopRequested.load(ordering: .relaxed) ? halt() : lose(fault) }
            case .gone:
                return lose(fault)
            }
        }
        nextFrame = blockStart + Int64(n)
        // A device that stopped consuming for much longer than its buffer but came back within
        // the bounds (a paused server whose plugin blocks in its calls instead of timing out): a
        // stall, counted; the timeline resyncs as after an xrun.
        let deviceNanos = MonotonicClock.nanos() - deviceCallsStarted - (renderEnded - started)
        if deviceNanos > slowDeviceNanos && !stallCountedThisPeriod {
            stallCount.add(1, ordering: .relaxed)
            markResync()
        }
        if var stamp = device.timestamp() {
            stamp.framesPlayed += frameOffset
            let wasLocked = filter.isLocked
            filter.update(stamp)
            if wasLocked { lockedNanos += Double(n) * grid.nanosPerFrame }
            updateGrid()
            if resyncPending && filter.isLocked {
                resyncPending = false
                skipPlayingVoices(byNanos: grid.nanos(forFrame: nextFrame) - previousGrid.nanos(forFrame: nextFrame))
            }
        }
        publishMapping()
        if finishing {
            running = false
            return .stopped
        }
        return .rendered
    }

    /// Puts the grid on the filter's estimate at the next frame to render.
    @_noLocks
    private func followFilter() {
        grid.anchorFrame = nextFrame
        grid.anchorNanos = filter.nanos(forFrame: nextFrame)
    }

    /// The grid tracks the filter until it has settled, then holds; a disagreement beyond the
    /// threshold moves the anchor by the whole frames of the error (drift, or a resync after
    /// an xrun, whose error is the lost time).
    @_noLocks
    private func updateGrid() {
        guard filter.isLocked else { return }
        if !grid.holding {
            followFilter()
            if lockedNanos >= gridSettleNanos { grid.holding = true }
            return
        }
        let error = filter.nanos(forFrame: nextFrame) - grid.nanos(forFrame: nextFrame)
        if abs(error) > gridThresholdNanos {
            let exact = error * grid.framesPerNano
            let frames = Double(Int64(exact + (exact < 0 ? -0.5 : 0.5)))  // round half away (no rounding-rule type)
            grid.anchorNanos = grid.nanos(forFrame: nextFrame) + frames * grid.nanosPerFrame
            grid.anchorFrame = nextFrame
            gridCorrections.add(1, ordering: .relaxed)
        }
    }

    /// The device's frames no longer follow the old mapping (an xrun, a stall): the filter
    /// relocks, and once it has, playing voices move on by the time lost.
    private func markResync() {
        if !resyncPending {
            previousGrid = grid
            resyncPending = true
        }
        filter.unlock()
        lockedNanos = 0
        grid.holding = false
    }

    /// A device that made no progress within one bounded wait: a stall (a paused server, a
    /// suspended device) until it has lasted `stallLimitNanos`, then a lost device. Waits in
    /// bounded steps and leaves as soon as a stop is asked. True when the device moves again
    /// (counted as a stall; the timeline resyncs as after an xrun).
    private func rideOutStall(_ device: any OutputDevice) -> Bool {
        if !stallCountedThisPeriod { stallCount.add(1, ordering: .relaxed) }
        stallCountedThisPeriod = true
        let start = MonotonicClock.nanos()
        // Each wait is bounded by the device's timeout; the count bounds the loop on its own too.
        var rounds = 0
        while MonotonicClock.nanos() - start < stallLimitNanos && rounds < 10_000 {
            rounds += 1
            if stopRequested.load(ordering: .relaxed) { return false }
            switch device.waitForRoom(frames: periodFrames) {
            case nil, .xrun?, .suspended?:
                // Moving again (an xrun found here is recovered by the write).
                markResync()
                return true
            case .timeout?:
                continue
            case .gone?:
                return false
            }
        }
        return false
    }

    /// A stop asked during a stall: nothing more reaches the device, so the fade is moot.
    private func halt() -> PeriodOutcome {
        running = false
        return .stopped
    }

    private func lose(_ fault: DeviceFault) -> PeriodOutcome {
        lastFault = fault
        running = false
        _ = events.push(RenderEvent(kind: .deviceLost))
        return .deviceLost(fault)
    }

    private func recordRenderTime(_ nanos: Int64) {
        let v = Int(nanos)
        statPeriods.add(1, ordering: .relaxed)
        statSumNanos.add(v, ordering: .relaxed)
        if v > statMaxNanos.load(ordering: .relaxed) { statMaxNanos.store(v, ordering: .relaxed) }
        histogram[Self.bucket(nanos: v)].add(1, ordering: .relaxed)
    }

    /// After an xrun the frames already rendered for playing voices were heard late:
    /// moving them on by the lost time keeps their later events on the clock.
    private func skipPlayingVoices(byNanos gap: Double) {
        guard gap > 0 else { return }
        for i in 0..<activeCount {
            let s = Int(active[i])
            switch slots[s].phase {
            case .playing, .pausing, .cancelling:
                slots[s].box!._withUnsafeGuaranteedRef { box in
                    box.voice.seek(to: box.voice.position + gap / 1e9 * box.voice.playbackRate)
                }
            default: break
            }
        }
    }

    /// Stop fade on the interleaved output; then a buffer's worth of silence so the
    /// fade itself reaches the speaker before the device is closed. True when done.
    private func applyMasterFade(frames n: Int) -> Bool {
        guard stopRequested.load(ordering: .relaxed) else { return false }
        let c = channels
        let step = 1 / Float(masterFadeFrames)
        for f in 0..<n {
            masterGain = max(0, masterGain - step)
            let base = f * c
            for ch in 0..<c { output[base + ch] *= masterGain }
        }
        if masterGain <= 0 {
            if stopTailFrames < 0 { stopTailFrames = bufferFrames }
            else { stopTailFrames -= n }
            return stopTailFrames <= 0
        }
        return false
    }

    /// Takes the queued commands in. On the render thread it is bounded per period whatever the
    /// producers do (they may push as fast as this pops): what is left waits for the next
    /// period. `all`: the control side (render side stopped) takes everything.
    private func drainCommands(all: Bool = false) {
        var budget = all ? Int.max : pendingCapacity + maxVoices
        while budget > 0, let incoming = commands.pop() {
            budget -= 1
            var command = incoming
            command.sequence = sequenceCounter
            sequenceCounter &+= 1
            let s = Int(command.slot)
            if command.kind == .start, let box = command.box {
                // The slot was reserved by the control side and is free here.
                command.box = nil
                slots[s] = VoiceSlot(box: box, generation: command.generation, phase: .scheduled,
                                     gain: 1, muted: command.value != 0)
                active[activeCount] = Int32(s)
                activeCount += 1
            }
            if pendingCount < pendingCapacity {
                pending[pendingCount] = command
                pendingCount += 1
            } else {
                droppedCommandCount.add(1, ordering: .relaxed)
                if command.kind == .start, slots[s].generation == command.generation { finish(s, .dropped) }
            }
        }
    }

    private func collectDue(blockStart: Int64, blockEnd: Int64) {
        dueCount = 0
        var kept = 0
        for i in 0..<pendingCount {
            var command = pending[i]
            let slot = slots[Int(command.slot)]
            if slot.generation != command.generation || slot.phase == .empty || slot.phase == .finished {
                continue  // the voice is gone: stale command
            }
            var offset: Int64 = 0
            let target: Int64?
            if let playFrame = command.frame {
                target = playFrame - scheduleAdvanceFrames
            } else if command.timeNanos != 0 {
                target = Int64(grid.frame(forNanos: Double(command.timeNanos) - compensationNanos).rounded())
                    - scheduleAdvanceFrames
            } else {
                target = nil
            }
            if let frame = target {
                if frame >= blockEnd {
                    pending[kept] = command
                    kept += 1
                    continue
                }
                offset = frame - blockStart
                if offset < 0 {
                    offset = 0
                    lateCommandCount.add(1, ordering: .relaxed)
                }
            }
            command.offset = Int32(offset)
            due[dueCount] = command
            dueCount += 1
        }
        pendingCount = kept
        Self.sort(due, count: dueCount)
        for i in 0..<activeCount {
            let s = Int(active[i])
            slots[s].dueStart = 0
            slots[s].dueEnd = 0
        }
        var i = 0
        while i < dueCount {
            let s = Int(due[i].slot)
            var j = i + 1
            while j < dueCount && due[j].slot == due[i].slot { j += 1 }
            slots[s].dueStart = Int32(i)
            slots[s].dueEnd = Int32(j)
            i = j
        }
    }

    /// Shell sort by (slot, offset, sequence): in place, no allocation.
    @_noLocks
    static func sort(_ items: UnsafeMutablePointer<Command>, count: Int) {
        @inline(__always) func less(_ a: Command, _ b: Command) -> Bool {
            if a.slot != b.slot { return a.slot < b.slot }
            if a.offset != b.offset { return a.offset < b.offset }
            return a.sequence < b.sequence
        }
        var gap = 1
        while gap < count / 3 { gap = gap * 3 + 1 }
        while gap >= 1 {
            if gap < count {
                for i in gap..<count {
                    let item = items[i]
                    var j = i
                    while j >= gap && less(item, items[j - gap]) {
                        items[j] = items[j - gap]
                        j -= gap
                    }
                    items[j] = item
                }
            }
            gap /= 3
        }
    }

    private func renderVoices(frames n: Int, blockStart: Int64) {
        for i in 0..<activeCount {
            let s = Int(active[i])
            var position = 0
            var k = Int(slots[s].dueStart)
            let end = Int(slots[s].dueEnd)
            while k < end {
                let command = due[k]
                let at = Int(command.offset)
                if at > position {
                    renderSlot(s, from: position, to: at)
                    position = at
                }
                apply(command, to: s, frame: blockStart + Int64(at))
                k += 1
            }
            if position < n { renderSlot(s, from: position, to: n) }
        }
    }

    private func apply(_ command: Command, to s: Int, frame: Int64) {
        let phase = slots[s].phase
        if phase == .finished || phase == .empty { return }
        if traceCount < traceCapacity {
            trace[traceCount] = AppliedCommand(kind: command.kind, slot: command.slot, frame: frame)
            traceCount += 1
        }
        switch command.kind {
        case .start:
            if phase == .scheduled { slots[s].phase = .playing }
        case .stop:
            switch phase {
            case .scheduled, .paused, .pausing: finish(s, .completed)
            case .playing: slots[s].box!._withUnsafeGuaranteedRef { $0.voice.stop() }
            default: break
            }
        case .cancel:
            switch phase {
            case .scheduled, .paused: finish(s, .cancelled)
            case .playing, .pausing: slots[s].phase = .cancelling
            default: break
            }
        case .control:
            let id = command.parameter, value = command.value, ramp = command.ramp
            slots[s].box!._withUnsafeGuaranteedRef { $0.voice.setControl(id, value: value, ramp: ramp) }
        case .pause:
            if phase == .playing { slots[s].phase = .pausing }
        case .resume:
            if phase == .paused || phase == .pausing { slots[s].phase = .playing }
        case .seek:
            let offset = command.value
            slots[s].box!._withUnsafeGuaranteedRef { $0.voice.seek(to: offset) }
        case .rate:
            let rate = command.value
            slots[s].box!._withUnsafeGuaranteedRef { $0.voice.playbackRate = rate }
        case .loop:
            let end = command.value
            slots[s].box!._withUnsafeGuaranteedRef { $0.voice.loopEnd = end < 0 ? nil : end }
        case .mute:
            slots[s].muted = command.value != 0
        }
    }

    private func renderSlot(_ s: Int, from a: Int, to b: Int) {
        let phase = slots[s].phase
        guard phase == .playing || phase == .pausing || phase == .cancelling else { return }
        let count = b - a
        let target: Float = (slots[s].muted || phase != .playing) ? 0 : 1
        let gain = slots[s].gain
        let box = slots[s].box!
        if gain == 1 && target == 1 {
            let bus = mix.slice(from: a, count: count)
            box._withUnsafeGuaranteedRef { $0.voice.render(into: bus) }
        } else if gain == 0 && target == 0 {
            if phase == .pausing {
                slots[s].phase = .paused
                return
            }
            if phase == .cancelling {
                finish(s, .cancelled)
                return
            }
            // Muted: the voice keeps its time; its output is discarded.
            let bus = scratch.slice(from: 0, count: count)
            bus.haptic.update(repeating: 0, count: count)
            bus.audioLeft.update(repeating: 0, count: count)
            bus.audioRight.update(repeating: 0, count: count)
            box._withUnsafeGuaranteedRef { $0.voice.render(into: bus) }
        } else {
            let bus = scratch.slice(from: 0, count: count)
            bus.haptic.update(repeating: 0, count: count)
            bus.audioLeft.update(repeating: 0, count: count)
            bus.audioRight.update(repeating: 0, count: count)
            box._withUnsafeGuaranteedRef { $0.voice.render(into: bus) }
            slots[s].gain = Self.addRamped(bus, into: mix, at: a, gain: gain, target: target, step: voiceFadeStep)
        }
        if box._withUnsafeGuaranteedRef({ $0.voice.isFinished }) {
            finish(s, slots[s].phase == .cancelling ? .cancelled : .completed)
        }
    }

    /// Adds `source` into `mix` at `offset`, moving the gain linearly toward `target`.
    @_noLocks
    static func addRamped(_ source: MixBus, into mix: MixBus, at offset: Int, gain start: Float, target: Float, step: Float) -> Float {
        var gain = start
        for i in 0..<source.frames {
            if gain < target { gain = min(target, gain + step) } else if gain > target { gain = max(target, gain - step) }
            mix.haptic[offset + i] += gain * source.haptic[i]
            mix.audioLeft[offset + i] += gain * source.audioLeft[i]
            mix.audioRight[offset + i] += gain * source.audioRight[i]
        }
        return gain
    }

    private func finish(_ s: Int, _ reason: FinishReason) {
        slots[s].phase = .finished
        slots[s].reason = reason
    }

    /// Hands finished voices back to the control side (which frees them).
    private func retireFinished() {
        var i = 0
        while i < activeCount {
            let s = Int(active[i])
            if slots[s].phase == .finished {
                let event = RenderEvent(kind: .finished, slot: Int32(s), generation: slots[s].generation,
                                        box: slots[s].box, reason: slots[s].reason)
                if events.push(event) {
                    slots[s].box = nil
                    slots[s].phase = .empty
                    activeCount -= 1
                    active[i] = active[activeCount]
                    continue
                }
                // Event queue full (cannot happen with its sizing): retry next period.
            }
            i += 1
        }
    }
}
