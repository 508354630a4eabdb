// The render side of the pull drive: the caller's thread renders into its own buffer, block
// by block, whenever it asks (HapticEngine.render(into:frames:)). No device, no waiting, no
// timestamps: the clock is the frames pulled. Everything here runs on the caller's (possibly
// real-time) thread: no allocation, no locks, no logging, and no waiting — the gate below is
// only ever tried, never waited for, on this side.

/// Who may touch a pulled engine's render side (``RenderCore/pullGate``). A pull enters by
/// moving it from `open` to `pulling` and leaves it `open`; the control side (start, stop)
/// moves it from `open` to `closed` — waiting only for a pull in progress, which is bounded
/// by the frames its caller asked for — and opens it again once the render side is armed.
enum PullGate {
    static let open = 0
    static let pulling = 1
    static let closed = 2
}

/// What one pull did (``HapticEngine/render(into:frames:)``).
public enum PullOutcome: Sendable, Equatable {
    /// Every frame asked for was rendered.
    case rendered
    /// The fade asked for by ``HapticEngine/finishPulling()`` (and a buffer of silence after
    /// it) is complete: the frames after it are silence, and the engine renders no more.
    case finished
    /// The engine is not running (not started yet, or stopped): the frames are silence.
    case notRunning
    /// Another thread is pulling the same engine at this moment (one puller at a time): the
    /// frames are silence and the engine's clock did not move.
    case busy
    /// The engine is not in pull drive: nothing was written.
    case notPulled
}

extension RenderCore {
    /// Renders `frames` frames into `out` (interleaved, `channels` per frame) in blocks of at
    /// most a period, and moves the pulled clock on by them. The first pull first renders the
    /// pre-roll (``beginPulled(device:)``) into the scratch buffer. Leaves `out` untouched on
    /// `.busy` and `.notRunning` (the engine fills it with silence).
    func renderPulled(into out: UnsafeMutablePointer<Float>, frames: Int) -> PullOutcome {
        let (entered, seen) = pullGate.compareExchange(expected: PullGate.open, desired: PullGate.pulling, ordering: .acquiring)
        guard entered else { return seen == PullGate.pulling ? .busy : .notRunning }
        defer { pullGate.store(PullGate.open, ordering: .releasing) }
        guard running, let scratch = output, let clock = pulledClock else { return .notRunning }
        let started = MonotonicClock.nanos()
        var done = 0
        var finishing = false
        while !finishing && nextFrame < 0 {
            let n = min(periodFrames, Int(-nextFrame))
            finishing = renderBlock(frames: n, into: scratch)
            nextFrame += Int64(n)
        }
        while !finishing && done < frames {
            let n = min(periodFrames, frames - done)
            finishing = renderBlock(frames: n, into: out + done * channels)
            nextFrame += Int64(n)
            done += n
            clock.store(frames: nextFrame)
            deviceClock.publish(nextFrame: nextFrame)
        }
        statisticsRecorder.record(nanos: MonotonicClock.nanos() - started)
        guard finishing else { return .rendered }
        (out + done * channels).update(repeating: 0, count: (frames - done) * channels)
        running = false
        return .finished
    }

    /// Control side: takes the render side from the pull drive (waiting for a pull in
    /// progress to end). Idempotent.
    func closePullGate() {
        var rounds = 0
        while true {
            let (closed, seen) = pullGate.compareExchange(expected: PullGate.open, desired: PullGate.closed, ordering: .acquiring)
            if closed || seen == PullGate.closed { return }
            // A pull is rendering: bounded by what its caller asked for.
            rounds += 1
            EngineThread.sleep(seconds: rounds < 1000 ? 0.00001 : 0.0005)
        }
    }

    /// Control side: hands the armed render side to the pull drive.
    func openPullGate() { pullGate.store(PullGate.open, ordering: .releasing) }
}
