// What an engine reports about its timing and its device: latency, the schedule mapping's
// corrections, xruns, stalls, dropped and late commands, render time, voices.

extension HapticEngine {
    /// Seconds from now until a sample rendered for an immediate command reaches the
    /// device output: the next block to render, delayed by the output stage's look-ahead
    /// (`OutputStage.latencyFrames`), on the schedule mapping (latency compensation included).
    public var outputLatency: Double {
        let m = frameMapping
        return max(0, m.time(forFrame: m.nextFrame + core.scheduleAdvanceFrames) - Double(clock.nanos()) / 1e9)
    }

    /// Test support (HapticEngineTesting's `stallRenderThread(seconds:)`): starves the render
    /// thread once, for `seconds`, before its next period (the device runs dry: an xrun,
    /// recovered in place).
    package func requestRenderStall(seconds: Double) {
        core.stallRequestNanos.store(Int64(seconds * 1e9), ordering: .relaxed)
    }

    /// Times the schedule grid was moved after settling (drift corrections, resyncs after xruns).
    public var scheduleCorrectionCount: Int { core.deviceClock.gridCorrections.load(ordering: .relaxed) }

    /// Monotonic seconds at which device frame `frame` plays (the schedule mapping). A start
    /// at T is rendered `outputStageLatencyFrames` before the frame that plays at T, so the
    /// device frame that plays at T carries the onset.
    public func time(forFrame frame: Int64) -> Double { frameMapping.time(forFrame: frame) }

    /// The device's rate relative to nominal as measured against the monotonic clock (1 + drift).
    public var measuredRateRatio: Double {
        let nanosPerFrame = core.measuredNanosPerFrame()
        guard nanosPerFrame > 0 else { return 1 }
        return (1e9 / nanosPerFrame) / Double(configuration.sampleRate)
    }

    /// Underruns recovered since the engine was created.
    public var xrunCount: Int { core.xrunCount.load(ordering: .relaxed) }

    /// Of ``xrunCount``, those met right after a render that took longer than the buffer's
    /// margin (the buffer less the period written): the engine's own render time (its voices,
    /// a live input such as the follower) could have caused them. The others came with the
    /// render on time: the render thread woke late or the device stopped taking frames. A
    /// render preempted by other work counts as slow, so this errs towards blaming the render.
    public var slowRenderXrunCount: Int { core.slowRenderXrunCount.load(ordering: .relaxed) }

    /// Device stalls (no progress within a bounded wait) ridden out in place.
    public var stallCount: Int { core.stallCount.load(ordering: .relaxed) }

    /// Scheduled starts dropped because their time passed while the device was away.
    public var droppedOnsetCount: Int { core.droppedOnsetCount.load(ordering: .relaxed) }

    /// Times the engine reconnected to its device by itself after losing it.
    public var reconnectionCount: Int { control.withLock { $0.lifecycle.reconnections } }

    /// Scheduled commands that arrived after their frame had been rendered (applied at once).
    public var lateCommandCount: Int { core.mixer.lateCommandCount.load(ordering: .relaxed) }

    /// Render time per period.
    public var renderStatistics: RenderStatistics { core.statistics() }

    /// Voices playing or waiting for a scheduled start.
    public var activeVoiceCount: Int { control.withLock { $0.voicesInUse } }
}
