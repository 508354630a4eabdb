import HapticAnalysis
import HapticDSP
import HapticRender

/// At most this many transients sound at once on one actuator of an ``AnalysisVoice`` (hits are
/// at least the analysis's minimum gap apart; one more replaces the oldest). Computed globals:
/// no lazy initialisation on the render path.
private var burstCapacity: Int { @_noLocks @inline(__always) get { 4 } }
/// Hits an ``AnalysisVoice`` remembers for the ducking (the dip lasts 26 ms).
private var duckCapacity: Int { @_noLocks @inline(__always) get { 4 } }
/// Hits the earliest placement holds between two blocks (hits are at least the minimum gap
/// apart, and a block's arrivals span a few periods; the newest are kept).
private var pendingCapacity: Int { @_noLocks @inline(__always) get { 8 } }

/// The `analysis` mode's processor: the captured sound analysed as it arrives (HapticAnalysis's
/// ``StreamingAnalyzer``: a loudness follower, hits, sharpness from the spectrum) and made into
/// drive in each actuator's band with the renderer's own kernels, as `convert` would make a
/// pattern of it and `play` render that, sample by sample:
///
/// - a continuous layer: the loudness as the intensity (through the profile's intensity law),
///   ramped over a hop from one feature frame to the next; the sharpness as the frequency (the
///   profile's sharpness → Hz); silent where the sound is below the gate. Its oscillator is
///   the continuous events' (`addOscillator`), its phase anchored on absolute sample indices
///   and re-anchored when the frequency changes, so an hour of it does not drift;
/// - every hit a transient: the renderer's burst for its intensity and sharpness
///   (`TransientGeometry`, `transientLanes`), from the sample on which the hit was decided.
///   Decided on the onset's rise (``HitDecision/onRise``), a hit may not have reached its peak:
///   for four hops (the span the analyser's own peak would look at) the burst's amplitude grows
///   with the sound's peak, slewed by at most full scale per millisecond;
/// - the continuous layer ducked under each transient by `convert`'s dip (`duckingDepth`: the same
///   share of the amplitude, here of the drive's), and
///   at the transient's frequency while it sounds (so that the two add up instead of beating);
/// - every burst starting on its carrier's crest, and the continuous layer brought into step with
///   it half a millisecond in, through a notch to zero (no step in the drive). A burst that
///   started where the vibration under it was (the two in step from the first sample) rose from
///   whatever phase that was: from a zero crossing, its carrier and its envelope (a quarter
///   period's rise) grew together, and the hit was felt up to 5 ms later than one started on a
///   crest: most of the felt latency's spread.
///
/// Two placements (``FollowTiming``). Steady (`render`, `bridge`): output sample n depends on
/// the captured samples up to n only (a frame or a hit takes effect on the sample after the last
/// one it saw), so how the sound is cut into blocks changes nothing. Earliest (`analyse` as the
/// sound arrives, `renderEarliest` per block): what was analysed takes effect on the next
/// block's first sample, up to a period sooner, with the growing burst's peak watched as the
/// sound arrives. The earliest placement also runs a second analyser whose hops end half a hop
/// later (the staggered analyser): a hit is decided at a hop's end, and the sound arrives in
/// fragments that end anywhere, so with two sets of hop ends a fragment's last samples wait
/// at most half a hop, not a whole one, for a decision. Each onset is kept once, from whichever
/// analyser decided it first.
///
/// Everything is allocated in `init`. `render`, `analyse` and `renderEarliest` allocate nothing,
/// take no lock and run in steps bounded by what they are given (and by the few bursts an
/// actuator holds at once). Render thread.
final class AnalysisVoice {
    /// One actuator's synthesis: its tables and its oscillator's and bursts' state.
    struct Band {
        /// Sharpness → Hz (`renderTableSize + 1` entries, the profile's band on a log scale).
        let frequencyTable: UnsafeMutablePointer<Double>
        /// Intensity → amplitude by the profile's law (`renderTableSize + 1` entries).
        let amplitudeTable: UnsafeMutablePointer<Float>
        let rule: TransientRule
        /// The continuous oscillator: phase = phaseAnchor + (n - anchorSample) · inc.
        var phaseAnchor = 0.0
        var anchorSample: Int64 = 0
        var inc = -1.0
        /// The transients sounding.
        let bursts: UnsafeMutablePointer<Burst>
        var burstCount = 0
    }

    /// A sounding transient.
    struct Burst {
        var start: Int64
        var shape: TransientGeometry
        /// Its amplitude now, and the amplitude the sound's peak so far asks for.
        var amplitude: Float
        var target: Float
        /// The largest captured sample since the hit (linear), watched until `growUntil`.
        var peak: Float
        var growUntil: Int64
        /// The carrier's phase at the start (cycles): its crest on the first sample.
        var phase: Double
        /// The earliest placement: the serial of the ``Growth`` its amplitude follows (-1: none;
        /// the steady placement follows the captured samples aligned with its own).
        var growth: Int
    }

