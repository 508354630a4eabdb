import CAllocationCounter
import Foundation
import HapticEngine
import HapticPattern
import HapticRender
import Testing

@testable import HapticFollow

/// The follower's runtime controls on an engine in pull drive: gain, mute and mode take effect
/// at the next render call; the drive is ducked while an authored pattern sounds; hostile
/// values are refused where they are set.
@Suite("Follower controls")
struct FollowControlsTests {
    typealias F = FollowerTests
    static let rate = F.rate, period = F.period

    /// A follower of a 40 Hz tone at `amplitude` on its own pulled engine, already following
    /// (0.5 s pulled). `sample` replaces the tone.
    static func following(amplitude: Float = 0.1, settings: FollowSettings = FollowSettings(),
                          sample: (@Sendable (Int, Int) -> Float)? = nil) throws -> (ScriptedInput, CaptureFollower, HapticEngine) {
        let input = ScriptedInput(channels: 1, sample: sample ?? F.sine(40, amplitude))
        let follower = CaptureFollower(input: input, settings: settings, sampleRate: rate, periodFrames: period)
        try follower.open()
        let engine = try F.engine(follower)
        _ = F.follow(input, engine, seconds: 0.5, fragment: 256)
        return (input, follower, engine)
    }

    @Test("on the engine: a gain change is heard from the next periods on and settles at the new gain")
    func gain() throws {
        let plain = try Self.following(), changed = try Self.following()
        defer { plain.2.stop(); changed.2.stop() }
        try changed.1.controls.setGain(decibels: -6.0206)  // 0.5
        let (a, b) = (F.follow(plain.0, plain.2, seconds: 0.2, fragment: 256), F.follow(changed.0, changed.2, seconds: 0.2, fragment: 256))
        let early = F.rms(b[1200..<2400]) / F.rms(a[1200..<2400]), settled = F.rms(b[4800...]) / F.rms(a[4800...])
        print("follow gain on the engine: 25-50 ms after the change \(early), from 100 ms \(settled)")
        #expect(abs(early - 0.5) < 0.03, "heard within 25 ms: \(early)")
        #expect(abs(settled - 0.5) < 0.01, "settled at half: \(settled)")
        #expect(abs(changed.1.controls.gain - 0.5) < 1e-4)
    }

    @Test("mute silences the drive within a few ms (the capture is still read); unmute brings it back")
    func mute() throws {
        let plain = try Self.following(), muted = try Self.following()
        defer { plain.2.stop(); muted.2.stop() }
        muted.1.controls.muted = true
        let before = muted.1.statistics.framesFollowed
        let (a, b) = (F.follow(plain.0, plain.2, seconds: 0.2, fragment: 256), F.follow(muted.0, muted.2, seconds: 0.2, fragment: 256))
        #expect(F.rms(b[0..<32]) / F.rms(a[0..<32]) > 0.5, "ramped down, not cut")
        print("follow mute: left after 50 ms \(F.rms(b[2400..<4800]) / F.rms(a[2400..<4800])), after 100 ms \(F.rms(b[4800...]) / F.rms(a[4800...]))")
        // What is left is the protection chain's 16 Hz high-pass ringing out (the follower's own
        // drive is exactly 0 by then: the next test).
        #expect(F.rms(b[4800...]) < 1e-3 * F.rms(a[4800...]), "-60 dB after 100 ms: \(F.rms(b[4800...]))")
        #expect(muted.1.statistics.framesFollowed > before + 4000, "still following while muted")
        muted.1.controls.muted = false
        let (c, d) = (F.follow(plain.0, plain.2, seconds: 0.1, fragment: 256), F.follow(muted.0, muted.2, seconds: 0.1, fragment: 256))
        #expect(abs(F.rms(d[2400...]) / F.rms(c[2400...]) - 1) < 0.02, "back at the level it had")
    }

    @Test("every mode can be switched to while running and makes drive from the sound")
    func modes() throws {
        let (input, follower, engine) = try Self.following()
        defer { engine.stop() }
        for mode in FollowMode.allCases + FollowMode.allCases.reversed() {
            follower.controls.mode = mode
            #expect(follower.controls.mode == mode)
            let out = F.follow(input, engine, seconds: 0.5, fragment: 256)
            #expect(F.rms(out[12_000...]) > 0.02, "\(mode) makes drive from a 40 Hz tone: \(F.rms(out[12_000...]))")
            #expect(out.allSatisfy { $0.isFinite })
        }
    }

