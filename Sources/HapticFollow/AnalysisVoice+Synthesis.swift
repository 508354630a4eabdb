// The analysis voice's synthesis: the continuous layer (intensity ramped per feature frame,
// sharpness → frequency, ducked and notched under bursts) on each actuator's band, and the
// bursts added.

import HapticAnalysis
import HapticDSP
import HapticRender

extension AnalysisVoice {
    /// The drive for `n` samples from `position` on: the continuous layer from `frames` (each
    /// taking effect where its end, plus `skew`, falls), the bursts sounding; `samples`: the
    /// captured samples aligned with the output, whose peak a young burst's amplitude follows
    /// in the steady placement (silence otherwise).
    @_noLocks
    func synthesize(
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
    func sharpnessHeard(at p: Int64) -> Double {
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
    func take(_ frame: FeatureFrame) {
        target = frame.sounding ? frame.intensity : 0
        step = (target - level) / Float(hop)
        rampLeft = hop
        sharpness = Double(frame.sharpness)
    }

    /// The continuous layer's gain at sample `p`: the deepest dip of the latest hits.
    @_noLocks @inline(__always)
    func duckGain(at p: Int64) -> Float {
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
    func notchGain(at p: Int64, _ stepAt: Int64) -> Float {
        let d = p - stepAt
        if d <= -notch { return 1 }
        if d >= notch { return 1 }
        return Float(d < 0 ? -d : d) / Float(notch)
    }

    /// The continuous oscillator in step with the latest burst from sample `n` (`notch` after
    /// the burst's start) on: the burst's carrier is 0.25 + k · inc cycles at its k-th sample.
    @_noLocks @inline(__always)
    func bringInStep(_ band: UnsafeMutablePointer<Band>, _ n: Int64, _ inc: Double) {
        band.pointee.phaseAnchor = fractionalPart(0.25 + Double(notch) * inc)
        band.pointee.anchorSample = n
        band.pointee.inc = inc
    }

    /// Intensity 0…1 → amplitude by the profile's law (its table, linearly interpolated).
    @_noLocks @inline(__always)
    func amplitude(_ intensity: Float, _ table: UnsafeMutablePointer<Float>) -> Float {
        let i = intensity < 0 ? 0 : (intensity > 1 ? 1 : intensity)
        let x = i * Float(renderTableSize)
        let k = Swift.min(renderTableSize - 1, Int(x))
        return table[k] + (table[k + 1] - table[k]) * (x - Float(k))
    }

    /// A new frequency from sample `n` on: the phase carried over exactly (in double precision
    /// from the anchor), as the renderer's continuous events do.
    @_noLocks @inline(__always)
    func reanchor(_ band: UnsafeMutablePointer<Band>, _ n: Int64, _ inc: Double) {
        guard inc != band.pointee.inc else { return }
        if band.pointee.inc >= 0 {
            band.pointee.phaseAnchor = fractionalPart(
                band.pointee.phaseAnchor + Double(n &- band.pointee.anchorSample) * band.pointee.inc)
        }
        band.pointee.anchorSample = n
        band.pointee.inc = inc
    }
}