    /// The earliest placement: the captured peak after a hit, watched while the sound arrives
    /// (the burst may already sound), from the sample it was decided on for four hops.
    struct Growth {
        var serial: Int
        var from: Int64
        var until: Int64
        var peak: Float
    }

    let analyzer: StreamingAnalyzer
    /// The same analyser, reached on the render thread without reference counting (`analyzer`
    /// keeps it alive as long as the voice).
    private unowned(unsafe) let analyzing: StreamingAnalyzer
    /// The earliest placement's second analyser: the same settings, its stream `stagger`
    /// samples of silence ahead of the captured one, so that its hops end between the first's
    /// (nil: one analyser only: the steady timing, which does not use it, and comparisons).
    private let staggeredAnalyzer: StreamingAnalyzer?
    private unowned(unsafe) let staggered: StreamingAnalyzer?
    /// Half a hop: the staggered analyser's index of captured sample i is i + stagger.
    private let stagger: Int
    /// The latest onset kept: where it was decided (captured samples), and by which analyser. A
    /// hit the other analyser decides within `sameOnsetSpan` of it is that onset again.
    private var lastOnsetDecidedAt: Int64 = -1 << 40
    private var lastOnsetStaggered = false
    private let sameOnsetSpan: Int64
    let sampleRate: Double
    let hop: Int
    /// How far the continuous layer gives way under a transient: a share of the drive's amplitude
    /// (`convert`'s default).
    let ducking: Double
    private let bands: UnsafeMutablePointer<Band>
    let bandCount: Int
    private let maxBlock: Int
    /// Per block: the continuous intensity and the ducking gain per sample, one actuator's
    /// amplitude row, and where the sharpness changes (offsets and values).
    private let intensityRow: UnsafeMutablePointer<Float>
    private let duckRow: UnsafeMutablePointer<Float>
    private let amplitudeRow: UnsafeMutablePointer<Float>
    private let segmentStart: UnsafeMutablePointer<Int>
    private let segmentSharpness: UnsafeMutablePointer<Double>
    /// Whether the continuous oscillator is brought into step with the latest burst where a segment starts.
    private let segmentInStep: UnsafeMutablePointer<Bool>
    private let segmentCapacity: Int
    /// Start samples of the latest hits (a ring).
    private let duckStarts: UnsafeMutablePointer<Int64>
    private var duckNext = 0
    private let duckSamples: Int64
    /// A burst's amplitude grows by at most this much per sample.
    private let growthPerSample: Float

    /// Absolute index of the next captured sample.
    private(set) var position: Int64 = 0
    /// The continuous intensity now, and its ramp to the latest frame's.
    private var level: Float = 0
    private var target: Float = 0
    private var step: Float = 0
    private var rampLeft = 0
    private var sharpness = 0.0
    /// The latest hit's sharpness, which the continuous layer takes while its burst sounds.
    private var heldSharpness = 0.0
    /// The latest burst's start (long before the stream's start while there is none).
    private var holdFrom: Int64 = -1 << 40
    /// The continuous layer comes into step with the latest burst `notch` samples after its
    /// start (`holdFrom`), at the bottom of a notch from the burst's start to `notch` after that.
    private let notch: Int64
    private var holdUntil: Int64 = 0
    /// Transients started since `init`.
    private(set) var transientsStarted = 0
    /// Until this sample, a hit must be louder than `spliceLevel` × 1.41 to be played (`noteSplice`).
    private var spliceUntil: Int64 = 0
    private var spliceLevel: Float = 0
    private let spliceLookBack: Int64
    /// The voice's timeline (`position`, output samples) minus the analyser's (captured samples):
    /// the samples bridged so far (`bridge`). Hits and feature frames are placed by it.
    private var skew: Int64 = 0
    /// Bridged samples in a row, and how many are held at the last level before it fades.
    private var bridgedRun = 0
    private let bridgeHold: Int
    /// What a bridged stretch's bursts read as captured sound (zeros, `maxBlock` of them).
    private let silence: UnsafeMutablePointer<Float>

    // The earliest placement (`analyse`, `renderEarliest`).
    /// Hits analysed and not yet played, with their growth serials (a ring; the newest kept).
    private let pendingHits: UnsafeMutablePointer<Hit>
    private let pendingGrowth: UnsafeMutablePointer<Int>
    private var pendingCount = 0
    /// The newest feature frame analysed and not yet taken (one: a frame is the latest state).
    private let newestFrame: UnsafeMutablePointer<FeatureFrame>
    private var hasNewestFrame = false
    private let growths: UnsafeMutablePointer<Growth>
    private var nextGrowthSerial = 0
    /// Captured samples analysed (`analyse`; the analyser's count, read without a reference to it).
    private var analysedSamples: Int64 = 0
    /// Captured samples analysed when the last block was rendered (none since: the capture is late).
    private var analysedAtLastBlock: Int64 = 0
    /// Until this captured sample, a hit must be louder than `captureGapLevel` × 1.41 (`noteCaptureGap`).
    private var captureGapUntil: Int64 = 0
    private var captureGapLevel: Float = 0

