import HapticEngine
import HapticRender
import Synchronization

/// Haptics from live sound: reads a capture stream (``InputDevice``) on the render thread
/// every period, without waiting, and adds drive made from it into the engine's haptic buses
/// (``LiveInput``), before the protection chain. The captured channels chosen are mixed to
/// mono (their mean), queued against the arrivals' jitter (``CaptureQueue``), and made into
/// drive for each actuator of the layout by the mode's processor (`analysis`: ``AnalysisVoice``;
/// `lowpass`: ``CrossoverFilter``). The analysis mode with the earliest timing (the default)
/// analyses what arrives as it is read, ahead of the queue, and plays it from the next block's
/// first sample: a synthesis needs no even stream, so it waits neither for a period of sound nor
/// for the queue's reserve.
///
/// Overruns are recovered in place and counted. A capture that is gone (its server restarted:
/// an error, or no frame at all for `stallSeconds` of output, which is how a sound server's
/// plugin may show it) leaves the output running in silence; the control side reopens it with
/// `reopenIfLost()`.
///
/// `@unchecked Sendable`: the input device and the render-side buffers are touched by the
/// render side while the engine runs, by the control side only while it does not (`open`,
/// `prepare`) or while the render side leaves the device alone (`lost`, in `reopenIfLost`);
/// what other threads read is atomic.
public final class CaptureFollower: LiveInput, @unchecked Sendable {
    /// What the follower follows and how.
    public let settings: FollowSettings
    /// The capture stream.
    public let input: any InputDevice
    /// The rate and period the capture is asked for (the engine's).
    public let sampleRate: Int
    public let periodFrames: Int
    /// Output time without a captured frame after which the capture counts as lost.
    public let stallSeconds: Double
    /// Gain, mute, mode and ducking, changeable from any thread while the follower runs
    /// (read once per render call). Start from `settings`.
    public let controls: FollowControls

    // MARK: any thread
    private let framesFollowed = Atomic<Int>(0)
    private let overruns = Atomic<Int>(0)
    private let underruns = Atomic<Int>(0)
    private let trimmed = Atomic<Int>(0)
    private let losses = Atomic<Int>(0)
    /// The drift servo's ratio − 1, in parts per billion.
    private let correctionPPB = Atomic<Int>(0)
    private let queued = Atomic<Int>(0)
    private let reopens = Atomic<Int>(0)
    private let transients = Atomic<Int>(0)
    private let stampFrames = Atomic<Int64>(-1)
    private let stampNanos = Atomic<Int64>(0)
    private let stampTrigger = Atomic<Int64>(0)
    /// The capture is gone: the render side leaves the device alone until the control side
    /// reopened it (and bumped `generation`).
    private let lost = Atomic<Bool>(false)
    private let generation = Atomic<Int>(0)
    /// Time per render spent reading the capture, and the render's block (frames) it is a part of.
    private let captureReadTimes = RenderStatisticsRecorder()
    private let renderBlockFrames = Atomic<Int>(0)

    // MARK: render side
    private var granted: DeviceFormat?
    private var readBuffer: UnsafeMutablePointer<Float>? = nil
    private var readFrames = 0
    private var mono: UnsafeMutablePointer<Float>? = nil
    private var queue: CaptureQueue? = nil
    private var block: UnsafeMutablePointer<Float>? = nil
    private var work: UnsafeMutablePointer<Float>? = nil
    private var blockFrames = 0
    private var filters: UnsafeMutablePointer<CrossoverFilter>? = nil
    private var filterCount = 0
    /// The analysis mode's processor (nil before `prepare`, or if its settings were refused).
    private var voice: AnalysisVoice? = nil
    /// The analysis mode's drive for the current block, one row of `blockFrames` per actuator.
    private var analysisOut: UnsafeMutablePointer<Float>? = nil
    private var selected: UnsafeMutablePointer<Int>
    private var selectedCount = 0
    private var seenGeneration = 0
    /// Counts of the queues before the current one (the engine prepares a new one when it
    /// reopens its output), so that the totals do not start over.
    private var underrunsBefore = 0
    private var droppedBefore = 0
    private var transientsBefore = 0
    /// The queue's dropped frames (trimmed and overflowed) after the last block (the analysis
    /// mode hears a cut where they grew).
    private var droppedSeen = 0
    /// Output frames rendered since the capture last gave a frame, and the bound on them.
    private var framesWithoutCapture = 0
    private let stallFrames: Int
    /// Runtime controls, render side: the level per sample, the mode in use and the one faded
    /// out after a switch (`modes` is `FollowMode.allCases`, read without allocating).
    private var level: FollowLevel
    private var levels: UnsafeMutablePointer<Float>? = nil
    private var fadeWeights: UnsafeMutablePointer<Float>? = nil
    private var fadeOut: UnsafeMutablePointer<Float>? = nil
    private let modes: UnsafeMutablePointer<FollowMode>
    private let modeCount: Int
    private var modeIndex: Int
    private var fadingModeIndex = 0
    private var fadeLeft = 0
    private let fadeFrames: Int
    /// The analysis mode's timing is `.earliest` (`settings.timing`).
    private let earliest: Bool

