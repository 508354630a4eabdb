// The protection chain after the mix (haptic: gain → Butterworth high-pass →
// look-ahead limiter; audio: stereo-linked look-ahead limiter) and the writer
// that interleaves channels for a layout. State advances on a fixed 8-sample grid of the
// absolute sample index, with partial blocks completed on the next call, so any block split
// gives identical output.

/// The protection chain after the mix: DC blocking and a high-pass at the
/// profile's protection cutoff on the haptic bus, then limiters (haptic and audio)
/// that keep every sample under the ceiling. Writes the interleaved output for a layout.
///
/// DC blocking is the high-pass's double zero at 0 Hz (its coefficients sum to exactly 0).
/// The limiters look ahead `latencyFrames` frames, so the output is delayed by that much;
/// `OfflineRenderer` removes the delay, a live engine adds it to its reported latency.
public struct OutputStage {
    var state: OutputState

    public init(profile: ActuatorProfile, sampleRate: Double, layout: ChannelLayout) {
        state = OutputState(profile: profile, sampleRate: sampleRate, layout: layout)
    }

    /// Frames by which the output lags the input (the limiters' look-ahead).
    public var latencyFrames: Int { state.hapticLimiter.lookahead }

    /// The layout this stage writes.
    public var layout: ChannelLayout { state.layout }

    /// The ceiling as a linear sample value.
    public var ceiling: Float { state.hapticLimiter.ceiling }

    /// The output is the processed haptic bus itself (haptic-only mono at gain 1), so the bus
    /// may be the output buffer: `process` then works in place and copies nothing.
    var passesHapticBusThrough: Bool { state.passesHapticBusThrough }

    /// The layout routes the audio buses to some channel (their limiter runs).
    var usesAudioBuses: Bool { state.usesAudio }

    /// Processes the mixed buses in place and writes `bus.frames` interleaved frames to `output`.
    public mutating func process(_ bus: MixBus, into output: UnsafeMutablePointer<Float>) {
        // Copy-on-write: only does work when the value was copied, which the render thread
        // never does. The hot path itself (the state's method) is checked by @_noLocks.
        if !isKnownUniquelyReferenced(&state) { state = state.copy() }
        state.process(bus, into: output)
    }
}

/// One channel-layout entry flattened for the render path.
struct ChannelRoute {
    /// 0 haptic, 1 left, 2 right, 3 silence.
    var source: Int
    var gain: Float
}

/// Runs `OutputState.warmUpKernels` on first use (a global's one-time initialisation; only
/// ever reached from `init`, off the render thread).
let outputKernelsWarmedUp: Void = OutputState.warmUpKernels()

final class OutputState {
    let profile: ActuatorProfile
    let sampleRate: Double
    let layout: ChannelLayout
    let routes: UnsafeMutablePointer<ChannelRoute>
    let channels: Int
    let usesAudio: Bool
    /// See `OutputStage.passesHapticBusThrough`.
    let passesHapticBusThrough: Bool
    var highPass: BlockHighPass
    var hapticLimiter: LookAheadLimiter
    var audioLimiter: LookAheadLimiter

