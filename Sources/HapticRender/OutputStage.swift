// The protection chain after the mix (haptic: gain → Butterworth high-pass →
// look-ahead limiter; audio: stereo-linked look-ahead limiter) and the writer
// that interleaves channels for a layout. Per-sample state only, so any block
// split gives identical output.

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
    let gain: Float
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
        gain = Float(decibelsToGain(profile.outputGainDB))
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
        var limiter = LookAheadLimiter(lookahead: 8, ceiling: 0.5, releaseSamples: 10, channels: 2)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 160)
        for i in 0..<160 { scratch[i] = i % 3 == 0 ? 1 : 0 }
        filter.process(scratch, 77)
        limiter.process(scratch, scratch + 80, 77)
        _ = copyMeasuringPeak(scratch, scratch + 80, 77)
        scratch.deallocate()
        filter.deallocate()
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

    @inline(__always)
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
                    output.update(from: source, count: frames)
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

/// The protection high-pass (a cascade of `Biquad`s) evaluated 8 samples at a time in
/// state-space form, so that the recursion's latency is paid once per 8 samples instead of
/// once per sample per section:
///
///     y[8m ..< 8m+8] = C·s_m + D·x[8m ..< 8m+8],   s_{m+1} = A·s_m + B·x[8m ..< 8m+8]
///
/// where s is the cascade's state (2 values per section) and A, B, C, D come from running
/// the double-precision cascade on unit states and unit impulses (so the filter is the same
/// one; only the rounding differs: outputs in Float, the state in Double).
///
/// Block independence: blocks sit on a fixed grid of the stage's absolute sample index. A
/// call that ends inside a block emits the block's outputs computed with the unknown inputs
/// set to 0 — D is lower triangular, so those lanes do not depend on them — and keeps the
/// inputs; the next call recomputes the block with the same state and the inputs it now has.
/// The state advances only on complete blocks, so every output is the same function of the
/// input whatever the call sizes.
struct BlockHighPass {
    /// State dimension (2 per section).
    let dims: Int
    /// dims columns of C (output lanes per state component).
    let c: UnsafeMutablePointer<SIMD8<Float>>
    /// 8 columns of D (output lanes per input lane; column l is zero above lane l).
    let d: UnsafeMutablePointer<SIMD8<Float>>
    /// dims columns of A (next state per state component), Double.
    let a: UnsafeMutablePointer<SIMD4<Double>>
    /// 8 columns of B (next state per input lane), Float (the input's own precision).
    let b: UnsafeMutablePointer<SIMD4<Float>>
    var state = SIMD4<Double>.zero
    /// Inputs of the current grid block; lanes >= `filled` are 0.
    var pending = SIMD8<Float>.zero
    var filled = 0

    /// `inputGain` multiplies the input (folded into D and B: one pass less).
    init(sections: [Biquad], inputGain: Double = 1) {
        precondition(sections.count >= 1 && sections.count <= 2)
        dims = 2 * sections.count
        c = .allocate(capacity: 4)
        d = .allocate(capacity: 8)
        a = .allocate(capacity: 4)
        b = .allocate(capacity: 8)
        c.initialize(repeating: .zero, count: 4)
        d.initialize(repeating: .zero, count: 8)
        a.initialize(repeating: .zero, count: 4)
        b.initialize(repeating: .zero, count: 8)
        // Runs the cascade for 8 samples from `start` with one input impulse (or none).
        func simulate(_ start: [Double], impulseAt: Int?) -> (outputs: [Double], state: [Double]) {
            var st = start
            var ys: [Double] = []
            for k in 0..<8 {
                var v = k == impulseAt ? 1.0 : 0.0
                for (i, q) in sections.enumerated() {
                    let y = q.b0 * v + st[2 * i]
                    st[2 * i] = q.b1 * v - q.a1 * y + st[2 * i + 1]
                    st[2 * i + 1] = q.b2 * v - q.a2 * y
                    v = y
                }
                ys.append(v)
            }
            return (ys, st)
        }
        for i in 0..<dims {
            var unit = [Double](repeating: 0, count: dims)
            unit[i] = 1
            let r = simulate(unit, impulseAt: nil)
            for k in 0..<8 { c[i][k] = Float(r.outputs[k]) }
            for j in 0..<dims { a[i][j] = r.state[j] }
        }
        for l in 0..<8 {
            let r = simulate([Double](repeating: 0, count: dims), impulseAt: l)
            for k in 0..<8 { d[l][k] = k < l ? 0 : Float(inputGain * r.outputs[k]) }
            for j in 0..<dims { b[l][j] = Float(inputGain * r.state[j]) }
        }
    }

