// The analysis voice's earliest placement (``FollowTiming``): the sound analysed as it arrives
// (two analysers, their hop ends staggered), what was decided played on the next block's first
// sample, young bursts growing with the captured peak.

import HapticAnalysis
import HapticDSP
import HapticRender

extension AnalysisVoice {
    /// The earliest placement: the captured peak after a hit, watched while the sound arrives
    /// (the burst may already sound), from the sample it was decided on for four hops.
    struct Growth {
        var serial: Int
        var from: Int64
        var until: Int64
        var peak: Float
    }

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
    func consider(_ hit: Hit, staggered fromStaggered: Bool) {
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
    func keep(_ hit: Hit) {
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
    func watchGrowth(_ samples: UnsafePointer<Float>, from start: Int64, count: Int) {
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
    func growBursts() {
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
}