    /// - Parameters: `analysis`: the analysis settings (their rate the engine's); `maxBlock`:
    ///   the most frames one `render` is given; `actuators`: one band per profile, in bus order;
    ///   `staggered`: whether the earliest placement runs the staggered analyser too.
    init(analysis: AnalysisSettings, maxBlock: Int, actuators: [ActuatorProfile], ducking: Double = ConversionSettings().ducking,
         staggered: Bool = true) throws(AnalysisSettings.Invalid) {
        var settings = analysis
        self.maxBlock = max(1, maxBlock)
        settings.maxBlockFrames = max(64, self.maxBlock)
        analyzer = try StreamingAnalyzer(settings: settings)
        analyzing = analyzer
        staggeredAnalyzer = staggered ? try StreamingAnalyzer(settings: settings) : nil
        self.staggered = staggeredAnalyzer
        sampleRate = settings.sampleRate
        hop = analyzer.hopFrames
        stagger = hop / 2
        // The onset window's span (4 hops): the two analysers see one onset's rise within it.
        sameOnsetSpan = Int64(4 * hop)
        self.ducking = min(1, max(0, ducking.isFinite ? ducking : 0))
        let profiles = actuators.isEmpty ? [ActuatorProfile.bassShaker] : actuators
        bandCount = profiles.count
        bands = .allocate(capacity: bandCount)
        let tableCount = renderTableSize + 1
        for (k, profile) in profiles.enumerated() {
            let frequency = UnsafeMutablePointer<Double>.allocate(capacity: tableCount)
            let amplitude = UnsafeMutablePointer<Float>.allocate(capacity: tableCount)
            for i in 0..<tableCount {
                let x = Double(i) / Double(renderTableSize)
                frequency[i] = profile.frequency(forSharpness: x)
                amplitude[i] = Float(profile.amplitude(forIntensity: x))
            }
            let bursts = UnsafeMutablePointer<Burst>.allocate(capacity: burstCapacity)
            (bands + k).initialize(to: Band(
                frequencyTable: frequency, amplitudeTable: amplitude,
                rule: profile.transientRule(sampleRate: sampleRate), bursts: bursts))
        }
        intensityRow = .allocate(capacity: self.maxBlock)
        duckRow = .allocate(capacity: self.maxBlock)
        amplitudeRow = .allocate(capacity: self.maxBlock)
        // Frames, and each hit's hold (its start and end) and the layer's step into it.
        segmentCapacity = analyzer.outputCapacity + 3 * pendingCapacity + 4
        segmentStart = .allocate(capacity: segmentCapacity)
        segmentSharpness = .allocate(capacity: segmentCapacity)
        segmentInStep = .allocate(capacity: segmentCapacity)
        notch = max(1, Int64((0.0005 * sampleRate).rounded()))
        duckStarts = .allocate(capacity: duckCapacity)
        duckStarts.initialize(repeating: -1 << 40, count: duckCapacity)
        duckSamples = Int64((duckAttack + duckHold + duckRelease) * sampleRate) + 1
        growthPerSample = Float(1000 / sampleRate)
        spliceLookBack = Int64(0.03 * sampleRate)
        bridgeHold = Int(0.03 * sampleRate)
        // (Also the staggered analyser's lead, half a hop, which a small period may not cover.)
        silence = .allocate(capacity: max(self.maxBlock, stagger))
        silence.initialize(repeating: 0, count: max(self.maxBlock, stagger))
        pendingHits = .allocate(capacity: pendingCapacity)
        pendingGrowth = .allocate(capacity: pendingCapacity)
        newestFrame = .allocate(capacity: 1)
        newestFrame.initialize(to: FeatureFrame(
            end: 0, peakIndex: 0, amplitude: 0, intensity: 0, sharpness: 0, onset: 0, threshold: 0, sounding: false))
        growths = .allocate(capacity: burstCapacity)
        growths.initialize(repeating: Growth(serial: -1, from: 0, until: 0, peak: 0), count: burstCapacity)
        leadStaggered()
    }

    /// The staggered analyser's lead: `stagger` samples of silence before the captured stream.
    private func leadStaggered() {
        _ = staggered?.process(silence, count: stagger)
    }

