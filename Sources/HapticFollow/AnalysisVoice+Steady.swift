// The analysis voice's steady placement (``FollowTiming``): output sample n from the captured
// samples up to n only, whatever the blocks; the bridge over a capture that ran dry; and the
// hits it starts, judged near a cut in the stream.

import HapticAnalysis
import HapticDSP
import HapticRender

extension AnalysisVoice {
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
    func holdOrFade(_ n: Int) {
        // (Nested conditions: `&&`'s autoclosure would retain self.)
        let run = bridgedRun, hold = bridgeHold
        if run < hold, run + n >= hold {
            target = 0
            step = -level / Float(hop)
            rampLeft = hop
        }
        bridgedRun += n
    }

    /// The steady placement's hits: a burst on every actuator from the sample the hit was
    /// decided on (on the voice's timeline: later by the samples bridged), not before `blockStart`.
    @_noLocks
    func startHits(_ hits: UnsafeBufferPointer<Hit>, blockStart: Int64) {
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
    func loudEnough(_ intensity: Float, overCutAt before: Float) -> Bool {
        let now = level > target ? level : target
        let reference = before > now ? before : now
        return intensity >= 1.41 * reference
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
}
