import HapticPattern
import HapticRender
import Synchronization

// The render side of the engine. Everything reachable from `renderOnePeriod()`
// runs on the render thread (or on the test thread that drives a virtual device
// step by step): no allocation, no locks, no logging, no Foundation. Memory is
// allocated in `init`/`configure` on the control side while the render side is
// not running.

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

/// The render side's period loop: takes commands in, has the voices mixed (``VoiceMixer``),
/// runs the output stage and the stop fade, writes the period to the device (riding out
/// xruns and stalls, or giving the device up), and feeds the device's timestamp to the clock
/// (``DeviceClockTracker``).
/// `@unchecked Sendable`: fields below "render side" are touched only by the render
/// side while it runs and by the control side only while it is stopped (the thread
/// join / manual-drive contract orders the hand-over); cross-thread values are atomics.
final class RenderCore: @unchecked Sendable {
    // MARK: shared, fixed at init
    let maxVoices: Int
    let commands: LockFreeQueue<Command>
    let events: LockFreeQueue<RenderEvent>
    let mixer: VoiceMixer
    let deviceClock = DeviceClockTracker()
    let statisticsRecorder = RenderStatisticsRecorder()

    // MARK: atomics readable from any thread
    let xrunCount = Atomic<Int>(0)
    /// Of those, the xruns a write met right after a render that took longer than the
    /// buffer's margin (all of it but the period written): the render's own time could have
    /// caused them. The others met a render on time (a thread woken late, a server that
    /// stopped taking frames). Render time is wall time, so a preempted render counts here too.
    let slowRenderXrunCount = Atomic<Int>(0)
    /// Device stalls ridden out in place (no progress within one bounded wait, then progress again).
    let stallCount = Atomic<Int>(0)
    /// Scheduled starts whose time passed while the device was away (beyond the late window): dropped.
    let droppedOnsetCount = Atomic<Int>(0)
    let stopRequested = Atomic<Bool>(false)
    /// Test support: the render thread sleeps this long (ns) before its next period (a starved
    /// render thread, on purpose). 0 = none; taken once.
    let stallRequestNanos = Atomic<Int64>(0)
    /// Pull drive: who may touch the render side now (``PullGate``); closed until the engine starts.
    let pullGate = Atomic<Int>(PullGate.closed)
    /// Pull drive: the engine's clock, moved by the frames the caller pulls (nil otherwise).
    var pulledClock: PulledClock? = nil
    /// 0 = haptics and audio, 1 = haptics only, 2 = audio only.
    let outputMode = Atomic<UInt8>(0)
    /// Whether the output has rung out (``RingOutMeter``) as of the last period rendered.
    let hasRungOut = Atomic<Bool>(false)

    // MARK: render side
    private(set) var periodFrames = 0
    private(set) var channels = 0
    private(set) var bufferFrames = 0
    private(set) var sampleRate = 48_000
    /// One period of interleaved output (the device's; the pull drive's pre-roll scratch).
    var output: UnsafeMutablePointer<Float>? = nil
    private var outputStage: OutputStage? = nil
    /// The output's silence, by the render's end rule (published as `hasRungOut`).
    private var ringOut = RingOutMeter(profile: ActuatorProfile(name: "default"), sampleRate: 48_000)
    private var masterFadeFrames = 240
    /// A device that makes no progress for this long is lost (ns); shorter stalls are ridden out.
    private var stallLimitNanos: Int64 = 500_000_000
    /// One period's device calls taking longer than this (and succeeding) count as a stall (ns).
    private var slowDeviceNanos: Int64 = 100_000_000
    /// The buffer's margin when a period is rendered (the buffer less that period, at least a
    /// period; ns): a render longer than this may itself have emptied the device.
    private var renderMarginNanos: Int64 = 5_333_333
    private var stallCountedThisPeriod = false

    var device: (any OutputDevice)? = nil
    /// Mixed into the haptic buses after the voices (``LiveInput``); set by `configure`.
    private var liveInput: (any LiveInput)? = nil
    var clock: EngineClock = .monotonic
    /// Scheduled commands are applied this many frames before their grid frame: the output
    /// stage's look-ahead delay, so the frame that plays at T carries the onset.
    private(set) var scheduleAdvanceFrames: Int64 = 0
    var nextFrame: Int64 = 0
    /// Engine frame of the device's frame 0 (non-zero after a reconnection: the engine's frame
    /// count continues across device handles).
    private var frameOffset: Int64 = 0
    var running = false
    /// Pull drive: the first start has set the timeline (later starts continue it).
    private var pulledTimelineStarted = false
    private var masterGain: Float = 1
    private var stopTailFrames = -1
    /// The last fault that ended rendering (read by the control side after `.deviceLost`).
    private(set) var lastFault: DeviceFault? = nil

    init(maxVoices: Int, commandCapacity: Int, traceCapacity: Int = 0) {
        self.maxVoices = maxVoices
        commands = LockFreeQueue(minimumCapacity: commandCapacity)
        // Every voice comes back exactly once; the margin carries device-lost notes.
        events = LockFreeQueue(minimumCapacity: maxVoices + 64)
        mixer = VoiceMixer(maxVoices: maxVoices, commandCapacity: commandCapacity, commands: commands, events: events,
                           traceCapacity: traceCapacity)
    }

