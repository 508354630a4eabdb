import Foundation
import HapticTestSupport
import HapticALSA
import HapticEngine
import HapticEngineTesting
import HapticALSATesting
import HapticRender
import Testing

@testable import HapticKit

/// Through the real rig (scripts/rig.sh: PulseAudio null sinks via the ALSA pulse plugin).
extension HapticKitSerialTests {
@Suite("HapticManager through the sound-server rig", .serialized, .enabled(if: KitRig.isRunning, "needs scripts/rig.sh"))
struct HapticManagerRigTests {
    static func manager(maxRestartAttempts: Int? = nil) -> HapticManager {
        var config = HapticManager.Configuration(hapticsFolder: kitHaptics, assetsFolder: kitAssets, output: .alsa(KitRig.out))
        config.engine.lockMemory = false
        config.engine.maxRestartAttempts = maxRestartAttempts
        // Large periods: the machine is shared and noisy; lockstep does not depend on the period.
        config.engine.periodFrames = 1024
        config.engine.bufferPeriods = 4
        return HapticManager(configuration: config)
    }

    static func recorder(seconds: Double) throws -> ALSACaptureDevice {
        let capture = ALSACaptureDevice(name: KitRig.input, channels: 3, sampleRate: 48_000, periodFrames: 1024, bufferFrames: 8192, seconds: seconds)
        try capture.start()
        try #require(capture.waitForFrames(1, timeout: 10), "the monitor delivers")
        return capture
    }

    /// What the two beats left: the manager (shut down; its caches kept), the recording, and the
    /// engine's xruns.
    struct LockstepRun {
        let manager: HapticManager
        let recording: ALSARecording
        let xruns: Int
        /// What broke the recording, nil when it is whole.
        var gap: String? { recording.overruns == 0 && xruns == 0 ? nil : "engine xruns \(xruns), capture overruns \(recording.overruns)" }
    }

    /// Beat 1 as one cue, beat 2 as two calls at one time, 1.5 s later, recorded in the monitor.
    static func twoBeats() throws -> LockstepRun {
        let m = Self.manager()
        #expect(m.engineAvailable)
        m.preloadPatterns()
        // Schedule once the engine's schedule grid has settled, as the engine rig tests do:
        // before, it follows the timestamp filter, and two separate calls (beat 2) could
        // straddle a move.
        try #require(waitUntil(seconds: 30) { m.currentEngine?.frameMapping.isSettled == true }, "the schedule grid settles")
        let capture = try Self.recorder(seconds: 60)
        let t1 = m.currentTime + 0.3
        m.play(cue: "beat_hit", atTime: t1)
        // Second beat: the two parts through separate calls at one time (two voices).
        let t2 = t1 + 1.5
        m.play("heartbeat", atTime: t2)
        m.playSFX("sfx_shield_impact", atTime: t2)
        // Recorded whole: beat 1, then beat 2 1.5 s (72,000 frames) later, then two seconds more.
        let heard = try #require(capture.waitForSound(timeout: 30), "beat 1 recorded")
        #expect(capture.waitForFrames(heard + 72_000 + 96_000, timeout: 60), "beat 2 recorded")
        let xruns = m.currentEngine?.xrunCount ?? -1
        m.shutDown()
        let rec = capture.stop()
        print("rig lockstep: engine xruns \(xruns), capture overruns \(rec.overruns)")
        return LockstepRun(manager: m, recording: rec, xruns: xruns)
    }