    deinit {
        for k in 0..<bandCount {
            bands[k].frequencyTable.deallocate()
            bands[k].amplitudeTable.deallocate()
            bands[k].bursts.deallocate()
        }
        bands.deinitialize(count: bandCount)
        bands.deallocate()
        intensityRow.deallocate()
        duckRow.deallocate()
        amplitudeRow.deallocate()
        segmentStart.deallocate()
        segmentSharpness.deallocate()
        segmentInStep.deallocate()
        duckStarts.deallocate()
        silence.deallocate()
        pendingHits.deallocate()
        pendingGrowth.deallocate()
        newestFrame.deallocate()
        growths.deallocate()
    }

    /// The steady placement: analyses `n` (at most `maxBlock`) captured samples and adds the
    /// drive made from them into each actuator's haptic bus of `bus`, from frame `offset` on,
    /// sample for sample (output sample i is captured sample i, later by the samples bridged).
    // Not @_noLocks itself: the compiler counts the call on the analyser's reference as
    // possible locking (a retain in unoptimised builds). The analyser's `process` and
    // `synthesize` are checked; the allocation-counting tests cover the whole path.
    func render(_ samples: UnsafePointer<Float>, count: Int, into bus: MixBus, at offset: Int) {
        let n = count < 0 ? 0 : (count < maxBlock ? count : maxBlock)
        if n == 0 { return }
        _ = analyzing.process(samples, count: n)
        bridgedRun = 0
        startHits(analyzing.hits, blockStart: position)
        synthesize(samples, count: n, frames: analyzing.frames, skew: skew, into: bus, at: offset)
    }

    /// The steady placement: adds `count` (at most `maxBlock`) samples of drive where the
    /// capture has none (the queue ran dry: the sound server was late, not the sound silent):
    /// the continuous layer goes on at its level and sharpness (``holdOrFade(_:)``), sounding
    /// transients ring out, and nothing is analysed (the captured stream resumes where it
    /// stopped, later by this much).
    @_noLocks
    func bridge(count: Int, into bus: MixBus, at offset: Int) {
        let n = count < 0 ? 0 : (count < maxBlock ? count : maxBlock)
        if n == 0 { return }
        holdOrFade(n)
        synthesize(silence, count: n, frames: UnsafeBufferPointer(start: nil, count: 0), skew: skew, into: bus, at: offset)
        skew += Int64(n)
    }

    /// `n` samples without captured sound: a hole in a steady vibration is felt as a knock of
    /// its own (the rig's click track, recorded, showed each of the queue's underruns as a
    /// burst of drive no hit made), so the layer is held for 30 ms, then fades over a hop, as a
    /// sound that stopped would.
    @_noLocks
    private func holdOrFade(_ n: Int) {
        // (Nested conditions: `&&`'s autoclosure would retain self.)
        let run = bridgedRun, hold = bridgeHold
        if run < hold, run + n >= hold {
            target = 0
            step = -level / Float(hop)
            rampLeft = hop
        }
        bridgedRun += n
    }

    // MARK: the earliest placement

    /// The earliest placement, as the sound arrives: analyses `count` captured samples (any
    /// number, in steps of `maxBlock`) and keeps what `renderEarliest` plays next: the newest
    /// feature frame and the hits decided; it also watches the captured peaks that young hits'
    /// bursts grow with.
    func analyse(_ samples: UnsafePointer<Float>, count: Int) {
        var done = 0
        while done < count {
            let start = analyzing.samplesProcessed
            let n = analyzing.process(samples + done, count: count - done)
            if n <= 0 { break }
            let frames = analyzing.frames
            if frames.count > 0 {
                newestFrame.pointee = frames[frames.count - 1]
                hasNewestFrame = true
            }
            let hits = analyzing.hits
            for h in 0..<hits.count { consider(hits[h], staggered: false) }
            // The staggered analyser on the same samples; its hits moved to the captured timeline.
            if let second = staggered {
                _ = second.process(samples + done, count: n)
                let staggeredHits = second.hits
                let lead = Int64(stagger)
                for h in 0..<staggeredHits.count {
                    var hit = staggeredHits[h]
                    hit.sampleIndex -= lead
                    hit.decidedAt -= lead
                    consider(hit, staggered: true)
                }
            }
            watchGrowth(samples + done, from: start, count: n)
            analysedSamples = start + Int64(n)
            done += n
        }
    }