    @Test("while an authored pattern sounds, the follower is ducked by the ducking set (attack in ms, release after), and only then")
    func ducking() throws {
        // The same engine and pattern twice: following a tone, and following silence. Their
        // difference is the follower's drive (the chain is linear at these levels).
        func run(_ amplitude: Float) throws -> [Float] {
            let (input, follower, engine) = try Self.following(sample: { frame, _ in amplitude * Float(sin(2 * Double.pi * 40 * Double(frame) / 48_000)) })
            defer { engine.stop() }
            try follower.controls.setDucking(decibels: -12)
            var out = F.follow(input, engine, seconds: 0.5, fragment: 256)
            let pattern = try engine.prepare(AHAPPattern(elements: [.event(.continuous(at: 0, duration: 1, intensity: 0.3, sharpness: 0.5))]))
            try engine.makePlayer(with: pattern).start(atTime: 0)
            out += F.follow(input, engine, seconds: 2, fragment: 256)
            return out
        }
        let withTone = try run(0.1), patternAlone = try run(0)
        let drive = zip(withTone, patternAlone).map { $0 - $1 }
        let onset = try #require(patternAlone.firstIndex { abs($0) > 1e-4 }, "the pattern sounds")
        let end = try #require(patternAlone.lastIndex { abs($0) > 1e-4 })
        let free = F.rms(drive[(onset - 12_000)..<onset])
        let ducked = F.rms(drive[(onset + 4800)..<(end - 4800)])
        let early = F.rms(drive[(onset + 1440)..<(onset + 2880)])
        let after = F.rms(drive[(end + 24_000)...])
        print("follow ducking: free \(free), ducked \(ducked / free) (30-60 ms in: \(early / free)), 0.5 s after the pattern \(after / free); pattern \(onset)..<\(end)")
        #expect(abs(ducked / free - 0.251) < 0.025, "-12 dB while the pattern sounds: \(ducked / free)")
        #expect(early / free < 0.3, "down within 30 ms: \(early / free)")
        #expect(abs(after / free - 1) < 0.05, "back after the pattern: \(after / free)")
    }