    /// - Parameters: `sampleRate`, `periodFrames`: the engine's (the capture must run at its rate).
    public init(input: any InputDevice, settings: FollowSettings, sampleRate: Int, periodFrames: Int, stallSeconds: Double = 0.5) {
        self.input = input
        self.settings = settings
        self.sampleRate = sampleRate
        self.periodFrames = max(1, periodFrames)
        self.stallSeconds = stallSeconds
        stallFrames = max(1, Int(min(max(stallSeconds, 0), 3600) * Double(max(1, sampleRate))))
        selected = .allocate(capacity: max(1, settings.inputChannels.count))
        controls = FollowControls(checkedElsewhere: settings)
        level = FollowLevel(sampleRate: sampleRate, startingGain: controls.snapshot().gain)
        let all = FollowMode.allCases
        modeCount = all.count
        modes = .allocate(capacity: all.count)
        modes.initialize(from: Array(all), count: all.count)
        modeIndex = controls.snapshot().modeIndex
        fadeFrames = max(1, sampleRate / 200)  // 5 ms
        earliest = settings.timing == .earliest
    }

    deinit {
        input.close()
        freeCaptureBuffers()
        freeRenderBuffers()
        selected.deallocate()
        modes.deinitialize(count: modeCount)
        modes.deallocate()
    }

    /// The capture's format (nil before `open`).
    public var captureFormat: DeviceFormat? { granted }

    /// The capture period asked for with an output period of `periodFrames`: a quarter of it,
    /// at least 64 frames (1.3 ms at 48 kHz; never more than the output's). A captured frame
    /// waits for the rest of its fragment before it can be read, half a fragment on average,
    /// so a fragment of a quarter period takes 3/8 of a period off every hit (a sound server
    /// renders a monitor in blocks no larger than its capture streams ask for).
    public static func capturePeriod(forOutputPeriod periodFrames: Int) -> Int {
        max(min(64, periodFrames), periodFrames / 4)
    }

    /// Opens the capture (control side, before the engine starts): asks for the engine's rate,
    /// a quarter of its period (`capturePeriod(forOutputPeriod:)`), with room for eight output
    /// periods, and for `settings.captureChannels` channels (or
    /// what the device takes of mono and the highest channel followed). Throws when it cannot be
    /// opened, runs at another rate, or has fewer channels than a channel followed.
    @discardableResult
    public func open() throws(DeviceOpenError) -> DeviceFormat {
        let requested = DeviceFormat(
            channels: settings.captureChannels, sampleRate: sampleRate,
            periodFrames: Self.capturePeriod(forOutputPeriod: periodFrames), bufferFrames: 8 * periodFrames)
        let format = try input.open(requested: requested)
        if format.sampleRate != sampleRate {
            input.close()
            throw DeviceOpenError(
                device: input.name,
                message: "the capture runs at \(format.sampleRate) Hz and the output at \(sampleRate) Hz (a capture at another rate is not resampled yet)")
        }
        if let beyond = settings.inputChannels.first(where: { $0 < 0 || $0 >= format.channels }) {
            input.close()
            throw DeviceOpenError(
                device: input.name,
                message: "channel \(beyond + 1) cannot be followed: the capture has \(format.channels) channel(s)")
        }
        freeCaptureBuffers()
        granted = format
        readFrames = max(format.periodFrames, periodFrames)
        readBuffer = .allocate(capacity: readFrames * format.channels)
        mono = .allocate(capacity: readFrames)
        let channels = settings.inputChannels.isEmpty ? Array(0..<format.channels) : settings.inputChannels
        selected.deallocate()
        selected = .allocate(capacity: channels.count)
        for (i, c) in channels.enumerated() { selected[i] = c }
        selectedCount = channels.count
        return format
    }