    /// The earliest placement: adds `count` (at most `maxBlock`) samples of drive, from frame
    /// `offset` of `bus`, for the sound analysed so far: the hits kept start on the block's
    /// first sample, the continuous layer ramps from its level to the newest frame's over a
    /// hop. A hit is felt in the first block rendered after it was decided: sooner than with the
    /// steady placement's fixed delay, by up to a period, and its delay varies by up to a period.
    /// Nothing analysed since the last block (the capture late): the layer holds, then fades.
    @_noLocks
    func renderEarliest(count: Int, into bus: MixBus, at offset: Int) {
        let n = count < 0 ? 0 : (count < maxBlock ? count : maxBlock)
        if n == 0 { return }
        let analysed = analysedSamples
        if analysed == analysedAtLastBlock { holdOrFade(n) } else { bridgedRun = 0 }
        analysedAtLastBlock = analysed
        let blockStart = position
        for h in 0..<pendingCount {
            let hit = pendingHits[h]
            startHit(at: blockStart, intensity: hit.intensity, sharpness: Double(hit.sharpness), growth: pendingGrowth[h])
        }
        pendingCount = 0
        growBursts()
        let frames = UnsafeBufferPointer(start: newestFrame, count: hasNewestFrame ? 1 : 0)
        hasNewestFrame = false
        // (The frame takes effect on the block's first sample.)
        synthesize(silence, count: n, frames: frames, skew: blockStart &- newestFrame.pointee.end, into: bus, at: offset)
    }

    /// The capture lost frames before the next ones (an overrun): the cut is a broadband step,
    /// judged as ``noteSplice(within:)`` judges one, on the analyser's timeline.
    @_noLocks
    func noteCaptureGap() {
        captureGapUntil = analysedSamples + Int64(5 * hop) + spliceLookBack
        captureGapLevel = level > target ? level : target
    }

    /// A hit one of the analysers decided: kept, unless the other analyser kept this onset
    /// already (its burst grows with the sound's peak as it arrives either way).
    @_noLocks
    private func consider(_ hit: Hit, staggered fromStaggered: Bool) {
        let last = lastOnsetDecidedAt
        let apart = hit.decidedAt > last ? hit.decidedAt - last : last - hit.decidedAt
        if fromStaggered != lastOnsetStaggered, apart <= sameOnsetSpan { return }
        lastOnsetDecidedAt = hit.decidedAt
        lastOnsetStaggered = fromStaggered
        keep(hit)
    }

    /// A hit decided, kept for the next block (the newest kept when more than fit) with a
    /// growth record of its own.
    @_noLocks
    private func keep(_ hit: Hit) {
        if hit.decidedAt < captureGapUntil, !loudEnough(hit.intensity, overCutAt: captureGapLevel) { return }
        let slot = nextGrowthSerial % burstCapacity
        growths[slot] = Growth(serial: nextGrowthSerial, from: hit.decidedAt, until: hit.decidedAt + Int64(4 * hop), peak: hit.intensity * hit.intensity)
        if pendingCount == pendingCapacity {
            for h in 1..<pendingCapacity {
                pendingHits[h - 1] = pendingHits[h]
                pendingGrowth[h - 1] = pendingGrowth[h]
            }
            pendingCount -= 1
        }
        pendingHits[pendingCount] = hit
        pendingGrowth[pendingCount] = nextGrowthSerial
        pendingCount += 1
        nextGrowthSerial &+= 1
    }

    /// The growth records' peaks over `count` captured samples from stream index `start`.
    @_noLocks
    private func watchGrowth(_ samples: UnsafePointer<Float>, from start: Int64, count: Int) {
        let end = start + Int64(count)
        for g in 0..<burstCapacity {
            let record = growths[g]
            if record.serial < 0 || record.until <= start || record.from >= end { continue }
            let from = Int((record.from > start ? record.from : start) - start)
            let to = Int((record.until < end ? record.until : end) - start)
            var peak = record.peak
            for i in from..<to {
                let x = samples[i]
                let magnitude = x < 0 ? -x : x
                if magnitude > peak { peak = magnitude }
            }
            growths[g].peak = peak
        }
    }

    /// The sounding bursts' amplitudes ask for their records' peaks (slewed as they sound).
    @_noLocks
    private func growBursts() {
        for k in 0..<bandCount {
            let band = bands + k
            let table = band.pointee.amplitudeTable
            for b in 0..<band.pointee.burstCount {
                let serial = band.pointee.bursts[b].growth
                if serial < 0 { continue }
                let record = growths[serial % burstCapacity]
                if record.serial != serial {
                    band.pointee.bursts[b].growth = -1
                    continue
                }
                grow(&band.pointee.bursts[b], toPeak: record.peak, table)
                if record.until <= analysedSamples { band.pointee.bursts[b].growth = -1 }
            }
        }
    }

    /// The stream is cut within the next `count` samples' reach (the capture queue dropped
    /// frames between them and the last ones: latency trimmed, a backlog at priming). A cut is
    /// a broadband step, and in a quiet or swelling sound the analysis may take it for an onset:
    /// while the analyser's decision can still see it (its 4-hop onset window and the 30 ms it
    /// looks back for the level's rise), a hit is played only if its intensity is 1.41 × (+6 dB
    /// in level over) the loudness before the cut and the loudness now, as a kick over music is
    /// (the loudness now: a cut into a sound that is only beginning, the level before it still
    /// near 0, is a click as loud as the sound).
    @_noLocks
    func noteSplice(within count: Int) {
        spliceUntil = position + Int64(max(0, count) + 5 * hop) + spliceLookBack
        spliceLevel = level > target ? level : target
    }

