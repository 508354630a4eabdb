// The look-ahead peak limiter of the protection chain (its 8-lane helpers: SIMDHelpers.swift).

/// A look-ahead peak limiter that guarantees |output| <= ceiling.
///
/// With a[n] = 1 - min(1, c/|x[n]|) (the reduction sample n needs) and L the look-ahead:
/// A[n] = max of a over a window that contains [n-L, n]; the reduction depth
/// d[n] = max(A[n], q·d[n-1]) releases exponentially (q = e^(-1/release)), after a hold: for
/// `holdSamples` after d last rose, d[n] = max(A[n], d[n-1]) (counted in whole grid blocks). The
/// hold, one period of the lowest frequency the chain passes, keeps the gain from rippling once
/// per cycle of a low tone; that ripple times the tone is energy below the band. The gain
/// h[n] = 1 - mean of d over [n-L, n]; y[n] = x[n-L]·h[n]. Every d[j] averaged into h[n]
/// has j-L <= n-L <= j, so d[j] >= a[n-L] and h[n] <= min(1, c/|x[n-L]|): the output never
/// exceeds c (the hold only makes d larger). Gain changes are spread over the look-ahead
/// (attack) and the release time, so isolated peaks do not pump. A final clamp catches
/// rounding only.
///
/// Evaluated 8 samples at a time on a grid of the absolute sample index, with no serial
/// step inside a block: A's window is the running maximum since the block's start (a
/// prefix maximum) and the maxima of the ceil(L/8) blocks before it; A is non-decreasing
/// inside a block, so the recursion for d has the closed form d[g+l] = max(A[g+l],
/// d[g-1]·q^(l+1)); the window sum of d is kept in fixed point (integer-valued Floats below
/// 2^24, so prefix sums are exact in any order and never drift). A call that ends inside a
/// block emits the lanes it has (every quantity is causal, so the unknown inputs, taken as
/// 0, do not reach them) and finishes the block on the next call from the same state: any
/// split of the input gives identical output. The idle path (nothing to reduce anywhere in
/// the window) passes whole blocks through the delay and produces the same samples.
///
/// Mono limiters may carry a `SubBandServo`: it adds a correction w after the gain that pays
/// back what the gain's changes leave below the band (see there). A block's inputs are then
/// limited to c_b = c - |w_b|, w_b the correction they will leave with (decided as they enter),
/// so the proof above, with c_b for c, gives |y| <= c_b + |w_b| = c.
package struct LookAheadLimiter {
    /// The constants and rings (see `Kernel`).
    package let kernel: Kernel
    package let channels: Int
    package let blockCount: Int  // ceil(L/8)
    package let blockMax: UnsafeMutablePointer<Float>
    package var blockPosition = 0
    /// Ring position of the current grid block (a multiple of 8).
    package var position = 0
    /// Inputs of the current grid block; lanes >= `filled` are 0.
    package var pending0 = SIMD8<Float>.zero
    package var pending1 = SIMD8<Float>.zero
    package var filled = 0
    /// Maximum of a over the blocks before the current one (within the window).
    package var olderMax: Float = 0
    /// d and the window sum of units at the end of the previous block.
    package var depth: Float = 0
    package var sum: Float = 0
    /// Whole blocks the depth is still held before it releases (see `holdBlocks`).
    package var holdLeft = 0
    /// How long d is held after its last rise before it releases, in blocks.
    package let holdBlocks: Int
    /// The sub-band correction (mono only; one that never wakes when `subBandCutoff` is 0).
    package var servo: SubBandServo
    package let correcting: Bool
    /// Metering (for pictures and reports, off by default): while on, `lowestGain` keeps the
    /// lowest gain h applied to any output sample since it was last reset to 1. Off, it costs
    /// one untaken branch per block that has something to reduce (the idle path has gain 1
    /// and no branch at all); on, a minimum over the block's lanes. No allocation either way.
    package var metering = false
    package var lowestGain: Float = 1

    package var lookahead: Int { kernel.lookahead }
    package var ceiling: Float { kernel.ceiling }
    package var ringLength: Int { kernel.ringLength }

    /// `subBandCutoff` (Hz, mono only; 0: none) is the `SubBandServo`'s f₀ at `sampleRate`.
    package init(
        lookahead: Int, ceiling: Float, releaseSamples: Double, holdSamples: Int = 0, channels: Int,
        subBandCutoff: Double = 0, sampleRate: Double = 48_000
    ) {
        self.channels = channels
        holdBlocks = max(0, holdSamples + 7) / 8
        let window = lookahead + 1
        let q = exp2Double(-1.4426950408889634 / max(1, releaseSamples))
        var powers = SIMD8<Float>.zero
        var qk = 1.0
        for k in 0..<8 {
            qk *= q
            powers[k] = Float(qk)
        }
        var sc = 1.0
        while Double(window + 8) * sc * 2 <= 16_777_216 { sc *= 2 }
        var ring = 16
        while ring < window + 8 { ring *= 2 }
        let inputs = UnsafeMutablePointer<Float>.allocate(capacity: channels * (ring + 8))
        inputs.initialize(repeating: 0, count: channels * (ring + 8))
        let units = UnsafeMutablePointer<Float>.allocate(capacity: ring + 8)
        units.initialize(repeating: 0, count: ring + 8)
        kernel = Kernel(
            lookahead: lookahead, window: window, ringLength: ring, ceiling: ceiling, scale: Float(sc),
            gainPerUnit: Float(1 / (sc * Double(window))), release: powers, inputs: inputs, units: units)
        blockCount = (lookahead + 7) / 8
        blockMax = .allocate(capacity: blockCount)
        blockMax.initialize(repeating: 0, count: blockCount)
        correcting = channels == 1 && subBandCutoff > 0 && subBandCutoff.isFinite
        servo = SubBandServo(cutoff: correcting ? subBandCutoff : 0, sampleRate: sampleRate, ceiling: ceiling, ringLength: ring)
    }

    /// Frees the buffers (called by the owner's deinit; a struct so that the render loop's
    /// state lives in locals/registers without per-access exclusivity checks).
    package func deallocate() {
        kernel.inputs.deallocate()
        kernel.units.deallocate()
        blockMax.deallocate()
        servo.deallocate()
    }

    package mutating func copyState(from o: LookAheadLimiter) {
        kernel.inputs.update(from: o.kernel.inputs, count: channels * (ringLength + 8))
        kernel.units.update(from: o.kernel.units, count: ringLength + 8)
        blockMax.update(from: o.blockMax, count: blockCount)
        blockPosition = o.blockPosition
        position = o.position
        pending0 = o.pending0
        pending1 = o.pending1
        filled = o.filled
        olderMax = o.olderMax
        depth = o.depth
        sum = o.sum
        holdLeft = o.holdLeft
        servo.copyState(from: o.servo)
        metering = o.metering
        lowestGain = o.lowestGain
    }

    /// The per-block arithmetic with its constants: a small trivial value, copied into the
    /// loop's locals (calling methods of the whole limiter there copies the limiter).
    package struct Kernel {
        /// L, and the window L + 1 that the gain averages over.
        package let lookahead: Int
        package let window: Int
        /// Ring length (a power of two >= window + 8); each ring has 8 mirrored entries after
        /// it, so that any 8 consecutive entries are one unaligned load.
        package let ringLength: Int
        package let ceiling: Float
        /// d is rounded to a multiple of 1/scale; gainPerUnit = 1/(scale·window).
        package let scale: Float
        package let gainPerUnit: Float
        /// q^1 ... q^8 (q: release factor per sample).
        package let release: SIMD8<Float>
        /// channels × (ringLength + 8) input samples, by absolute index mod ringLength.
        package let inputs: UnsafeMutablePointer<Float>
        /// ringLength + 8 entries of round(d·scale).
        package let units: UnsafeMutablePointer<Float>

        /// Stores 8 values at ring position `at` (a multiple of 8), mirroring the first 8.
        @inline(__always) @inlinable
        package func store(_ v: SIMD8<Float>, _ ring: UnsafeMutablePointer<Float>, _ at: Int) {
            UnsafeMutableRawPointer(ring + at).storeBytes(of: v, as: SIMD8<Float>.self)
            if at == 0 { UnsafeMutableRawPointer(ring + ringLength).storeBytes(of: v, as: SIMD8<Float>.self) }
        }

        /// The 8 ring entries from `back` samples before position `at`.
        @inline(__always) @inlinable
        package func load(_ ring: UnsafeMutablePointer<Float>, _ at: Int, back: Int) -> SIMD8<Float> {
            let from = (at - back) & (ringLength - 1)
            return UnsafeRawPointer(ring + from).loadUnaligned(as: SIMD8<Float>.self)
        }

        @inline(__always) @inlinable
        package func magnitude(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>, stereo: Bool) -> SIMD8<Float> {
            let a0 = abs8(v0)
            if !stereo { return a0 }
            let a1 = abs8(v1)
            return a0.replacing(with: a1, where: a1 .> a0)
        }

        /// One grid block: outputs, and the state it leaves (applied by `finishBlock` once the
        /// block is complete). Writes the block's inputs and units into the rings (rewritten
        /// identically when a partial block is completed).
        /// `limitTo` is the ceiling the block's inputs are limited to (c_b, at most `ceiling`) and
        /// `corrections` the servo's w of the samples leaving (nil: all 0, nothing added).
        @inline(__always) @inlinable
        package func block(
            _ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ pos: Int, _ dPrev: Float, _ sPrev: Float, _ older: Float,
            holding: Bool, stereo: Bool, limitTo c: Float, corrections: SIMD8<Float>?
        ) -> BlockResult {
            let p = magnitude(v0, v1, stereo: stereo)
            let over = p .> c
            var a = SIMD8(repeating: older)
            var runMax: Float = 0
            if any(over) {
                // The division only where it matters, then the running maximum since the block's
                // start, then with the older blocks. (Without a sample over c, all of that is 0.)
                var need = SIMD8<Float>.zero
                need.replace(with: 1 - c / p, where: over)
                need = prefixMax8(need)
                runMax = need[7]
                a = pointwiseMax8(need, a)
            }
            // Without anything to reduce, A is 0 and d is the release alone (or held).
            let decayed = holding ? SIMD8(repeating: dPrev) : release * dPrev
            let quiet = runMax == 0 && older == 0
            let d = quiet ? decayed : pointwiseMax8(a, decayed)
            // a is non-decreasing across the block and `decayed` non-increasing, so A rose above
            // the release somewhere in the block exactly when it is above it in the last lane.
            let rose = !quiet && a[7] > decayed[7]
            let u = (d * scale + 8_388_608) - 8_388_608  // round to an integer (d·scale < 2^23)
            store(u, units, pos)
            // Prefix sum (exact: integers below 2^24).
            let sums = prefixSum8(u - load(units, pos, back: window)) + sPrev
            let h = 1 - sums * gainPerUnit
            store(v0, inputs, pos)
            let x0 = load(inputs, pos, back: lookahead)
            let y0: SIMD8<Float>
            if let w = corrections { y0 = clamp8(x0 * h + w, ceiling) } else { y0 = clamp8(x0 * h, ceiling) }
            var y1 = y0
            if stereo {
                let ring1 = inputs + (ringLength + 8)
                store(v1, ring1, pos)
                y1 = clamp8(load(ring1, pos, back: lookahead) * h, ceiling)
            }
            return BlockResult(y0: y0, y1: y1, depth: d[7], sum: sums[7], blockMax: runMax, rose: rose, delayed: x0, gain: h)
        }
    }

    /// One grid block's outputs and the state it leaves (see `Kernel.block`).
    package struct BlockResult {
        package var y0: SIMD8<Float>
        package var y1: SIMD8<Float>
        package var depth: Float
        package var sum: Float
        package var blockMax: Float
        package var rose: Bool
        /// The first channel's delayed inputs (the x of y0), and the gains h of the block's
        /// samples (the servo reads the last; metering all of them).
        package var delayed: SIMD8<Float>
        package var gain: SIMD8<Float>

        /// Σ(y0 - x) over the block, in a fixed order (the servo's reduction).
        @inline(__always) @inlinable
        package var reduction: Float {
            let r = y0 - delayed
            let pairs = r.lowHalf + r.highHalf
            return (pairs[0] + pairs[2]) + (pairs[1] + pairs[3])
        }
    }

    /// Limits `count` samples of one (x0 == x1) or two linked channels in place.
    @_noLocks @inline(__always) @inlinable
    package mutating func process(_ x0: UnsafeMutablePointer<Float>, _ x1: UnsafeMutablePointer<Float>, _ count: Int) {
        // Three copies of the loop, so the mono ones carry no stereo work and only the haptic
        // one the servo's.
        if channels == 2 {
            limitStereo(x0, x1, count)
        } else if correcting {
            limitMonoCorrecting(x0, count)
        } else {
            limitMono(x0, count)
        }
    }

    // Separate functions, so that each is compiled for one channel count.
    package mutating func limitMono(_ x: UnsafeMutablePointer<Float>, _ count: Int) { limit(x, x, count, stereo: false, correct: false) }
    package mutating func limitMonoCorrecting(_ x: UnsafeMutablePointer<Float>, _ count: Int) {
        limit(x, x, count, stereo: false, correct: true)
    }
    package mutating func limitStereo(_ x0: UnsafeMutablePointer<Float>, _ x1: UnsafeMutablePointer<Float>, _ count: Int) {
        limit(x0, x1, count, stereo: true, correct: false)
    }

    @inline(__always) @inlinable
    package mutating func limit(
        _ x0: UnsafeMutablePointer<Float>, _ x1: UnsafeMutablePointer<Float>, _ count: Int, stereo: Bool, correct: Bool
    ) {
        let k = kernel
        let c = k.ceiling
        let inputs = k.inputs, units = k.units, lookahead = k.lookahead, ringLength = k.ringLength
        let ring1 = inputs + (ringLength + 8)
        var pos = position, d = depth, s = sum, older = olderMax, f = filled, hold = holdLeft
        let meter = metering
        var lowest = lowestGain
        var i = 0
        while i < count {
            let in0: SIMD8<Float>, in1: SIMD8<Float>
            let take = Swift.min(8 - f, count - i)
            if f == 0 && count - i >= 8 {
                let v0 = UnsafeRawPointer(x0 + i).loadUnaligned(as: SIMD8<Float>.self)
                let v1 = stereo ? UnsafeRawPointer(x1 + i).loadUnaligned(as: SIMD8<Float>.self) : v0
                // Idle: nothing to reduce in the window and this block under the ceiling (and the
                // servo at rest). Gain exactly 1, no clamp needed (every delayed sample was under
                // the ceiling too); the units of the block are 0 and the block maxima stay 0.
                if d == 0 && s == 0 && older == 0 && (!correct || servo.resting) && !any(k.magnitude(v0, v1, stereo: stereo) .> c) {
                    k.store(v0, inputs, pos)
                    let delayed = k.load(inputs, pos, back: lookahead)
                    UnsafeMutableRawPointer(x0 + i).storeBytes(of: delayed, as: SIMD8<Float>.self)
                    // (What the servo's `finishBlock` does with such a block.)
                    if correct { servo.inputLanes += delayed }
                    if stereo {
                        k.store(v1, ring1, pos)
                        UnsafeMutableRawPointer(x1 + i).storeBytes(of: k.load(ring1, pos, back: lookahead), as: SIMD8<Float>.self)
                    }
                    k.store(.zero, units, pos)
                    pos = (pos + 8) & (ringLength - 1)
                    i += 8
                    continue
                }
                in0 = v0
                in1 = v1
            } else {
                for l in 0..<take {
                    pending0[f + l] = x0[i + l]
                    if stereo { pending1[f + l] = x1[i + l] }
                }
                in0 = pending0
                in1 = pending1
            }
            // The servo's correction for these inputs (stored for when they leave), and those of
            // the samples leaving.
            var limitTo = c
            var corrections: SIMD8<Float>? = nil
            if correct {
                let w = servo.correction
                servo.ring[pos >> 3] = w
                limitTo = c - abs(w)
                corrections = servo.delayedCorrections(at: pos, lookahead: lookahead, ringLength: ringLength)
            }
            // One call site for whole and partial blocks (so the kernel is inlined once).
            let r = k.block(
                in0, in1, pos, d, s, older, holding: hold > 0, stereo: stereo, limitTo: limitTo, corrections: corrections)
            if meter {
                // The lanes this call outputs (a partial block's others are not output yet).
                for l in f..<(f + take) { lowest = Swift.min(lowest, r.gain[l]) }
            }
            if take == 8 {
                UnsafeMutableRawPointer(x0 + i).storeBytes(of: r.y0, as: SIMD8<Float>.self)
                if stereo { UnsafeMutableRawPointer(x1 + i).storeBytes(of: r.y1, as: SIMD8<Float>.self) }
            } else {
                for l in 0..<take {
                    x0[i + l] = r.y0[f + l]
                    if stereo { x1[i + l] = r.y1[f + l] }
                }
            }
            f += take
            i += take
            if f == 8 {
                finishBlock(r, &pos, &d, &s, &older, &hold)
                if correct {
                    servo.finishBlock(delayedInput: r.delayed, reduction: r.reduction, gain: r.gain[7], quiet: d == 0 && s == 0 && older == 0)
                }
                // Only a block assembled across calls used (and must now clear) the pending lanes.
                if take < 8 {
                    pending0 = .zero
                    pending1 = .zero
                }
                f = 0
            }
        }
        position = pos
        depth = d
        sum = s
        olderMax = older
        filled = f
        holdLeft = hold
        lowestGain = lowest
    }

    @inline(__always) @inlinable
    package mutating func finishBlock(
        _ r: BlockResult, _ pos: inout Int, _ d: inout Float, _ s: inout Float, _ older: inout Float, _ hold: inout Int
    ) {
        blockMax[blockPosition] = r.blockMax
        blockPosition = blockPosition + 1 == blockCount ? 0 : blockPosition + 1
        var m: Float = 0
        for k in 0..<blockCount { m = Swift.max(m, blockMax[k]) }
        older = m
        // Back to exact zero once d is under half a unit: its units round to 0 from here on
        // (d only decays, and max(A, d) rounds like A), so the outputs are the same as with
        // d = 0, and the idle path can resume sooner. (The idle path also waits for the block
        // maxima to clear, so no sample over c is still in the delay line when it runs.)
        d = r.depth * kernel.scale < 0.5 ? 0 : r.depth
        hold = d == 0 ? 0 : r.rose ? holdBlocks : Swift.max(0, hold - 1)
        s = r.sum
        pos = (pos + 8) & (ringLength - 1)
    }
}
