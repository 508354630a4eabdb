// A hop's work in the streaming analysis: the onset function from the band levels' rise,
// the sharpness from the decimated spectrum's centroid, the feature frame, and the hit
// decisions it asks for (StreamingAnalyzer+Hits.swift).

import HapticDSP

extension StreamingAnalyzer {
    @_noLocks
    func endOfHop() {
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
    func onsetFunction() -> (Float, Float) {
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
    func updateSharpness() {
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
}