    /// Starts over from silence (the mode switched to while running): the analyser forgets the
    /// past and the next sample is its first; no burst, ramp or dip goes on.
    func reset() {
        analyzing.reset()
        staggered?.reset()
        leadStaggered()
        lastOnsetDecidedAt = -1 << 40
        lastOnsetStaggered = false
        position = 0
        level = 0
        target = 0
        step = 0
        rampLeft = 0
        sharpness = 0
        heldSharpness = 0
        holdFrom = -1 << 40
        holdUntil = 0
        spliceUntil = 0
        spliceLevel = 0
        skew = 0
        bridgedRun = 0
        pendingCount = 0
        hasNewestFrame = false
        growths.update(repeating: Growth(serial: -1, from: 0, until: 0, peak: 0), count: burstCapacity)
        analysedSamples = 0
        analysedAtLastBlock = 0
        captureGapUntil = 0
        captureGapLevel = 0
        duckStarts.update(repeating: -1 << 40, count: duckCapacity)
        duckNext = 0
        for k in 0..<bandCount {
            bands[k].burstCount = 0
            bands[k].phaseAnchor = 0
            bands[k].anchorSample = 0
            bands[k].inc = -1
        }
    }

    /// The steady placement's hits: a burst on every actuator from the sample the hit was
    /// decided on (on the voice's timeline: later by the samples bridged), not before `blockStart`.
    @_noLocks
    private func startHits(_ hits: UnsafeBufferPointer<Hit>, blockStart: Int64) {
        for h in 0..<hits.count {
            let hit = hits[h]
            let decidedAt = hit.decidedAt &+ skew
            if decidedAt < spliceUntil, !loudEnough(hit.intensity, overCutAt: spliceLevel) { continue }
            startHit(at: decidedAt > blockStart ? decidedAt : blockStart, intensity: hit.intensity, sharpness: Double(hit.sharpness), growth: -1)
        }
    }

    /// Whether a hit near a cut in the stream is played: louder by 6 dB (1.41 × in intensity)
    /// than the sound before the cut (`before`) and now (``noteSplice(within:)``).
    @_noLocks @inline(__always)
    private func loudEnough(_ intensity: Float, overCutAt before: Float) -> Bool {
        let now = level > target ? level : target
        let reference = before > now ? before : now
        return intensity >= 1.41 * reference
    }

    /// A transient from sample `start` on, on every actuator, and the continuous layer's dip under it.
    @_noLocks
    private func startHit(at start: Int64, intensity: Float, sharpness: Double, growth: Int) {
        duckStarts[duckNext] = start
        duckNext = duckNext + 1 == duckCapacity ? 0 : duckNext + 1
        transientsStarted &+= 1
        var longest: Int64 = 0
        for k in 0..<bandCount {
            let length = startBurst(bands + k, at: start, intensity: intensity, sharpness: sharpness, growth: growth)
            if length > longest { longest = length }
        }
        holdFrom = start
        holdUntil = start + longest
        heldSharpness = sharpness
    }