    public func prepare(sampleRate: Int, periodFrames: Int, actuators: [ActuatorProfile]) {
        freeRenderBuffers()
        blockFrames = max(1, periodFrames)
        renderBlockFrames.store(blockFrames, ordering: .relaxed)
        queue = CaptureQueue(period: blockFrames, window: max(blockFrames, sampleRate / 4), correctsDrift: true)
        droppedSeen = 0
        block = .allocate(capacity: blockFrames)
        work = .allocate(capacity: blockFrames)
        levels = .allocate(capacity: blockFrames)
        fadeWeights = .allocate(capacity: blockFrames)
        fadeOut = .allocate(capacity: blockFrames)
        filterCount = max(1, actuators.count)
        filters = .allocate(capacity: filterCount)
        for k in 0..<filterCount {
            let profile = actuators.isEmpty ? ActuatorProfile(name: "default") : actuators[k]
            (filters! + k).initialize(to: CrossoverFilter(profile: profile, sampleRate: Double(sampleRate)))
        }
        analysisOut = .allocate(capacity: filterCount * blockFrames)
        analysisOut!.initialize(repeating: 0, count: filterCount * blockFrames)
        // (The staggered analyser serves the earliest timing only.)
        voice = try? AnalysisVoice(
            analysis: settings.analysisSettings(sampleRate: Double(sampleRate)), maxBlock: blockFrames, actuators: actuators,
            staggered: earliest)
    }

    // MARK: render side

    public func render(into bus: MixBus) {
        guard let block, let work, let levels, let fadeWeights, let fadeOut, queue != nil else { return }
        let controls = controls.snapshot()
        switchMode(to: controls.modeIndex)
        let readStarted = MonotonicClock.nanos()
        let analysisNanos = pull(frames: bus.frames)
        captureReadTimes.record(nanos: MonotonicClock.nanos() - readStarted - analysisNanos)
        var done = 0
        while done < bus.frames {
            let n = min(blockFrames, bus.frames - done)
            let droppedAtTake = queue!.droppedFrames
            let given = queue!.take(into: block, n)
            framesFollowed.add(given, ordering: .relaxed)
            level.fill(levels, n, voicesIn: bus, at: done, controls: controls)
            let fading = fadeLeft > 0
            if fading { fillFadeWeights(fadeWeights, n) }
            // Frames the queue dropped since the last block (or in this one) cut the stream.
            let dropped = queue!.droppedFrames
            let spliced = droppedAtTake != droppedSeen || dropped != droppedAtTake
            droppedSeen = dropped
            if analysing {
                if earliest { analyseEarliest(n) } else { analyse(given, of: n, spliced: spliced) }
            }
            for k in 0..<min(bus.hapticBusCount, filterCount) {
                let target = bus.hapticBus(k) + done
                let source: UnsafeMutablePointer<Float>
                if k + 1 == filterCount {
                    source = block  // the last actuator may filter the block itself
                } else {
                    work.update(from: block, count: n)
                    source = work
                }
                if fading {
                    // After a mode switch the old mode's drive fades out as the new one's fades in.
                    fadeOut.update(from: source, count: n)
                    shape(modes[fadingModeIndex], actuator: k, fadeOut, n)
                    shape(modes[modeIndex], actuator: k, source, n)
                    for i in 0..<n { target[i] += levels[i] * (source[i] + fadeWeights[i] * (fadeOut[i] - source[i])) }
                } else {
                    shape(modes[modeIndex], actuator: k, source, n)
                    for i in 0..<n { target[i] += levels[i] * source[i] }
                }
            }
            if fading { fadeLeft = max(0, fadeLeft - n) }
            done += n
        }
        underruns.store(underrunsBefore + queue!.underruns, ordering: .relaxed)
        trimmed.store(droppedBefore + queue!.droppedFrames, ordering: .relaxed)
        correctionPPB.store(Int((queue!.learntRateDifference * 1e9).rounded()), ordering: .relaxed)
        queued.store(queue!.count, ordering: .relaxed)
        if let voice { transients.store(transientsBefore + voice.transientsStarted, ordering: .relaxed) }
    }

    /// Whether the analysis mode is heard (in use, or fading out after a switch).
    private var analysing: Bool {
        modes[modeIndex] == .analysis || (fadeLeft > 0 && modes[fadingModeIndex] == .analysis)
    }

