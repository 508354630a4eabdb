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
    /// The checks of a hop that do not depend on the sensitivity (the level risen, clear of the
    /// gate), made once per hop however many sensitivities ask.
    private struct HopCheck {
        var hop: Int64 = -1
        /// Whether the hop passed; where its loudest recent sample is, and the largest sample of
        /// its last four hops.
        var passed = false
        var loudestSample: Int64 = 0
        var peak: Float = 0
    }

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

    private let geometry: AnalysisGeometry
    private var follower: LoudnessFollower
    private let decimator: Decimator

    // Time-domain rings (indexed by absolute position & mask), each written twice (at i and
    // i + ring size), so that any window of up to a ring's length lies contiguous in memory.
    private let samples: UnsafeMutablePointer<Float>
    private let sampleMask: Int
    private let decimated: UnsafeMutablePointer<Float>
    private let decimatedMask: Int
    /// The follower's levels over the current segment (one hop at most).
    private let levelScratch: UnsafeMutablePointer<Float>

    // Spectra.
    private let onsetFFT: RealFFT
    private let centroidFFT: RealFFT
    private let onsetWindow: UnsafeMutablePointer<Float>
    private let centroidWindow: UnsafeMutablePointer<Float>
    private let power: UnsafeMutablePointer<Float>
    /// Per band of the onset spectrum (third-octave bands from 50 Hz to 16 kHz, at least a
    /// bin each): its first bin (band b is bins bandStart[b]..<bandStart[b + 1]), its log level
    /// now and a hop ago, and log2 of its centre frequency.
    private let bandStart: UnsafeMutablePointer<Int>
    private let bandLevel: UnsafeMutablePointer<Float>
    private let previousBandLevel: UnsafeMutablePointer<Float>
    private let bandLogFrequency: UnsafeMutablePointer<Float>
    private let bandCount: Int
    private let onsetPowerScale: Float
    private let centroidBins: Int
    private let centroidBinHz: Float

    // Per-hop history (ring of `historyLength` hops): envelope peaks, onset function, and the
    // running statistics its threshold was set from.
    private let envelopeHistory: UnsafeMutablePointer<Float>
    private let absolutePeakHistory: UnsafeMutablePointer<Float>
    private let onsetHistory: UnsafeMutablePointer<Float>
    private let meanHistory: UnsafeMutablePointer<Float>
    private let deviationHistory: UnsafeMutablePointer<Float>
    /// The rise-weighted mean log2 frequency per hop.
    private let riseFrequencyHistory: UnsafeMutablePointer<Float>

    // Outputs of the current call.
    private let frameOutput: UnsafeMutablePointer<FeatureFrame>
    /// `outputCapacity` hits per sensitivity, one after the other.
    private let hitOutput: UnsafeMutablePointer<Hit>
    private var frameCount = 0
    private let hitLevels: UnsafeMutablePointer<HitLevel>
    private let levelCount: Int
    private var hopCheck = HopCheck()

    // Running state.
    private var position: Int64 = 0
    private var decimatedPosition: Int64 = 0
    private var hopIndex: Int64 = 0
    private var hopPeak: Float = 0
    private var hopPeakIndex: Int64 = 0
    private var hopAbsolutePeak: Float = 0
    private var lastNonZero: Int64 = -1 << 40
    private var onsetMean: Float = 0
    private var onsetDeviation: Float = 0
    private var statisticsWeight: Float
    private var sharpness: Float = 0
    private let gain: Float
    private let gate: Float
    /// `HitDecision.onRise`.
    private let decidesOnRise: Bool
    private let minimumGapSamples: Int64
    /// Hops looked back for the envelope's level before a hit (30 ms).
    private let riseLookBack: Int64
    /// Samples that were NaN or infinite (taken as silence).
    public private(set) var nonFiniteSamples: Int64 = 0

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
    /// Samples taken so far.
    public var samplesProcessed: Int64 { position }

    /// Takes up to `settings.maxBlockFrames` samples from `input`; returns how many it took.
    /// The frames and hits this completed are in `frames` and `hits` until the next call.
    @_noLocks
    public func process(_ input: UnsafePointer<Float>, count: Int) -> Int {
        frameCount = 0
        for k in 0..<levelCount { hitLevels[k].hitCount = 0 }
        let n = count < 0 ? 0 : (count < settings.maxBlockFrames ? count : settings.maxBlockFrames)
        let hop = Int64(geometry.hop)
        let factorMask = Int64(geometry.decimation - 1)  // a power of two
        let mask = Int64(sampleMask), decimatedRingMask = Int64(decimatedMask)
        let ring = samples, decimatedRing = decimated, levels = levelScratch, g = gain, lowPass = decimator
        var i = 0
        while i < n {
            // Up to the next hop boundary with the per-sample state in locals (no access to
            // the object's storage per sample), in passes: the samples into the ring, the
            // follower's envelope, the decimating filter; then the hop's work. The segment lies
            // within one hop, and the ring holds whole hops, so its part of the ring is contiguous.
            let p0 = position
            let segment = Int(min(Int64(n - i), hop - p0 % hop))
            let slice = ring + Int(p0 & mask), mirror = slice + Int(mask + 1)
            var f = follower
            var peak = hopPeak, peakIndex = hopPeakIndex, absolutePeak = hopAbsolutePeak
            var nonZero = lastNonZero, nonFinite = nonFiniteSamples, dp = decimatedPosition
            for j in 0..<segment {
                var x = input[i + j]
                if !x.isFinite {
                    x = 0
                    nonFinite &+= 1
                }
                x *= g
                x = x > 64 ? 64 : (x < -64 ? -64 : x)
                slice[j] = x
                mirror[j] = x
                let magnitude = x < 0 ? -x : x
                if magnitude > absolutePeak { absolutePeak = magnitude }
            }
            // The last non-zero sample: looked for from the end (usually the last).
            var last = segment - 1
            while last >= 0 && slice[last] == 0 { last -= 1 }
            if last >= 0 { nonZero = p0 + Int64(last) }
            var peakAt = -1
            f.process(slice, count: segment, scratch: levels, peak: &peak, peakAt: &peakAt)
            if peakAt >= 0 { peakIndex = p0 + Int64(peakAt) }
            // The decimated samples that end in this segment: positions p with p + 1 a
            // multiple of the factor, each filtered from the ring's last taps up to it.
            var p = p0 + ((factorMask - p0) & factorMask)
            while p < p0 + Int64(segment) {
                let y = lowPass.output(ring + Int((p - Int64(lowPass.count - 1)) & mask))
                let k = Int(dp & decimatedRingMask)
                decimatedRing[k] = y
                decimatedRing[k + Int(decimatedRingMask) + 1] = y
                dp += 1
                p += factorMask + 1
            }
            follower = f
            hopPeak = peak
            hopPeakIndex = peakIndex
            hopAbsolutePeak = absolutePeak
            lastNonZero = nonZero
            nonFiniteSamples = nonFinite
            decimatedPosition = dp
            position = p0 + Int64(segment)
            i += segment
            if position % hop == 0 { endOfHop() }
        }
        return n
    }

    /// Forgets the past: the next sample is taken as the stream's first.
    public func reset() {
        follower = LoudnessFollower(settings)
        samples.update(repeating: 0, count: 2 * (sampleMask + 1))
        decimated.update(repeating: 0, count: 2 * (decimatedMask + 1))
        bandLevel.update(repeating: 0, count: bandCount)
        previousBandLevel.update(repeating: 0, count: bandCount)
        envelopeHistory.update(repeating: 0, count: analysisHistoryLength)
        absolutePeakHistory.update(repeating: 0, count: analysisHistoryLength)
        onsetHistory.update(repeating: 0, count: analysisHistoryLength)
        meanHistory.update(repeating: 0, count: analysisHistoryLength)
        deviationHistory.update(repeating: 0, count: analysisHistoryLength)
        riseFrequencyHistory.update(repeating: 0, count: analysisHistoryLength)
        position = 0
        decimatedPosition = 0
        hopIndex = 0
        hopPeak = 0
        hopPeakIndex = 0
        hopAbsolutePeak = 0
        lastNonZero = -1 << 40
        onsetMean = 0
        onsetDeviation = 0
        sharpness = 0
        for k in 0..<levelCount { hitLevels[k] = HitLevel(sensitivity: sensitivities[k]) }
        hopCheck = HopCheck()
        frameCount = 0
        nonFiniteSamples = 0
    }

    // MARK: per hop

    @_noLocks
    private func endOfHop() {
        let slot = Int(hopIndex % Int64(analysisHistoryLength))
        let (onset, riseLogHz) = onsetFunction()
        if hopIndex & 1 == 0 { updateSharpness() }
        let threshold = hitLevels[0].threshold(mean: onsetMean, deviation: onsetDeviation)
        envelopeHistory[slot] = hopPeak
        absolutePeakHistory[slot] = hopAbsolutePeak
        onsetHistory[slot] = onset
        meanHistory[slot] = onsetMean
        deviationHistory[slot] = onsetDeviation
        riseFrequencyHistory[slot] = riseLogHz
        // The running statistics include this hop only after its threshold was set.
        onsetMean += (onset - onsetMean) * statisticsWeight
        let deviation = onset > onsetMean ? onset - onsetMean : onsetMean - onset
        onsetDeviation += (deviation - onsetDeviation) * statisticsWeight

        if frameCount < outputCapacity {
            frameOutput[frameCount] = FeatureFrame(
                end: position, peakIndex: hopPeakIndex, amplitude: hopPeak,
                intensity: squareRootFast(hopPeak < 1 ? hopPeak : 1), sharpness: sharpness, onset: onset,
                threshold: threshold, sounding: hopPeak >= gate)
            frameCount += 1
        }
        // (Nested conditions: `&&` takes its right side as a closure, which retains self.)
        for k in 0..<levelCount {
            if hitLevels[k].enabled {
                if decidesOnRise {
                    decideHitOnRise(level: k)
                } else if hopIndex >= 1 {
                    decideHit(level: k)
                }
            }
        }
        hopIndex += 1
        hopPeak = 0
        hopPeakIndex = position
        hopAbsolutePeak = 0
    }

    /// The mean rise of the bands' log levels since the previous hop (every third-octave
    /// counts the same, so a bass thump weighs as much as a hi-hat), and the rise-weighted
    /// mean log2 frequency.
    @_noLocks
    private func onsetFunction() -> (Float, Float) {
        let n = geometry.onsetWindow
        // A window of zeros has a zero spectrum: skip the transform (long silences cost nothing).
        if position - lastNonZero > Int64(n) {
            bandLevel.update(repeating: 0, count: bandCount)
        } else {
            let window = samples + Int((position - Int64(n)) & Int64(sampleMask))
            onsetFFT.powerSpectrum(window, window: onsetWindow, power, bins: bandStart[bandCount])
            for b in 0..<bandCount {
                let lo = bandStart[b], hi = bandStart[b + 1]
                var sum: Float = 0
                for k in lo..<hi { sum += power[k] }
                // log2(1 + 1000·amplitude) as a power: -60 dBFS is the knee.
                bandLevel[b] = 0.5 * log2Fast(1 + 1e6 * onsetPowerScale * sum / Float(hi - lo))
            }
        }
        var rise: Float = 0
        var weighted: Float = 0
        for b in 0..<bandCount {
            let d = bandLevel[b] - previousBandLevel[b]
            if d > 0 {
                rise += d
                weighted += d * bandLogFrequency[b]
            }
            previousBandLevel[b] = bandLevel[b]
        }
        return (rise / Float(bandCount), rise > 0 ? weighted / rise : 0)
    }

    /// Updates `sharpness` from the centroid of the decimated spectrum below the cutoff;
    /// kept as it was while the window is too quiet to say.
    @_noLocks
    private func updateSharpness() {
        let n = geometry.centroidWindow
        if position - lastNonZero > Int64(n * geometry.decimation) { return }
        let window = decimated + Int((decimatedPosition - Int64(n)) & Int64(decimatedMask))
        centroidFFT.powerSpectrum(window, window: centroidWindow, power, bins: centroidBins)
        var sum: Float = 0
        var weighted: Float = 0
        for k in 1...centroidBins {
            let magnitude = squareRootFast(power[k])
            sum += magnitude
            weighted += magnitude * Float(k)
        }
        // Quieter than a -66 dBFS sine in the band: too quiet to say.
        if sum * 4 / Float(n) < gate * 0.5 { return }
        let centroid = weighted / sum * centroidBinHz
        let low = Float(settings.sharpnessLow), high = Float(settings.sharpnessHigh)
        var f = (centroid - low) / (high - low)
        f = f < 0 ? 0 : (f > 1 ? 1 : f)
        sharpness = squareRootFast(f)
    }

    /// Decides whether the previous hop holds a hit at `hitLevels[level]` (a local maximum of the
    /// onset function over its threshold, with the envelope rising), and where it is to the sample.
    @_noLocks
    private func decideHit(level: Int) {
        let length = Int64(analysisHistoryLength)
        let candidate = Int((hopIndex - 1) % length)
        let before = Int((hopIndex + length - 2) % length)
        let now = Int(hopIndex % length)
        let o = onsetHistory[candidate]
        let threshold = hitLevels[level].threshold(mean: meanHistory[candidate], deviation: deviationHistory[candidate])
        // (Before the first hop there was silence: its onset function was 0.)
        let previous = hopIndex >= 2 ? onsetHistory[before] : 0
        guard o > threshold, o >= previous, o > onsetHistory[now] else { return }
        _ = confirmHit(level: level, candidate: candidate, onset: o, threshold: threshold)
    }

    /// `HitDecision.onRise`: whether this hop, rising over its threshold at `hitLevels[level]`,
    /// holds a hit; tried at each hop of a rise until one passes the checks, then not again until
    /// the onset function stops rising over its threshold.
    @_noLocks
    private func decideHitOnRise(level: Int) {
        let length = Int64(analysisHistoryLength)
        let now = Int(hopIndex % length)
        let o = onsetHistory[now]
        let threshold = hitLevels[level].threshold(mean: meanHistory[now], deviation: deviationHistory[now])
        let previous = hopIndex >= 1 ? onsetHistory[Int((hopIndex + length - 1) % length)] : 0
        guard o > threshold, o >= previous else {
            hitLevels[level].riseArmed = true
            return
        }
        if hitLevels[level].riseArmed {
            if confirmHit(level: level, candidate: now, onset: o, threshold: threshold) { hitLevels[level].riseArmed = false }
        }
    }

    /// The checks a candidate hop (history slot `candidate`, its onset function and threshold)
    /// must pass besides the onset function's (the level risen, clear of the gate, the gap),
    /// made with the hops up to the current one; writes the hit at `hitLevels[level]` and returns
    /// true when it passes.
    @_noLocks
    private func confirmHit(level: Int, candidate: Int, onset o: Float, threshold: Float) -> Bool {
        if hopCheck.hop != hopIndex { checkHop() }
        guard hopCheck.passed else { return false }
        let best = hopCheck.loudestSample, peak = hopCheck.peak
        guard best - hitLevels[level].lastHitIndex >= minimumGapSamples else { return false }
        hitLevels[level].lastHitIndex = best
        // The rise's mean log2 frequency: 80 Hz → 0, 10 kHz → 1 (log2 80 = 6.32, log2(10000/80) = 6.97).
        var s = (riseFrequencyHistory[candidate] - 6.3219281) / 6.9657843
        s = s < 0 ? 0 : (s > 1 ? 1 : s)
        let count = hitLevels[level].hitCount
        if count < outputCapacity {
            hitOutput[level * outputCapacity + count] = Hit(
                sampleIndex: best, intensity: squareRootFast(peak < 1 ? peak : 1), sharpness: s,
                strength: threshold > 0 ? o / threshold : o, decidedAt: position)
            hitLevels[level].hitCount = count + 1
        }
        return true
    }

    /// The current hop's checks that do not depend on the sensitivity, into `hopCheck`: the level
    /// must have risen and be clear of the gate, and where the hit would lie.
    @_noLocks
    private func checkHop() {
        let length = Int64(analysisHistoryLength)
        hopCheck = HopCheck(hop: hopIndex)
        // The level must have risen: the largest sample of the last four hops (the onset function
        // peaks one or two hops after the onset's hop) against the quietest 4-hop peak (10.7 ms at
        // 48 kHz, half a cycle of 47 Hz) of the 30 ms before them, by 3 dB; and the envelope must
        // be clear of the gate.
        var peak: Float = 0
        var envelopePeak: Float = 0
        // (Hops before the stream's first were silent: nothing to take from them. A negative
        // slot here was a read before the histories, found by the sound fuzz target.)
        for back in 0..<(hopIndex < 3 ? Int(hopIndex) + 1 : 4) {
            let k = Int((hopIndex - Int64(back)) % length)
            if absolutePeakHistory[k] > peak { peak = absolutePeakHistory[k] }
            if envelopeHistory[k] > envelopePeak { envelopePeak = envelopeHistory[k] }
        }
        guard envelopePeak >= gate * 4 else { return }
        // Before the stream's first sample there was silence: a sound that starts with a hit
        // has risen from nothing.
        var base = hopIndex < 8 ? 0 : peak
        let oldest = hopIndex - 4 - riseLookBack > 3 ? hopIndex - 4 - riseLookBack : 3
        var h = hopIndex - 4
        while h >= oldest {
            var window: Float = 0
            for back in 0..<4 {
                let v = absolutePeakHistory[Int((h - Int64(back)) % length)]
                if v > window { window = v }
            }
            if window < base { base = window }
            h -= 1
        }
        guard peak >= base * 1.4125 else { return }  // +3 dB
        // The loudest sample of the last five hops (the candidate's window reaches four hops back).
        let span = Int64(geometry.hop * 5)
        var best: Int64 = position - 1
        var loudest: Float = -1
        var p = position - span
        while p < position {
            if p >= 0 {
                let v = samples[Int(p & Int64(sampleMask))]
                let a = v < 0 ? -v : v
                if a > loudest {
                    loudest = a
                    best = p
                }
            }
            p += 1
        }
        hopCheck.passed = true
        hopCheck.loudestSample = best
        hopCheck.peak = peak
    }
}
