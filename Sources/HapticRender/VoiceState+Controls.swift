// Dynamic-parameter values inside a voice: the live layer (setControl, with its ramp), the
// pattern value at an onset, and the per-chunk control rows the renderers read.

import HapticDSP
import HapticPattern

extension VoiceState {
    // MARK: live controls

    @_noLocks @inline(__always)
    func liveValue(_ id: Int, at n: Int64) -> Double {
        let ramp = liveRamp[id]
        let elapsed = n &- liveStart[id]
        if ramp <= 0 || elapsed >= ramp { return liveTo[id] }
        if elapsed <= 0 { return liveFrom[id] }
        return liveFrom[id] + (liveTo[id] - liveFrom[id]) * (Double(elapsed) / Double(ramp))
    }

    /// The live value an event struck at `n` takes: a step (a ramp no longer than the
    /// step ramp, which only keeps continuous drive from zipping) at its target from its
    /// first frame, so a hit on the frame a control jumps has the new value; a longer,
    /// explicit ramp as it stands at `n`.
    @_noLocks @inline(__always)
    func liveValueAtOnset(_ id: Int, at n: Int64) -> Double {
        liveRamp[id] <= stepRampFrames ? liveTo[id] : liveValue(id, at: n)
    }

    /// A live ramp's length in frames (at least one).
    static func rampFrames(_ seconds: Double, fs: Double) -> Int64 {
        max(1, Int64((seconds * fs).rounded()))
    }

    func setLive(_ id: Int, value: Double, ramp: Double) {
        let current = liveValue(id, at: now)
        liveFrom[id] = current
        liveTo[id] = value
        liveStart[id] = now
        let seconds = ramp.isFinite && ramp > 0 ? min(ramp, Limits.maxTime) : PreparedPattern.stepRampSeconds
        liveRamp[id] = Self.rampFrames(seconds, fs: fs)
    }

    /// Puts a live value in place at once, with no ramp: for a voice before its first frame.
    func presetLive(_ id: Int, value: Double) {
        liveFrom[id] = value
        liveTo[id] = value
        liveStart[id] = now
        liveRamp[id] = 0
    }

    @_noLocks @inline(__always)
    func combine(_ id: Int, _ patternValue: Double, _ live: Double) -> Double {
        ControlIndex.multiplies(id) ? patternValue * live : patternValue + live
    }

    /// The combined control at an event onset: the raw (unsmoothed) pattern value at
    /// the onset time, so a Parameter at the same time as a transient applies to it, and
    /// the live value likewise (`liveValueAtOnset`).
    @_noLocks @inline(__always)
    func controlAtOnset(_ id: Int, onset: Double, n: Int64) -> Double {
        let span = flat.rawSpans[id]
        let knots = UnsafeBufferPointer(rebasing: flat.rawKnots[span.offset..<(span.offset + span.count)])
        let value = ControlTimeline.value(knots, at: onset, neutral: flat.neutral[id])
        return combine(id, value, liveValueAtOnset(id, at: n))
    }