    /// The analysis mode's drive for this block of `n` frames with the earliest timing, every
    /// actuator's, into `analysisOut`: what `pull` analysed as it arrived, played from the
    /// block's first sample. Render thread.
    private func analyseEarliest(_ n: Int) {
        guard let voice, let drive = clearedAnalysisDrive() else { return }
        voice.renderEarliest(count: n, into: drive, at: 0)
    }

    /// `analysisOut` cleared, as a bus with a row of `blockFrames` per actuator.
    private func clearedAnalysisDrive() -> MixBus? {
        guard let analysisOut else { return nil }
        analysisOut.update(repeating: 0, count: filterCount * blockFrames)
        var drive = MixBus(haptic: analysisOut, audioLeft: analysisOut, audioRight: analysisOut, frames: blockFrames)
        drive.hapticBusCount = filterCount
        drive.hapticStride = blockFrames
        return drive
    }

    /// The analysis mode's drive for this block of `n` frames with the steady timing, every
    /// actuator's, into `analysisOut`: the voice analyses only the `given` frames captured (the silence a starved
    /// queue fills in is no sound, and the sound's return after it would be taken for a hit),
    /// and bridges the rest (``AnalysisVoice/bridge(count:into:at:)``). Render thread.
    private func analyse(_ given: Int, of n: Int, spliced: Bool) {
        guard let voice, let drive = clearedAnalysisDrive() else { return }
        if spliced { voice.noteSplice(within: given) }
        voice.render(block!, count: given, into: drive, at: 0)
        if given < n { voice.bridge(count: n - given, into: drive, at: given) }
    }

    /// Runs mode `mode`'s processing for actuator `k` on `n` samples in place: the one place
    /// a mode's processor is called. Render thread.
    @inline(__always)
    private func shape(_ mode: FollowMode, actuator k: Int, _ samples: UnsafeMutablePointer<Float>, _ n: Int) {
        switch mode {
        case .lowpass: filters![k].process(samples, n)
        case .analysis:
            if let analysisOut { samples.update(from: analysisOut + k * blockFrames, count: n) } else { samples.update(repeating: 0, count: n) }
        }
    }

    /// Makes `mode` the mode in use, its processing started from silence. Render thread.
    private func activate(_ mode: FollowMode) {
        switch mode {
        case .lowpass: for k in 0..<filterCount { filters![k].reset() }
        case .analysis: voice?.reset()
        }
    }

    /// A mode asked for that is not the one in use: the old one fades out over `fadeFrames`
    /// while the new one, started afresh, fades in (a switch during a fade starts a new fade
    /// from the mode heard most). Render thread.
    private func switchMode(to index: Int) {
        guard index != modeIndex, index >= 0, index < modeCount else { return }
        let heard = fadeLeft > fadeFrames / 2 ? fadingModeIndex : modeIndex
        modeIndex = index
        if heard == index {
            fadeLeft = 0  // back to the mode mostly heard during a fade: its processing goes on
            return
        }
        fadingModeIndex = heard
        fadeLeft = fadeFrames
        activate(modes[index])
    }

    /// The old mode's weight for the next `n` samples of the fade (1 → 0, then 0).
    private func fillFadeWeights(_ weights: UnsafeMutablePointer<Float>, _ n: Int) {
        let step = 1 / Float(fadeFrames)
        for i in 0..<n { weights[i] = max(0, Float(fadeLeft - i) * step) }
    }

