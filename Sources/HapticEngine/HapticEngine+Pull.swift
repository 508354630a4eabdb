// The pull drive: an engine whose caller pulls the samples into its own buffer instead of a
// render thread writing them to a device — for programs that mix their own audio (a game
// engine's audio thread, SDL's audio streams, a DualSense's four-channel stream) and for
// offline renders (HapticKit's `rhythm -o`, the C library's offline engine). Everything else
// is the live engine's: players, scheduling, the mixer and the output stage, so a pulled
// engine renders what a live one plays.

extension HapticEngine.Configuration {
    /// `base` for an engine in pull drive (``HapticEngine/init(pulling:)``): no render thread
    /// (the caller renders with ``HapticEngine/render(into:frames:)``), no SCHED_FIFO, no memory
    /// locking, and the engine's clock is the frames pulled (seconds from the first pulled
    /// frame). `periodFrames` is the largest block rendered at once (a pull of any length is
    /// rendered in blocks of at most that many frames); `bufferPeriods` only sizes the silence
    /// after ``HapticEngine/finishPulling()``'s fade.
    public static func pulled(_ base: HapticEngine.Configuration = HapticEngine.Configuration()) -> HapticEngine.Configuration {
        var configuration = base
        configuration.drive = .pull
        configuration.realtimePriority = nil
        configuration.lockMemory = false
        return configuration
    }

    /// Whether the engine is in pull drive (``pulled(_:)``).
    public var isPulled: Bool { drive == .pull }
}

extension HapticEngine {
    /// An engine in pull drive on a ``PulledOutput``: start it, then pull its samples with
    /// ``render(into:frames:)``. Times (`atTime:`) are seconds from the first pulled frame:
    /// a start at time T is heard from pulled frame round(T·fs) exactly (before the first pull,
    /// "at once" is time 0). Auto-shutdown does not apply; nothing reconnects (nothing is lost).
    ///
    /// The control side's service step (finished voices handed back, completion handlers,
    /// ``notifyWhenPlayersFinished(_:)``) has no thread of its own here: call
    /// ``serviceStep()`` from the controlling thread now and then (HapticKit and the C library
    /// do it on their calls).
    public convenience init(pulling configuration: Configuration) {
        self.init(configuration: .pulled(configuration)) { PulledOutput() }
    }

    /// Pull drive: renders the next `frames` frames into `buffer` (interleaved, the layout's
    /// channels per frame; `frames` × channels floats) and moves the engine's clock on by them.
    /// Real-time safe: no allocation, no lock, no wait, whatever happens. One thread pulls at a
    /// time (a second one gets `.busy`); control calls may come from any thread meanwhile.
    /// On `.notRunning` and `.busy` the buffer is filled with silence; on `.notPulled` (an
    /// engine with a render thread) it is left alone.
    public func render(into buffer: UnsafeMutablePointer<Float>, frames: Int) -> PullOutcome {
        guard pulledClock != nil else { return .notPulled }
        guard frames > 0 else { return .rendered }
        let outcome = core.renderPulled(into: buffer, frames: frames)
        if outcome == .busy || outcome == .notRunning { buffer.update(repeating: 0, count: frames * outputChannels) }
        return outcome
    }

    /// Pull drive: the next pulls fade the output out over `stopFadeSeconds` and render a
    /// buffer of silence after it, then report `.finished` (an offline render's clean end).
    /// Then `stop()` the engine.
    public func finishPulling() {
        guard pulledClock != nil else { return }
        core.stopRequested.store(true, ordering: .releasing)
    }

    /// Pull drive: the frames pulled so far (0 for other engines).
    public var framesPulled: Int64 { pulledClock?.frames ?? 0 }
}
