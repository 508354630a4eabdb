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
///     y[8m ..< 8m+8] = C·s_m + D·x[8m ..< 8m+8],   s_{m+1} = A·s_m + B·x[8m ..< 8m+8]
///
/// where s is the cascade's state (2 values per section) and A, B, C, D come from running
/// the double-precision cascade on unit states and unit impulses (so the filter is the same
/// one; only the rounding differs: outputs in Float, the state in Double — a Float state
/// drifts by 1e-3 at these cutoffs).
///
/// The kernel is written for baseline x86-64 (4-lane SSE): every product is a 4-lane vector
/// times a broadcast, B·x is four 8-long dot products summed as a transposed 4×4, and A uses
/// its block-triangular shape (the first section does not see the second). That is about
/// 13 instructions a sample for order 2 and 17 for order 4, a third of a plain 8-lane form.
///
/// Silence: a state whose every value is below 2^-46 is set to zero (what it would still add to
/// the output is below -180 dBFS — the states of a low cutoff can grow some hundredfold on
/// their way out, hence the margin — and denormals stay out). A zero state with a block of
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
    /// A by 2-lane columns: [0] [1]: rows 0-1 from states 0, 1; [2]...[5]: rows 2-3 from states 0...3.
    let a: UnsafeMutablePointer<SIMD2<Double>>
    var s01 = SIMD2<Double>.zero
    var s23 = SIMD2<Double>.zero
    /// The state is exactly zero (set by the silence check, cleared by the first non-zero input).
    var quiet = true
    /// Blocks run since the last silence ended (the silence check runs on every 8th).
    var sounding = 0
    /// Below this every state value is flushed to zero (see the type's comment).
    static let silence = 0x1p-46
    /// Inputs of the current grid block; lanes >= `filled` are 0.
    var pendingLow = SIMD4<Float>.zero
    var pendingHigh = SIMD4<Float>.zero
    var filled = 0

    /// Where each matrix lives in `k`.
    enum Layout {
        /// C, output lanes 0-3 for state i: k[i]; lanes 4-7: k[4 + i].
        static let cLow = 0, cHigh = 4
        /// D, output lanes 0-3 for input lane l < 4: k[8 + l]; lanes 4-7 for input l < 8: k[12 + l].
        static let dLow = 8, dHigh = 12
        /// B, row j (next state j) over input lanes 0-3: k[20 + 2j]; over lanes 4-7: k[21 + 2j].
        static let b = 20
        static let count = 28
    }

    /// `inputGain` multiplies the input (folded into D and B: one pass less).
    init(sections: [Biquad], inputGain: Double = 1) {
        precondition(sections.count >= 1 && sections.count <= 2)
        dims = 2 * sections.count
        k = .allocate(capacity: Layout.count)
        k.initialize(repeating: .zero, count: Layout.count)
        a = .allocate(capacity: 6)
        a.initialize(repeating: .zero, count: 6)
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
        for i in 0..<dims {
            var unit = SIMD4<Double>.zero
            unit[i] = 1
            let r = simulate(unit, impulseAt: -1)
            for lane in 0..<4 {
                k[Layout.cLow + i][lane] = Float(r.outputs[lane])
                k[Layout.cHigh + i][lane] = Float(r.outputs[4 + lane])
            }
            if i < 2 { a[i] = SIMD2(r.state[0], r.state[1]) }
            if twoSections { a[2 + i] = SIMD2(r.state[2], r.state[3]) }
        }
        for l in 0..<8 {
            let r = simulate(.zero, impulseAt: l)
            for lane in 0..<4 {
                if l < 4 { k[Layout.dLow + l][lane] = lane < l ? 0 : Float(inputGain * r.outputs[lane]) }
                k[Layout.dHigh + l][lane] = 4 + lane < l ? 0 : Float(inputGain * r.outputs[4 + lane])
            }
            for j in 0..<dims { k[Layout.b + 2 * j + l / 4][l % 4] = Float(inputGain * r.state[j]) }
        }
    }

    func deallocate() {
        k.deallocate()
        a.deallocate()
    }

    mutating func copyState(from o: BlockHighPass) {
        s01 = o.s01
        s23 = o.s23
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
        var s01 = self.s01, s23 = self.s23
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
                let y = block(s01, s23, xl, xh, four: four)
                raw.storeBytes(of: y.low, as: SIMD4<Float>.self)
                raw.storeBytes(of: y.high, toByteOffset: 16, as: SIMD4<Float>.self)
                s01 = y.s01
                s23 = y.s23
                quiet = Self.countBlock(&sounding, &s01, &s23)
                i += 8
                continue
            }
            let take = Swift.min(8 - f, count - i)
            for l in 0..<take {
                if f + l < 4 { pendingLow[f + l] = x[i + l] } else { pendingHigh[f + l - 4] = x[i + l] }
            }
            let y = block(s01, s23, pendingLow, pendingHigh, four: four)
            for l in 0..<take { x[i + l] = f + l < 4 ? y.low[f + l] : y.high[f + l - 4] }
            f += take
            i += take
            if f == 8 {
                // The same steps as a whole block: a silent block leaves a zero state as it is.
                if !(quiet && pendingLow == .zero && pendingHigh == .zero) {
                    if quiet { sounding = 0 }
                    quiet = false
                    s01 = y.s01
                    s23 = y.s23
                    quiet = Self.countBlock(&sounding, &s01, &s23)
                }
                pendingLow = .zero
                pendingHigh = .zero
                f = 0
            }
        }
        self.s01 = s01
        self.s23 = s23
        self.quiet = quiet
        self.sounding = sounding
        filled = f
    }

    /// Counts a block that ran the kernel; on every 8th, sets a negligible state to zero.
    /// Returns whether the state is now zero (`quiet`).
    @inline(__always)
    static func countBlock(_ sounding: inout Int, _ s01: inout SIMD2<Double>, _ s23: inout SIMD2<Double>) -> Bool {
        sounding &+= 1
        if sounding & 7 != 0 { return false }
        let small = (s01 .< silence) .& (s01 .> -silence) .& (s23 .< silence) .& (s23 .> -silence)
        if !all(small) { return false }
        s01 = .zero
        s23 = .zero
        return true
    }

    /// One grid block: its 8 outputs from the state and the inputs, and the next state.
    @inline(__always)
    func block(
        _ s01: SIMD2<Double>, _ s23: SIMD2<Double>, _ xl: SIMD4<Float>, _ xh: SIMD4<Float>, four: Bool
    ) -> (low: SIMD4<Float>, high: SIMD4<Float>, s01: SIMD2<Double>, s23: SIMD2<Double>) {
        let k = self.k
        typealias L = Layout
        let x0 = SIMD4(repeating: xl[0]), x1 = SIMD4(repeating: xl[1])
        let x2 = SIMD4(repeating: xl[2]), x3 = SIMD4(repeating: xl[3])
        let x4 = SIMD4(repeating: xh[0]), x5 = SIMD4(repeating: xh[1])
        let x6 = SIMD4(repeating: xh[2]), x7 = SIMD4(repeating: xh[3])
        let sLow = SIMD2<Float>(s01)
        let c0 = SIMD4(repeating: sLow[0]), c1 = SIMD4(repeating: sLow[1])
        // Outputs: C·s + D·x, lanes 0-3 and 4-7 (D is zero above its diagonal).
        var yl = k[L.cLow] * c0
        yl += k[L.cLow + 1] * c1
        var yh = k[L.cHigh] * c0
        yh += k[L.cHigh + 1] * c1
        if four {
            let sHigh = SIMD2<Float>(s23)
            let c2 = SIMD4(repeating: sHigh[0]), c3 = SIMD4(repeating: sHigh[1])
            yl += k[L.cLow + 2] * c2
            yl += k[L.cLow + 3] * c3
            yh += k[L.cHigh + 2] * c2
            yh += k[L.cHigh + 3] * c3
        }
        yl += k[L.dLow] * x0
        yl += k[L.dLow + 1] * x1
        yl += k[L.dLow + 2] * x2
        yl += k[L.dLow + 3] * x3
        yh += k[L.dHigh] * x0
        yh += k[L.dHigh + 1] * x1
        yh += k[L.dHigh + 2] * x2
        yh += k[L.dHigh + 3] * x3
        yh += k[L.dHigh + 4] * x4
        yh += k[L.dHigh + 5] * x5
        yh += k[L.dHigh + 6] * x6
        yh += k[L.dHigh + 7] * x7
        // B·x: one 8-long dot product per state, summed as a 4×4 transpose.
        let q0 = k[L.b] * xl + k[L.b + 1] * xh
        let q1 = k[L.b + 2] * xl + k[L.b + 3] * xh
        let e01 = SIMD4(q0[0], q1[0], q0[1], q1[1]) + SIMD4(q0[2], q1[2], q0[3], q1[3])
        let a = self.a
        let b0 = SIMD2(repeating: s01[0]), b1 = SIMD2(repeating: s01[1])
        let n01: SIMD2<Double>
        var n23 = SIMD2<Double>.zero
        if four {
            let q2 = k[L.b + 4] * xl + k[L.b + 5] * xh
            let q3 = k[L.b + 6] * xl + k[L.b + 7] * xh
            let e23 = SIMD4(q2[0], q3[0], q2[1], q3[1]) + SIMD4(q2[2], q3[2], q2[3], q3[3])
            let u = SIMD4(lowHalf: e01.lowHalf, highHalf: e23.lowHalf) + SIMD4(lowHalf: e01.highHalf, highHalf: e23.highHalf)
            n01 = SIMD2<Double>(u.lowHalf) + (a[0] * b0 + a[1] * b1)
            let b2 = SIMD2(repeating: s23[0]), b3 = SIMD2(repeating: s23[1])
            let h01 = a[2] * b0 + a[3] * b1
            let h23 = a[4] * b2 + a[5] * b3
            n23 = SIMD2<Double>(u.highHalf) + (h01 + h23)
        } else {
            n01 = SIMD2<Double>(e01.lowHalf + e01.highHalf) + (a[0] * b0 + a[1] * b1)
        }
        // + 0 makes an exact zero +0 whichever inputs were still unknown (bit-identical splits).
        return (yl + 0, yh + 0, n01, n23)
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
