// The protection chain after the mix (haptic: gain → Butterworth high-pass →
// look-ahead limiter; audio: stereo-linked look-ahead limiter) and the writer
// that interleaves channels for a layout. State advances on a fixed 8-sample grid of the
// absolute sample index, with partial blocks completed on the next call, so any block split
// gives identical output.

import HapticDSP

/// The protection chain after the mix: DC blocking and a high-pass at the
/// profile's protection cutoff on the haptic bus, then limiters (haptic and audio)
/// that keep every sample under the ceiling, each actuator's haptic one with a servo that takes
/// back what its gain leaves below the band (`SubBandServo`). Writes the interleaved output for a layout.
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
    public var latencyFrames: Int { state.hapticLimiters[0].lookahead }

    /// The actuator profile of each haptic bus (`layout.actuators(default:)`): a mix for this
    /// stage has that many haptic buses.
    public var actuators: [ActuatorProfile] { state.actuators }

    /// The layout this stage writes.
    public var layout: ChannelLayout { state.layout }

    /// The ceiling as a linear sample value.
    public var ceiling: Float { state.hapticLimiters[0].ceiling }

    /// The output is the processed haptic bus itself (haptic-only mono at gain 1), so the bus
    /// may be the output buffer: `process` then works in place and copies nothing.
    var passesHapticBusThrough: Bool { state.passesHapticBusThrough }

    /// The layout routes the audio buses to some channel (their limiter runs).
    var usesAudioBuses: Bool { state.usesAudio }

    /// Whether the limiters meter their gain (off by default): then `takeLowestGains()` says
    /// how far each one reduced. Costs nothing on the render path when off; when on, no
    /// allocation or lock either (see `LookAheadLimiter.metering`).
    public var metersGain: Bool {
        get { state.hapticLimiters[0].metering }
        set {
            if !isKnownUniquelyReferenced(&state) { state = state.copy() }
            for k in 0..<actuators.count { state.hapticLimiters[k].metering = newValue }
            state.audioLimiter.metering = newValue
        }
    }

    /// The lowest gain (1: no reduction) each limiter applied to the frames output since the
    /// last call (or since metering began), and starts the next such stretch; `haptic` is the
    /// lowest over the actuators' limiters.
    public mutating func takeLowestGains() -> (haptic: Float, audio: Float) {
        if !isKnownUniquelyReferenced(&state) { state = state.copy() }
        var haptic: Float = 1
        for k in 0..<actuators.count {
            haptic = min(haptic, state.hapticLimiters[k].lowestGain)
            state.hapticLimiters[k].lowestGain = 1
        }
        defer { state.audioLimiter.lowestGain = 1 }
        return (haptic, state.audioLimiter.lowestGain)
    }

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
    /// The haptic bus (actuator) a haptic channel reads.
    var actuator: Int = 0
}

/// Runs `OutputState.warmUpKernels` on first use (a global's one-time initialisation; only
/// ever reached from `init`, off the render thread). Process-wide: a one-time effect (the
/// kernels' generic metadata stays instantiated); nothing else changes.
let outputKernelsWarmedUp: Void = OutputState.warmUpKernels()

final class OutputState {
    let profile: ActuatorProfile
    let sampleRate: Double
    let layout: ChannelLayout
    /// One per haptic bus: `layout.actuators(default: profile)`.
    let actuators: [ActuatorProfile]
    /// `actuators.count` (read on the render thread without touching the array).
    let actuatorCount: Int
    let routes: UnsafeMutablePointer<ChannelRoute>
    let channels: Int
    let usesAudio: Bool
    /// See `OutputStage.passesHapticBusThrough`.
    let passesHapticBusThrough: Bool
    /// Per actuator: the protection high-pass (with its output gain) and the limiter.
    let highPasses: UnsafeMutablePointer<BlockHighPass>
    let hapticLimiters: UnsafeMutablePointer<LookAheadLimiter>
    var audioLimiter: LookAheadLimiter

