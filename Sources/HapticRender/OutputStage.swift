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

final class OutputState {
    let profile: ActuatorProfile
    let sampleRate: Double
    let layout: ChannelLayout
    let routes: UnsafeMutablePointer<ChannelRoute>
    let channels: Int
    let usesAudio: Bool
    let gain: Float
    let highPass: UnsafeMutablePointer<Biquad>
    let sections: Int
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
        sections = qs.count
        highPass = .allocate(capacity: qs.count)
        for (i, q) in qs.enumerated() {
            highPass[i] = Biquad.highPass(cutoff: profile.protection.highPassHz, q: q, sampleRate: sampleRate)
        }
        let ceiling = Float(decibelsToGain(profile.ceilingDBFS))
        let lookahead = max(1, Int((profile.limiter.lookaheadMs / 1000 * sampleRate).rounded()))
        let release = profile.limiter.releaseMs / 1000 * sampleRate
        hapticLimiter = LookAheadLimiter(lookahead: lookahead, ceiling: ceiling, releaseSamples: release, channels: 1)
        audioLimiter = LookAheadLimiter(lookahead: lookahead, ceiling: ceiling, releaseSamples: release, channels: 2)
    }

    deinit {
        routes.deallocate()
        highPass.deallocate()
        hapticLimiter.deallocate()
        audioLimiter.deallocate()
    }

    func copy() -> OutputState {
        let c = OutputState(profile: profile, sampleRate: sampleRate, layout: layout)
        c.highPass.update(from: highPass, count: sections)
        c.hapticLimiter.copyState(from: hapticLimiter)
        c.audioLimiter.copyState(from: audioLimiter)
        return c
    }

    @inline(__always)
    func process(_ bus: MixBus, into output: UnsafeMutablePointer<Float>) {
        let frames = bus.frames
        if frames <= 0 { return }
        let h = bus.haptic
        let g = gain
        for i in 0..<frames { h[i] *= g }
        for s in 0..<sections { highPass[s].process(h, frames) }
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
            for i in 0..<frames { output[i * ch + c] = source[i] * gain }
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
/// Required gain r[n] = min(1, c/|x[n]|); m[n] = min of r over the last W = L+1 samples
/// (a monotonic deque); e[n] = min(m[n], release-smoothed e[n-1]); h[n] = mean of e over
/// the last W samples. Every e[j] averaged into h[n] covers sample n-L in its window, so
/// h[n] <= r[n-L], and y[n] = x[n-L]·h[n] never exceeds c. Gain changes are spread over
/// the look-ahead (attack) and the release time (no pumping on isolated peaks). A final
/// clamp catches float rounding only.
struct LookAheadLimiter {
    let lookahead: Int
    let window: Int
    let ceiling: Float
    let releaseCoefficient: Double
    let channels: Int
    let delay: UnsafeMutablePointer<Float>
    var delayPosition = 0
    let history: UnsafeMutablePointer<Double>
    var historyPosition = 0
    var sum: Double
    var envelope = 1.0
    var onesRun: Int
    let dequeIndex: UnsafeMutablePointer<Int64>
    let dequeValue: UnsafeMutablePointer<Double>
    let dequeCapacity: Int
    var dequeHead = 0
    var dequeCount = 0
    var n: Int64 = 0

    init(lookahead: Int, ceiling: Float, releaseSamples: Double, channels: Int) {
        self.lookahead = lookahead
        self.window = lookahead + 1
        self.ceiling = ceiling
        self.releaseCoefficient = 1 - exp2Double(-1.4426950408889634 / max(1, releaseSamples))
        self.channels = channels
        delay = .allocate(capacity: lookahead * channels)
        delay.initialize(repeating: 0, count: lookahead * channels)
        history = .allocate(capacity: window)
        history.initialize(repeating: 1, count: window)
        sum = Double(window)
        onesRun = window
        dequeCapacity = window + 1
        dequeIndex = .allocate(capacity: dequeCapacity)
        dequeValue = .allocate(capacity: dequeCapacity)
        dequeIndex[0] = -1
        dequeValue[0] = 1
        dequeCount = 1
    }

    /// Frees the buffers (called by the owner's deinit; a struct so that the render loop's
    /// state lives in locals/registers without per-access exclusivity checks).
    func deallocate() {
        delay.deallocate()
        history.deallocate()
        dequeIndex.deallocate()
        dequeValue.deallocate()
    }

    mutating func copyState(from o: LookAheadLimiter) {
        delay.update(from: o.delay, count: lookahead * channels)
        delayPosition = o.delayPosition
        history.update(from: o.history, count: window)
        historyPosition = o.historyPosition
        sum = o.sum
        envelope = o.envelope
        onesRun = o.onesRun
        dequeIndex.update(from: o.dequeIndex, count: dequeCapacity)
        dequeValue.update(from: o.dequeValue, count: dequeCapacity)
        dequeHead = o.dequeHead
        dequeCount = o.dequeCount
        n = o.n
    }

    /// Limits `count` samples of one (x0 == x1) or two linked channels in place.
    @inline(__always)
    mutating func process(_ x0: UnsafeMutablePointer<Float>, _ x1: UnsafeMutablePointer<Float>, _ count: Int) {
        let c = ceiling
        let stereo = channels == 2
        var start = 0
        while start < count {
            let length = min(count - start, 64)
            // Fast path: nothing in the window needs gain reduction and nothing new does.
            // It performs exactly the slow path's state changes, so splits don't matter.
            let idle = onesRun >= window ? (dequeCount == 1 ? dequeValue[dequeHead] == 1 : false) : false
            if idle {
                var peak: Float = 0
                for i in start..<(start + length) {
                    peak = max(peak, abs(x0[i]))
                    if stereo { peak = max(peak, abs(x1[i])) }
                }
                if peak <= c {
                    for i in start..<(start + length) {
                        let p = delayPosition
                        let y0 = delay[p]
                        delay[p] = x0[i]
                        x0[i] = y0
                        if stereo {
                            let y1 = delay[lookahead + p]
                            delay[lookahead + p] = x1[i]
                            x1[i] = y1
                        }
                        delayPosition = p + 1 == lookahead ? 0 : p + 1
                    }
                    historyPosition = (historyPosition + length) % window
                    onesRun += length
                    n += Int64(length)
                    dequeIndex[dequeHead] = n - 1
                    start += length
                    continue
                }
            }
            for i in start..<(start + length) {
                slowSample(x0 + i, stereo ? x1 + i : nil)
            }
            start += length
        }
    }

    @inline(__always)
    mutating func slowSample(_ p0: UnsafeMutablePointer<Float>, _ p1: UnsafeMutablePointer<Float>?) {
        let c = ceiling
        let v0 = p0.pointee
        let v1 = p1?.pointee ?? 0
        let peak = max(abs(v0), abs(v1))
        let r = peak > c ? Double(c) / Double(peak) : 1
        // Sliding minimum over the last W samples.
        while dequeCount > 0 {
            let back = (dequeHead + dequeCount - 1) % dequeCapacity
            if dequeValue[back] >= r { dequeCount -= 1 } else { break }
        }
        let slot = (dequeHead + dequeCount) % dequeCapacity
        dequeIndex[slot] = n
        dequeValue[slot] = r
        dequeCount += 1
        while dequeIndex[dequeHead] <= n - Int64(window) {
            dequeHead = (dequeHead + 1) % dequeCapacity
            dequeCount -= 1
        }
        let m = dequeValue[dequeHead]
        var recovered = envelope + (1 - envelope) * releaseCoefficient
        if recovered > 1 - 1e-9 { recovered = 1 }
        envelope = min(m, recovered)
        let old = history[historyPosition]
        history[historyPosition] = envelope
        historyPosition = historyPosition + 1 == window ? 0 : historyPosition + 1
        if envelope == 1 { onesRun += 1 } else { onesRun = 0 }
        if onesRun >= window { sum = Double(window) } else { sum += envelope - old }
        let h = Float(sum / Double(window))
        let p = delayPosition
        let y0 = delay[p] * h
        delay[p] = v0
        p0.pointee = min(c, max(-c, y0))
        if let p1 {
            let y1 = delay[lookahead + p] * h
            delay[lookahead + p] = v1
            p1.pointee = min(c, max(-c, y1))
        }
        delayPosition = p + 1 == lookahead ? 0 : p + 1
        n += 1
    }
}
