import Synchronization

/// Where the device's frames play on the monotonic clock, as the render side sees it and as
/// it publishes it: the timestamp filter (``FrameTimeFilter``), the schedule grid scheduled
/// times are converted on (``ScheduleGrid``), the resync after an xrun or a stall, and the
/// seqlock that publishes the mapping to any thread.
///
/// `@unchecked Sendable`: the filter and grid are touched by the render side while it runs and
/// by the control side only while it is stopped (as RenderCore's fields); what other threads
/// read goes through the atomics (`mappingSnapshot()`, `measuredNanosPerFrame()`, `gridCorrections`).
final class DeviceClockTracker: @unchecked Sendable {
    private(set) var filter = FrameTimeFilter(sampleRate: 48_000)
    private(set) var grid = ScheduleGrid()
    private var previousGrid = ScheduleGrid()
    private var sampleRate = 48_000
    /// The grid follows the filter until it has been locked this long (device time, ns).
    private var gridSettleNanos: Double = 500_000_000
    /// After settling, the grid moves only when it is this far from the filter (ns).
    private var gridThresholdNanos: Double = 2_000_000
    /// Added to every scheduled time before conversion: latency the device does not report (ns).
    private(set) var compensationNanos: Double = 0
    /// Locked device time since the filter last (re)locked (ns).
    private var lockedNanos: Double = 0
    /// Times the grid was re-anchored after it had settled (drift corrections and resyncs).
    let gridCorrections = Atomic<Int>(0)
    private var resyncPending = false
    /// Pull drive: the mapping is exact and fixed (``pin(frame:atNanos:)``), and counts as locked.
    private var pinned = false

    // Seqlock-published mapping for the control side.
    private let mapSequence = Atomic<UInt64>(0)
    private let mapAnchorFrame = Atomic<Int64>(0)
    private let mapAnchorNanosBits = Atomic<UInt64>(0)
    private let mapNanosPerFrameBits = Atomic<UInt64>(0)
    private let mapNextFrame = Atomic<Int64>(0)
    private let mapLocked = Atomic<Bool>(false)
    private let mapSettled = Atomic<Bool>(false)
    private let mapFilterNanosPerFrameBits = Atomic<UInt64>(0)
    private let mapLockedNanosBits = Atomic<UInt64>(0)

    // MARK: control side (render side not running)

    func configure(sampleRate newRate: Int, latencyCompensationSeconds: Double, gridThresholdSeconds: Double,
                   gridSettleSeconds: Double) {
        if sampleRate != newRate || filter.updates == 0 {
            filter = FrameTimeFilter(sampleRate: Double(newRate))
        }
        sampleRate = newRate
        compensationNanos = latencyCompensationSeconds * 1e9
        gridThresholdNanos = max(0, gridThresholdSeconds) * 1e9
        gridSettleNanos = max(0, gridSettleSeconds) * 1e9
        if grid.framesPerNano != Double(newRate) / 1e9 { grid = ScheduleGrid(sampleRate: Double(newRate)) }
    }

    /// A freshly opened device: frame 0 is guessed to play at `now`.
    func begin(atNanos now: Int64) {
        pinned = false
        filter.guess(frame: 0, atNanos: now)
        grid.holding = false
        lockedNanos = 0
        followFilter(at: 0)
        resyncPending = false
    }

    /// Pull drive: `frame` plays at `nanos` and the frames follow at exactly the nominal rate,
    /// for good (the clock is the frames pulled; no timestamp ever moves the mapping).
    func pin(frame: Int64, atNanos nanos: Int64) {
        filter.guess(frame: frame, atNanos: nanos)
        followFilter(at: frame)
        grid.holding = true
        resyncPending = false
        pinned = true
    }

    /// A reopened device after a loss: the old grid goes on from `frame`, guessed to play at
    /// `now`; once the filter locks on the new device, the guess is corrected like a resync.
    func continueTimeline(_ oldGrid: ScheduleGrid, atFrame frame: Int64, now: Int64) {
        grid = oldGrid
        grid.holding = false
        filter.guess(frame: frame, atNanos: now)
        followFilter(at: frame)
    }