    /// The drive for `n` samples from `position` on: the continuous layer from `frames` (each
    /// taking effect where its end, plus `skew`, falls), the bursts sounding; `samples`: the
    /// captured samples aligned with the output, whose peak a young burst's amplitude follows
    /// in the steady placement (silence otherwise).
    @_noLocks
    private func synthesize(
        _ samples: UnsafePointer<Float>, count n: Int, frames: UnsafeBufferPointer<FeatureFrame>, skew: Int64, into bus: MixBus,
        at offset: Int
    ) {
        let blockStart = position

        // The rows all actuators share: intensity (ramped per frame), ducking, sharpness segments.
        segmentStart[0] = 0
        segmentSharpness[0] = sharpnessHeard(at: blockStart)
        segmentInStep[0] = false
        var segments = 1
        let stepAt = holdFrom + notch
        var f = 0
        var loudest: Float = 0
        for i in 0..<n {
            let p = blockStart + Int64(i)
            while f < frames.count {
                if frames[f].end &+ skew > p { break }
                take(frames[f])
                f += 1
            }
            let heard = sharpnessHeard(at: p)
            let inStep = p == stepAt
            let changed = segmentSharpness[segments - 1] != heard
            if changed || inStep {
                if segmentStart[segments - 1] == i {
                    segmentSharpness[segments - 1] = heard
                    if inStep { segmentInStep[segments - 1] = true }
                } else if segments < segmentCapacity {
                    segmentStart[segments] = i
                    segmentSharpness[segments] = heard
                    segmentInStep[segments] = inStep
                    segments += 1
                }
            }
            if rampLeft > 0 {
                rampLeft -= 1
                level = rampLeft == 0 ? target : level + step
            }
            intensityRow[i] = level
            if level > loudest { loudest = level }
            duckRow[i] = duckGain(at: p) * notchGain(at: p, stepAt)
        }
        // Frames that end with the block take effect on the next block's first sample.
        while f < frames.count {
            take(frames[f])
            f += 1
        }

        let actuators = bus.hapticBusCount < bandCount ? bus.hapticBusCount : bandCount
        for k in 0..<actuators {
            let out = bus.hapticBus(k) + offset
            let band = bands + k
            let table = band.pointee.amplitudeTable
            if loudest > 0 { for i in 0..<n { amplitudeRow[i] = amplitude(intensityRow[i], table) * duckRow[i] } }
            for s in 0..<segments {
                let from = segmentStart[s]
                let to = s + 1 < segments ? segmentStart[s + 1] : n
                // Re-anchored in silence too: the anchors fall on the frames' ends whatever the blocks.
                let inc = frequencyForSharpness(segmentSharpness[s], band.pointee.frequencyTable) / sampleRate
                if segmentInStep[s] {
                    bringInStep(band, blockStart + Int64(from), inc)
                } else {
                    reanchor(band, blockStart + Int64(from), inc)
                }
                if loudest > 0 {
                    addOscillator(out, amplitudeRow, blockStart, from, to, band.pointee.phaseAnchor, band.pointee.anchorSample, inc)
                }
            }
            renderBursts(band, samples, into: out, blockStart: blockStart, count: n)
        }
        position = blockStart + Int64(n)
    }

    /// The continuous layer's sharpness at sample `p`: the latest hit's while its burst sounds
    /// (the two at one frequency, in step half a millisecond in, add up; at two they
    /// beat, and the kick's own loudness swelling the layer at another frequency cancelled the
    /// burst 5–10 ms in: a notch in the felt envelope, some hits felt 20 ms late), else the frames'.
    @_noLocks @inline(__always)
    private func sharpnessHeard(at p: Int64) -> Double {
        // (Nested conditions: `&&`'s autoclosure would retain self.)
        if p >= holdFrom { if p < holdUntil { return heldSharpness } }
        return sharpness
    }

    /// The largest amplitude a sounding burst of actuator `k` asks for (0: none sounds): what
    /// a young burst grew to with the sound's peak. Not for the render thread (tests, reports).
    func strongestBurstTarget(actuator k: Int) -> Float {
        guard k >= 0, k < bandCount else { return 0 }
        var strongest: Float = 0
        for b in 0..<bands[k].burstCount where bands[k].bursts[b].target > strongest { strongest = bands[k].bursts[b].target }
        return strongest
    }

    /// A feature frame takes effect: the intensity ramps to its own over a hop (to 0 below
    /// the gate), the sharpness is its own.
    @_noLocks @inline(__always)
    private func take(_ frame: FeatureFrame) {
        target = frame.sounding ? frame.intensity : 0
        step = (target - level) / Float(hop)
        rampLeft = hop
        sharpness = Double(frame.sharpness)
    }

    /// The continuous layer's gain at sample `p`: the deepest dip of the latest hits.
    @_noLocks @inline(__always)
    private func duckGain(at p: Int64) -> Float {
        var gain = 1.0
        for k in 0..<duckCapacity {
            let since = p - duckStarts[k]
            if since > 0 ? since <= duckSamples : false {
                let g = 1 - duckingDepth(Double(since) / sampleRate, ducking: ducking)
                if g < gain { gain = g }
            }
        }
        return Float(gain)
    }

    /// The notch the continuous layer passes through to come into step with the latest burst:
    /// from the burst's start (`stepAt - notch`) down to 0 at `stepAt` and back up as far after.
    @_noLocks @inline(__always)
    private func notchGain(at p: Int64, _ stepAt: Int64) -> Float {
        let d = p - stepAt
        if d <= -notch { return 1 }
        if d >= notch { return 1 }
        return Float(d < 0 ? -d : d) / Float(notch)
    }

    /// The continuous oscillator in step with the latest burst from sample `n` (`notch` after
    /// the burst's start) on: the burst's carrier is 0.25 + k · inc cycles at its k-th sample.
    @_noLocks @inline(__always)
    private func bringInStep(_ band: UnsafeMutablePointer<Band>, _ n: Int64, _ inc: Double) {
        band.pointee.phaseAnchor = fractionalPart(0.25 + Double(notch) * inc)
        band.pointee.anchorSample = n
        band.pointee.inc = inc
    }

