import CAllocationCounter
import Foundation
import HapticDSP
import HapticPattern
import HapticTestSupport
import Testing
@testable import HapticRender

/// Issue 25: the limiter leaves no energy below 5 Hz and no DC, however hard it works, on every
/// built-in profile, and the ceiling still holds. Dense overlapping patterns of several kinds
/// (HapticTestSupport's DensePattern, fixed seeds; bench/limiter-bench renders the same kinds at
/// full length), and the servo that does it (`SubBandServo`) on its own.
@Suite("Limiter: no energy below 5 Hz and no DC on dense overlapping patterns")
struct LimiterSubbandTests {
    /// Long enough for the shares to mean something (with the 1.5 s ring-out, 0.13 Hz bins),
    /// short enough for a debug build.
    static let seconds = 6.0
    /// The share of the kinds' events rendered here (`DensePattern.pattern(density:)`): a debug
    /// build renders every event's oscillator sample by sample, so the full patterns
    /// (bench/limiter-bench, release) take minutes each. A few percent of the continuous events
    /// (a larger share of the short transients) still sum to several times the ceiling and keep
    /// the limiter working throughout, which the test checks.
    static let stackedDensity = 0.03

    /// A pattern's haptic output through the stage as its profile has it (`limited`) and with the
    /// ceiling out of reach (`input`: the limiter's input, the chain otherwise the same), both
    /// with the look-ahead removed and 1.5 s past the pattern's end (the servo's and the
    /// high-pass's ring-out).
    struct Renders {
        var limited: [Float]
        var input: [Float]
        var ceiling: Float
        /// The pattern's own length in frames (before the ring-out).
        var patternFrames: Int
    }

    static func render(_ pattern: AHAPPattern, profile: ActuatorProfile) throws -> Renders {
        let p = try PreparedPattern(pattern, profile: profile, sampleRate: fs)
        let frames = p.frameCount + Int(1.5 * fs)
        let voice = renderVoice(p, frames: frames).haptic
        var open = profile
        open.ceilingDBFS = 300
        func stage(_ profile: ActuatorProfile) -> [Float] {
            var stage = OutputStage(profile: profile, sampleRate: fs, layout: .hapticMono)
            let skip = stage.latencyFrames
            var bus = voice + [Float](repeating: 0, count: skip)
            var out = [Float](repeating: 0, count: bus.count)
            var scratch = [Float](repeating: 0, count: 2 * 512)
            bus.withUnsafeMutableBufferPointer { b in
                out.withUnsafeMutableBufferPointer { o in
                    scratch.withUnsafeMutableBufferPointer { s in
                        var done = 0
                        while done < b.count {
                            let n = min(512, b.count - done)
                            stage.process(
                                MixBus(haptic: b.baseAddress! + done, audioLeft: s.baseAddress!, audioRight: s.baseAddress! + 512, frames: n),
                                into: o.baseAddress! + done)
                            done += n
                        }
                    }
                }
            }
            return Array(out[skip...])
        }
        return Renders(
            limited: stage(profile), input: stage(open), ceiling: Float(pow(10, profile.ceilingDBFS / 20)), patternFrames: p.frameCount)
    }

    /// The share of the pattern's 10 ms stretches (the ring-out after its end left out) in which
    /// the limiter changed a sample.
    static func busy(_ r: Renders) -> Double {
        var changed = 0, stretches = 0
        let end = min(r.patternFrames, r.limited.count)
        for start in stride(from: 0, to: end, by: 480) {
            stretches += 1
            if (start..<min(end, start + 480)).contains(where: { r.limited[$0] != r.input[$0] }) { changed += 1 }
        }
        return Double(changed) / Double(stretches)
    }