    init(profile: ActuatorProfile, sampleRate: Double, layout: ChannelLayout) {
        self.profile = profile
        self.sampleRate = sampleRate
        self.layout = layout
        let actuators = layout.actuators(default: profile)
        self.actuators = actuators
        actuatorCount = actuators.count
        channels = layout.channels
        routes = .allocate(capacity: max(1, channels))
        let actuatorOf = layout.actuatorIndices(default: profile)
        var usesAudio = false
        for (i, source) in layout.sources.enumerated() {
            switch source {
            case .haptic(let g): routes[i] = ChannelRoute(source: 0, gain: g, actuator: actuatorOf[i])
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
        passesHapticBusThrough = actuators.count == 1 && channels == 1 && routes[0].source == 0 && routes[0].gain == 1
        // One look-ahead for every bus, so that all channels keep the same delay.
        let lookaheadMs = actuators.map(\.limiter.lookaheadMs).max() ?? profile.limiter.lookaheadMs
        let lookahead = max(1, Int((lookaheadMs / 1000 * sampleRate).rounded()))
        highPasses = .allocate(capacity: actuators.count)
        hapticLimiters = .allocate(capacity: actuators.count)
        for (k, actuator) in actuators.enumerated() {
            let chain = Self.chain(for: actuator, sampleRate: sampleRate, lookahead: lookahead, channels: 1)
            (highPasses + k).initialize(to: chain.highPass)
            (hapticLimiters + k).initialize(to: chain.limiter)
        }
        // The audio buses get the limiter only (no high-pass to build).
        audioLimiter = LookAheadLimiter.protection(profile: profile, sampleRate: sampleRate, channels: 2, lookahead: lookahead)
        _ = outputKernelsWarmedUp
    }

    /// A profile's protection: the high-pass (carrying the output gain) and the limiter.
    static func chain(for profile: ActuatorProfile, sampleRate: Double, lookahead: Int, channels: Int)
        -> (highPass: BlockHighPass, limiter: LookAheadLimiter)
    {
        let gain = Float(decibelsToGain(profile.outputGainDB))
        let qs: [Double] = profile.protection.order == 4 ? [0.5411961001461970, 1.3065629648763766] : [0.7071067811865476]
        let highPass = BlockHighPass(sections: qs.map {
            Biquad.highPass(cutoff: profile.protection.highPassHz, q: $0, sampleRate: sampleRate)
        }, inputGain: Double(gain))
        let limiter = LookAheadLimiter.protection(profile: profile, sampleRate: sampleRate, channels: channels, lookahead: lookahead)
        return (highPass, limiter)
    }

    /// Runs the chain's kernels once on throwaway instances, here (off the render thread): in
    /// unoptimised builds their first use instantiates generic type metadata, which allocates.
    /// Once per process is enough (see `outputKernelsWarmedUp`).
    static func warmUpKernels() {
        var filter = BlockHighPass(sections: [Biquad.highPass(cutoff: 30, q: 0.7, sampleRate: 48_000)])
        var filter4 = BlockHighPass(sections: [Biquad.highPass(cutoff: 30, q: 0.5, sampleRate: 48_000), Biquad.highPass(cutoff: 30, q: 1.3, sampleRate: 48_000)])
        var limiter = LookAheadLimiter(lookahead: 8, ceiling: 0.5, releaseSamples: 10, channels: 2)
        limiter.metering = true  // (the meter's path too: a plot's render reads it)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 160)
        for i in 0..<160 { scratch[i] = i % 3 == 0 ? 1 : 0 }
        filter.process(scratch, 77)
        filter4.process(scratch, 77)
        limiter.process(scratch, scratch + 80, 77)
        var quiet = LookAheadLimiter(lookahead: 8, ceiling: 0.5, releaseSamples: 10, channels: 2)
        var correcting = LookAheadLimiter(lookahead: 8, ceiling: 0.5, releaseSamples: 10, channels: 1, subBandCutoff: 6)
        correcting.metering = true
        for i in 0..<160 { scratch[i] = i % 3 == 0 ? 1 : 0 }
        correcting.process(scratch, scratch, 77)
        scratch.update(repeating: 0.1, count: 160)
        quiet.process(scratch, scratch + 80, 77)
        correcting.process(scratch, scratch, 77)
        quiet.deallocate()
        correcting.deallocate()
        _ = peakMagnitude(scratch, 77)
        scratch.deallocate()
        filter.deallocate()
        filter4.deallocate()
        limiter.deallocate()
    }

    deinit {
        routes.deallocate()
        for k in 0..<actuators.count {
            highPasses[k].deallocate()
            hapticLimiters[k].deallocate()
        }
        highPasses.deinitialize(count: actuators.count)
        highPasses.deallocate()
        hapticLimiters.deinitialize(count: actuators.count)
        hapticLimiters.deallocate()
        audioLimiter.deallocate()
    }

    func copy() -> OutputState {
        let c = OutputState(profile: profile, sampleRate: sampleRate, layout: layout)
        for k in 0..<actuators.count {
            c.highPasses[k].copyState(from: highPasses[k])
            c.hapticLimiters[k].copyState(from: hapticLimiters[k])
        }
        c.audioLimiter.copyState(from: audioLimiter)
        return c
    }

    @_noLocks
    func process(_ bus: MixBus, into output: UnsafeMutablePointer<Float>) {
        let frames = bus.frames
        if frames <= 0 { return }
        for k in 0..<actuatorCount {
            let h = bus.haptic + k * bus.hapticStride
            highPasses[k].process(h, frames)  // includes the output gain
            hapticLimiters[k].process(h, h, frames)
        }
        if usesAudio { audioLimiter.process(bus.audioLeft, bus.audioRight, frames) }
        let ch = channels
        for c in 0..<ch {
            let route = routes[c]
            let source: UnsafeMutablePointer<Float>
            switch route.source {
            case 0: source = bus.haptic + route.actuator * bus.hapticStride
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
