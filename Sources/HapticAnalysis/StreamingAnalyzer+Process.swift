// The per-sample pass of the streaming analysis (`process`: the samples into the rings, the
// loudness follower, the decimating low-pass, a hop's work at each hop boundary) and `reset`.

import HapticDSP

extension StreamingAnalyzer {
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
}
