// Frame-level views of the engine for lockstep measurements (the rhythm command, the
// two-device mode of HapticManager, their tests and benchmark). Added as an extension by
// the rhythm work; it only reads existing internals (the published mapping, the render
// side's applied-command trace) and changes nothing on the render path.

import HapticRender

/// A snapshot of an engine's frame ↔ CLOCK_MONOTONIC mapping when the last period was written:
/// the schedule grid the render side converts times with (``ScheduleGrid``), latency
/// compensation included. Its rate is the nominal one; the filter's measured rate is
/// ``HapticEngine/measuredRateRatio``.
public struct FrameMapping: Sendable, Equatable {
    /// Frame at the anchor point.
    public var anchorFrame: Int64
    /// Monotonic nanoseconds at which `anchorFrame` plays.
    public var anchorNanos: Double
    /// Nanoseconds per device frame on the grid (1e9 / nominal rate).
    public var nanosPerFrame: Double
    /// The next frame the render side will render.
    public var nextFrame: Int64
    /// Whether a device timestamp has set the mapping (otherwise it is the start-up guess).
    public var isLocked: Bool
    /// Whether the schedule grid has settled: it holds its anchor and moves only by the
    /// corrections ``HapticEngine/scheduleCorrectionCount`` counts (before, it follows the
    /// timestamp filter period by period). Starts scheduled Δ apart after it are round(Δ·fs)
    /// frames apart unless a correction falls between them.
    public var isSettled: Bool = false
    /// Device seconds since a timestamp last (re)locked the mapping: 0 before, infinity for a
    /// pull-driven device (its mapping is exact from the start).
    public var lockedSeconds: Double = 0

    /// Monotonic seconds at which `frame` plays.
    public func time(forFrame frame: Int64) -> Double {
        (anchorNanos + Double(frame - anchorFrame) * nanosPerFrame) / 1e9
    }

    /// The (fractional) device frame that plays at `time` (monotonic seconds).
    public func exactFrame(forTime time: Double) -> Double {
        Double(anchorFrame) + (time * 1e9 - anchorNanos) / nanosPerFrame
    }

    /// The device frame a start at `time` is rendered at under this mapping (rounded the
    /// way the render side rounds it).
    public func frame(forTime time: Double) -> Int64 {
        Int64(exactFrame(forTime: (time * 1e9).rounded() / 1e9).rounded())
    }
}

/// A command the render side applied, with the device frame it took effect at
/// (recorded only when ``HapticEngine/Configuration/appliedCommandTraceCapacity`` > 0).
public struct AppliedStart: Sendable, Equatable {
    /// The voice slot (slots are reused once a voice has finished).
    public var slot: Int32
    /// The device frame at which the voice started.
    public var frame: Int64
}

extension HapticEngine.Configuration {
    /// How many applied commands the render side records (preallocated; 0 = none). The
    /// record fills up and then stops (it is not a ring). Read it with
    /// ``HapticEngine/appliedStarts()`` once the render side is not running.
    public var appliedCommandTraceCapacity: Int {
        get { commandTraceCapacity }
        set { commandTraceCapacity = max(0, newValue) }
    }
}

extension HapticEngine {
    /// The name of the device handle the engine holds (nil before the first start).
    public var deviceName: String? { control.withLock { $0.device?.device.name } }

    /// The current frame ↔ monotonic mapping.
    public var frameMapping: FrameMapping {
        let m = core.mappingSnapshot()
        return FrameMapping(anchorFrame: m.anchorFrame, anchorNanos: m.anchorNanos, nanosPerFrame: m.nanosPerFrame,
                            nextFrame: m.nextFrame, isLocked: m.locked, isSettled: m.settled, lockedSeconds: m.lockedNanos / 1e9)
    }

    /// The device frame a start at `time` (monotonic seconds) would be rendered at under the
    /// current mapping. The render side converts with the mapping of the period that renders
    /// it, which the filter may have moved a little since. Pass it (plus whole frames) to
    /// ``PatternPlayer/start(atFrame:)`` to schedule on the device's own clock.
    public func frame(forTime time: Double) -> Int64 { frameMapping.frame(forTime: time) }

    /// Frames by which the device output lags the render (the output stage's limiter look-ahead):
    /// a voice started at frame `f` reaches the device at frame `f + outputStageLatencyFrames`.
    public var outputStageLatencyFrames: Int {
        OutputStageLatency.frames(profile: configuration.profile, sampleRate: configuration.sampleRate,
                                  layout: configuration.layout)
    }

    /// The voice slot a player's current playback occupies (nil when none is playing or
    /// scheduled). Read it right after `start(atTime:)` to match the player with
    /// ``appliedStarts()`` later.
    public func slot(of player: PatternPlayer) -> Int32? {
        player.settings.withLock { $0.current?.slot }
    }

    /// Every voice start the render side applied, oldest first, with its device frame
    /// (needs ``Configuration/appliedCommandTraceCapacity``). Call it only while the render
    /// side is not running: after `stop()`, or from the thread that drives a `.manual` engine.
    public func appliedStarts() -> [AppliedStart] {
        core.appliedCommands().compactMap { $0.kind == .start ? AppliedStart(slot: $0.slot, frame: $0.frame) : nil }
    }
}

/// The output stage's latency for a configuration (built on demand: measurements ask rarely).
enum OutputStageLatency {
    static func frames(profile: ActuatorProfile, sampleRate: Int, layout: ChannelLayout) -> Int {
        OutputStage(profile: profile, sampleRate: Double(sampleRate), layout: layout).latencyFrames
    }
}
