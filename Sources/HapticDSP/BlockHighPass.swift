// The protection high-pass: the Biquad cascade evaluated 8 samples at a time.

/// The protection high-pass (a cascade of one or two `Biquad`s) evaluated 8 samples at a
/// time in state-space form, so that the recursion's latency is paid once per 8 samples
/// instead of once per sample per section:
///
///     y[8m ..< 8m+8] = C·s_m + D·x[8m ..< 8m+8],   s_{m+1} = s_m + (B·x[8m ..< 8m+8] + E·s_m)
///
/// where s is the cascade's state (2 values per section), E = A - I, and A, B, C, D come from
/// running the double-precision cascade on unit states and unit impulses (so the filter is
/// the same one; only the rounding differs).
///
/// The state is Float, in each section's modal basis: there A's diagonal blocks are scaled
/// rotations, which neither amplify rounding nor let a coordinate grow on its way out (in the
/// biquads' own basis A^8 is close to a non-normal identity, and a Float state drifts by
/// 1e-3), and the update adds the small increment B·x + E·s to s, rounding s once a block.
/// Each coordinate reaches a block's outputs with a gain of at most 1. Against the double cascade
/// the outputs differ by about 1e-6 of full scale (the test bounds it at 1e-5).
///
/// The kernel is written for baseline x86-64 (4-lane SSE): every product is a 4-lane column
/// times a broadcast of one input or state value, and the same 12 broadcasts feed the outputs
/// and the next state (order 4: 12 shuffles, 32 multiplies, 32 adds a block). The state's
/// terms come last in each sum, so the recursion's path through a block is one broadcast, a
/// multiply and a few adds. Swift lowers Float SIMD arithmetic lane by lane and leaves it to
/// LLVM's SLP vectoriser to rebuild vectors; without `pinned` (an integer AND with all ones,
/// which Swift emits as one vector instruction) the vectoriser pairs products across lanes
/// into dot products with transposes, and the kernel runs 1.9 times slower.
///
/// Silence: a state whose every coordinate is below 2^-46 is set to zero (what it would still
/// add to the output is far below -180 dBFS — the kernel test bounds it at 1e-9 — and
/// denormals stay out). A zero state with a block of
/// zero inputs gives zero outputs without running the kernel (the same +0s the kernel would
/// give), so the silence between events costs almost nothing. The check runs on every 8th
/// block counted from the end of the last silence (on every block it costs 7 % of a render),
/// so it depends on the input only: input delayed by a multiple of 8 samples gives the same
/// output delayed (a cue on an 8-frame boundary renders as it does alone; the rhythm
/// command's test checks exactly that).
///
/// Block independence: blocks sit on a fixed grid of the stage's absolute sample index. A
/// call that ends inside a block emits the block's outputs computed with the unknown inputs
/// set to 0 — D is lower triangular, so those lanes do not depend on them — and keeps the
/// inputs; the next call recomputes the block with the same state and the inputs it now has.
/// The state advances (and is checked for silence) only on complete blocks, so every output
/// is the same function of the input whatever the call sizes.
package struct BlockHighPass {
    /// State dimension (2 per section).
    package let dims: Int
    /// Float matrices as 4-lane columns (see `Layout`).
    package let k: UnsafeMutablePointer<SIMD4<Float>>
    /// The state in the modal basis (lanes >= `dims` stay 0).
    package var s = SIMD4<Float>.zero
    /// The state is exactly zero (set by the silence check, cleared by the first non-zero input).
    package var quiet = true
    /// Blocks run since the last silence ended (the silence check runs on every 8th).
    package var sounding = 0
    /// Below this every state coordinate is flushed to zero (see the type's comment).
    package static let silence: Float = 0x1p-46
    /// Inputs of the current grid block; lanes >= `filled` are 0.
    package var pendingLow = SIMD4<Float>.zero
    package var pendingHigh = SIMD4<Float>.zero
    package var filled = 0

    /// Where each matrix lives in `k` (columns: lane r is row r).
    package enum Layout {
        /// C, output lanes 0-3 from state i: k[i]; lanes 4-7: k[4 + i].
        package static let cLow = 0, cHigh = 4
        /// D, output lanes 0-3 from input lane l < 4: k[8 + l]; lanes 4-7 from input l < 8: k[12 + l].
        package static let dLow = 8, dHigh = 12
        /// B (next-state increment) from input lane l: k[20 + l].
        package static let b = 20
        /// E = A - I (next-state increment) from state i: k[28 + i].
        package static let e = 28
        /// All bits set (see `pinned`).
        package static let ones = 32
        package static let count = 33
    }

    /// `inputGain` multiplies the input (folded into D and B: one pass less).
    package init(sections: [Biquad], inputGain: Double = 1) {
        precondition(sections.count >= 1 && sections.count <= 2)
        dims = 2 * sections.count
        k = .allocate(capacity: Layout.count)
        k.initialize(repeating: .zero, count: Layout.count)
        k[Layout.ones] = unsafeBitCast(SIMD4<UInt32>(repeating: .max), to: SIMD4<Float>.self)
        // Runs the cascade for 8 samples from `start` with one input impulse (or none).
        // Fixed-size values only: constructing a stage stays cheap (no array allocations).
        let q0 = sections[0], q1 = sections.count > 1 ? sections[1] : sections[0]
        let twoSections = sections.count > 1
        func simulate(_ start: SIMD4<Double>, impulseAt: Int) -> (outputs: SIMD8<Double>, state: SIMD4<Double>) {
            var st = start
            var ys = SIMD8<Double>.zero
            for n in 0..<8 {
                let v = n == impulseAt ? 1.0 : 0.0
                var y = q0.b0 * v + st[0]
                st[0] = q0.b1 * v - q0.a1 * y + st[1]
                st[1] = q0.b2 * v - q0.a2 * y
                if twoSections {
                    let u = y
                    y = q1.b0 * u + st[2]
                    st[2] = q1.b1 * u - q1.a1 * y + st[3]
                    st[3] = q1.b2 * u - q1.a2 * y
                }
                ys[n] = y
            }
            return (ys, st)
        }
        // The block matrices in the biquads' basis: a[4i + row] (next state from state i) and
        // c[8i + lane] (outputs from state i).
        var a = SIMD16<Double>.zero
        var c = SIMD32<Double>.zero
        for i in 0..<dims {
            var unit = SIMD4<Double>.zero
            unit[i] = 1
            let r = simulate(unit, impulseAt: -1)
            for row in 0..<4 { a[4 * i + row] = r.state[row] }
            for lane in 0..<8 { c[8 * i + lane] = r.outputs[lane] }
        }
        // The modal basis: s_biquad = T·s, T block diagonal; per section T = [v_re v_im] for
        // A's eigenvector v = (q, λ - p) of the section's block [[p, q], [r, s]], λ = α + iβ,
        // which turns the block into [[α, β], [-β, α]]. Real eigenvalues (only for cutoffs near
        // fs/16) keep the biquads' basis, where a Float state is accurate at such cutoffs.
        // Each section's columns are then scaled so that C·T's largest entry is 1.
        // t[2j ..< 2j+2]: column j of its section's T; inverse[2j ..< 2j+2]: row j of T⁻¹.
        var t = SIMD8<Double>.zero
        var inverse = SIMD8<Double>.zero
        for section in 0..<(dims / 2) {
            let i = 2 * section
            let p = a[4 * i + i], q = a[4 * (i + 1) + i], r = a[4 * i + i + 1], s = a[4 * (i + 1) + i + 1]
            let alpha = (p + s) / 2
            let discriminant = (p * s - q * r) - alpha * alpha
            var t0 = SIMD2<Double>(1, 0), t1 = SIMD2<Double>(0, 1)
            if discriminant > 1e-24 {
                t0 = SIMD2(q, alpha - p)
                t1 = SIMD2(0, discriminant.squareRoot())
            }
            var largest = 1e-300
            for column in 0..<2 {
                let v = column == 0 ? t0 : t1
                for lane in 0..<8 {
                    largest = max(largest, abs(c[8 * i + lane] * v[0] + c[8 * (i + 1) + lane] * v[1]))
                }
            }
            t0 /= largest
            t1 /= largest
            let determinant = t0[0] * t1[1] - t1[0] * t0[1]
            t[2 * i] = t0[0]
            t[2 * i + 1] = t0[1]
            t[2 * i + 2] = t1[0]
            t[2 * i + 3] = t1[1]
            inverse[2 * i] = t1[1] / determinant
            inverse[2 * i + 1] = -t1[0] / determinant
            inverse[2 * i + 2] = -t0[1] / determinant
            inverse[2 * i + 3] = t0[0] / determinant
        }
        // Modal coordinate j of a biquad-basis state v (row j of T⁻¹ times v).
        func toModal(_ v: SIMD4<Double>, _ j: Int) -> Double {
            let first = j & ~1
            return inverse[2 * j] * v[first] + inverse[2 * j + 1] * v[first + 1]
        }
        for j in 0..<dims {
            // The biquad-basis state T·e_j lives in its section's two rows; follow it 8 samples.
            let first = j & ~1
            var state = SIMD4<Double>.zero, out = SIMD8<Double>.zero
            for m in 0..<2 {
                let i = first + m, weight = t[2 * j + m]
                for row in 0..<4 { state[row] += a[4 * i + row] * weight }
                for lane in 0..<8 { out[lane] += c[8 * i + lane] * weight }
            }
            for lane in 0..<4 {
                k[Layout.cLow + j][lane] = Float(out[lane])
                k[Layout.cHigh + j][lane] = Float(out[4 + lane])
            }
            for row in 0..<dims {
                k[Layout.e + j][row] = Float(toModal(state, row) - (row == j ? 1 : 0))
            }
        }
        for l in 0..<8 {
            let r = simulate(.zero, impulseAt: l)
            for lane in 0..<4 {
                if l < 4 { k[Layout.dLow + l][lane] = lane < l ? 0 : Float(inputGain * r.outputs[lane]) }
                k[Layout.dHigh + l][lane] = 4 + lane < l ? 0 : Float(inputGain * r.outputs[4 + lane])
            }
            for row in 0..<dims { k[Layout.b + l][row] = Float(inputGain * toModal(r.state, row)) }
        }
    }

    package func deallocate() {
        k.deallocate()
    }

    package mutating func copyState(from o: BlockHighPass) {
        s = o.s
        quiet = o.quiet
        sounding = o.sounding
        pendingLow = o.pendingLow
        pendingHigh = o.pendingHigh
        filled = o.filled
    }

    /// Filters `count` samples in place.
    @_noLocks @inline(__always) @inlinable
    package mutating func process(_ x: UnsafeMutablePointer<Float>, _ count: Int) {
        // Two copies of the loop, so the order-2 one carries no order-4 work.
        if dims == 4 { run4(x, count) } else { run2(x, count) }
    }

    // Separate functions, so that each is compiled (and its registers allocated) for one order.
    package mutating func run2(_ x: UnsafeMutablePointer<Float>, _ count: Int) { run(x, count, four: false) }
    package mutating func run4(_ x: UnsafeMutablePointer<Float>, _ count: Int) { run(x, count, four: true) }

    @inline(__always) @inlinable
    package mutating func run(_ x: UnsafeMutablePointer<Float>, _ count: Int, four: Bool) {
        var s = self.s
        var quiet = self.quiet
        var sounding = self.sounding
        var f = filled
        var i = 0
        while i < count {
            if f == 0 && count - i >= 8 {
                let raw = UnsafeMutableRawPointer(x + i)
                let xl = raw.loadUnaligned(as: SIMD4<Float>.self)
                let xh = raw.loadUnaligned(fromByteOffset: 16, as: SIMD4<Float>.self)
                if quiet {
                    if xl == .zero && xh == .zero {
                        // What the kernel gives for a zero state and zero inputs (+0, never -0).
                        raw.storeBytes(of: SIMD4<Float>.zero, as: SIMD4<Float>.self)
                        raw.storeBytes(of: SIMD4<Float>.zero, toByteOffset: 16, as: SIMD4<Float>.self)
                        i += 8
                        continue
                    }
                    quiet = false
                    sounding = 0
                }
                let y = block(s, xl, xh, four: four)
                raw.storeBytes(of: y.low, as: SIMD4<Float>.self)
                raw.storeBytes(of: y.high, toByteOffset: 16, as: SIMD4<Float>.self)
                s = y.s
                quiet = Self.countBlock(&sounding, &s)
                i += 8
                continue
            }
            let take = Swift.min(8 - f, count - i)
            for l in 0..<take {
                if f + l < 4 { pendingLow[f + l] = x[i + l] } else { pendingHigh[f + l - 4] = x[i + l] }
            }
            let y = block(s, pendingLow, pendingHigh, four: four)
            for l in 0..<take { x[i + l] = f + l < 4 ? y.low[f + l] : y.high[f + l - 4] }
            f += take
            i += take
            if f == 8 {
                // The same steps as a whole block: a silent block leaves a zero state as it is.
                if !(quiet && pendingLow == .zero && pendingHigh == .zero) {
                    if quiet { sounding = 0 }
                    s = y.s
                    quiet = Self.countBlock(&sounding, &s)
                }
                pendingLow = .zero
                pendingHigh = .zero
                f = 0
            }
        }
        self.s = s
        self.quiet = quiet
        self.sounding = sounding
        filled = f
    }

    /// Counts a block that ran the kernel; on every 8th, sets a negligible state to zero.
    /// Returns whether the state is now zero (`quiet`).
    @inline(__always) @inlinable
    package static func countBlock(_ sounding: inout Int, _ s: inout SIMD4<Float>) -> Bool {
        sounding &+= 1
        if sounding & 7 != 0 { return false }
        if !all((s .< silence) .& (s .> -silence)) { return false }
        s = .zero
        return true
    }

    /// One grid block: its 8 outputs from the state and the inputs, and the next state.
    @inline(__always) @inlinable
    package func block(
        _ s: SIMD4<Float>, _ xl: SIMD4<Float>, _ xh: SIMD4<Float>, four: Bool
    ) -> (low: SIMD4<Float>, high: SIMD4<Float>, s: SIMD4<Float>) {
        let k = self.k
        typealias L = Layout
        // Outputs: D·x + C·s, lanes 0-3 and 4-7 (D is zero above its diagonal); B·x for the
        // state. Running sums of column × broadcast products, inputs first (the loops unroll).
        let x0 = SIMD4(repeating: xl[0])
        var yl = k[L.dLow] * x0
        var yh = k[L.dHigh] * x0
        var bx = k[L.b] * x0
        for l in 1..<8 {
            let xb = SIMD4(repeating: l < 4 ? xl[l] : xh[l - 4])
            if l < 4 { yl += k[L.dLow + l] * xb }
            yh += k[L.dHigh + l] * xb
            bx += k[L.b + l] * xb
        }
        // E·s in pairs, so the state's path through the block stays one multiply and a few adds.
        var es = k[L.e] * SIMD4(repeating: s[0]) + k[L.e + 1] * SIMD4(repeating: s[1])
        if four { es += k[L.e + 2] * SIMD4(repeating: s[2]) + k[L.e + 3] * SIMD4(repeating: s[3]) }
        for i in 0..<(four ? 4 : 2) {
            let sb = SIMD4(repeating: s[i])
            yl += k[L.cLow + i] * sb
            yh += k[L.cHigh + i] * sb
        }
        // Next state: s + (B·x + E·s), rounded once at the state's scale.
        let next = s + (bx + es)
        // + 0 makes an exact zero +0 whichever inputs were still unknown (bit-identical splits).
        return (yl + 0, yh + 0, pinned(next))
    }

    /// `v` unchanged, through one integer vector instruction (see the type's comment: it keeps
    /// the vectoriser on the column form). The mask is read from `k`, not written as a
    /// constant: the optimiser would fold an AND with a constant all-ones away.
    @inline(__always) @inlinable
    package func pinned(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let ones = unsafeBitCast(k[Layout.ones], to: SIMD4<UInt32>.self)
        return unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) & ones, to: SIMD4<Float>.self)
    }
}