    /// Runs `x` through a mono limiter as the stage builds its haptic one, with or without the
    /// servo; the look-ahead removed.
    static func limit(_ x: [Float], profile: ActuatorProfile, servo: Bool, blocks: [Int] = [512]) -> [Float] {
        var limiter = LookAheadLimiter.protection(profile: profile, sampleRate: fs, channels: 1, subBandServo: servo)
        let lookahead = limiter.lookahead
        defer { limiter.deallocate() }
        var y = x + [Float](repeating: 0, count: lookahead)
        y.withUnsafeMutableBufferPointer { b in
            var done = 0, k = 0
            while done < b.count {
                let n = min(blocks[k % blocks.count], b.count - done)
                limiter.process(b.baseAddress! + done, b.baseAddress! + done, n)
                done += n
                k += 1
            }
        }
        return Array(y[lookahead...])
    }

    /// Four kinds, every profile at least once, each at its density (bench/limiter-bench renders
    /// every kind on every profile at full density; `theServoDoesIt` renders `stacked`).
    static let cases: [(DensePattern, ActuatorProfile, Double)] = [
        (.continuous, .bassShaker, 0.06), (.mixed, .voiceCoil, 0.2), (.transients, .lra, 0.5), (.low, .bassShaker, 0.03),
    ]

    @Test("dense overlapping patterns: under 0.1 % of the energy below 5 Hz and |DC| under 1e-5, ceiling kept, limiter busy throughout",
          arguments: cases)
    func nothingBelowTheBand(_ kind: DensePattern, _ profile: ActuatorProfile, _ density: Double) throws {
        let pattern = kind.pattern(seed: 25, length: Self.seconds, density: density)
        let r = try Self.render(pattern, profile: profile)
        let place = "\(kind.rawValue) (density \(density)) on \(profile.name)"
        // Working all the time, and hard.
        let drive = r.input.map(abs).max()! / r.ceiling
        #expect(drive > 1.8, "\(place): the limiter is not working hard (drive \(drive)× the ceiling)")
        let busy = Self.busy(r)
        #expect(busy > 0.9, "\(place): the limiter works in only \(busy * 100) % of the 10 ms stretches")
        // The ceiling.
        #expect(r.limited.allSatisfy { abs($0) <= r.ceiling }, "\(place): over the ceiling")
        // Below the band.
        let shares = energyShares(r.limited, sampleRate: fs, below: [1, 5])
        let dc = meanValue(r.limited)
        print(String(format: "limiter sub-band: %@ (%.2f of the events) on %@: %.4f %% below 1 Hz, %.4f %% below 5 Hz, DC %+.2e (drive %.1f×, busy %.0f %%)",
                     kind.rawValue, density, profile.name, shares[0] * 100, shares[1] * 100, dc, drive, busy * 100))
        #expect(shares[1] < 0.001, "\(place): \(shares[1] * 100) % of the energy below 5 Hz")
        #expect(abs(dc) < 1e-5, "\(place): DC \(dc)")
    }

    /// What the servo changes: the same limiter input limited without it carries the DC and the
    /// sub-band energy of the issue; with it, neither. (The render through the stage is the
    /// servo's limiter: the stage builds the same one.)
    @Test("the servo is what clears the band: the same limiter without it leaves DC and energy below 5 Hz")
    func theServoDoesIt() throws {
        let pattern = DensePattern.stacked.pattern(seed: 25, length: Self.seconds, density: Self.stackedDensity)
        let profile = ActuatorProfile.bassShaker
        let r = try Self.render(pattern, profile: profile)
        let with = Self.limit(r.input, profile: profile, servo: true)
        #expect(with == Array(r.limited.prefix(with.count)), "the stage's haptic limiter is not the one measured here")
        let without = Self.limit(r.input, profile: profile, servo: false)
        let sharesWith = energyShares(with, sampleRate: fs, below: [1, 5])
        let sharesWithout = energyShares(without, sampleRate: fs, below: [1, 5])
        let dcWith = meanValue(with), dcWithout = meanValue(without)
        print(String(format: "limiter sub-band, stacked on bass-shaker: without the servo %.4f %% below 1 Hz, %.4f %% below 5 Hz, DC %+.2e; with it %.4f %%, %.4f %%, %+.2e",
                     sharesWithout[0] * 100, sharesWithout[1] * 100, dcWithout, sharesWith[0] * 100, sharesWith[1] * 100, dcWith))
        #expect(abs(dcWithout) > 1e-4 && abs(dcWith) < 1e-5)
        #expect(sharesWith[1] * 4 < sharesWithout[1] && sharesWith[0] * 100 < sharesWithout[0])
        // It costs a little level, and only where the limiter works (at most 1 dB here).
        let level = rms(with[...]) / rms(without[...])
        #expect(level > 0.89 && level <= 1.0001, "level with the servo: \(level)")
    }

