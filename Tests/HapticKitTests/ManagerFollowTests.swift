import CAllocationCounter
import Foundation
import HapticEngine
import HapticEngineTesting
import Synchronization
import Testing

@testable import HapticKit

/// A capture for tests: a 40 Hz tone, `arrive`d by the test a period at a time; `kill` makes
/// every read fail as a sound server that went away, `revive` lets it open again.
final class ToneCapture: InputDevice, @unchecked Sendable {
    let name = "tone"
    private let waiting = Atomic<Int>(0)
    private let produced = Atomic<Int>(0)
    private let dead = Atomic<Bool>(false)
    let opens = Atomic<Int>(0)
    let closes = Atomic<Int>(0)

    func arrive(_ frames: Int) { waiting.add(frames, ordering: .relaxed) }
    func kill() { dead.store(true, ordering: .relaxed) }
    func revive() { dead.store(false, ordering: .relaxed) }

    func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        if dead.load(ordering: .relaxed) { throw DeviceOpenError(device: name, message: "the server is down") }
        opens.add(1, ordering: .relaxed)
        var granted = requested
        granted.channels = 1
        return granted
    }

    func read(into samples: UnsafeMutablePointer<Float>, frames: Int) -> CaptureRead {
        if dead.load(ordering: .relaxed) { return .fault(.gone("the server went away")) }
        let n = min(frames, waiting.load(ordering: .relaxed))
        let start = produced.load(ordering: .relaxed)
        for f in 0..<n { samples[f] = 0.1 * Float(sin(2 * Double.pi * 40 * Double(start + f) / 48_000)) }
        produced.add(n, ordering: .relaxed)
        waiting.subtract(n, ordering: .relaxed)
        return .frames(n)
    }

    func timestamp() -> CaptureTimestamp? { nil }
    func recover(from fault: DeviceFault) -> Bool { if case .gone = fault { false } else { true } }
    func close() { closes.add(1, ordering: .relaxed) }
}

@Suite("HapticManager following a capture", .serialized)
struct ManagerFollowTests {
    /// Renders `periods` periods with a period of capture arriving before each; the haptic
    /// channel of what the device recorded over them.
    static func follow(_ rig: VirtualRig, _ capture: ToneCapture, periods: Int) -> [Float] {
        let period = rig.manager.configuration.engine.periodFrames
        let before = rig.device.recordedFrames
        for _ in 0..<periods {
            capture.arrive(period)
            rig.render(1)
        }
        return Array(rig.device.recordedSamples(channel: rig.device.recordedChannels - 1)[before...])
    }

    static func rms(_ x: ArraySlice<Float>) -> Float { (x.reduce(0) { $0 + $1 * $1 } / Float(max(1, x.count))).squareRoot() }

