import CAllocationCounter
import Foundation
import HapticEngine
import HapticRender
import Testing

@testable import HapticFollow

/// The follower on an engine in pull drive: captured sound in (a scripted input, arriving in
/// fragments that do not match the engine's periods), the engine's output out, through the
/// profile's protection chain.
@Suite("Follower on the engine")
struct FollowerTests {
    static let rate = 48_000
    static let period = 256

    /// An engine pulling `follower`, hapticMono, bass shaker.
    static func engine(_ follower: CaptureFollower, layout: ChannelLayout = .hapticMono) throws -> HapticEngine {
        var base = HapticEngine.Configuration(
            layout: layout, profile: .bassShaker, sampleRate: rate, periodFrames: period, bufferPeriods: 3)
        base.liveInput = follower
        let engine = HapticEngine(pulling: .pulled(base))
        try engine.start()
        return engine
    }

    /// Pulls `seconds` of output (one channel of `channels`), letting captured frames arrive in
    /// fragments of `fragment` frames as the output's time passes.
    static func follow(_ input: ScriptedInput, _ engine: HapticEngine, seconds: Double, fragment: Int, channels: Int = 1) -> [Float] {
        let total = Int(seconds * Double(rate))
        var out = [Float](repeating: 0, count: total)
        var block = [Float](repeating: 0, count: period * channels)
        var arrived = 0
        var done = 0
        while done < total {
            // The capture runs on the same clock: what has arrived by the end of this period.
            let due = ((done + period) / fragment) * fragment
            if due > arrived {
                input.arrive(due - arrived)
                arrived = due
            }
            _ = block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: period) }
            for i in 0..<min(period, total - done) { out[done + i] = block[i * channels] }
            done += period
        }
        return out
    }

    static func rms(_ x: ArraySlice<Float>) -> Float {
        (x.reduce(0) { $0 + $1 * $1 } / Float(max(1, x.count))).squareRoot()
    }

    static func sine(_ hz: Double, _ amplitude: Float) -> @Sendable (Int, Int) -> Float {
        { frame, _ in amplitude * Float(sin(2 * Double.pi * hz * Double(frame) / Double(rate))) }
    }

    @Test("lowpass: a 40 Hz tone in the band comes out at the profile's level; 1 kHz is filtered away")
    func band() throws {
        var levels: [Float] = []
        for hz in [40.0, 1000.0] {
            let input = ScriptedInput(channels: 2, sample: Self.sine(hz, 0.3))
            let follower = CaptureFollower(
                input: input, settings: FollowSettings(mode: .lowpass), sampleRate: Self.rate, periodFrames: Self.period)
            try follower.open()
            let engine = try Self.engine(follower)
            let out = Self.follow(input, engine, seconds: 2, fragment: 480)
            engine.stop()
            levels.append(Self.rms(out[48_000...]))
            let stats = follower.statistics
            #expect(stats.framesFollowed > 90_000, "\(stats)")
            #expect(stats.underruns == 0, "fragments of 480 against periods of 256: \(stats)")
        }
        // 0.3 peak → 0.212 RMS, bass shaker output gain -3 dB → 0.150.
        print("follower band: 40 Hz → RMS \(levels[0]), 1 kHz → RMS \(levels[1])")
        #expect(abs(levels[0] - 0.150) < 0.02, "40 Hz: \(levels[0])")
        #expect(levels[1] < 0.0015, "1 kHz is out of the bass shaker's band: \(levels[1])")
    }

    @Test("--input-channels: only the channels named are followed")
    func channels() throws {
        // Tone on the second channel only.
        let tone: @Sendable (Int, Int) -> Float = { frame, channel in
            channel == 1 ? 0.3 * Float(sin(2 * Double.pi * 40 * Double(frame) / 48_000)) : 0
        }
        var levels: [Float] = []
        for chosen in [[0], [1]] {
            let input = ScriptedInput(channels: 2, sample: tone)
            let follower = CaptureFollower(
                input: input, settings: FollowSettings(inputChannels: chosen), sampleRate: Self.rate, periodFrames: Self.period)
            try follower.open()
            let engine = try Self.engine(follower)
            levels.append(Self.rms(Self.follow(input, engine, seconds: 1, fragment: 256)[24_000...]))
            engine.stop()
        }
        #expect(levels[0] == 0, "channel 1 is silent: \(levels[0])")
        #expect(levels[1] > 0.1, "channel 2 carries the tone: \(levels[1])")
    }

    @Test("a channel the capture does not have is refused at open, naming it 1-based")
    func missingChannel() {
        let input = ScriptedInput(channels: 2) { _, _ in 0 }
        let follower = CaptureFollower(
            input: input, settings: FollowSettings(inputChannels: [3]), sampleRate: Self.rate, periodFrames: Self.period)
        #expect(throws: DeviceOpenError.self) { try follower.open() }
        do { try follower.open() } catch {
            #expect(error.message.contains("channel 4 cannot be followed"), "\(error)")
        }
    }

    @Test("an overrun is counted and recovered in place; a lost capture leaves silence and is reopened")
    func faults() throws {
        let input = ScriptedInput(channels: 1, sample: Self.sine(40, 0.3))
        let follower = CaptureFollower(input: input, settings: FollowSettings(), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        let engine = try Self.engine(follower)
        _ = Self.follow(input, engine, seconds: 0.5, fragment: 256)
        input.faults = [.xrun]
        _ = Self.follow(input, engine, seconds: 0.5, fragment: 256)
        #expect(follower.statistics.overruns == 1)
        #expect(!follower.isLost)
        input.faults = [.gone("server gone")]
        _ = Self.follow(input, engine, seconds: 0.2, fragment: 256)
        #expect(follower.isLost)
        #expect(follower.statistics.captureLosses == 1)
        let servedWhileLost = input.framesServed
        _ = Self.follow(input, engine, seconds: 0.2, fragment: 256)
        #expect(input.framesServed == servedWhileLost, "a lost capture is left alone")
        input.refuseOpen = true
        #expect(!follower.reopenIfLost())
        input.refuseOpen = false
        #expect(follower.reopenIfLost())
        let out = Self.follow(input, engine, seconds: 1, fragment: 256)
        #expect(Self.rms(out[24_000...]) > 0.1, "following again after the reopen")
        #expect(follower.statistics.captureReopens == 1)
        engine.stop()
    }

    @Test("a capture that gives nothing for longer than the stall bound counts as lost (a dead server's plugin may not say)")
    func stall() throws {
        let input = ScriptedInput(channels: 1, sample: Self.sine(40, 0.3))
        let follower = CaptureFollower(
            input: input, settings: FollowSettings(), sampleRate: Self.rate, periodFrames: Self.period, stallSeconds: 0.5)
        try follower.open()
        let engine = try Self.engine(follower)
        defer { engine.stop() }
        _ = Self.follow(input, engine, seconds: 0.5, fragment: 256)
        var block = [Float](repeating: 0, count: Self.period)
        // 0.4 s without a frame: a gap, not yet a loss.
        for _ in 0..<75 { _ = block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: Self.period) } }
        #expect(!follower.isLost)
        for _ in 0..<25 { _ = block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: Self.period) } }
        #expect(follower.isLost, "0.53 s without a captured frame")
        #expect(follower.statistics.captureLosses == 1)
        #expect(follower.reopenIfLost())
        let out = Self.follow(input, engine, seconds: 1, fragment: 256)
        #expect(Self.rms(out[24_000...]) > 0.1, "following again after the reopen")
    }

    /// Kicks every 0.3 s (55 Hz decaying, a 2 kHz click) over a steady 800 Hz tone at 0.15.
    static let clicks: @Sendable (Int, Int) -> Float = { frame, _ in
        let hit = frame % 14_400
        let t = Double(hit) / Double(rate)
        var v = 0.15 * sin(2 * Double.pi * 800 * Double(frame) / Double(rate))
        if hit < 9600 { v += 0.6 * exp(-t / 0.04) * sin(2 * Double.pi * 55 * t) }
        if hit < 144 { v += 0.3 * sin(2 * Double.pi * 2000 * t) }
        return Float(v)
    }

    @Test("analysis: clicks over a steady tone through the engine, fragments not matching the periods: one transient per click")
    func analysisClicks() throws {
        let input = ScriptedInput(channels: 2, sample: Self.clicks)
        let follower = CaptureFollower(input: input, settings: FollowSettings(), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        let engine = try Self.engine(follower)
        defer { engine.stop() }
        // The tone starts with the stream, with the first kick (at frame 0): a hit.
        let out = Self.follow(input, engine, seconds: 6.1, fragment: 480)
        let stats = follower.statistics
        // The frames taken from the stream (followed, or dropped by the queue: a few at its
        // start); the clicks that start at least 20 ms before their end were decided.
        let analysed = stats.framesFollowed + stats.trimmedFrames
        let clicks = (0..<100).filter { $0 * 14_400 + 960 <= analysed }.count
        print("follower (analysis) on the engine: \(stats.transients) transients for \(clicks) clicks; \(stats)")
        #expect(stats.transients == clicks, "\(stats)")
        #expect(stats.underruns == 0, "\(stats)")
        #expect(Self.rms(out[48_000...]) > 0.1, "drive made")
    }

    @Test("the follower's render allocates nothing (capture read, queue, analysis or filters, mix)", arguments: FollowMode.allCases)
    func allocationFree(mode: FollowMode) throws {
        let input = ScriptedInput(channels: 2, sample: Self.clicks)
        let follower = CaptureFollower(
            input: input, settings: FollowSettings(mode: mode, inputChannels: [0, 1]), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        follower.prepare(sampleRate: Self.rate, periodFrames: Self.period, actuators: [.bassShaker, .voiceCoil])
        let frames = Self.period
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: frames * 4)
        defer { storage.deallocate() }
        var bus = MixBus(haptic: storage, audioLeft: storage + 2 * frames, audioRight: storage + 3 * frames, frames: frames)
        bus.hapticBusCount = 2
        bus.hapticStride = frames
        storage.initialize(repeating: 0, count: frames * 4)
        follower.render(into: bus)  // first use outside the count
        let arrivals = [480, 0, 96, 256]
        let tally = allocation_tally_open()
        #expect(tally > 0)
        allocation_tally_track_current_thread(tally)
        for i in 0..<2000 {
            input.arrive(arrivals[i % 4])
            follower.render(into: bus)
        }
        allocation_tally_track_current_thread(0)
        #expect(allocation_tally_count(tally) == 0, "allocations while following: \(allocation_tally_count(tally))")
        // 416,000 frames arrived; what the queue trimmed (its start, the standing excess) is not followed.
        let stats = follower.statistics
        #expect(stats.framesFollowed + stats.trimmedFrames > 410_000 && stats.framesFollowed > 380_000, "\(stats)")
        if mode == .analysis { #expect(stats.transients >= 26, "the clicks played as transients: \(stats)") }
    }
}

/// The jitter queue alone.
@Suite("Capture queue")
struct CaptureQueueTests {
    @Test("primes, gives periods, counts an underrun and grows its reserve, trims a standing excess")
    func queue() {
        var queue = CaptureQueue(period: 256, window: 4096)
        defer { queue.deallocate() }
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 4096)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { input.deallocate(); out.deallocate() }
        for i in 0..<4096 { input[i] = Float(i + 1) }
        queue.append(input, 256)
        #expect(queue.take(into: out, 256) == 0, "not primed: a period and its reserve (64) first")
        queue.append(input + 256, 256)
        #expect(queue.take(into: out, 256) == 256)
        #expect(out[0] == 193 && out[255] == 448, "in order, the oldest 192 of 512 dropped when it primed at 320")
        #expect(queue.trimmedFrames == 192)
        #expect(queue.take(into: out, 256) == 64 && out[0] == 449 && out[63] == 512 && out[64] == 0, "the rest, then silence")
        #expect(queue.underruns == 1)
        #expect(queue.reserve == 128, "the reserve grew by a quarter period")
        // A standing excess: ten periods at once, then one per take; it is trimmed to the reserve.
        queue.append(input, 2560)
        for _ in 0..<40 {
            queue.append(input, 256)
            _ = queue.take(into: out, 256)
        }
        #expect(queue.trimmedFrames > 192 + 2560 - 128 - 256, "the standing excess beyond the reserve: \(queue.trimmedFrames)")
        #expect(queue.count <= queue.reserve + 256 + 128, "latency trimmed back: \(queue.count) queued")
    }

    @Test("a burst larger than its room pushes the oldest frames out, not the newest")
    func overflow() {
        var queue = CaptureQueue(period: 256, capacityPeriods: 4, window: 4096)
        defer { queue.deallocate() }
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 2048)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { input.deallocate(); out.deallocate() }
        for i in 0..<2048 { input[i] = Float(i + 1) }
        queue.append(input, 600)
        queue.append(input + 600, 600)  // 1200 into 1024
        #expect(queue.count == 1024 && queue.overflowFrames == 176)
        queue.append(input, 2048)  // more than the whole queue
        #expect(queue.count == 1024 && queue.overflowFrames == 176 + 1024 + 1024)
        // Primes (dropping what lies beyond a period and its reserve) and gives the newest.
        #expect(queue.take(into: out, 256) == 256)
        #expect(out[255] == 2048 - 64, "the newest frames, the reserve's 64 kept after them: \(out[255])")
    }
}
