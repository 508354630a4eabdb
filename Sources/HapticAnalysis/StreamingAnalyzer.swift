// The streaming analysis: mono samples in, block by block, one feature frame per hop and
// the hits out. Built for the render thread: every buffer is allocated in `init`, and
// `process` allocates nothing, takes no lock and runs a number of steps bounded by the
// block it is given (at most `maxBlockFrames` samples per call). The result depends only
// on the samples, never on how they were cut into blocks: hop boundaries sit at multiples
// of the hop from the stream's first sample, and every decision is made at a hop boundary.
//
// Per sample: the loudness follower; per decimated sample, the low-pass for the centroid.
// Per hop (2.7 ms at 48 kHz):
//  - the onset function: the mean rise of third-octave band levels (log) over a 4-hop Hann
//    window (spectral flux, each band counting the same), compared with an adaptive threshold (a running mean plus a
//    multiple of the running mean deviation over 0.3 s, the multiple set by the sensitivity);
//  - a hit: a local maximum of the onset function over the threshold (decided one hop
//    later; with `HitDecision.onRise`, the live follower's, at the first hop of its rise over
//    the threshold that passes the other checks), with the level risen by at least 3 dB over the last 30 ms and above 4× the gate,
//    at least `minimumGap` after the previous hit; its position is the loudest sample of the
//    last five hops (sample-exact), its intensity from its peak sample, its sharpness from the
//    frequencies where the spectrum rose;
//  - sharpness: the spectral centroid below the cutoff, over a 43 ms window at the decimated
//    rate, mapped over `sharpnessLow…sharpnessHigh` and square-rooted (`HapticClipMapping`);
//    every second hop (5.4 ms at 48 kHz, an eighth of its window: held in between).
//
// Only the threshold's multiple and floor, and the minimum gap's memory, depend on the
// sensitivity; everything else (the spectra, the running statistics, the level checks) does
// not. So one analyser can decide the hits of several sensitivities at once (`hits(at:)`), each
// exactly as an analyser made with that sensitivity alone: a designer's ladder of
// sensitivities costs one analysis, not one per rung.

import HapticDSP

/// Hops of history kept for hit decisions (a computed global: no lazy initialisation on the
/// render path). 64 hops: 170 ms at 48 kHz, more than the 30 ms looked back.
var analysisHistoryLength: Int { @_noLocks @inline(__always) get { 64 } }

/// Streaming sound analysis for the live follower and the offline converter.
///
/// ```swift
/// let analyzer = try StreamingAnalyzer(settings: AnalysisSettings(sampleRate: 48000))
/// var done = 0
/// while done < samples.count {
///     done += analyzer.process(base + done, count: samples.count - done)
///     for frame in analyzer.frames { ... }   // valid until the next call
///     for hit in analyzer.hits { ... }
/// }
/// ```
public final class StreamingAnalyzer {
    /// The settings it was made with (validated).
    public let settings: AnalysisSettings
    /// Samples per feature frame.
    public let hopFrames: Int
    /// How far (s) a frame's sharpness lags its `end` (on average): half the centroid window,
    /// the decimating filter's delay, and half a hop (it is updated every second hop).
    public let sharpnessLatency: Double
    /// The most frames, and hits per sensitivity, one `process` call can produce.
    public let outputCapacity: Int
    /// The sensitivities whose hits it decides (`hits(at:)`), the first `settings.sensitivity`.
    public let sensitivities: [Double]

    let geometry: AnalysisGeometry
    var follower: LoudnessFollower
    let decimator: Decimator

    // Time-domain rings (indexed by absolute position & mask), each written twice (at i and
    // i + ring size), so that any window of up to a ring's length lies contiguous in memory.
    let samples: UnsafeMutablePointer<Float>
    let sampleMask: Int
    let decimated: UnsafeMutablePointer<Float>
    let decimatedMask: Int
    /// The follower's levels over the current segment (one hop at most).
    let levelScratch: UnsafeMutablePointer<Float>

    // Spectra.
    let onsetFFT: RealFFT
    let centroidFFT: RealFFT
    let onsetWindow: UnsafeMutablePointer<Float>
    let centroidWindow: UnsafeMutablePointer<Float>
    let power: UnsafeMutablePointer<Float>
    /// Per band of the onset spectrum (third-octave bands from 50 Hz to 16 kHz, at least a
    /// bin each): its first bin (band b is bins bandStart[b]..<bandStart[b + 1]), its log level
    /// now and a hop ago, and log2 of its centre frequency.
    let bandStart: UnsafeMutablePointer<Int>
    let bandLevel: UnsafeMutablePointer<Float>
    let previousBandLevel: UnsafeMutablePointer<Float>
    let bandLogFrequency: UnsafeMutablePointer<Float>
    let bandCount: Int
    let onsetPowerScale: Float
    let centroidBins: Int
    let centroidBinHz: Float