    /// Loud bursts over the ceiling (two tones whose level steps every 10 ms, so the gain keeps
    /// moving), each followed by 4 s of a quiet tone: the servo wakes with the limiter and comes
    /// back to rest once the gain is back at 1, and then the output is the input again, delayed.
    static let burstLength = 12_000, quietLength = 192_000

    static func burstsThenQuiet(seed: UInt64) -> [Float] {
        var g = SeededRandom(seed: seed)
        var x: [Float] = []
        for _ in 0..<3 {
            let f1 = Double.random(in: 25...45, using: &g), f2 = Double.random(in: 50...90, using: &g)
            var level: Float = 1
            for i in 0..<burstLength {
                if i % 480 == 0 { level = Float.random(in: 2...20, using: &g) }
                let t = Double(i) / fs
                x.append(level * Float(0.6 * sin(2 * Double.pi * f1 * t) + 0.4 * sin(2 * Double.pi * f2 * t)))
            }
            for i in 0..<quietLength { x.append(0.3 * Float(sin(2 * Double.pi * 40 * Double(i) / fs))) }
        }
        return x
    }

    @Test("the servo keeps the ceiling, gives the same samples for any split, and rests: then the output is the input again")
    func servoKernel() {
        let x = Self.burstsThenQuiet(seed: 5)
        let profile = ActuatorProfile.bassShaker
        let ceiling = Float(pow(10, profile.ceilingDBFS / 20))
        let whole = Self.limit(x, profile: profile, servo: true)
        #expect(whole.allSatisfy { abs($0) <= ceiling })
        for blocks in [[1], [7], [3, 64, 5], [4_097]] {
            #expect(Self.limit(x, profile: profile, servo: true, blocks: blocks) == whole, "blocks \(blocks)")
        }
        // Each burst is limited (and corrected); by the end of each quiet stretch, before the next
        // burst enters the look-ahead, the servo rests, the limiter is back on its idle path (gain
        // 1, nothing in its window) and the tone passes untouched.
        let period = Self.burstLength + Self.quietLength
        var limiter = LookAheadLimiter.protection(profile: profile, sampleRate: fs, channels: 1)
        defer { limiter.deallocate() }
        let lookahead = limiter.lookahead
        var y = x
        y.withUnsafeMutableBufferPointer { b in
            for burst in 0..<3 {
                let start = burst * period
                limiter.process(b.baseAddress! + start, b.baseAddress! + start, period)
                let idle = limiter.depth == 0 && limiter.sum == 0 && limiter.olderMax == 0
                #expect(limiter.servo.resting && idle,
                        "burst \(burst): servo resting \(limiter.servo.resting), limiter idle \(idle), correction \(limiter.servo.correction)")
            }
        }
        for burst in 0..<3 {
            let start = burst * period
            #expect(whole[start + 6_000] != x[start + 6_000])
            // The outputs of inputs up to `end - lookahead` leave before the next burst enters.
            let end = start + period - lookahead
            #expect(Array(whole[(end - 12_000)..<end]) == Array(x[(end - 12_000)..<end]), "burst \(burst): not back to the input")
        }
        // What the gain's steps left below the band is paid back: the output's area is the input's
        // (the gain is 1 again at the end), which without the servo it is not.
        let without = Self.limit(x, profile: profile, servo: false)
        let areaWith = meanValue(whole) - meanValue(x), areaWithout = meanValue(without) - meanValue(x)
        #expect(abs(areaWith) < 1e-8 && abs(areaWithout) > 1e-6, "mean minus the input's: \(areaWith) with the servo, \(areaWithout) without")
    }

    /// A layout with several actuators has one haptic limiter per actuator: each carries its own
    /// servo (at its profile's cutoff) and pays back its own debt; the audio limiter has none.
    @Test("every actuator's haptic limiter carries the servo and comes back to rest")
    func everyActuatorIsCorrected() throws {
        let layout = try ChannelLayout.parse("H:bass-shaker,H:voice-coil,H:lra")
        var stage = OutputStage(profile: .bassShaker, sampleRate: fs, layout: layout)
        let actuators = stage.actuators
        #expect(actuators.count == 3)
        let x = Self.burstsThenQuiet(seed: 7)
        let frames = Self.burstLength + Self.quietLength
        let stride = frames
        var buses = [Float](repeating: 0, count: actuators.count * stride)
        for k in actuators.indices { for i in 0..<frames { buses[k * stride + i] = x[i] } }
        var audio = [Float](repeating: 0, count: 2 * frames)
        var out = [Float](repeating: 0, count: frames * layout.channels)
        var awake = [Bool](repeating: false, count: actuators.count)
        buses.withUnsafeMutableBufferPointer { h in
            audio.withUnsafeMutableBufferPointer { a in
                out.withUnsafeMutableBufferPointer { o in
                    var done = 0
                    while done < frames {
                        let n = min(512, frames - done)
                        var bus = MixBus(haptic: h.baseAddress! + done, audioLeft: a.baseAddress! + done, audioRight: a.baseAddress! + frames + done, frames: n)
                        bus.hapticBusCount = actuators.count
                        bus.hapticStride = stride
                        stage.process(bus, into: o.baseAddress! + done * layout.channels)
                        done += n
                        for k in actuators.indices where !stage.state.hapticLimiters[k].servo.resting { awake[k] = true }
                    }
                }
            }
        }
        for (k, profile) in actuators.enumerated() {
            let limiter = stage.state.hapticLimiters[k]
            let cutoff = LookAheadLimiter.subBandCutoff(highPassHz: profile.protection.highPassHz)
            #expect(limiter.correcting && abs(limiter.servo.proportional - 2 * 1.3 * 2 * Double.pi * cutoff / fs) < 1e-12,
                    "\(profile.name): no servo at \(cutoff) Hz")
            #expect(awake[k], "\(profile.name): the servo never worked")
            #expect(limiter.servo.resting, "\(profile.name): the servo did not come back to rest")
        }
        #expect(!stage.state.audioLimiter.correcting)
    }

    @Test("the servo allocates nothing on the render thread")
    func servoAllocatesNothing() {
        #expect(allocation_counter_is_active() == 1)
        let x = Self.burstsThenQuiet(seed: 6)
        let result = AllocationProbe()
        let tally = allocation_tally_open()
        let thread = Thread {
            var limiter = LookAheadLimiter(lookahead: 24, ceiling: 0.9, releaseSamples: 5_760, holdSamples: 3_000, channels: 1, subBandCutoff: 6, sampleRate: fs)
            let buffer = UnsafeMutablePointer<Float>.allocate(capacity: x.count)
            buffer.initialize(from: x, count: x.count)
            allocation_tally_track_current_thread(tally)
            var done = 0
            while done < x.count {
                let n = min(300, x.count - done)
                limiter.process(buffer + done, buffer + done, n)
                done += n
            }
            allocation_tally_track_current_thread(0)
            result.count = allocation_tally_count(tally)
            result.events = buffer[6_000] != x[6_000] ? 1 : 0
            limiter.deallocate()
            buffer.deallocate()
            result.done.signal()
        }
        thread.start()
        result.done.wait()
        #expect(result.events == 1, "the limiter did not act")
        #expect(result.count == 0, "allocations on the render thread: \(result.count)")
    }
}