    /// Reads what the capture has (bounded by the queue's room), mixes it to mono and queues it
    /// (with the earliest timing, also analyses it). Returns the time spent analysing (ns), which
    /// is no capture read.
    private func pull(frames: Int) -> Int64 {
        // `lost` first: once it reads false again, the reopen's generation is visible too.
        guard !lost.load(ordering: .acquiring), let readBuffer, let mono else { return 0 }
        var analysisNanos: Int64 = 0
        let current = generation.load(ordering: .acquiring)
        if current != seenGeneration {
            // Reopened by the control side: what was queued belongs to the old stream.
            seenGeneration = current
            queue!.reset()
            framesWithoutCapture = 0
            noteCaptureCut()
        }
        let channels = granted?.channels ?? 1
        var rounds = queue!.capacity / readFrames + 2
        var arrived = 0
        while rounds > 0 {
            rounds -= 1
            switch input.read(into: readBuffer, frames: readFrames) {
            case .frames(let got):
                if got == 0 { rounds = 0; break }
                let scale = 1 / Float(selectedCount)
                for f in 0..<got {
                    var sum: Float = 0
                    for s in 0..<selectedCount { sum += readBuffer[f * channels + selected[s]] }
                    mono[f] = sum * scale
                }
                queue!.append(mono, got)
                // The earliest timing analyses the sound as it arrives, ahead of the queue.
                if earliest && analysing, let voice {
                    let started = MonotonicClock.nanos()
                    voice.analyse(mono, count: got)
                    analysisNanos += MonotonicClock.nanos() - started
                }
                arrived += got
                if got < readFrames { rounds = 0 }
            case .fault(let fault):
                if case .xrun = fault {
                    overruns.add(1, ordering: .relaxed)
                    noteCaptureCut()
                }
                if !input.recover(from: fault) {
                    losses.add(1, ordering: .relaxed)
                    lost.store(true, ordering: .releasing)
                }
                rounds = 0
            }
        }
        queue!.noteArrival(arrived)
        framesWithoutCapture = arrived > 0 ? 0 : framesWithoutCapture + frames
        if framesWithoutCapture > stallFrames && !lost.load(ordering: .relaxed) {
            losses.add(1, ordering: .relaxed)
            lost.store(true, ordering: .releasing)
        }
        if let stamp = input.timestamp() {
            stampFrames.store(stamp.framesCaptured, ordering: .relaxed)
            stampNanos.store(stamp.monotonicNanos, ordering: .relaxed)
            stampTrigger.store(stamp.triggerNanos, ordering: .relaxed)
        }
        return analysisNanos
    }

    /// The captured stream was cut (an overrun lost frames, or the capture was reopened): with
    /// the earliest timing the voice, which hears the stream as it arrives, judges hits near the
    /// cut as it judges a splice (the steady timing hears cuts where the queue drops frames).
    private func noteCaptureCut() {
        if earliest { voice?.noteCaptureGap() }
    }

    // MARK: control side

    /// Whether the capture is lost (waiting for `reopenIfLost()`).
    public var isLost: Bool { lost.load(ordering: .acquiring) }

    /// When the capture is lost, tries once to reopen it (same request; the same channel count
    /// must come back); true when it follows again. Control side, any time.
    public func reopenIfLost() -> Bool {
        guard lost.load(ordering: .acquiring), let old = granted else { return false }
        input.close()
        do {
            let format = try input.open(requested: old)
            guard format.channels == old.channels, format.sampleRate == old.sampleRate else {
                input.close()
                return false
            }
        } catch {
            return false
        }
        generation.add(1, ordering: .releasing)
        reopens.add(1, ordering: .relaxed)
        lost.store(false, ordering: .releasing)
        return true
    }

    /// What has been counted so far.
    public var statistics: FollowStatistics {
        let frames = stampFrames.load(ordering: .relaxed)
        return FollowStatistics(
            framesFollowed: framesFollowed.load(ordering: .relaxed), overruns: overruns.load(ordering: .relaxed),
            underruns: underruns.load(ordering: .relaxed), trimmedFrames: trimmed.load(ordering: .relaxed),
            captureLosses: losses.load(ordering: .relaxed), captureReopens: reopens.load(ordering: .relaxed),
            captureRateCorrectionPPM: Double(correctionPPB.load(ordering: .relaxed)) / 1000,
            queuedFrames: queued.load(ordering: .relaxed),
            transients: transients.load(ordering: .relaxed),
            captureReads: captureReadTimes.statistics(
                periodSeconds: Double(renderBlockFrames.load(ordering: .relaxed)) / Double(max(1, sampleRate))),
            lastTimestamp: frames < 0 ? nil : CaptureTimestamp(
                framesCaptured: frames, monotonicNanos: stampNanos.load(ordering: .relaxed),
                triggerNanos: stampTrigger.load(ordering: .relaxed)))
    }

    private func freeCaptureBuffers() {
        readBuffer?.deallocate()
        readBuffer = nil
        mono?.deallocate()
        mono = nil
    }

    private func freeRenderBuffers() {
        if let queue {
            underrunsBefore += queue.underruns
            droppedBefore += queue.droppedFrames
        }
        queue?.deallocate()
        queue = nil
        if let voice { transientsBefore += voice.transientsStarted }
        voice = nil
        block?.deallocate()
        block = nil
        work?.deallocate()
        work = nil
        levels?.deallocate()
        fadeWeights?.deallocate()
        fadeOut?.deallocate()
        analysisOut?.deallocate()
        analysisOut = nil
        levels = nil
        fadeWeights = nil
        fadeOut = nil
        if let filters {
            filters.deinitialize(count: filterCount)
            filters.deallocate()
        }
        filters = nil
    }
}