    // Per-hop history (ring of `historyLength` hops): envelope peaks, onset function, and the
    // running statistics its threshold was set from.
    let envelopeHistory: UnsafeMutablePointer<Float>
    let absolutePeakHistory: UnsafeMutablePointer<Float>
    let onsetHistory: UnsafeMutablePointer<Float>
    let meanHistory: UnsafeMutablePointer<Float>
    let deviationHistory: UnsafeMutablePointer<Float>
    /// The rise-weighted mean log2 frequency per hop.
    let riseFrequencyHistory: UnsafeMutablePointer<Float>

    // Outputs of the current call.
    let frameOutput: UnsafeMutablePointer<FeatureFrame>
    /// `outputCapacity` hits per sensitivity, one after the other.
    let hitOutput: UnsafeMutablePointer<Hit>
    var frameCount = 0
    let hitLevels: UnsafeMutablePointer<HitLevel>
    let levelCount: Int
    var hopCheck = HopCheck()

    // Running state.
    var position: Int64 = 0
    var decimatedPosition: Int64 = 0
    var hopIndex: Int64 = 0
    var hopPeak: Float = 0
    var hopPeakIndex: Int64 = 0
    var hopAbsolutePeak: Float = 0
    var lastNonZero: Int64 = -1 << 40
    var onsetMean: Float = 0
    var onsetDeviation: Float = 0
    var statisticsWeight: Float
    var sharpness: Float = 0
    let gain: Float
    let gate: Float
    /// `HitDecision.onRise`.
    let decidesOnRise: Bool
    let minimumGapSamples: Int64
    /// Hops looked back for the envelope's level before a hit (30 ms).
    let riseLookBack: Int64
    /// Samples that were NaN or infinite (taken as silence).
    public internal(set) var nonFiniteSamples: Int64 = 0

    /// Makes an analyser; allocates everything it will use.
    public convenience init(settings: AnalysisSettings) throws(AnalysisSettings.Invalid) {
        try self.init(settings: settings, sensitivities: [settings.sensitivity])
    }

    /// Makes an analyser that decides the hits of each of `sensitivities` (each 0…1, at least
    /// one; they replace `settings.sensitivity`) from one analysis: `hits(at: k)` are exactly the
    /// hits of an analyser made with `sensitivities[k]` alone, and the frames' threshold is the
    /// first's. Allocates everything it will use.
    public init(settings: AnalysisSettings, sensitivities: [Double]) throws(AnalysisSettings.Invalid) {
        var first = settings
        first.sensitivity = sensitivities.first ?? .nan
        let s = try first.validated()
        for sensitivity in sensitivities.dropFirst() {
            var other = s
            other.sensitivity = sensitivity
            _ = try other.validated()
        }
        self.settings = s
        self.sensitivities = sensitivities
        let g = AnalysisGeometry(sampleRate: s.sampleRate)
        geometry = g
        hopFrames = g.hop
        follower = LoudnessFollower(s)
        decimator = Decimator(sampleRate: s.sampleRate, factor: g.decimation, passband: s.centroidCutoff)
        outputCapacity = s.maxBlockFrames / g.hop + 2

        var ring = 1
        while ring < g.onsetWindow * 2 { ring *= 2 }
        samples = .allocate(capacity: 2 * ring)
        samples.initialize(repeating: 0, count: 2 * ring)
        sampleMask = ring - 1
        // (The low-pass reads its taps from this ring: at most fs/180 of them, the ring 8 hops ≥ fs/66.)
        precondition(decimator.paddedCount <= ring, "the decimating filter's taps must fit the sample ring")
        decimated = .allocate(capacity: 2 * g.centroidWindow)
        decimated.initialize(repeating: 0, count: 2 * g.centroidWindow)
        decimatedMask = g.centroidWindow - 1
        levelScratch = .allocate(capacity: g.hop)
        levelScratch.initialize(repeating: 0, count: g.hop)

        onsetFFT = RealFFT(size: g.onsetWindow)
        centroidFFT = RealFFT(size: g.centroidWindow)
        onsetWindow = StreamingAnalyzer.hann(g.onsetWindow)
        centroidWindow = StreamingAnalyzer.hann(g.centroidWindow)
        let largest = max(g.onsetWindow, g.centroidWindow)
        power = .allocate(capacity: largest / 2 + 1)
        power.initialize(repeating: 0, count: largest / 2 + 1)
        let onsetHalf = g.onsetWindow / 2
        let binHz = s.sampleRate / Double(g.onsetWindow)
        let topBin = max(2, min(onsetHalf, Int(16000 / binHz)))
        var edges = [1]
        var edgeHz = 50 * 1.2599210498948732  // the first band is everything below 63 Hz
        while edges[edges.count - 1] < topBin {
            edges.append(min(topBin, max(edges[edges.count - 1] + 1, Int((edgeHz / binHz).rounded()))))
            edgeHz *= 1.2599210498948732
        }
        bandCount = edges.count - 1
        bandStart = .allocate(capacity: edges.count)
        bandLevel = .allocate(capacity: bandCount)
        bandLevel.initialize(repeating: 0, count: bandCount)
        previousBandLevel = .allocate(capacity: bandCount)
        previousBandLevel.initialize(repeating: 0, count: bandCount)
        bandLogFrequency = .allocate(capacity: bandCount)
        for (b, e) in edges.enumerated() { bandStart[b] = e }
        for b in 0..<bandCount {
            let centre = (Double(edges[b]) * Double(edges[b + 1] - 1)).squareRoot() * binHz
            bandLogFrequency[b] = Float(log2Double(max(centre, 1)))
        }
        // A full-scale sine's power reads 1: (|X| · 2 / Σw)², Σw = n/2 for a Hann window.
        onsetPowerScale = 16 / Float(g.onsetWindow * g.onsetWindow)
        let decimatedRate = s.sampleRate / Double(g.decimation)
        centroidBinHz = Float(decimatedRate / Double(g.centroidWindow))
        centroidBins = max(2, min(g.centroidWindow / 2, Int(s.centroidCutoff / Double(centroidBinHz))))
        // Half the window, plus the low-pass's delay, plus half a hop (it is updated every second hop).
        sharpnessLatency = Double(g.centroidWindow) / decimatedRate / 2 + Double(decimator.delay) / s.sampleRate
            + Double(g.hop) / s.sampleRate / 2

        envelopeHistory = .allocate(capacity: analysisHistoryLength)
        envelopeHistory.initialize(repeating: 0, count: analysisHistoryLength)
        absolutePeakHistory = .allocate(capacity: analysisHistoryLength)
        absolutePeakHistory.initialize(repeating: 0, count: analysisHistoryLength)
        onsetHistory = .allocate(capacity: analysisHistoryLength)
        onsetHistory.initialize(repeating: 0, count: analysisHistoryLength)
        meanHistory = .allocate(capacity: analysisHistoryLength)
        meanHistory.initialize(repeating: 0, count: analysisHistoryLength)
        deviationHistory = .allocate(capacity: analysisHistoryLength)
        deviationHistory.initialize(repeating: 0, count: analysisHistoryLength)
        riseFrequencyHistory = .allocate(capacity: analysisHistoryLength)
        riseFrequencyHistory.initialize(repeating: 0, count: analysisHistoryLength)
        frameOutput = .allocate(capacity: outputCapacity)
        levelCount = sensitivities.count
        hitOutput = .allocate(capacity: outputCapacity * levelCount)
        hitLevels = .allocate(capacity: levelCount)
        for (k, sensitivity) in sensitivities.enumerated() { (hitLevels + k).initialize(to: HitLevel(sensitivity: sensitivity)) }

        statisticsWeight = Float(Double(g.hop) / (0.3 * s.sampleRate))
        gain = Float(s.gain)
        gate = Float(s.gate)
        decidesOnRise = s.hitDecision == .onRise
        minimumGapSamples = Int64(roundFast(s.minimumGap * s.sampleRate))
        riseLookBack = Int64(0.03 * s.sampleRate) / Int64(g.hop) + 2
    }

