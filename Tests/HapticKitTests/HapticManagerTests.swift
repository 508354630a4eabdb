import Foundation
import HapticEngine
import HapticEngineTesting
import HapticTestSupport
import HapticPattern
import HapticRender
import Synchronization
import Testing

@testable import HapticKit

/// A virtual device that counts every `open` attempt (the VirtualOutputDevice counts only
/// the ones that succeed), so a test can tell how many restarts were tried.
final class CountingDevice: OutputDevice, @unchecked Sendable {
    let inner: VirtualOutputDevice
    private let attempts = Atomic<Int>(0)
    init(_ inner: VirtualOutputDevice) { self.inner = inner }
    var openAttempts: Int { attempts.load(ordering: .relaxed) }
    var name: String { inner.name }
    func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        attempts.add(1, ordering: .relaxed)
        return try inner.open(requested: requested)
    }
    func write(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault? { inner.write(samples, frames: frames) }
    func timestamp() -> DeviceTimestamp? { inner.timestamp() }
    func recover(from fault: DeviceFault) -> Bool { inner.recover(from: fault) }
    func close() { inner.close() }
}

/// The devices a factory made, in order.
final class DeviceList: Sendable {
    let list = Mutex<[CountingDevice]>([])
    func append(_ d: CountingDevice) { list.withLock { $0.append(d) } }
    var all: [CountingDevice] { list.withLock { $0 } }
}

/// A manager on virtual devices, driven by hand on a manual clock.
/// A flag shared with the device factory closure.
final class Switch: Sendable {
    private let value = Atomic<Bool>(false)
    var isOn: Bool { value.load(ordering: .acquiring) }
    func set(_ newValue: Bool) { value.store(newValue, ordering: .releasing) }
}

final class VirtualRig: Sendable {
    let clock = ManualClock()
    let made = DeviceList()
    /// While set, every new handle refuses to open, as a real device does while its sound
    /// server is down (the engine's restart falls back to a new handle).
    let serverDown = Switch()
    let manager: HapticManager

    init(refuseOpen: Bool = false, maxVoices: Int = 4096, commands: Int = 16_384, maxRestartAttempts: Int? = nil) {
        let clock = self.clock
        let made = self.made
        let serverDown = self.serverDown
        var config = HapticManager.Configuration(
            hapticsFolder: kitHaptics, assetsFolder: kitAssets,
            output: .device({
                var options = VirtualOutputDevice.Options()
                if refuseOpen || serverDown.isOn {
                    options.refuseOpen = DeviceOpenError(device: "virtual", message: "no such device", code: -19)
                }
                let device = CountingDevice(VirtualOutputDevice(name: "virtual", clock: .manual(clock), options: options))
                made.append(device)
                return device
            }))
        config.engine = .manual(clock: clock, base: config.engine)
        config.engine.maxVoices = maxVoices
        config.engine.commandCapacity = commands
        config.engine.maxRestartAttempts = maxRestartAttempts
        manager = HapticManager(configuration: config)
    }

    var devices: [CountingDevice] { made.all }
    var device: VirtualOutputDevice { devices.last!.inner }

    /// Renders `periods` periods on the manager's current engine (nothing when it has none).
    func render(_ periods: Int) {
        for _ in 0..<periods {
            guard let engine = manager.currentEngine else { return }
            engine.renderOnePeriod()
        }
    }
}