    init(profile: ActuatorProfile, sampleRate: Double, layout: ChannelLayout) {
        self.profile = profile
        self.sampleRate = sampleRate
        self.layout = layout
        channels = layout.channels
        routes = .allocate(capacity: max(1, channels))
        var usesAudio = false
        for (i, source) in layout.sources.enumerated() {
            switch source {
            case .haptic(let g): routes[i] = ChannelRoute(source: 0, gain: g)
            case .audioLeft(let g):
                routes[i] = ChannelRoute(source: 1, gain: g)
                usesAudio = true
            case .audioRight(let g):
                routes[i] = ChannelRoute(source: 2, gain: g)
                usesAudio = true
            case .silence: routes[i] = ChannelRoute(source: 3, gain: 0)
            }
        }
        self.usesAudio = usesAudio
        passesHapticBusThrough = channels == 1 && routes[0].source == 0 && routes[0].gain == 1
        let gain = Float(decibelsToGain(profile.outputGainDB))
        let qs: [Double] = profile.protection.order == 4 ? [0.5411961001461970, 1.3065629648763766] : [0.7071067811865476]
        highPass = BlockHighPass(sections: qs.map {
            Biquad.highPass(cutoff: profile.protection.highPassHz, q: $0, sampleRate: sampleRate)
        }, inputGain: Double(gain))
        let ceiling = Float(decibelsToGain(profile.ceilingDBFS))
        let lookahead = max(1, Int((profile.limiter.lookaheadMs / 1000 * sampleRate).rounded()))
        let release = profile.limiter.releaseMs / 1000 * sampleRate
        hapticLimiter = LookAheadLimiter(lookahead: lookahead, ceiling: ceiling, releaseSamples: release, channels: 1)
        audioLimiter = LookAheadLimiter(lookahead: lookahead, ceiling: ceiling, releaseSamples: release, channels: 2)
        _ = outputKernelsWarmedUp
    }

    /// Runs the chain's kernels once on throwaway instances, here (off the render thread): in
    /// unoptimised builds their first use instantiates generic type metadata, which allocates.
    /// Once per process is enough (see `outputKernelsWarmedUp`).
    static func warmUpKernels() {
        var filter = BlockHighPass(sections: [Biquad.highPass(cutoff: 30, q: 0.7, sampleRate: 48_000)])
        var filter4 = BlockHighPass(sections: [Biquad.highPass(cutoff: 30, q: 0.5, sampleRate: 48_000), Biquad.highPass(cutoff: 30, q: 1.3, sampleRate: 48_000)])
        var limiter = LookAheadLimiter(lookahead: 8, ceiling: 0.5, releaseSamples: 10, channels: 2)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 160)
        for i in 0..<160 { scratch[i] = i % 3 == 0 ? 1 : 0 }
        filter.process(scratch, 77)
        filter4.process(scratch, 77)
        limiter.process(scratch, scratch + 80, 77)
        var quiet = LookAheadLimiter(lookahead: 8, ceiling: 0.5, releaseSamples: 10, channels: 2)
        scratch.update(repeating: 0.1, count: 160)
        quiet.process(scratch, scratch + 80, 77)
        quiet.deallocate()
        _ = copyMeasuringPeak(scratch, scratch + 80, 77)
        scratch.deallocate()
        filter.deallocate()
        filter4.deallocate()
        limiter.deallocate()
    }

    deinit {
        routes.deallocate()
        highPass.deallocate()
        hapticLimiter.deallocate()
        audioLimiter.deallocate()
    }

    func copy() -> OutputState {
        let c = OutputState(profile: profile, sampleRate: sampleRate, layout: layout)
        c.highPass.copyState(from: highPass)
        c.hapticLimiter.copyState(from: hapticLimiter)
        c.audioLimiter.copyState(from: audioLimiter)
        return c
    }

    @_noLocks
    func process(_ bus: MixBus, into output: UnsafeMutablePointer<Float>) {
        let frames = bus.frames
        if frames <= 0 { return }
        let h = bus.haptic
        highPass.process(h, frames)  // includes the output gain
        hapticLimiter.process(h, h, frames)
        if usesAudio { audioLimiter.process(bus.audioLeft, bus.audioRight, frames) }
        let ch = channels
        for c in 0..<ch {
            let route = routes[c]
            let source: UnsafeMutablePointer<Float>
            switch route.source {
            case 0: source = h
            case 1: source = bus.audioLeft
            case 2: source = bus.audioRight
            default:
                for i in 0..<frames { output[i * ch + c] = 0 }
                continue
            }
            let gain = route.gain
            if ch == 1 {
                if gain == 1 {
                    // (Nothing to do when the bus is the output: `passesHapticBusThrough`.)
                    if source == output { continue }
                    UnsafeMutableRawPointer(output).copyMemory(from: source, byteCount: frames * MemoryLayout<Float>.stride)
                } else {
                    for i in 0..<frames { output[i] = source[i] * gain }
                }
            } else {
                for i in 0..<frames { output[i * ch + c] = source[i] * gain }
            }
        }
    }
}