    func deallocate() {
        c.deallocate()
        d.deallocate()
        a.deallocate()
        b.deallocate()
    }

    mutating func copyState(from o: BlockHighPass) {
        state = o.state
        pending = o.pending
        filled = o.filled
    }

    /// Outputs of one grid block from the state and the block's inputs.
    @inline(__always)
    func outputs(_ s: SIMD4<Double>, _ x: SIMD8<Float>) -> SIMD8<Float> {
        let sf = SIMD4<Float>(s)
        var y = c[0] * sf[0] + c[1] * sf[1]
        if dims == 4 { y += c[2] * sf[2] + c[3] * sf[3] }
        y += d[0] * x[0]
        y += d[1] * x[1]
        y += d[2] * x[2]
        y += d[3] * x[3]
        // Columns 4...7 are zero in lanes 0...3: only the upper half is computed.
        var hi = y.highHalf
        hi += d[4].highHalf * x[4]
        hi += d[5].highHalf * x[5]
        hi += d[6].highHalf * x[6]
        hi += d[7].highHalf * x[7]
        // + 0 makes an exact zero +0 whichever inputs were still unknown (bit-identical splits).
        return SIMD8(lowHalf: y.lowHalf + 0, highHalf: hi + 0)
    }

    /// The state after one grid block.
    @inline(__always)
    func advance(_ s: SIMD4<Double>, _ x: SIMD8<Float>) -> SIMD4<Double> {
        var u = b[0] * x[0] + b[1] * x[1]
        u += b[2] * x[2] + b[3] * x[3]
        u += b[4] * x[4] + b[5] * x[5]
        u += b[6] * x[6] + b[7] * x[7]
        // Summed as a tree: this is the only serial dependency from block to block.
        let u0: SIMD4<Double> = SIMD4<Double>(u)
        let p0: SIMD4<Double> = a[0] * s[0]
        let p1: SIMD4<Double> = a[1] * s[1]
        var next: SIMD4<Double> = u0 + (p0 + p1)
        if dims == 4 {
            let p2: SIMD4<Double> = a[2] * s[2]
            let p3: SIMD4<Double> = a[3] * s[3]
            next = (u0 + (p0 + p1)) + (p2 + p3)
        }
        // Flush a decayed state to exact zero (no denormals after long silences); a
        // predictable branch keeps the compare off the dependency chain.
        let tiny = (next .< 1e-30) .& (next .> -1e-30)
        if any(tiny) { next.replace(with: 0, where: tiny) }
        return next
    }

