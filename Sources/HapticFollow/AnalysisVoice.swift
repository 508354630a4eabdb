import HapticAnalysis
import HapticDSP
import HapticRender

/// At most this many transients sound at once on one actuator of an ``AnalysisVoice`` (hits are
/// at least the analysis's minimum gap apart; one more replaces the oldest). Computed globals:
/// no lazy initialisation on the render path.
var burstCapacity: Int { @_noLocks @inline(__always) get { 4 } }
/// Hits an ``AnalysisVoice`` remembers for the ducking (the dip lasts 26 ms).
var duckCapacity: Int { @_noLocks @inline(__always) get { 4 } }
/// Hits the earliest placement holds between two blocks (hits are at least the minimum gap
/// apart, and a block's arrivals span a few periods; the newest are kept).
var pendingCapacity: Int { @_noLocks @inline(__always) get { 8 } }

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
    let analyzer: StreamingAnalyzer
    /// The same analyser, reached on the render thread without reference counting (`analyzer`
    /// keeps it alive as long as the voice).
    unowned(unsafe) let analyzing: StreamingAnalyzer
    /// The earliest placement's second analyser: the same settings, its stream `stagger`
    /// samples of silence ahead of the captured one, so that its hops end between the first's
    /// (nil: one analyser only: the steady timing, which does not use it, and comparisons).
    let staggeredAnalyzer: StreamingAnalyzer?
    unowned(unsafe) let staggered: StreamingAnalyzer?
    /// Half a hop: the staggered analyser's index of captured sample i is i + stagger.
    let stagger: Int
    /// The latest onset kept: where it was decided (captured samples), and by which analyser. A
    /// hit the other analyser decides within `sameOnsetSpan` of it is that onset again.
    var lastOnsetDecidedAt: Int64 = -1 << 40
    var lastOnsetStaggered = false
    let sameOnsetSpan: Int64
    let sampleRate: Double
    let hop: Int
    /// How far the continuous layer gives way under a transient: a share of the drive's amplitude
    /// (`convert`'s default).
    let ducking: Double
    let bands: UnsafeMutablePointer<Band>
    let bandCount: Int
    let maxBlock: Int
    /// Per block: the continuous intensity and the ducking gain per sample, one actuator's
    /// amplitude row, and where the sharpness changes (offsets and values).
    let intensityRow: UnsafeMutablePointer<Float>
    let duckRow: UnsafeMutablePointer<Float>
    let amplitudeRow: UnsafeMutablePointer<Float>
    let segmentStart: UnsafeMutablePointer<Int>
    let segmentSharpness: UnsafeMutablePointer<Double>
    /// Whether the continuous oscillator is brought into step with the latest burst where a segment starts.
    let segmentInStep: UnsafeMutablePointer<Bool>
    let segmentCapacity: Int
    /// Start samples of the latest hits (a ring).
    let duckStarts: UnsafeMutablePointer<Int64>
    var duckNext = 0
    let duckSamples: Int64
    /// A burst's amplitude grows by at most this much per sample.
    let growthPerSample: Float

    /// Absolute index of the next captured sample.
    var position: Int64 = 0
    /// The continuous intensity now, and its ramp to the latest frame's.
    var level: Float = 0
    var target: Float = 0
    var step: Float = 0
    var rampLeft = 0
    var sharpness = 0.0
    /// The latest hit's sharpness, which the continuous layer takes while its burst sounds.
    var heldSharpness = 0.0
    /// The latest burst's start (long before the stream's start while there is none).
    var holdFrom: Int64 = -1 << 40
    /// The continuous layer comes into step with the latest burst `notch` samples after its
    /// start (`holdFrom`), at the bottom of a notch from the burst's start to `notch` after that.
    let notch: Int64
    var holdUntil: Int64 = 0
    /// Transients started since `init`.
    var transientsStarted = 0
    /// Until this sample, a hit must be louder than `spliceLevel` × 1.41 to be played (`noteSplice`).
    var spliceUntil: Int64 = 0
    var spliceLevel: Float = 0
    let spliceLookBack: Int64
    /// The voice's timeline (`position`, output samples) minus the analyser's (captured samples):
    /// the samples bridged so far (`bridge`). Hits and feature frames are placed by it.
    var skew: Int64 = 0
    /// Bridged samples in a row, and how many are held at the last level before it fades.
    var bridgedRun = 0
    let bridgeHold: Int
    /// What a bridged stretch's bursts read as captured sound (zeros, `maxBlock` of them).
    let silence: UnsafeMutablePointer<Float>

    // The earliest placement (`analyse`, `renderEarliest`).
    /// Hits analysed and not yet played, with their growth serials (a ring; the newest kept).
    let pendingHits: UnsafeMutablePointer<Hit>
    let pendingGrowth: UnsafeMutablePointer<Int>
    var pendingCount = 0
    /// The newest feature frame analysed and not yet taken (one: a frame is the latest state).
    let newestFrame: UnsafeMutablePointer<FeatureFrame>
    var hasNewestFrame = false
    let growths: UnsafeMutablePointer<Growth>
    var nextGrowthSerial = 0
    /// Captured samples analysed (`analyse`; the analyser's count, read without a reference to it).
    var analysedSamples: Int64 = 0
    /// Captured samples analysed when the last block was rendered (none since: the capture is late).
    var analysedAtLastBlock: Int64 = 0
    /// Until this captured sample, a hit must be louder than `captureGapLevel` × 1.41 (`noteCaptureGap`).
    var captureGapUntil: Int64 = 0
    var captureGapLevel: Float = 0

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
    func leadStaggered() {
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
}