    /// Intensity 0…1 → amplitude by the profile's law (its table, linearly interpolated).
    @_noLocks @inline(__always)
    private func amplitude(_ intensity: Float, _ table: UnsafeMutablePointer<Float>) -> Float {
        let i = intensity < 0 ? 0 : (intensity > 1 ? 1 : intensity)
        let x = i * Float(renderTableSize)
        let k = Swift.min(renderTableSize - 1, Int(x))
        return table[k] + (table[k + 1] - table[k]) * (x - Float(k))
    }

    /// A new frequency from sample `n` on: the phase carried over exactly (in double precision
    /// from the anchor), as the renderer's continuous events do.
    @_noLocks @inline(__always)
    private func reanchor(_ band: UnsafeMutablePointer<Band>, _ n: Int64, _ inc: Double) {
        guard inc != band.pointee.inc else { return }
        if band.pointee.inc >= 0 {
            band.pointee.phaseAnchor = fractionalPart(
                band.pointee.phaseAnchor + Double(n &- band.pointee.anchorSample) * band.pointee.inc)
        }
        band.pointee.anchorSample = n
        band.pointee.inc = inc
    }

    /// A young burst's amplitude asks for the sound's peak `magnitude` (linear) when it is the
    /// largest yet: the intensity its square root is, through the profile's law (`table`).
    @_noLocks @inline(__always)
    private func grow(_ burst: inout Burst, toPeak magnitude: Float, _ table: UnsafeMutablePointer<Float>) {
        guard magnitude > burst.peak else { return }
        burst.peak = magnitude
        burst.target = amplitude(squareRootFast(magnitude < 1 ? magnitude : 1), table)
    }

    /// Starts a burst on `band`; returns its length (samples).
    @_noLocks
    private func startBurst(_ band: UnsafeMutablePointer<Band>, at start: Int64, intensity: Float, sharpness: Double, growth: Int) -> Int64 {
        let shape = TransientGeometry(
            sharpness: sharpness, frequencyTable: band.pointee.frequencyTable, sampleRate: sampleRate, rule: band.pointee.rule)
        let a = amplitude(intensity, band.pointee.amplitudeTable)
        // On its carrier's crest at the first sample (the carrier is taken at k + ½); the
        // continuous oscillator comes into step with it `notch` later (`bringInStep`).
        let phase = fractionalPart(0.25 - 0.5 * shape.inc)
        let burst = Burst(
            start: start, shape: shape, amplitude: a, target: a, peak: intensity * intensity,
            growUntil: growth < 0 ? start + Int64(4 * hop) : start, phase: phase, growth: growth)
        if band.pointee.burstCount < burstCapacity {
            band.pointee.bursts[band.pointee.burstCount] = burst
            band.pointee.burstCount += 1
            return shape.length
        }
        var oldest = 0
        for b in 1..<burstCapacity where band.pointee.bursts[b].start < band.pointee.bursts[oldest].start { oldest = b }
        band.pointee.bursts[oldest] = burst
        return shape.length
    }

    /// Adds the sounding bursts' samples of this block (`samples`: the captured ones, whose
    /// peak a young burst's amplitude follows); forgets those that ended.
    @_noLocks
    private func renderBursts(
        _ band: UnsafeMutablePointer<Band>, _ samples: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
        blockStart: Int64, count n: Int
    ) {
        let table = band.pointee.amplitudeTable
        var b = 0
        while b < band.pointee.burstCount {
            var burst = band.pointee.bursts[b]
            let shape = burst.shape
            let end = burst.start &+ shape.length
            let from = burst.start > blockStart ? Int(burst.start - blockStart) : 0
            let to = end < blockStart + Int64(n) ? Int(end - blockStart) : n
            var j = from
            while j < to {
                let v = transientLanes(
                    blockStart + Int64(j) - burst.start, shape.length, shape.inc, shape.quarterPerSample, shape.decayRate, phase: burst.phase)
                let lanes = to - j < 8 ? to - j : 8
                for l in 0..<lanes {
                    // Per sample, so that the blocks do not matter.
                    if blockStart + Int64(j + l) < burst.growUntil {
                        let x = samples[j + l]
                        let magnitude = x < 0 ? -x : x
                        grow(&burst, toPeak: magnitude, table)
                    }
                    if burst.amplitude < burst.target {
                        let grown = burst.amplitude + growthPerSample
                        burst.amplitude = grown < burst.target ? grown : burst.target
                    }
                    out[j + l] += burst.amplitude * v[l]
                }
                j += 8
            }
            band.pointee.bursts[b] = burst
            if end <= blockStart + Int64(n) {
                band.pointee.burstCount -= 1
                band.pointee.bursts[b] = band.pointee.bursts[band.pointee.burstCount]
            } else {
                b += 1
            }
        }
    }
}