    /// Expects a resync against the current grid (after `continueTimeline`).
    func expectResync() {
        previousGrid = grid
        resyncPending = true
    }

    // MARK: render side

    /// The grid frame (rounded) that plays at scheduled monotonic time `nanos`, latency
    /// compensation included.
    @inline(__always)
    func frame(forScheduledNanos nanos: Int64) -> Int64 {
        Int64(grid.frame(forNanos: Double(nanos) - compensationNanos).rounded())
    }

    /// A device timestamp after a period of `frames` frames was written (`nextFrame` comes next).
    /// Returns the time (ns) playing voices must move on by when a resync completes, else nil.
    func update(_ stamp: DeviceTimestamp, frames: Int, nextFrame: Int64) -> Double? {
        let wasLocked = filter.isLocked
        filter.update(stamp)
        if wasLocked { lockedNanos += Double(frames) * grid.nanosPerFrame }
        updateGrid(nextFrame: nextFrame)
        if resyncPending && filter.isLocked {
            resyncPending = false
            return grid.nanos(forFrame: nextFrame) - previousGrid.nanos(forFrame: nextFrame)
        }
        return nil
    }

    /// Puts the grid on the filter's estimate at the next frame to render.
    @_noLocks
    private func followFilter(at nextFrame: Int64) {
        grid.anchorFrame = nextFrame
        grid.anchorNanos = filter.nanos(forFrame: nextFrame)
    }

    /// The grid tracks the filter until it has settled, then holds; a disagreement beyond the
    /// threshold moves the anchor by the whole frames of the error (drift, or a resync after
    /// an xrun, whose error is the lost time).
    @_noLocks
    private func updateGrid(nextFrame: Int64) {
        guard filter.isLocked else { return }
        if !grid.holding {
            followFilter(at: nextFrame)
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
    func markResync() {
        if !resyncPending {
            previousGrid = grid
            resyncPending = true
        }
        filter.unlock()
        lockedNanos = 0
        grid.holding = false
    }

    /// Publishes the mapping and `nextFrame` (seqlock write; render side, or control side while stopped).
    func publish(nextFrame: Int64) {
        let s = mapSequence.load(ordering: .relaxed)
        mapSequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        mapAnchorFrame.store(grid.anchorFrame, ordering: .relaxed)
        mapAnchorNanosBits.store((grid.anchorNanos + compensationNanos).bitPattern, ordering: .relaxed)
        mapNanosPerFrameBits.store(grid.nanosPerFrame.bitPattern, ordering: .relaxed)
        mapFilterNanosPerFrameBits.store(filter.nanosPerFrame.bitPattern, ordering: .relaxed)
        mapNextFrame.store(nextFrame, ordering: .relaxed)
        mapLocked.store(pinned || filter.isLocked, ordering: .relaxed)
        mapSettled.store(pinned || (filter.isLocked && grid.holding), ordering: .relaxed)
        mapLockedNanosBits.store((pinned ? Double.infinity : filter.isLocked ? lockedNanos : 0).bitPattern, ordering: .relaxed)
        mapSequence.store(s &+ 2, ordering: .releasing)
    }

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
    /// `lockedNanos`: device time since the filter last (re)locked (infinity when pinned).
    func mappingSnapshot() -> (anchorFrame: Int64, anchorNanos: Double, nanosPerFrame: Double, nextFrame: Int64, locked: Bool, settled: Bool,
                               lockedNanos: Double) {
        while true {
            let before = mapSequence.load(ordering: .acquiring)
            if before & 1 == 1 { continue }
            let a = mapAnchorFrame.load(ordering: .relaxed)
            let t = Double(bitPattern: mapAnchorNanosBits.load(ordering: .relaxed))
            let p = Double(bitPattern: mapNanosPerFrameBits.load(ordering: .relaxed))
            let n = mapNextFrame.load(ordering: .relaxed)
            let l = mapLocked.load(ordering: .relaxed)
            let h = mapSettled.load(ordering: .relaxed)
            let d = Double(bitPattern: mapLockedNanosBits.load(ordering: .relaxed))
            atomicMemoryFence(ordering: .acquiring)
            if mapSequence.load(ordering: .relaxed) == before { return (a, t, p, n, l, h, d) }
        }
    }
}