/// A second-order section (transposed direct form II, double-precision state).
struct Biquad {
    var b0, b1, b2, a1, a2: Double
    var s1 = 0.0
    var s2 = 0.0

    /// RBJ cookbook high-pass. b0 + b1 + b2 == 0 exactly, so DC is removed completely.
    static func highPass(cutoff: Double, q: Double, sampleRate: Double) -> Biquad {
        let w0 = 2 * Double.pi * cutoff / sampleRate
        let cosw = sinDouble(w0 + Double.pi / 2)
        let alpha = sinDouble(w0) / (2 * q)
        let a0 = 1 + alpha
        let b = (1 + cosw) / 2
        return Biquad(b0: b / a0, b1: -2 * b / a0, b2: b / a0, a1: -2 * cosw / a0, a2: (1 - alpha) / a0)
    }

    @inline(__always)
    mutating func process(_ x: UnsafeMutablePointer<Float>, _ count: Int) {
        var s1 = self.s1
        var s2 = self.s2
        for i in 0..<count {
            let input = Double(x[i])
            let y = b0 * input + s1
            s1 = b1 * input - a1 * y + s2
            s2 = b2 * input - a2 * y
            x[i] = Float(y)
        }
        self.s1 = s1
        self.s2 = s2
    }
}

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
struct BlockHighPass {
    /// State dimension (2 per section).
    let dims: Int
    /// Float matrices as 4-lane columns (see `Layout`).
    let k: UnsafeMutablePointer<SIMD4<Float>>
    /// The state in the modal basis (lanes >= `dims` stay 0).
    var s = SIMD4<Float>.zero
    /// The state is exactly zero (set by the silence check, cleared by the first non-zero input).
    var quiet = true
    /// Blocks run since the last silence ended (the silence check runs on every 8th).
    var sounding = 0
    /// Below this every state coordinate is flushed to zero (see the type's comment).
    static let silence: Float = 0x1p-46
    /// Inputs of the current grid block; lanes >= `filled` are 0.
    var pendingLow = SIMD4<Float>.zero
    var pendingHigh = SIMD4<Float>.zero
    var filled = 0

    /// Where each matrix lives in `k` (columns: lane r is row r).
    enum Layout {
        /// C, output lanes 0-3 from state i: k[i]; lanes 4-7: k[4 + i].
        static let cLow = 0, cHigh = 4
        /// D, output lanes 0-3 from input lane l < 4: k[8 + l]; lanes 4-7 from input l < 8: k[12 + l].
        static let dLow = 8, dHigh = 12
        /// B (next-state increment) from input lane l: k[20 + l].
        static let b = 20
        /// E = A - I (next-state increment) from state i: k[28 + i].
        static let e = 28
        /// All bits set (see `pinned`).
        static let ones = 32
        static let count = 33
    }

