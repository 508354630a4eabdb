// The streaming analysis's hit decisions: a local maximum of the onset function over its
// threshold (or its rise, `HitDecision.onRise`), confirmed by the checks that do not depend on
// the sensitivity (made once per hop), and placed on its loudest sample.

import HapticDSP

extension StreamingAnalyzer {
    /// The checks of a hop that do not depend on the sensitivity (the level risen, clear of the
    /// gate), made once per hop however many sensitivities ask.
    struct HopCheck {
        var hop: Int64 = -1
        /// Whether the hop passed; where its loudest recent sample is, and the largest sample of
        /// its last four hops.
        var passed = false
        var loudestSample: Int64 = 0
        var peak: Float = 0
    }

    /// Decides whether the previous hop holds a hit at `hitLevels[level]` (a local maximum of the
    /// onset function over its threshold, with the envelope rising), and where it is to the sample.
    @_noLocks
    func decideHit(level: Int) {
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
    func decideHitOnRise(level: Int) {
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
    func confirmHit(level: Int, candidate: Int, onset o: Float, threshold: Float) -> Bool {
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
    func checkHop() {
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