    deinit {
        onsetFFT.deallocate()
        centroidFFT.deallocate()
        samples.deallocate()
        decimated.deallocate()
        decimator.deallocate()
        levelScratch.deallocate()
        onsetWindow.deallocate()
        centroidWindow.deallocate()
        power.deallocate()
        bandStart.deallocate()
        bandLevel.deallocate()
        previousBandLevel.deallocate()
        bandLogFrequency.deallocate()
        envelopeHistory.deallocate()
        absolutePeakHistory.deallocate()
        onsetHistory.deallocate()
        meanHistory.deallocate()
        deviationHistory.deallocate()
        riseFrequencyHistory.deallocate()
        frameOutput.deallocate()
        hitOutput.deallocate()
        hitLevels.deinitialize(count: levelCount)
        hitLevels.deallocate()
    }

    private static func hann(_ n: Int) -> UnsafeMutablePointer<Float> {
        let w = UnsafeMutablePointer<Float>.allocate(capacity: n)
        for i in 0..<n { w[i] = Float(0.5 - 0.5 * cosine(2 * Double.pi * Double(i) / Double(n))) }
        return w
    }

    /// The frames completed by the last `process` call (valid until the next call).
    public var frames: UnsafeBufferPointer<FeatureFrame> { UnsafeBufferPointer(start: frameOutput, count: frameCount) }
    /// The hits decided during the last `process` call (valid until the next call), at the
    /// first sensitivity (`settings.sensitivity`). A hit lies up to two hops before the end of
    /// the last frame.
    public var hits: UnsafeBufferPointer<Hit> { hits(at: 0) }

    /// The hits decided during the last `process` call at `sensitivities[level]` (valid until
    /// the next call).
    @_noLocks
    public func hits(at level: Int) -> UnsafeBufferPointer<Hit> {
        // (Tested on locals: `precondition` and `&&` take a closure, which would retain self.)
        let count = levelCount
        precondition(UInt(bitPattern: level) < UInt(count), "no such sensitivity")
        return UnsafeBufferPointer(start: hitOutput + level * outputCapacity, count: hitLevels[level].hitCount)
    }
}