/// Every fire-and-forget call of the manager, each timed: none may block. The bound is a hang
/// detector, not a speed figure (speed is bench/'s business): a call that waited for the engine
/// would wait for a manual clock that nobody advances, or for a sound server that a rig test keeps
/// down, so 2 s tells "returned" from "blocked" even on a loaded 2-core machine, where a plain
/// call was seen taking 160 ms.
func exerciseEveryCall(_ m: HapticManager, bound: Double = 2) -> [String: Double] {
    var times: [String: Double] = [:]
    times["play"] = wallTime { m.play("heartbeat") }
    times["play(atTime:)"] = wallTime { m.play("heartbeat", atTime: m.currentTime + 0.1) }
    times["play(unknown)"] = wallTime { m.play("no_such_pattern") }
    times["play(cue:)"] = wallTime { m.play(cue: "beat_hit") }
    times["play(cue:atTime:)"] = wallTime { m.play(cue: "segment_lock", atTime: m.currentTime + 0.05) }
    times["play(cue: unknown)"] = wallTime { m.play(cue: "no_such_cue") }
    times["playSFX"] = wallTime { m.playSFX("sfx_click") }
    times["playSFX(atTime:)"] = wallTime { m.playSFX("sfx_error", atTime: m.currentTime + 0.02) }
    times["playSFX(unknown)"] = wallTime { m.playSFX("no_such_sound") }
    times["playTransientEvent"] = wallTime { m.playTransientEvent(intensity: 1.7, sharpness: -3) }
    var loop: LoopingPattern?
    times["playLooping"] = wallTime { loop = m.playLooping("heartbeat", intensity: 0.5) }
    times["loop.setIntensity"] = wallTime { loop?.setIntensity(0.8) }
    times["loop.stop"] = wallTime { loop?.stop() }
    times["preloadPatterns (again)"] = wallTime { m.preloadPatterns() }
    for (call, seconds) in times { #expect(seconds < bound, "\(call) took \(seconds) s") }
    return times
}

/// The manager suites run one after the other: the rig's recordings must not compete
/// for the two cores with the 64-task concurrency test.
@Suite(.serialized) struct HapticKitSerialTests {}

extension HapticKitSerialTests {
@Suite("HapticManager on a virtual device made to fail", .serialized)
struct HapticManagerVirtualTests {
    @Test func deviceThatCannotOpenLeavesTheManagerUnavailableAndEveryCallANoOp() {
        let rig = VirtualRig(refuseOpen: true)
        let m = rig.manager
        #expect(!m.engineAvailable)
        #expect(m.currentEngine == nil)
        guard case .unavailable(let why) = m.status else { Issue.record("status \(m.status)"); return }
        #expect(why.contains("no such device"))
        #expect(m.recoveryLog.count == 1)
        let report = m.preloadPatterns()
        #expect(report.parsed == 9, "the library still loads: it is not the engine")
        let before = m.statistics
        _ = exerciseEveryCall(m)
        let after = m.statistics
        #expect(after.voicesStarted == 0 && after.startsFailed == 0)
        #expect(after.callsWhileUnavailable - before.callsWhileUnavailable == 11)
        #expect(rig.devices.allSatisfy { $0.inner.framesWritten == 0 })
        #expect(rig.devices.count == 1, "no second device: the seeds try once")
    }

    @Test func deviceLostThenOneRestartThatSucceeds() {
        let rig = VirtualRig()
        let m = rig.manager
        m.preloadPatterns()
        #expect(m.engineAvailable)
        rig.render(4)
        let device = rig.devices[0]
        #expect(device.openAttempts == 1)
        device.inner.inject(.gone("unplugged"))
        rig.render(1)  // the failing write; the service step runs the handler
        #expect(m.recoveryLog.contains { if case .stopped(engine: 1, _) = $0 { true } else { false } })
        // The one restart is the engine's own reconnection: until it is back, calls are no-ops.
        guard case .reconnecting = m.status else { Issue.record("status \(m.status)"); return }
        #expect(!m.engineAvailable && !m.hasGivenUp)
        rig.clock.advance(bySeconds: 0.06)  // past the first backoff (50 ms)
        rig.render(1)
        #expect(m.recoveryLog.last == .restartSucceeded(engine: 1))
        #expect(device.openAttempts == 2, "exactly one restart")
        #expect(m.engineAvailable && m.currentEngine?.state == .running)
        // Playback continues on the same engine.
        let started = m.statistics.voicesStarted
        m.play("answer_correct")
        #expect(m.statistics.voicesStarted == started + 1)
        let written = device.inner.framesWritten
        rig.render(20)
        #expect(device.inner.framesWritten > written)
        #expect(rig.devices.count == 1)
    }

    /// Only with a limit does the engine give up: then the restart failed, the manager tries one
    /// rebuild, and with the server still down the manager is unavailable for good.
    @Test func deviceLostThenOneRestartThatFailsMarksUnavailable() {
        let rig = VirtualRig(maxRestartAttempts: 1)
        let m = rig.manager
        m.preloadPatterns()
        let loop = m.playLooping("heartbeat", intensity: 0.7)
        rig.render(4)
        let engine = m.currentEngine!
        let device = rig.devices[0]
        rig.serverDown.set(true)
        device.inner.kill()
        rig.render(1)
        #expect(!m.engineAvailable && !m.hasGivenUp, "reconnecting")
        rig.clock.advance(bySeconds: 0.06)
        engine.serviceStep()
        #expect(device.openAttempts == 2, "exactly one restart attempt")
        #expect(rig.devices.count == 3 && rig.devices[1].openAttempts == 1 && rig.devices[2].openAttempts == 1,
                "the restart tried the old handle, then one new handle (the engine's reset fallback); then one rebuild")
        #expect(!m.engineAvailable && m.hasGivenUp)
        #expect(m.currentEngine == nil)
        #expect(engine.state == .stopped, "the manager stopped the engine's own retries")
        #expect(m.recoveryLog.contains { if case .restartFailed(engine: 1, _) = $0 { true } else { false } })
        guard case .rebuildFailed(engine: 2, _)? = m.recoveryLog.last else { Issue.record("\(m.recoveryLog)"); return }
        #expect(!loop.isPlaying)
        // Nothing retries behind the program's back, even when the device comes back.
        device.inner.revive()
        rig.serverDown.set(false)
        for _ in 0..<50 { engine.serviceStep(); rig.clock.advance(bySeconds: 0.1) }
        #expect(device.openAttempts == 2)
        #expect(rig.devices.count == 3, "no new handle either")
        #expect(!m.engineAvailable)
        _ = exerciseEveryCall(m)
        #expect(m.statistics.voicesStarted == 1, "only the loop, before the loss")
    }

    @Test func resetBuildsANewEngineWithHandlersPatternsAndLoopsMovedOver() throws {
        let rig = VirtualRig()
        let m = rig.manager
        m.preloadPatterns()
        let loop = m.playLooping("heartbeat", intensity: 0.6)
        rig.render(8)
        let old = try #require(m.currentEngine)
        let oldCaches = m.state.withLock { $0.caches }
        #expect(oldCaches.engineID == 1 && oldCaches.patterns.count == 9 && oldCaches.sounds.count == 5 && oldCaches.cues.count == 14)
        let oldLoopPlayer = loop.playerForTests
        #expect(oldLoopPlayer != nil)

        // The engine's reset notification: the exact closure the engine calls after it rebuilt its handle.
        let resetHandler = try #require(old.resetHandler)
        resetHandler()

        #expect(m.engineAvailable)
        #expect(m.engineGeneration == 2)
        let new = try #require(m.currentEngine)
        #expect(new !== old)
        #expect(old.state == .stopped, "the old engine let go of its device")
        #expect(new.state == .running)
        #expect(rig.devices.count == 2)
        #expect(new.stoppedHandler != nil && new.resetHandler != nil, "both handlers registered again")
        let caches = m.state.withLock { $0.caches }
        #expect(caches.engineID == 2 && caches.patterns.count == 9 && caches.sounds.count == 5 && caches.cues.count == 14)
        #expect(caches.patterns["heartbeat"] !== oldCaches.patterns["heartbeat"], "patterns re-cached (prepared again)")
        #expect(Array(m.recoveryLog.suffix(2)) == [.reset(engine: 1), .rebuilt(engine: 2, patterns: 9)])

        // The loop moved to the new engine; the old player is not used any more.
        let newLoopPlayer = try #require(loop.playerForTests)
        #expect(newLoopPlayer !== oldLoopPlayer)
        #expect(loop.engineIDForTests == 2)
        #expect(loop.isPlaying && abs(loop.intensity - 0.6) < 1e-12)
        let oldFrames = rig.devices[0].inner.framesWritten
        m.play("thud")
        loop.setIntensity(0.3)
        rig.render(40)
        #expect(rig.devices[0].inner.framesWritten == oldFrames, "nothing reaches the old device")
        let fresh = rig.devices[1].inner
        #expect(fresh.framesWritten >= 40 * 256)
        #expect(fresh.recordedSamples(channel: 2).contains { $0 != 0 }, "the new engine plays")

        // The new engine's handlers are live: a loss on the new device runs the stop path for engine 2.
        rig.devices[1].inner.inject(.gone("again"))
        rig.render(1)
        rig.clock.advance(bySeconds: 0.06)
        rig.render(1)
        #expect(m.recoveryLog.last == .restartSucceeded(engine: 2))
        // A stale notification from the old engine changes nothing.
        resetHandler()
        #expect(m.engineGeneration == 2 && rig.devices.count == 2)
    }

    @Test func callsDuringRecoveryNeverThrowOrBlock() {
        let rig = VirtualRig()
        let m = rig.manager
        m.preloadPatterns()
        rig.render(2)
        rig.devices[0].inner.inject(.gone("x"))
        _ = exerciseEveryCall(m)  // before the loss is noticed
        rig.render(1)
        _ = exerciseEveryCall(m)  // while the engine reconnects: no-ops
        #expect(!m.engineAvailable && !m.hasGivenUp)
        #expect(m.statistics.startsFailed == 0)
        rig.clock.advance(bySeconds: 0.06)
        rig.render(1)
        #expect(m.engineAvailable, "back without any call from the app")
        _ = exerciseEveryCall(m)
        #expect(m.statistics.startsFailed == 0)
    }

    @Test("64 tasks × 100 calls: every voice reaches the engine, nothing lost, no race")
    func concurrentCallsLoseNothing() async throws {
        let rig = VirtualRig(maxVoices: 8192, commands: 65_536)
        let m = rig.manager
        m.preloadPatterns()
        let loop = m.playLooping("heartbeat", intensity: 0.5)
        let engine = try #require(m.currentEngine)
        #expect(engine.activeVoiceCount == 1)
        let base = m.statistics
        let t0 = MonotonicClock.now()
        let slowest = await withTaskGroup(of: Double.self) { group in
            for task in 0..<64 {
                group.addTask {
                    // Timed at real-time priority (the loop does not suspend: one thread): the
                    // calls' own waits, not a loaded machine's preemption of 64 tasks on 2 cores.
                    withRealtimePriority(1) {
                    var slowest = 0.0
                    for i in 0..<100 {
                        let t = MonotonicClock.now()
                        switch (task + i) % 5 {
                        case 0: m.play(["heartbeat", "thud", "answer_correct", "answer_wrong"][i % 4], atTime: m.currentTime + 0.01)
                        case 1: m.playSFX(["sfx_click", "sfx_error", "sfx_shield_impact"][i % 3])
                        case 2: m.playTransientEvent(intensity: Double(i) / 100, sharpness: Double(task) / 64)
                        case 3: m.play(cue: ["wheel_detent", "beat_hit", "invalid_connect"][i % 3])
                        default: loop.setIntensity(Double(i % 10) / 10)
                        }
                        slowest = max(slowest, MonotonicClock.now() - t)
                    }
                    return slowest
                    }
                }
            }
            return await group.reduce(0, max)
        }
        let wall = MonotonicClock.now() - t0
        let stats = m.statistics
        let playbacks = 64 * 100 * 4 / 5
        #expect(stats.voicesStarted - base.voicesStarted == playbacks)
        #expect(stats.loopUpdates - base.loopUpdates == 64 * 100 / 5)
        #expect(stats.startsFailed == 0 && stats.unknownNames == base.unknownNames)
        // The engine's own count: every voice is there (playing or scheduled), plus the loop.
        #expect(engine.activeVoiceCount == playbacks + 1)
        #expect(stats.transientsCut > 0, "rapid transients were bounded")
        print("concurrency: 6400 calls from 64 tasks in \(String(format: "%.3f", wall)) s; slowest call \(String(format: "%.2f", slowest * 1000)) ms; transient voices cut \(stats.transientsCut)")
        #expect(slowest < 2, "a call blocked (the bound is a hang detector, see exerciseEveryCall)")
        // And the engine renders them.
        rig.render(4)
        #expect(rig.devices[0].inner.recordedSamples(channel: 2).contains { $0 != 0 })
    }

    @Test("rapid transients: at most transientVoices sound; a few prepared patterns serve them all")
    func rapidTransientsAreBounded() {
        let rig = VirtualRig()
        let m = rig.manager
        m.preloadPatterns()
        rig.render(2)
        for i in 0..<1000 { m.playTransientEvent(intensity: 0.3 + Double(i % 3) * 0.001, sharpness: 0.9) }
        let engine = m.currentEngine!
        rig.render(2)
        #expect(engine.activeVoiceCount <= m.configuration.transientVoices, "\(engine.activeVoiceCount) transient voices")
        #expect(m.state.withLock { $0.caches.transients.count } == 1, "quantised to one prepared pattern")
        #expect(m.statistics.voicesStarted == 1000)
        let peak = rig.devices[0].inner.recordedSamples(channel: 2).map { abs($0) }.max() ?? 0
        #expect(peak > 0 && peak <= 0.9, "no pile-up past the ceiling: peak \(peak)")
    }

    @Test("SFX and haptic given the same time start on the same output frame (separate calls); a cue's at its planned skew")
    func lockstepOnTheVirtualDevice() throws {
        let rig = VirtualRig()
        let m = rig.manager
        m.preloadPatterns()
        rig.render(8)
        let t = m.currentTime + 0.05
        m.play("heartbeat", atTime: t)
        m.playSFX("sfx_shield_impact", atTime: t)
        let t2 = t + 1.5
        m.play(cue: "beat_hit", atTime: t2)
        rig.render(Int(3.0 * 48_000 / 256))
        let device = rig.device
        let l = device.recordedSamples(channel: 0), h = device.recordedSamples(channel: 2)
        // Offline references: where each part first departs from zero, from its own start.
        let layout = ChannelLayout.stereoPlusHaptic
        let heartbeat = OfflineRenderer.render(m.state.withLock { $0.caches.patterns["heartbeat"]! }, layout: layout)
        let sfx = OfflineRenderer.render(m.state.withLock { $0.caches.sounds["sfx_shield_impact"]! }, layout: layout)
        // Onset = first sample above 1e-4 in magnitude, in the recording and in each part's
        // offline render alike (exact zero would do for the first beat, but the haptic
        // high-pass leaves a tail far below 1e-4 that never returns to exact zero).
        let threshold: Float = 1e-4
        let hOffset = try #require(RecordingAlignment.firstAbove(RecordingAlignment.channel(heartbeat.samples, channels: 3, 2), threshold))
        let lOffset = try #require(RecordingAlignment.firstAbove(RecordingAlignment.channel(sfx.samples, channels: 3, 0), threshold))
        let scheduled = try #require(device.recordedFrame(playingAt: t * 1e9))
        let hStart = try #require(RecordingAlignment.firstAbove(h, threshold)) - hOffset
        let lStart = try #require(RecordingAlignment.firstAbove(l, threshold)) - lOffset
        let lookahead = OutputStage(profile: m.configuration.engine.profile, sampleRate: 48_000, layout: layout).latencyFrames
        print("lockstep (virtual): scheduled frame \(scheduled), haptic starts \(hStart), sfx starts \(lStart) (onsets inside the parts: H \(hOffset), L \(lOffset)); limiter look-ahead \(lookahead)")
        #expect(hStart == lStart, "skew \(lStart - hStart) samples")
        // The engine's business, bounded here only: on the scheduled frame, or late by the limiter's look-ahead.
        #expect(hStart - scheduled >= 0 && hStart - scheduled <= lookahead)
        let scheduled2 = try #require(device.recordedFrame(playingAt: t2 * 1e9))
        let h2 = try #require(RecordingAlignment.firstAbove(h, threshold, from: scheduled2 - 200)) - hOffset
        let l2 = try #require(RecordingAlignment.firstAbove(l, threshold, from: scheduled2 - 200)) - lOffset
        print("lockstep (virtual, cue beat_hit): haptic starts \(h2), sfx starts \(l2)")
        // The cue: its parts at the planned skew (the felt alignment delays the part felt earlier).
        let align = try #require(m.cueAlignment("beat_hit"))
        #expect(Int64(l2 - h2) == align.plannedSkewFrames, "cue skew \(l2 - h2) samples, planned \(align.plannedSkewFrames)")
        #expect(Int64(h2 - hStart) == Int64((1.5 * 48_000).rounded()) + align.hapticDelayFrames, "spacing exact to the sample")
    }
}
}