    /// Fills `controls[id]` for the chunk with the combined (smoothed pattern ⊗ live) value.
    ///
    /// Every sample's value is a function of its absolute index n only (never of the chunk
    /// split): on knot segment c the pattern value is the segment's line evaluated in double
    /// at g = n rounded down to a multiple of 8, plus (n - g) steps in Float; the live
    /// value is combined in Float. Whole grid blocks then cost one double evaluation.
    @_noLocks @inline(__always)
    func fillControl(_ id: Int, _ n0: Int64, _ count: Int) {
        let out = controlRow(id)
        let span = flat.smoothSpans[id]
        let ramp = liveRamp[id]
        let since = n0 &- liveStart[id]
        let liveSettled = ramp <= 0 || since >= ramp
        let multiply = ControlIndex.multiplies(id)
        if span.count == 0 {
            let v = Float(flat.neutral[id])
            if liveSettled {
                out.update(repeating: combineFloat(multiply, v, Float(liveTo[id])), count: count)
                controlConstant[id] = true
            } else {
                for k in 0..<count {
                    out[k] = combineFloat(multiply, v, Float(liveValue(id, at: n0 &+ Int64(k))))
                }
                controlConstant[id] = false
            }
            return
        }
        let knots = flat.smoothKnots.baseAddress! + span.offset
        let p0 = patternPosition(at: n0)
        var c = knotCursor[id]
        // The cursor only moves forward, except after a seek or loop wrap.
        if c >= span.count || (c >= 0 && knots[c].time > p0) {
            c = ControlTimeline.lastIndex(UnsafeBufferPointer(start: knots, count: span.count), atOrBefore: p0)
        }
        while c + 1 < span.count && knots[c + 1].time <= p0 { c += 1 }
        let pEnd = patternPosition(at: n0 &+ Int64(count - 1))
        let flatSegment = (c < 0 || knots[c].slope == 0) && (c + 1 >= span.count || knots[c + 1].time > pEnd)
        if flatSegment && liveSettled {
            let value = Float(c < 0 ? knots[0].value : knots[c].value)
            out.update(repeating: combineFloat(multiply, value, Float(liveTo[id])), count: count)
            controlConstant[id] = true
            knotCursor[id] = c
            return
        }
        let settledLive = Float(liveTo[id])
        let count0 = span.count
        // Clock values in locals: class properties would be access-checked on every sample.
        let ua = uAnchor, na = nAnchor, r = rate, po = pOffset
        // Knot segment by knot segment: the segment's end is found once (estimate, then
        // checked with the exact formula). Double(n - na) == d0 + Double(k) exactly (integers < 2^53).
        let d0 = Double(n0 &- na)
        let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        var k = 0
        while k < count {
            let p = (ua + (d0 + Double(k)) * r) - po
            while c + 1 < count0 && knots[c + 1].time <= p { c += 1 }
            var kEnd = count
            if c + 1 < count0 {
                let next = knots[c + 1].time
                let estimate = (next - p) / r
                kEnd = estimate < Double(count - k) ? k + Swift.max(1, Int(estimate)) : count
                while kEnd > k + 1 && (ua + (d0 + Double(kEnd - 1)) * r) - po >= next { kEnd -= 1 }
                while kEnd < count && (ua + (d0 + Double(kEnd)) * r) - po < next { kEnd += 1 }
            }
            // The segment's line (before the first knot: the first knot's value, flat).
            let kv = c < 0 ? knots[0].value : knots[c].value
            let kt = c < 0 ? 0 : knots[c].time
            let ks = c < 0 ? 0 : knots[c].slope
            let step = Float(r * ks)
            var q = k
            while q < kEnd {
                let n = n0 &+ Int64(q)
                let g = n & ~7
                let base = Float(kv + (((ua + Double(g &- na) * r) - po) - kt) * ks)
                let values = SIMD8<Float>(repeating: base) + lanes * step
                if liveSettled && n == g && kEnd - q >= 8 {
                    let combined = multiply ? values * settledLive : values + settledLive
                    UnsafeMutableRawPointer(out + q).storeBytes(of: combined, as: SIMD8<Float>.self)
                    q += 8
                    continue
                }
                let stop = Swift.min(kEnd, q + Int(g &+ 8 &- n))
                while q < stop {
                    let lane = Int(n0 &+ Int64(q) &- g)
                    let live = liveSettled ? settledLive : Float(liveValue(id, at: n0 &+ Int64(q)))
                    out[q] = combineFloat(multiply, values[lane], live)
                    q += 1
                }
            }
            k = kEnd
        }
        controlConstant[id] = false
        knotCursor[id] = c
    }

    /// Control `id`'s values for the current chunk (`voiceChunk` of them).
    @_noLocks @inline(__always)
    func controlRow(_ id: Int) -> UnsafeMutablePointer<Float> {
        controls + id * voiceChunk
    }

    /// amplitude(level · intensity[j]) for the chunk, shared by every event with the same
    /// level (a thousand voices at one level compute it once per chunk).
    @_noLocks @inline(__always)
    func amplitudeRow(_ level: Float, _ count: Int) -> UnsafeMutablePointer<Float> {
        if !(amplitudeRowLevel == level) {
            let intensity = controlRow(ControlIndex.hapticIntensity)
            let row = amplitudeRowValues
            // A constant control: one value (what every lane below would compute).
            let constant = controlConstant[ControlIndex.hapticIntensity]
            if constant { row.update(repeating: amplitude(intensity: level * intensity[0]), count: count) }
            // 8 lanes at a time, each lane the scalar `amplitude(intensity:)` (same operations).
            let table = flat.amplitudeTable.baseAddress!
            let halves = flat.amplitudeHalfPowers
            var j = constant ? count : 0
            while j + 8 <= count {
                var v = SIMD8(repeating: level) * UnsafeRawPointer(intensity + j).loadUnaligned(as: SIMD8<Float>.self)
                v.replace(with: 0, where: v .< 0)
                v.replace(with: 1, where: v .> 1)
                if halves != 0 {
                    if halves != 2 { v = halfPower(v, halves) }
                } else {
                    let x = v * Float(renderTableSize)
                    var low = SIMD8<Float>(), high = SIMD8<Float>(), f = SIMD8<Float>()
                    for l in 0..<8 {
                        let k = Swift.min(renderTableSize - 1, Int(x[l]))
                        f[l] = x[l] - Float(k)
                        low[l] = table[k]
                        high[l] = table[k + 1]
                    }
                    v = low + (high - low) * f
                }
                UnsafeMutableRawPointer(row + j).storeBytes(of: v, as: SIMD8<Float>.self)
                j += 8
            }
            while j < count {
                row[j] = amplitude(intensity: level * intensity[j])
                j += 1
            }
            amplitudeRowLevel = level
        }
        return amplitudeRowValues
    }
}

/// A pattern control value combined with the live one (intensity and volume multiply, the
/// others add), in Float: the same operation on every path that fills a control.
@_noLocks @inline(__always)
func combineFloat(_ multiply: Bool, _ pattern: Float, _ live: Float) -> Float {
    multiply ? pattern * live : pattern + live
}