    /// `inputGain` multiplies the input (folded into D and B: one pass less).
    init(sections: [Biquad], inputGain: Double = 1) {
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

    func deallocate() {
        k.deallocate()
    }

    mutating func copyState(from o: BlockHighPass) {
        s = o.s
        quiet = o.quiet
        sounding = o.sounding
        pendingLow = o.pendingLow
        pendingHigh = o.pendingHigh
        filled = o.filled
    }

    /// Filters `count` samples in place.
    @inline(__always)
    mutating func process(_ x: UnsafeMutablePointer<Float>, _ count: Int) {
        // Two copies of the loop, so the order-2 one carries no order-4 work.
        if dims == 4 { run4(x, count) } else { run2(x, count) }
    }

    // Separate functions, so that each is compiled (and its registers allocated) for one order.
    mutating func run2(_ x: UnsafeMutablePointer<Float>, _ count: Int) { run(x, count, four: false) }
    mutating func run4(_ x: UnsafeMutablePointer<Float>, _ count: Int) { run(x, count, four: true) }

    @inline(__always)
    mutating func run(_ x: UnsafeMutablePointer<Float>, _ count: Int, four: Bool) {
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
    @inline(__always)
    static func countBlock(_ sounding: inout Int, _ s: inout SIMD4<Float>) -> Bool {
        sounding &+= 1
        if sounding & 7 != 0 { return false }
        if !all((s .< silence) .& (s .> -silence)) { return false }
        s = .zero
        return true
    }

    /// One grid block: its 8 outputs from the state and the inputs, and the next state.
    @inline(__always)
    func block(
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
    @inline(__always)
    func pinned(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let ones = unsafeBitCast(k[Layout.ones], to: SIMD4<UInt32>.self)
        return unsafeBitCast(unsafeBitCast(v, to: SIMD4<UInt32>.self) & ones, to: SIMD4<Float>.self)
    }
}

/// sin(x) for |x| <= 2π, Taylor series (coefficient set-up only, never per sample).
func sinDouble(_ x: Double) -> Double {
    var term = x
    var sum = x
    var k = 1.0
    while k < 60 {
        term *= -x * x / ((k + 1) * (k + 2))
        sum += term
        k += 2
    }
    return sum
}

/// A look-ahead peak limiter that guarantees |output| <= ceiling.
///
/// With a[n] = 1 - min(1, c/|x[n]|) (the reduction sample n needs) and L the look-ahead:
/// A[n] = max of a over a window that contains [n-L, n]; the reduction depth
/// d[n] = max(A[n], q·d[n-1]) releases exponentially (q = e^(-1/release)); the gain
/// h[n] = 1 - mean of d over [n-L, n]; y[n] = x[n-L]·h[n]. Every d[j] averaged into h[n]
/// has j-L <= n-L <= j, so d[j] >= a[n-L] and h[n] <= min(1, c/|x[n-L]|): the output never
/// exceeds c. Gain changes are spread over the look-ahead (attack) and the release time, so
/// isolated peaks do not pump. A final clamp catches rounding only.
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
struct LookAheadLimiter {
    /// The constants and rings (see `Kernel`).
    let kernel: Kernel
    let channels: Int
    let blockCount: Int  // ceil(L/8)
    let blockMax: UnsafeMutablePointer<Float>
    var blockPosition = 0
    /// Ring position of the current grid block (a multiple of 8).
    var position = 0
    /// Inputs of the current grid block; lanes >= `filled` are 0.
    var pending0 = SIMD8<Float>.zero
    var pending1 = SIMD8<Float>.zero
    var filled = 0
    /// Maximum of a over the blocks before the current one (within the window).
    var olderMax: Float = 0
    /// d and the window sum of units at the end of the previous block.
    var depth: Float = 0
    var sum: Float = 0

    var lookahead: Int { kernel.lookahead }
    var ceiling: Float { kernel.ceiling }
    var ringLength: Int { kernel.ringLength }

    init(lookahead: Int, ceiling: Float, releaseSamples: Double, channels: Int) {
        self.channels = channels
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
    }

    /// Frees the buffers (called by the owner's deinit; a struct so that the render loop's
    /// state lives in locals/registers without per-access exclusivity checks).
    func deallocate() {
        kernel.inputs.deallocate()
        kernel.units.deallocate()
        blockMax.deallocate()
    }

    mutating func copyState(from o: LookAheadLimiter) {
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
    }

    /// The per-block arithmetic with its constants: a small trivial value, copied into the
    /// loop's locals (calling methods of the whole limiter there copies the limiter).
    struct Kernel {
        /// L, and the window L + 1 that the gain averages over.
        let lookahead: Int
        let window: Int
        /// Ring length (a power of two >= window + 8); each ring has 8 mirrored entries after
        /// it, so that any 8 consecutive entries are one unaligned load.
        let ringLength: Int
        let ceiling: Float
        /// d is rounded to a multiple of 1/scale; gainPerUnit = 1/(scale·window).
        let scale: Float
        let gainPerUnit: Float
        /// q^1 ... q^8 (q: release factor per sample).
        let release: SIMD8<Float>
        /// channels × (ringLength + 8) input samples, by absolute index mod ringLength.
        let inputs: UnsafeMutablePointer<Float>
        /// ringLength + 8 entries of round(d·scale).
        let units: UnsafeMutablePointer<Float>

        /// Stores 8 values at ring position `at` (a multiple of 8), mirroring the first 8.
        @inline(__always)
        func store(_ v: SIMD8<Float>, _ ring: UnsafeMutablePointer<Float>, _ at: Int) {
            UnsafeMutableRawPointer(ring + at).storeBytes(of: v, as: SIMD8<Float>.self)
            if at == 0 { UnsafeMutableRawPointer(ring + ringLength).storeBytes(of: v, as: SIMD8<Float>.self) }
        }

        /// The 8 ring entries from `back` samples before position `at`.
        @inline(__always)
        func load(_ ring: UnsafeMutablePointer<Float>, _ at: Int, back: Int) -> SIMD8<Float> {
            let from = (at - back) & (ringLength - 1)
            return UnsafeRawPointer(ring + from).loadUnaligned(as: SIMD8<Float>.self)
        }

        @inline(__always)
        func magnitude(_ v0: SIMD8<Float>, _ v1: SIMD8<Float>, stereo: Bool) -> SIMD8<Float> {
            let a0 = abs8(v0)
            if !stereo { return a0 }
            let a1 = abs8(v1)
            return a0.replacing(with: a1, where: a1 .> a0)
        }

        /// One grid block: outputs, and the state it leaves (applied by `finishBlock` once the
        /// block is complete). Writes the block's inputs and units into the rings (rewritten
        /// identically when a partial block is completed).
        @inline(__always)
        func block(
            _ v0: SIMD8<Float>, _ v1: SIMD8<Float>, _ pos: Int, _ dPrev: Float, _ sPrev: Float, _ older: Float,
            stereo: Bool
        ) -> (y0: SIMD8<Float>, y1: SIMD8<Float>, depth: Float, sum: Float, blockMax: Float) {
            let c = ceiling
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
            // Without anything to reduce, A is 0 and d is the release alone.
            let decayed = release * dPrev
            let d = runMax == 0 && older == 0 ? decayed : pointwiseMax8(a, decayed)
            let u = (d * scale + 8_388_608) - 8_388_608  // round to an integer (d·scale < 2^23)
            store(u, units, pos)
            // Prefix sum (exact: integers below 2^24).
            let sums = prefixSum8(u - load(units, pos, back: window)) + sPrev
            let h = 1 - sums * gainPerUnit
            store(v0, inputs, pos)
            let y0 = clamp8(load(inputs, pos, back: lookahead) * h, c)
            var y1 = y0
            if stereo {
                let ring1 = inputs + (ringLength + 8)
                store(v1, ring1, pos)
                y1 = clamp8(load(ring1, pos, back: lookahead) * h, c)
            }
            return (y0, y1, d[7], sums[7], runMax)
        }
    }

    /// Limits `count` samples of one (x0 == x1) or two linked channels in place.
    @inline(__always)
    mutating func process(_ x0: UnsafeMutablePointer<Float>, _ x1: UnsafeMutablePointer<Float>, _ count: Int) {
        // Two copies of the loop, so the mono one carries no stereo work.
        if channels == 2 { limitStereo(x0, x1, count) } else { limitMono(x0, count) }
    }

    // Separate functions, so that each is compiled for one channel count.
    mutating func limitMono(_ x: UnsafeMutablePointer<Float>, _ count: Int) { limit(x, x, count, stereo: false) }
    mutating func limitStereo(_ x0: UnsafeMutablePointer<Float>, _ x1: UnsafeMutablePointer<Float>, _ count: Int) {
        limit(x0, x1, count, stereo: true)
    }

    @inline(__always)
    mutating func limit(_ x0: UnsafeMutablePointer<Float>, _ x1: UnsafeMutablePointer<Float>, _ count: Int, stereo: Bool) {
        let k = kernel
        let c = k.ceiling
        let inputs = k.inputs, units = k.units, lookahead = k.lookahead, ringLength = k.ringLength
        let ring1 = inputs + (ringLength + 8)
        var pos = position, d = depth, s = sum, older = olderMax, f = filled
        var i = 0
        while i < count {
            let in0: SIMD8<Float>, in1: SIMD8<Float>
            let take = Swift.min(8 - f, count - i)
            if f == 0 && count - i >= 8 {
                let v0 = UnsafeRawPointer(x0 + i).loadUnaligned(as: SIMD8<Float>.self)
                let v1 = stereo ? UnsafeRawPointer(x1 + i).loadUnaligned(as: SIMD8<Float>.self) : v0
                // Idle: nothing to reduce in the window and this block under the ceiling. Gain
                // exactly 1, no clamp needed (every delayed sample was under the ceiling too);
                // the units of the block are 0 and the block maxima stay 0.
                if d == 0 && s == 0 && older == 0 && !any(k.magnitude(v0, v1, stereo: stereo) .> c) {
                    k.store(v0, inputs, pos)
                    UnsafeMutableRawPointer(x0 + i).storeBytes(of: k.load(inputs, pos, back: lookahead), as: SIMD8<Float>.self)
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
            // One call site for whole and partial blocks (so the kernel is inlined once).
            let r = k.block(in0, in1, pos, d, s, older, stereo: stereo)
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
                finishBlock(r, &pos, &d, &s, &older)
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
    }

    @inline(__always)
    mutating func finishBlock(
        _ r: (y0: SIMD8<Float>, y1: SIMD8<Float>, depth: Float, sum: Float, blockMax: Float),
        _ pos: inout Int, _ d: inout Float, _ s: inout Float, _ older: inout Float
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
        s = r.sum
        pos = (pos + 8) & (ringLength - 1)
    }
}

@inline(__always)
func abs8(_ v: SIMD8<Float>) -> SIMD8<Float> {
    unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
}

@inline(__always)
func pointwiseMax8(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: b .> a)
}

/// Clamped to [-c, c].
@inline(__always)
func clamp8(_ v: SIMD8<Float>, _ c: Float) -> SIMD8<Float> {
    let hi = v.replacing(with: SIMD8(repeating: c), where: v .> c)
    return hi.replacing(with: SIMD8(repeating: -c), where: hi .< -c)
}

/// Running sums over the lanes (lane j: v[0] + ... + v[j]), as 4-lane shifts and adds.
@inline(__always)
func prefixSum8(_ v: SIMD8<Float>) -> SIMD8<Float> {
    @inline(__always) func scan(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let x = v + SIMD4(0, v[0], v[1], v[2])
        return x + SIMD4(0, 0, x[0], x[1])
    }
    let low = scan(v.lowHalf)
    return SIMD8(lowHalf: low, highHalf: scan(v.highHalf) + low[3])
}

/// Running maxima over the lanes (lane j: max of v[0] ... v[j]), for v >= 0.
@inline(__always)
func prefixMax8(_ v: SIMD8<Float>) -> SIMD8<Float> {
    @inline(__always) func most(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> { a.replacing(with: b, where: b .> a) }
    @inline(__always) func scan(_ v: SIMD4<Float>) -> SIMD4<Float> {
        let x = most(v, SIMD4(0, v[0], v[1], v[2]))
        return most(x, SIMD4(0, 0, x[0], x[1]))
    }
    let low = scan(v.lowHalf)
    return SIMD8(lowHalf: low, highHalf: most(scan(v.highHalf), SIMD4(repeating: low[3])))
}