    @Test("start following on a running manager: the tone is heard on the haptic channel; gain, mute and mode act; stop lets go")
    func startControlStop() async throws {
        let rig = VirtualRig()
        let m = rig.manager
        defer { m.shutDown() }
        #expect(!m.isFollowing && m.followControls == nil)
        #expect(!m.setFollowMuted(true), "nothing to mute before following")
        _ = Self.follow(rig, ToneCapture(), periods: 10)
        let capture = ToneCapture()
        try m.startFollowing(.device({ capture }))
        #expect(m.isFollowing)
        let heard = Self.follow(rig, capture, periods: 200)
        let level = Self.rms(heard[(heard.count / 2)...])
        #expect(level > 0.02, "the tone followed: \(level)")
        #expect(m.followStatistics!.framesFollowed > 30_000)
        #expect(throws: LivePlayerError.self) { try m.startFollowing(.device({ ToneCapture() })) }
        #expect(try m.setFollowGain(decibels: -6.0206))
        let halved = Self.follow(rig, capture, periods: 100)
        #expect(abs(Self.rms(halved[(halved.count / 2)...]) / level - 0.5) < 0.03)
        #expect(throws: FollowControlError.self) { try m.setFollowGain(decibels: .nan) }
        for mode in FollowMode.allCases { #expect(m.setFollowMode(mode) && m.followControls?.mode == mode) }
        #expect(m.setFollowMuted(true))
        let muted = Self.follow(rig, capture, periods: 100)
        #expect(Self.rms(muted[(muted.count / 2)...]) < 1e-3 * level)
        await m.stopFollowing()
        #expect(!m.isFollowing && m.followStatistics == nil)
        let after = Self.follow(rig, capture, periods: 20)
        #expect(after.allSatisfy { $0 == 0 }, "nothing followed after stop")
        #expect(m.engineAvailable, "the engine plays on")
    }

    /// (A pattern is left out: its voice's start and retirement under manual drive, where this
    /// thread is also the control side, allocate with or without a follower; the follower's
    /// ducking under voices is counted in FollowControlsTests, the real render thread with
    /// patterns in EngineRigTests.)
    @Test("the manager's engine renders its follower through the slot without an allocation")
    func allocationFree() async throws {
        let rig = VirtualRig()
        let m = rig.manager
        defer { m.shutDown() }
        let capture = ToneCapture()
        try m.startFollowing(.device({ capture }))
        _ = Self.follow(rig, capture, periods: 50)
        let period = m.configuration.engine.periodFrames
        let engine = try #require(m.currentEngine)
        let before = try #require(m.followStatistics).framesFollowed
        let tally = allocation_tally_open()
        for _ in 0..<200 {
            capture.arrive(period)
            allocation_tally_track_current_thread(tally)
            engine.renderOnePeriod()
            allocation_tally_track_current_thread(0)
        }
        #expect(allocation_tally_count(tally) == 0, "allocations while rendering the follower: \(allocation_tally_count(tally))")
        #expect(try #require(m.followStatistics).framesFollowed > before + 40_000, "the follower was rendered")
        await m.stopFollowing()
    }

    @Test("shutting the manager down lets go of the capture (stopFollowing then returns once it is closed)")
    func shutDown() async throws {
        let rig = VirtualRig()
        let m = rig.manager
        let capture = ToneCapture()
        try m.startFollowing(.device({ capture }))
        _ = Self.follow(rig, capture, periods: 10)
        m.shutDown()
        #expect(!m.isFollowing)
        // By itself, in the background.
        var closed = false
        for _ in 0..<500 where !closed {
            try await Task.sleep(for: .milliseconds(10))
            closed = capture.closes.load(ordering: .relaxed) >= 1
        }
        #expect(closed, "the capture closed after shutDown alone")
        await m.stopFollowing()
    }

    @Test("hostile values are refused before anything opens")
    func hostile() throws {
        let rig = VirtualRig()
        let m = rig.manager
        defer { m.shutDown() }
        let capture = ToneCapture()
        for gain: Float in [.nan, .infinity, -1] {
            #expect(throws: LivePlayerError.self) { try m.startFollowing(.device({ capture }), settings: FollowSettings(gain: gain)) }
        }
        for ducking: Float in [.nan, 6, -100] {
            #expect(throws: LivePlayerError.self) { try m.startFollowing(.device({ capture }), duckingDecibels: ducking) }
        }
        #expect(capture.opens.load(ordering: .relaxed) == 0)
        #expect(!m.isFollowing)
    }

    @Test("a lost capture is reopened by the manager's supervision while the engine plays on")
    func captureLoss() async throws {
        let rig = VirtualRig()
        let m = rig.manager
        defer { m.shutDown() }
        let capture = ToneCapture()
        try m.startFollowing(.device({ capture }))
        _ = Self.follow(rig, capture, periods: 50)
        capture.kill()
        _ = Self.follow(rig, capture, periods: 5)
        #expect(m.followStatistics?.captureLosses == 1)
        capture.revive()
        // The supervision reopens it (every 250 ms at most): wait for it, rendering meanwhile.
        var back = false
        for _ in 0..<400 where !back {
            try await Task.sleep(for: .milliseconds(10))
            back = m.followStatistics?.captureReopens == 1
        }
        #expect(back, "reopened: \(String(describing: m.followStatistics))")
        let heard = Self.follow(rig, capture, periods: 100)
        #expect(Self.rms(heard[(heard.count / 2)...]) > 0.02, "following again")
        await m.stopFollowing()
    }
}