    /// `render` calls of the follower alone into a bus holding `voices` (an authored voice's
    /// drive, from sample `voicesFrom` of the whole run on), the follower's part returned.
    static func renderAlone(_ follower: CaptureFollower, _ input: ScriptedInput, calls: Int, voicesFrom: Int = .max,
                            voiceLevel: Float = 0.01, before: (Int) -> Void = { _ in }) -> [Float] {
        let frames = period
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: frames * 3)
        defer { storage.deallocate() }
        let bus = MixBus(haptic: storage, audioLeft: storage + frames, audioRight: storage + 2 * frames, frames: frames)
        var out: [Float] = []
        for c in 0..<calls {
            before(c)
            input.arrive(frames)
            storage.initialize(repeating: 0, count: frames * 3)
            for i in 0..<frames where c * frames + i >= voicesFrom { storage[i] = voiceLevel }
            follower.render(into: bus)
            for i in 0..<frames { out.append(storage[i] - (c * frames + i >= voicesFrom ? voiceLevel : 0)) }
        }
        return out
    }

    @Test("the follower alone: a gain set between two render calls acts from the next call's first samples, ramped")
    func gainAtNextCall() throws {
        let input = ScriptedInput(channels: 1, sample: { _, _ in 0.5 })  // DC: once through the crossover (lowpass), the drive is the level
        let follower = CaptureFollower(input: input, settings: FollowSettings(mode: .lowpass), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        follower.prepare(sampleRate: Self.rate, periodFrames: Self.period, actuators: [.bassShaker])
        let out = Self.renderAlone(follower, input, calls: 70) { call in
            if call == 50 { try? follower.controls.setGain(0.5) }
            if call == 60 { follower.controls.muted = true }
        }
        let before = out[50 * Self.period - 1], first = out[50 * Self.period + 8], last = out[51 * Self.period - 1]
        print("follow gain at the next call: before \(before), 8 samples in \(first), end of the call \(last)")
        #expect(abs(before - 0.5) < 0.01, "DC through the crossover: \(before)")
        #expect(first < before && first > 0.45, "already moving, not stepped: \(first)")
        #expect(abs(last - 0.5 * (0.5 + 0.5 * Float(exp(-256.0 / 96)))) < 0.005, "a 2 ms time constant: \(last)")
        #expect(abs(out[60 * Self.period - 1] - 0.25) < 0.002, "settled at half: \(out[60 * Self.period - 1])")
        #expect(out[(68 * Self.period)...].allSatisfy { $0 == 0 }, "muted: exactly silent within 40 ms")
    }

    @Test("the follower alone: the ducking comes down and goes back up without a step (attack, hold, release)")
    func duckingShape() throws {
        let input = ScriptedInput(channels: 1, sample: { _, _ in 0.5 })
        let follower = CaptureFollower(input: input, settings: FollowSettings(mode: .lowpass), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        follower.prepare(sampleRate: Self.rate, periodFrames: Self.period, actuators: [.bassShaker])
        try follower.controls.setDucking(decibels: -12)
        let start = 40 * Self.period + 100
        // The voice sounds from `start` for 0.3 s, then stops.
        var out = Self.renderAlone(follower, input, calls: 40)
        out += Self.renderAlone(follower, input, calls: 57, voicesFrom: 100)
        out += Self.renderAlone(follower, input, calls: 100)
        let level = out.map { $0 / 0.5 }
        let steps = zip(level[(start - 2000)...].dropFirst(), level[(start - 2000)...]).map { abs($0 - $1) }
        print("follow ducking shape: largest step per sample \(steps.max()!); ducked \(level[start + 4800]); back \(level.last!)")
        #expect(steps.max()! < 0.75 / 200, "no step: at most 1/240 of the range per sample: \(steps.max()!)")
        #expect(abs(level[start + 2400] - 0.251) < 0.01, "down to -12 dB within 50 ms: \(level[start + 2400])")
        #expect(level[start + 57 * Self.period + 2400] < 0.26, "held 100 ms after the voice stops")
        #expect(abs(level.last! - 1) < 0.01, "back up after the release: \(level.last!)")
    }

    @Test("hostile values are refused where they are set and leave the control as it was")
    func hostile() throws {
        let controls = try FollowControls(gain: 0.5)
        for bad: Float in [.nan, .infinity, -.infinity, -1, -.leastNonzeroMagnitude, 100.5, .greatestFiniteMagnitude] {
            #expect(throws: FollowControlError.self) { try controls.setGain(bad) }
        }
        for bad: Float in [.nan, .infinity, 40.01] {
            #expect(throws: FollowControlError.self) { try controls.setGain(decibels: bad) }
        }
        for bad: Float in [.nan, .infinity, -.infinity, 0.5, -60.5] {
            #expect(throws: FollowControlError.self) { try controls.setDucking(decibels: bad) }
        }
        #expect(controls.gain == 0.5)
        #expect(abs(controls.duckingDecibels - -12) < 1e-3)
        #expect(throws: FollowControlError.self) { _ = try FollowControls(gain: .nan) }
        #expect(throws: FollowControlError.self) { _ = try FollowControls(duckingDecibels: 3) }
        try controls.setGain(-0.0)
        #expect(controls.gain.bitPattern == 0, "-0 is stored as 0")
        try controls.setGain(decibels: -.infinity)
        #expect(controls.gain == 0)
        do {
            _ = try FollowMode.named("loud\u{1}")
            Issue.record("an unknown mode is refused")
        } catch {
            #expect(error.description.contains("lowpass"), "the error names the modes: \(error)")
        }
        // Settings never checked (a NaN gain) reach the follower as silence, never as NaN.
        let (input, _, engine) = try Self.following(settings: FollowSettings(gain: .nan))
        defer { engine.stop() }
        let out = F.follow(input, engine, seconds: 0.2, fragment: 256)
        #expect(out.allSatisfy { $0 == 0 }, "silence, no NaN")
    }

    @Test("changing every control while following allocates nothing on the render side")
    func allocationFree() throws {
        let input = ScriptedInput(channels: 1, sample: F.sine(40, 0.3))
        let follower = CaptureFollower(input: input, settings: FollowSettings(), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        follower.prepare(sampleRate: Self.rate, periodFrames: Self.period, actuators: [.bassShaker, .voiceCoil])
        let frames = Self.period
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: frames * 4)
        defer { storage.deallocate() }
        var bus = MixBus(haptic: storage, audioLeft: storage + 2 * frames, audioRight: storage + 3 * frames, frames: frames)
        bus.hapticBusCount = 2
        bus.hapticStride = frames
        storage.initialize(repeating: 0, count: frames * 4)
        follower.render(into: bus)
        let tally = allocation_tally_open()
        allocation_tally_track_current_thread(tally)
        for i in 0..<800 {
            input.arrive(256)
            // The control side (not counted: it may allocate, the render side may not).
            allocation_tally_track_current_thread(0)
            if i % 7 == 0 { follower.controls.muted.toggle() }
            if i % 11 == 0 { follower.controls.mode = FollowMode.allCases[i % FollowMode.allCases.count] }
            if i % 13 == 0 { try follower.controls.setGain(Float(i % 5) / 4) }
            allocation_tally_track_current_thread(tally)
            // An authored voice in the buses every other stretch: the ducking engages and releases.
            storage.update(repeating: (i / 50) % 2 == 0 ? 0 : 0.01, count: frames * 2)
            follower.render(into: bus)
        }
        allocation_tally_track_current_thread(0)
        #expect(allocation_tally_count(tally) == 0, "allocations: \(allocation_tally_count(tally))")
    }
}
