// What takes the limiter's energy below the band back out (its limiter: LookAheadLimiter.swift).

/// Removes what a limiter's gain puts below the band, without giving up the ceiling.
///
/// Why there is anything to remove: a gain h(t) on a tone x(t) is y = h·x. With X the integral
/// of x (an in-band signal, like x), summation by parts gives ΣY = h·X + D, where the debt
/// D = Σy - h·X grows by -Δh·X at each change of the gain. h·X is in-band up to terms of order
/// f/f_x (f the frequency looked at, f_x the tone's), so below the band y is D's derivative: each
/// step of the gain leaves an area Δh·X behind, and an area is energy down to 0 Hz. Dense
/// overlapping patterns keep the gain moving all the time (new peaks, hold, release), and the
/// areas add up to energy below 5 Hz and a DC offset. No shaping of the gain within a 0.5 ms
/// look-ahead avoids it: X at a step is as random as the signal.
///
/// The debt is exactly known, so it is paid back: the servo adds a correction w to the output,
/// after the gain, chosen by a PI loop on D (D low-passed so that its in-band ripple does not
/// reach w) so that D returns to zero. The remaining debt is the deposits shaped by the
/// critically damped high-pass s²/(s² + 2ζω₀s + ω₀²) (ζ = 1.3, f₀ the `cutoff`): below f₀ it is
/// gone, and its total (the DC) is zero. Above about f_x/2 the debt no longer describes y, so
/// f₀ stays well under the band (the owner picks it).
///
/// The ceiling: the correction for a grid block is decided when the block's inputs enter the
/// limiter, and the limiter limits them to ceiling - |w| (it needs a gain at most that over
/// |x| there, the same proof with a smaller ceiling), so |h·x + w| <= ceiling when they leave.
/// While nothing has been limited, D, w and the state are exactly 0 and the output is what it
/// was without the servo.
///
/// Deterministic and split-independent: the state moves once per complete grid block, the
/// inputs' running sum is kept per lane (`inputLanes`) and folded into double precision only on
/// blocks where the servo is awake, so every path through a block (idle, whole, assembled from
/// parts) leaves the same numbers.
package struct SubBandServo {
    /// Gain of the debt (in amplitude·samples) into the correction, and of its running sum.
    package let proportional: Double
    package let integralGain: Double
    /// One-pole coefficient of the debt's low-pass (per grid block).
    package let smoothing: Double
    /// The largest |w| (the limiter keeps at least ceiling - limit for the signal).
    package let limit: Float
    /// Correction per grid block, by ring position / 8 (the limiter's ring; read back at the
    /// look-ahead's delay). Zero while resting.
    package let ring: UnsafeMutablePointer<Float>
    package let ringBlocks: Int

    /// Σ x of the delayed input, folded (`input`) and not yet folded (`inputLanes`).
    package var input: Double = 0
    package var inputLanes = SIMD8<Float>.zero
    /// Σ (y - x): the limiter's reduction plus the corrections, so that D = reduction + (1 - h)·input.
    package var reduction: Double = 0
    /// D low-passed, and its running sum (per block).
    package var smoothed: Double = 0
    package var integral: Double = 0
    /// w for the next input block.
    package var correction: Float = 0
    /// Every state value and every stored correction is 0: the output is the limiter's own.
    package var resting = true

    /// `cutoff` (f₀, Hz) 0 makes a servo that never wakes (no ring).
    package init(cutoff: Double, sampleRate: Double, ceiling: Float, ringLength: Int) {
        let on = cutoff > 0 && cutoff.isFinite
        let omega = 2 * Double.pi * (on ? cutoff : 0)
        let damping = 1.3
        proportional = 2 * damping * omega / sampleRate
        integralGain = omega * omega * 8 / (sampleRate * sampleRate)
        // The debt's low-pass at 6.7 f₀ (40 Hz for f₀ = 6 Hz): it takes the debt's ripple at the
        // band's frequencies out of w, and changes the loop little at f₀.
        smoothing = on ? 1 - exp2Double(-1.4426950408889634 * omega * 6.7 * 8 / sampleRate) : 0
        limit = 0.5 * ceiling
        ringBlocks = on ? max(1, ringLength / 8) : 1
        ring = .allocate(capacity: ringBlocks)
        ring.initialize(repeating: 0, count: ringBlocks)
    }

    package func deallocate() { ring.deallocate() }

    package mutating func copyState(from o: SubBandServo) {
        ring.update(from: o.ring, count: ringBlocks)
        input = o.input
        inputLanes = o.inputLanes
        reduction = o.reduction
        smoothed = o.smoothed
        integral = o.integral
        correction = o.correction
        resting = o.resting
    }

    /// The corrections of the 8 samples leaving at ring position `at` (a multiple of 8), which
    /// entered `lookahead` samples earlier; nil when they are all 0.
    @_noLocks @inline(__always) @inlinable
    package func delayedCorrections(at: Int, lookahead: Int, ringLength: Int) -> SIMD8<Float>? {
        let start = (at - lookahead) & (ringLength - 1)
        let first = ring[start >> 3]
        let offset = start & 7
        let second = offset == 0 ? first : ring[((start >> 3) + 1) & (ringBlocks - 1)]
        if first == 0 && second == 0 { return nil }
        if offset == 0 { return SIMD8(repeating: first) }
        // Lanes before 8 - offset entered in the first block, the rest in the next.
        let lanes = SIMD8<Float>(0, 1, 2, 3, 4, 5, 6, 7)
        return SIMD8(repeating: second).replacing(with: first, where: lanes .< Float(8 - offset))
    }

    /// After a complete grid block that the limiter processed: `delayedInput` the block's x
    /// leaving, `reduction` Σ(y - x) over it, `gain` h at its last sample, `quiet` whether the
    /// limiter's gain is back at exactly 1 with nothing to reduce in its window.
    @_noLocks @inline(__always) @inlinable
    package mutating func finishBlock(delayedInput: SIMD8<Float>, reduction blockReduction: Float, gain: Float, quiet: Bool) {
        inputLanes += delayedInput
        if resting && blockReduction == 0 && quiet { return }
        let lanes = inputLanes.lowHalf + inputLanes.highHalf
        input += Double((lanes[0] + lanes[2]) + (lanes[1] + lanes[3]))
        inputLanes = .zero
        reduction += Double(blockReduction)
        let debt = reduction + (1 - Double(gain)) * input
        guard debt.isFinite, input.isFinite else {
            // A non-finite input (never from the stage): start again rather than stay NaN.
            rest(clearingInput: true)
            return
        }
        smoothed += smoothing * (debt - smoothed)
        let summed = integral + smoothed
        let w = -(proportional * smoothed + integralGain * summed)
        if abs(w) <= Double(limit) {
            integral = summed
            correction = Float(w)
        } else {
            // Saturated: deliver the most allowed and stop integrating (no wind-up).
            correction = w > 0 ? limit : -limit
        }
        resting = false
        // Paid back, with the gain at 1: rest (the output is the limiter's own again, and the
        // idle path can resume) once no term of w is over -120 dBFS. (Finer than that, a loud
        // sample cannot carry the correction: x + w rounds back to x. What is left unpaid is
        // under 1e-3 of a sample's area: nothing in the DC.)
        if quiet && abs(proportional * debt) < 1e-6 && abs(proportional * smoothed) < 1e-6 && abs(integralGain * integral) < 1e-6 {
            rest(clearingInput: false)
        }
    }

    /// Zeroes the state and every stored correction.
    @_noLocks @inlinable
    package mutating func rest(clearingInput: Bool) {
        reduction = 0
        smoothed = 0
        integral = 0
        correction = 0
        ring.update(repeating: 0, count: ringBlocks)
        if clearingInput {
            input = 0
            inputLanes = .zero
        }
        resting = true
    }
}