    deinit {
        // Voices still in flight (engine dropped while playing) are released here, off the render thread.
        while let command = commands.pop() { command.box?.release() }
        while let event = events.pop() { event.box?.release() }
        output?.deallocate()
    }

    // MARK: control side (render side not running)

    /// Sizes the buffers for a granted format and builds the output stage.
    func configure(format: DeviceFormat, layout: ChannelLayout, profile: ActuatorProfile, stopFadeSeconds: Double,
                   latencyCompensationSeconds: Double, gridThresholdSeconds: Double, gridSettleSeconds: Double,
                   stallLimitSeconds: Double, liveInput: (any LiveInput)? = nil) {
        if format.periodFrames != periodFrames || format.channels != channels || output == nil {
            output?.deallocate()
            let count = format.periodFrames * format.channels
            output = .allocate(capacity: count)
            output!.initialize(repeating: 0, count: count)
        }
        let stage = OutputStage(profile: profile, sampleRate: Double(format.sampleRate), layout: layout)
        mixer.configure(periodFrames: format.periodFrames, sampleRate: format.sampleRate,
                        hapticBuses: stage.actuators.count)
        periodFrames = format.periodFrames
        channels = format.channels
        bufferFrames = format.bufferFrames
        deviceClock.configure(sampleRate: format.sampleRate, latencyCompensationSeconds: latencyCompensationSeconds,
                              gridThresholdSeconds: gridThresholdSeconds, gridSettleSeconds: gridSettleSeconds)
        sampleRate = format.sampleRate
        outputStage = stage
        self.liveInput = liveInput
        liveInput?.prepare(sampleRate: format.sampleRate, periodFrames: format.periodFrames, actuators: stage.actuators)
        ringOut = RingOutMeter(profile: profile, sampleRate: Double(format.sampleRate))
        scheduleAdvanceFrames = Int64(outputStage!.latencyFrames)
        masterFadeFrames = max(1, Int(stopFadeSeconds * Double(format.sampleRate)))
        stallLimitNanos = Int64(min(max(stallLimitSeconds, 0), 3600) * 1e9)
        // Twice the buffer's time, at least 100 ms (a PulseAudio stream's first start waits 50–55 ms).
        slowDeviceNanos = max(100_000_000, 2 * Int64(format.bufferFrames) * 1_000_000_000 / Int64(max(1, format.sampleRate)))
        renderMarginNanos = Int64(max(format.bufferFrames - format.periodFrames, format.periodFrames)) * 1_000_000_000
            / Int64(max(1, format.sampleRate))
    }

    /// Arms the render side for a freshly opened device: frame 0 is guessed to play now.
    func begin(device: any OutputDevice) {
        self.device = device
        nextFrame = 0
        frameOffset = 0
        deviceClock.begin(atNanos: clock.nanos())
        masterGain = 1
        stopTailFrames = -1
        ringOut.reset()
        hasRungOut.store(false, ordering: .relaxed)
        lastFault = nil
        stopRequested.store(false, ordering: .releasing)
        running = true
        deviceClock.publish(nextFrame: nextFrame)
    }

    /// Arms the render side for the pull drive (``HapticEngine/render(into:frames:)``): the
    /// caller's first pulled frame is device frame 0 and plays at time 0 of the pulled clock.
    /// The frames before it — the output stage's look-ahead — are a pre-roll the first pull
    /// renders and drops (as an offline render does), so that a start at time 0, or at once
    /// before the first pull, is heard from the first pulled frame. A restart after `stop()`
    /// continues the timeline (and the clock) where it was.
    func beginPulled(device: any OutputDevice) {
        let continued = pulledTimelineStarted ? nextFrame : -scheduleAdvanceFrames
        pulledTimelineStarted = true
        begin(device: device)
        nextFrame = continued
        deviceClock.pin(frame: 0, atNanos: 0)
        deviceClock.publish(nextFrame: nextFrame)
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
        let oldGrid = deviceClock.grid
        let oldNext = nextFrame
        mixer.drainCommands(all: true)
        begin(device: device)
        let now = clock.nanos()
        let continued = max(oldNext, Int64(oldGrid.frame(forNanos: Double(now)).rounded()))
        frameOffset = continued
        nextFrame = continued
        deviceClock.continueTimeline(oldGrid, atFrame: continued, now: now)
        let gapFrames = continued - oldNext
        let gap = Double(gapFrames) * deviceClock.grid.nanosPerFrame
        mixer.skipPlayingVoices(byNanos: gap)
        deviceClock.expectResync()
        // Starts that fell due while the device was away.
        let window = Int64(min(max(lateWindowSeconds, 0), 3600) * Double(sampleRate))
        let dropped = mixer.dropStarts(before: continued - window, resumingAt: continued, clock: deviceClock, sampleRate: sampleRate)
        droppedOnsetCount.add(dropped, ordering: .relaxed)
        mixer.retireFinished()
        deviceClock.publish(nextFrame: nextFrame)
        return Resumption(gapSeconds: gap / 1e9, droppedOnsets: dropped)
    }