    @Test("play(cue: beat_hit): SFX (L/R) and heartbeat (H) on the same frame in the sink's monitor")
    func beatHitLandsOnOneFrame() throws {
        // (A busy machine can break a recording with an xrun: the session is then run once more,
        // as the rhythm rig tests do.)
        let run = try rigSession("rig lockstep", gap: \.gap) { try Self.twoBeats() }
        #expect(run.gap == nil, "the recording must be whole for a sample comparison: \(run.gap ?? "")")
        let m = run.manager, rec = run.recording
        let l = RecordingAlignment.channel(rec.floatSamples, channels: 3, 0), h = RecordingAlignment.channel(rec.floatSamples, channels: 3, 2)
        let layout = ChannelLayout.stereoPlusHaptic
        let cue = OfflineRenderer.render(m.state.withLock { $0.caches.cues["beat_hit"]! }, layout: layout)
        let refL = RecordingAlignment.s16(RecordingAlignment.channel(cue.samples, channels: 3, 0)), refH = RecordingAlignment.s16(RecordingAlignment.channel(cue.samples, channels: 3, 2))
        // Coarse position: first sample over ~3 LSB in the recording, minus the same in the reference.
        let threshold: Float = 3.0 / 32768
        let guessL = try #require(RecordingAlignment.firstAbove(l, threshold)) - (RecordingAlignment.firstAbove(refL, threshold) ?? 0)
        let guessH = try #require(RecordingAlignment.firstAbove(h, threshold)) - (RecordingAlignment.firstAbove(refH, threshold) ?? 0)
        let fitL = RecordingAlignment.bestLag(l, refL, guess: guessL, radius: 64), fitH = RecordingAlignment.bestLag(h, refH, guess: guessH, radius: 64)
        print("rig lockstep beat 1: SFX at frame \(fitL.lag) (residual/energy \(String(format: "%.2e", fitL.residual / fitL.energy))), heartbeat at frame \(fitH.lag) (\(String(format: "%.2e", fitH.residual / fitH.energy))); first-above-threshold guesses \(guessL), \(guessH)")
        #expect(fitL.lag == fitH.lag, "skew \(fitL.lag - fitH.lag) samples")
        // The match is real: what is left after alignment is quantisation-level.
        #expect(fitL.residual / fitL.energy < 1e-3 && fitH.residual / fitH.energy < 1e-3)

        // Beat 2 (separate calls): the same, and 1.5 s after beat 1 to the sample.
        let hb = OfflineRenderer.render(m.state.withLock { $0.caches.patterns["heartbeat"]! }, layout: layout)
        let sfx = OfflineRenderer.render(m.state.withLock { $0.caches.sounds["sfx_shield_impact"]! }, layout: layout)
        let refL2 = RecordingAlignment.s16(RecordingAlignment.channel(sfx.samples, channels: 3, 0)), refH2 = RecordingAlignment.s16(RecordingAlignment.channel(hb.samples, channels: 3, 2))
        // Spacing of two separately scheduled beats is the engine's frame/time mapping (its DLL
        // through the pulse plugin): each time is converted when it falls due, on the schedule
        // grid of that moment, and the grid may be re-anchored between the two (it follows the
        // device clock within `scheduleDriftToleranceSeconds`, and its filter moves up to 0.5 %
        // of a period before a correction is noticed, as EngineRigTests bounds it). So the bound
        // is that tolerance; the figure is reported. (Two clean-clone runs on a busy machine saw
        // 64 frames short.) Beats that must keep exact spacing go through frames
        // (`start(atFrame:)`, the rhythm session), which the engine tests check to the frame.
        let period = m.configuration.engine.periodFrames
        let tolerance = Int(m.configuration.engine.scheduleDriftToleranceSeconds * 48_000 + 0.005 * Double(period)) + 1
        // Beat 2 is searched for over more than the tolerance: a search narrower than the bound
        // (it was ±64) ends on its edges when the grid moved further (seen once: the SFX fitted
        // at +64 and the heartbeat at −64, a false 128-frame skew), and a fit on an edge is no fit.
        let radius = tolerance + 64
        let fitL2 = RecordingAlignment.bestLag(l, refL2, guess: fitL.lag + 72_000, radius: radius), fitH2 = RecordingAlignment.bestLag(h, refH2, guess: fitH.lag + 72_000, radius: radius)
        print("rig lockstep beat 2: SFX at frame \(fitL2.lag) (residual/energy \(String(format: "%.2e", fitL2.residual / fitL2.energy))), heartbeat at frame \(fitH2.lag) (\(String(format: "%.2e", fitH2.residual / fitH2.energy)))")
        #expect(abs(fitL2.lag - fitL.lag - 72_000) < radius && abs(fitH2.lag - fitH.lag - 72_000) < radius, "beat 2 fitted on the search's edge")
        #expect(fitL2.residual / fitL2.energy < 1e-3 && fitH2.residual / fitH2.energy < 1e-3, "beat 2's match is real")
        #expect(fitL2.lag == fitH2.lag, "skew \(fitL2.lag - fitH2.lag) samples")
        print("rig spacing: \(fitH2.lag - fitH.lag) frames for 1.5 s (72000 nominal)")
        #expect(abs(fitH2.lag - fitH.lag - 72_000) <= tolerance, "spacing \(fitH2.lag - fitH.lag) frames for 1.5 s")
    }