    /// Filters `count` samples in place.
    @inline(__always)
    mutating func process(_ x: UnsafeMutablePointer<Float>, _ count: Int) {
        var s = state
        var f = filled
        var pend = pending
        var i = 0
        while i < count {
            if f == 0 && count - i >= 8 {
                let raw = UnsafeMutableRawPointer(x + i)
                let xv = raw.loadUnaligned(as: SIMD8<Float>.self)
                raw.storeBytes(of: outputs(s, xv), as: SIMD8<Float>.self)
                s = advance(s, xv)
                i += 8
                continue
            }
            let take = Swift.min(8 - f, count - i)
            for l in 0..<take { pend[f + l] = x[i + l] }
            let y = outputs(s, pend)
            for l in 0..<take { x[i + l] = y[f + l] }
            f += take
            i += take
            if f == 8 {
                s = advance(s, pend)
                pend = .zero
                f = 0
            }
        }
        state = s
        filled = f
        pending = pend
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
/// A's window: the running maximum since the start of the current 8-sample block of the
/// absolute sample index, and the maxima of the ceil(L/8) blocks before it (a superset of
/// [n-L, n], with no per-sample deque). The window sum of d is kept in fixed point as
/// integer-valued Floats below 2^24, so it is exact and never drifts. Every quantity is a
/// function of the samples so far, so any split of the input gives identical output; the
/// idle fast path (nothing to reduce anywhere in the window) produces the same samples.
struct LookAheadLimiter {
    let lookahead: Int
    let window: Int
    let ceiling: Float
    let channels: Int
    /// Release factor per sample.
    let q: Float
    /// d is rounded to a multiple of 1/scale; gainPerUnit = 1/(scale·window).
    let scale: Float
    let gainPerUnit: Float
    let delay: UnsafeMutablePointer<Float>  // channels × lookahead
    var delayPosition = 0
    let units: UnsafeMutablePointer<Float>  // window entries of round(d·scale)
    var unitsPosition = 0
    let blockCount: Int  // ceil(L/8)
    let blockMax: UnsafeMutablePointer<Float>
    var blockPosition = 0
    /// Sample index within the current 8-block, and the running maximum of a in it.
    var lane = 0
    var run: Float = 0
    /// Maximum of a over the blocks before the current one (within the window).
    var olderMax: Float = 0
    var depth: Float = 0
    var sum: Float = 0
    /// Consecutive samples whose units were 0 (the window is clear once >= window).
    var zeroRun: Int

    init(lookahead: Int, ceiling: Float, releaseSamples: Double, channels: Int) {
        self.lookahead = lookahead
        self.window = lookahead + 1
        self.ceiling = ceiling
        self.channels = channels
        q = Float(exp2Double(-1.4426950408889634 / max(1, releaseSamples)))
        var sc = 1.0
        while Double(window + 8) * sc * 2 <= 16_777_216 { sc *= 2 }
        scale = Float(sc)
        gainPerUnit = Float(1 / (sc * Double(window)))
        delay = .allocate(capacity: lookahead * channels)
        delay.initialize(repeating: 0, count: lookahead * channels)
        units = .allocate(capacity: window)
        units.initialize(repeating: 0, count: window)
        blockCount = (lookahead + 7) / 8
        blockMax = .allocate(capacity: blockCount)
        blockMax.initialize(repeating: 0, count: blockCount)
        zeroRun = window
    }

    /// Frees the buffers (called by the owner's deinit; a struct so that the render loop's
    /// state lives in locals/registers without per-access exclusivity checks).
    func deallocate() {
        delay.deallocate()
        units.deallocate()
        blockMax.deallocate()
    }

    mutating func copyState(from o: LookAheadLimiter) {
        delay.update(from: o.delay, count: lookahead * channels)
        delayPosition = o.delayPosition
        units.update(from: o.units, count: window)
        unitsPosition = o.unitsPosition
        blockMax.update(from: o.blockMax, count: blockCount)
        blockPosition = o.blockPosition
        lane = o.lane
        run = o.run
        olderMax = o.olderMax
        depth = o.depth
        sum = o.sum
        zeroRun = o.zeroRun
    }

    /// Largest |x[i]| over `count` samples (8 lanes at a time).
    @inline(__always)
    func peakOf(_ x: UnsafeMutablePointer<Float>, _ count: Int) -> Float {
        var m = SIMD8<Float>.zero
        var i = 0
        let raw = UnsafeRawPointer(x)
        while i + 8 <= count {
            let v = raw.loadUnaligned(fromByteOffset: i * 4, as: SIMD8<Float>.self)
            // |v| by clearing the sign bit; a compare-select instead of the generic pointwiseMax.
            let a = unsafeBitCast(unsafeBitCast(v, to: SIMD8<UInt32>.self) & 0x7fff_ffff, to: SIMD8<Float>.self)
            m.replace(with: a, where: a .> m)
            i += 8
        }
        let m4 = m.lowHalf.replacing(with: m.highHalf, where: m.highHalf .> m.lowHalf)
        var peak = max(max(m4[0], m4[1]), max(m4[2], m4[3]))
        while i < count {
            peak = max(peak, abs(x[i]))
            i += 1
        }
        return peak
    }

    /// x[i] ⇄ line[(delayPosition + i) mod lookahead] for i < count (count <= lookahead is
    /// not required): outputs the delayed samples and stores the new ones, in block copies.
    @inline(__always)
    func swapThroughDelay(_ x: UnsafeMutablePointer<Float>, _ line: UnsafeMutablePointer<Float>, _ count: Int) {
        var done = 0
        var p = delayPosition
        while done < count {
            let run = min(count - done, lookahead - p)
            let a = x + done
            let b = line + p
            var k = 0
            while k + 8 <= run {
                let ra = UnsafeMutableRawPointer(a + k), rb = UnsafeMutableRawPointer(b + k)
                let va = ra.loadUnaligned(as: SIMD8<Float>.self)
                let vb = rb.loadUnaligned(as: SIMD8<Float>.self)
                ra.storeBytes(of: vb, as: SIMD8<Float>.self)
                rb.storeBytes(of: va, as: SIMD8<Float>.self)
                k += 8
            }
            while k < run {
                let t = a[k]
                a[k] = b[k]
                b[k] = t
                k += 1
            }
            done += run
            p = p + run == lookahead ? 0 : p + run
        }
    }

    /// Limits `count` samples of one (x0 == x1) or two linked channels in place.
    @inline(__always)
    mutating func process(_ x0: UnsafeMutablePointer<Float>, _ x1: UnsafeMutablePointer<Float>, _ count: Int) {
        let c = ceiling
        let stereo = channels == 2
        var i = 0
        while i < count {
            // Idle: at a block start with nothing to reduce in the window. Whole blocks whose
            // samples are all under the ceiling pass through delayed (gain exactly 1, and every
            // state variable stays as the per-sample path would leave it).
            if lane == 0 && olderMax == 0 && depth == 0 && zeroRun >= window && count - i >= 8 {
                let length = Swift.min(count - i, 64) & ~7
                let peak = stereo ? Swift.max(peakOf(x0 + i, length), peakOf(x1 + i, length)) : peakOf(x0 + i, length)
                if peak <= c {
                    swapThroughDelay(x0 + i, delay, length)
                    if stereo { swapThroughDelay(x1 + i, delay + lookahead, length) }
                    delayPosition = (delayPosition + length) % lookahead
                    unitsPosition = (unitsPosition + length) % window  // the ring holds zeros
                    blockPosition = (blockPosition + length / 8) % blockCount  // blocks of zeros
                    zeroRun &+= length
                    i += length
                    continue
                }
            }
            let first = i
            let stop = Swift.min(count, i + (8 - lane))
            var r = run, d = depth, s = sum, z = zeroRun
            var dp = delayPosition, up = unitsPosition
            let older = olderMax, qq = q, sc = scale, g = gainPerUnit, L = lookahead, W = window
            while i < stop {
                let v0 = x0[i]
                let v1 = stereo ? x1[i] : v0
                let p = Swift.max(abs(v0), abs(v1))
                // Required reduction (the division only matters above the ceiling).
                let a: Float = p > c ? 1 - c / p : 0
                r = a > r ? a : r
                let am = older > r ? older : r
                let decayed = d * qq
                d = am > decayed ? am : decayed
                let u = (d * sc + 8_388_608) - 8_388_608  // round to an integer (d·scale < 2^23)
                let old = units[up]
                units[up] = u
                up = up + 1 == W ? 0 : up + 1
                s += u - old  // exact: integers below 2^24
                z = u == 0 ? z &+ 1 : 0
                let h = 1 - s * g
                let late0 = delay[dp]
                delay[dp] = v0
                x0[i] = Swift.min(c, Swift.max(-c, late0 * h))
                if stereo {
                    let late1 = delay[L + dp]
                    delay[L + dp] = v1
                    x1[i] = Swift.min(c, Swift.max(-c, late1 * h))
                }
                dp = dp + 1 == L ? 0 : dp + 1
                i += 1
            }
            lane += stop - first
            if lane == 8 {
                lane = 0
                blockMax[blockPosition] = r
                blockPosition = blockPosition + 1 == blockCount ? 0 : blockPosition + 1
                var m: Float = 0
                for k in 0..<blockCount { m = Swift.max(m, blockMax[k]) }
                olderMax = m
                r = 0
                // Back to exact zero on the block grid (no denormals; lets the idle path resume).
                // A sample over c leaves d >= 6e-8, which takes far longer than L to decay below
                // 1e-9, so when d is 0 nothing in the delay line is over c (the idle path's copy
                // needs no clamp).
                if d < 1e-9 { d = 0 }
            }
            depth = d
            sum = s
            zeroRun = z
            delayPosition = dp
            unitsPosition = up
            run = r
        }
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

@inline(__always)
func pointwiseMin8(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: b .< a)
}

/// Lanes moved up by `k` (lane j gets lane j-k; the lowest k lanes get 0).
@inline(__always)
func shiftUp(_ v: SIMD8<Float>, _ k: Int) -> SIMD8<Float> {
    switch k {
    case 1: return SIMD8(0, v[0], v[1], v[2], v[3], v[4], v[5], v[6])
    case 2: return SIMD8(0, 0, v[0], v[1], v[2], v[3], v[4], v[5])
    default: return SIMD8(0, 0, 0, 0, v[0], v[1], v[2], v[3])
    }
}