    /// Disarms (after `.stopped` / `.deviceLost`, or when the thread was joined).
    func end() {
        running = false
        device = nil
    }

    /// Ends every voice (engine stop or reset); see ``VoiceMixer/discardAllVoices(reason:)``.
    func discardAllVoices(reason: FinishReason) { mixer.discardAllVoices(reason: reason) }

    /// The applied-command trace (tests).
    func appliedCommands() -> [VoiceMixer.AppliedCommand] { mixer.appliedCommands() }
    func clearTrace() { mixer.clearTrace() }

    // MARK: published values (any thread)

    /// The filter's current rate estimate (ns per device frame on the monotonic clock).
    func measuredNanosPerFrame() -> Double { deviceClock.measuredNanosPerFrame() }

    /// The published mapping; see ``DeviceClockTracker/mappingSnapshot()``.
    func mappingSnapshot() -> (anchorFrame: Int64, anchorNanos: Double, nanosPerFrame: Double, nextFrame: Int64, locked: Bool, settled: Bool,
                               lockedNanos: Double) {
        deviceClock.mappingSnapshot()
    }

    func statistics() -> RenderStatistics {
        statisticsRecorder.statistics(periodSeconds: sampleRate > 0 ? Double(periodFrames) / Double(sampleRate) : 0)
    }

    // MARK: render side

    /// Renders one period and writes it to the device. The render thread calls this
    /// in a loop; tests driving a virtual device call it directly.
    // Not @_noLocks: the compiler counts the retain/release of the device and voice
    // references as possible locks (the zero-allocation test covers this loop instead).
    func renderOnePeriod() -> PeriodOutcome {
        guard running, let device, let output else { return .notRunning }
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
        let finishing = renderBlock(frames: n, into: output)
        let renderEnded = MonotonicClock.nanos()
        statisticsRecorder.record(nanos: renderEnded - started)
        let renderWasSlow = renderEnded - started > renderMarginNanos

        var attempts = 0
        var written = 0
        while let fault = device.write(output + written * channels, frames: n - written) {
            // Frames that reached the device before the fault count: the rest is written after
            // recovery, so the device's frame counter and ours stay equal.
            written += min(max(0, device.framesWrittenBeforeFault), n - written)
            attempts += 1
            switch fault {
            case .xrun, .suspended:
                if case .xrun = fault {
                    xrunCount.add(1, ordering: .relaxed)
                    if renderWasSlow && attempts == 1 { slowRenderXrunCount.add(1, ordering: .relaxed) }
                }
                // -EPIPE that keeps coming back after recovery is a dead server (PipeWire).
                if attempts > 3 || !device.recover(from: fault) { return lose(fault) }
                deviceClock.markResync()
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
            deviceClock.markResync()
        }
        if var stamp = device.timestamp() {
            stamp.framesPlayed += frameOffset
            if let gap = deviceClock.update(stamp, frames: n, nextFrame: nextFrame) {
                mixer.skipPlayingVoices(byNanos: gap)
            }
        }
        deviceClock.publish(nextFrame: nextFrame)
        if finishing {
            running = false
            return .stopped
        }
        return .rendered
    }

    /// Mixes the `n` frames (at most a period) from `nextFrame` into `out`, interleaved: takes
    /// the queued commands in, applies those due in the block at their frames, renders the
    /// voices, the output stage and the stop fade, and hands finished voices back. The device
    /// side (waiting, writing, timestamps) and advancing `nextFrame` are the caller's. True
    /// when the stop fade (and the silence after it) is complete.
    func renderBlock(frames n: Int, into out: UnsafeMutablePointer<Float>) -> Bool {
        let blockStart = nextFrame
        mixer.drainCommands()
        mixer.collectDue(blockStart: blockStart, blockEnd: blockStart + Int64(n), clock: deviceClock,
                         advanceFrames: scheduleAdvanceFrames)
        let mix = mixer.mix.slice(from: 0, count: n)
        VoiceMixer.clear(mix)
        mixer.renderVoices(frames: n, blockStart: blockStart)
        liveInput?.render(into: mix)
        switch outputMode.load(ordering: .relaxed) {
        case 1:
            mix.audioLeft.update(repeating: 0, count: n)
            mix.audioRight.update(repeating: 0, count: n)
        case 2:
            for k in 0..<mix.hapticBusCount { mix.hapticBus(k).update(repeating: 0, count: n) }
        default: break
        }
        if outputStage != nil { outputStage!.process(mix, into: out) }
        let finishing = applyMasterFade(frames: n, output: out)
        // Before voices are retired: the control side that sees a voice finished sees the level after it.
        ringOut.note(out, frames: n, channels: channels)
        hasRungOut.store(ringOut.hasRungOut, ordering: .relaxed)
        mixer.retireFinished()
        return finishing
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
                deviceClock.markResync()
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

    /// Stop fade on the interleaved output; then a buffer's worth of silence so the
    /// fade itself reaches the speaker before the device is closed. True when done.
    private func applyMasterFade(frames n: Int, output: UnsafeMutablePointer<Float>) -> Bool {
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
}