    /// With a limit on the engine's reconnection (without one it waits for the server forever:
    /// ReconnectRigTests), the restart fails while the server is down, the one rebuild fails too,
    /// and the manager gives up for good.
    @Test("server killed mid-playback, reconnection limited: restart and rebuild fail -> unavailable, calls never block; a new manager plays after restart")
    func serverKilledAndRestarted() throws {
        let m = Self.manager(maxRestartAttempts: 2)
        #expect(m.engineAvailable)
        m.preloadPatterns()
        let loop = m.playLooping("heartbeat", intensity: 0.8)
        #expect(waitUntil(seconds: 10) { (m.currentEngine?.renderStatistics.periods ?? 0) > 5 }, "the loop plays")
        #expect(try KitRig.control("stop-server") == 0)
        var slowest = 0.0
        let t0 = MonotonicClock.now()
        while !m.hasGivenUp && MonotonicClock.now() - t0 < 10 {
            slowest = max(slowest, wallTime { m.play("thud") })
            slowest = max(slowest, wallTime { m.playSFX("sfx_click") })
            slowest = max(slowest, wallTime { m.playTransientEvent(intensity: 0.5, sharpness: 0.5) })
            slowest = max(slowest, wallTime { loop.setIntensity(0.4) })
            usleep(5_000)  // calls at a steady pace while the manager gives up
        }
        let detected = MonotonicClock.now() - t0
        print("rig server kill: manager unavailable after \(String(format: "%.3f", detected)) s; slowest call meanwhile \(String(format: "%.2f", slowest * 1000)) ms; log \(m.recoveryLog)")
        #expect(!m.engineAvailable && m.hasGivenUp)
        #expect(detected < 10)
        #expect(slowest < 0.05)
        let log = m.recoveryLog
        #expect(log.contains { if case .stopped(engine: 1, _) = $0 { true } else { false } })
        #expect(log.contains { if case .restartFailed(engine: 1, _) = $0 { true } else { false } })
        #expect(log.contains { if case .rebuildFailed(engine: 2, _) = $0 { true } else { false } })
        #expect(!loop.isPlaying)
        // Unavailable: every call returns at once and does nothing.
        let before = m.statistics
        _ = exerciseEveryCall(m)
        #expect(m.statistics.voicesStarted == before.voicesStarted)

        #expect(try KitRig.control("start-server") == 0)
        // The old manager stays unavailable (the seeds give up); a new one plays.
        m.play("thud")
        #expect(!m.engineAvailable)
        let capture = try Self.recorder(seconds: 60)
        let fresh = Self.manager()
        #expect(fresh.engineAvailable)
        fresh.preloadPatterns()
        fresh.play(cue: "segment_lock")
        #expect(capture.waitForWholeSound(), "the cue recorded")
        fresh.shutDown()
        let rec = capture.stop()
        let h = RecordingAlignment.channel(rec.floatSamples, channels: 3, 2), l = RecordingAlignment.channel(rec.floatSamples, channels: 3, 0)
        #expect(h.contains { abs($0) > 0.01 } && l.contains { abs($0) > 0.01 }, "the new manager's cue reached the sink")
    }

    @Test("a device name that does not exist: unavailable at once, calls are no-ops")
    func badDeviceName() {
        var config = HapticManager.Configuration(hapticsFolder: kitHaptics, assetsFolder: kitAssets, output: .alsa("hs_no_such_pcm"))
        config.engine.lockMemory = false
        var m: HapticManager?
        let t = wallTime { m = HapticManager(configuration: config) }
        #expect(t < 2)
        guard let m else { return }
        #expect(!m.engineAvailable)
        _ = exerciseEveryCall(m)
        #expect(m.statistics.voicesStarted == 0)
    }
}
}
