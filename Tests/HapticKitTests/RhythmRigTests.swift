import Foundation
import HapticALSA
import HapticEngine
import HapticEngineTesting
import HapticALSATesting
import HapticRender
import HapticTestSupport
import Testing

@testable import HapticKit

/// What one rig session found: per beat, the engine's own output frames (its trace) and
/// where the onsets really are in the monitor recording.
struct RigBeats {
    var report: RhythmReport
    /// Recording index of each beat's haptic / audio onset (least squares against the offline render).
    var recordedHaptic: [Int?]
    var recordedAudio: [Int?]
}

enum RhythmRig {
    static let env = ProcessInfo.processInfo.environment

    /// A manager on the rig's sink for rhythm sessions, its patterns and cues preloaded (the
    /// period is large: the machine is shared and noisy, and lockstep does not depend on it).
    static func manager(assets: String = kitAssets) -> HapticManager {
        var config = HapticManager.Configuration(hapticsFolder: kitHaptics, assetsFolder: assets, output: .alsa(KitRig.out))
        config.engine.periodFrames = 1024
        config.engine.bufferPeriods = 4
        config.engine.appliedCommandTraceCapacity = 1024
        config.logger.logLevel = .warning
        let m = HapticManager(configuration: config)
        m.preloadPatterns()
        return m
    }

    /// References for beat_hit's two parts: haptic (heartbeat) and sound, as the S16 sink stores them.
    static func references(_ m: HapticManager) throws -> (haptic: [Float], audio: [Float]) {
        let hb = try #require(m.state.withLock { $0.caches.cueHaptics["beat_hit"] })
        let sfx = try #require(m.state.withLock { $0.audio?.sounds["sfx_shield_impact"] ?? $0.caches.sounds["sfx_shield_impact"] })
        let h = OfflineRenderer.render(hb, layout: .stereoPlusHaptic)
        let a = OfflineRenderer.render(sfx, layout: .stereoPlusHaptic)
        return (RecordingAlignment.s16(RecordingAlignment.channel(h.samples, channels: 3, 2)),
                RecordingAlignment.s16(RecordingAlignment.channel(a.samples, channels: 3, 0)))
    }

    /// Finds every beat's onset in `recording`, given the engine's output frames: the first
    /// beat by a search from the start, the others where the first one's offset puts them.
    static func locate(_ recording: [Float], _ reference: [Float], frames: [Int64?]) -> [Int?] {
        RecordingAlignment.track(recording, reference: reference, frames: frames)
    }
}

@Suite("Rhythm lockstep through the sound-server rig", .serialized, .enabled(if: KitRig.isRunning, "needs scripts/rig.sh"))
struct RhythmRigTests {
    /// What the 64-beat session left: the report, the recording, the device's rate as the
    /// engine measured it through the session, and the engine's counters at its end.
    struct Run {
        let report: RhythmReport
        let recording: ALSARecording
        let references: (haptic: [Float], audio: [Float])
        let rates: [(time: Double, ratio: Double)]
        let xruns: Int, stalls: Int, lateCommands: Int, corrections: Int
        let rate: Double
        /// What broke the recording, nil when it is whole.
        var gap: String? {
            recording.overruns == 0 && xruns == 0 ? nil : "capture overruns \(recording.overruns), engine xruns \(xruns)"
        }
    }

    /// 64 beats of beat_hit at 100 BPM through a new HapticManager, the sink's monitor recorded.
    static func sixtyFourBeats() throws -> Run {
        let m = RhythmRig.manager()
        #expect(m.engineAvailable)
        let refs = try RhythmRig.references(m)
        let capture = ALSACaptureDevice(name: KitRig.input, channels: 3, sampleRate: 48_000, periodFrames: 256, bufferFrames: 8192, seconds: 50)
        try capture.start()
        let session = RhythmSession(manager: m, cue: "beat_hit", map: BeatMap(bpm: 100, beats: 64), lead: 0.2)
        // The device's rate as the engine measures it, sampled through the session (it wanders:
        // the null sink runs +70…+360 ppm against CLOCK_MONOTONIC, not one fixed rate).
        var rates: [(time: Double, ratio: Double)] = []
        session.run(wait: { t in
            while MonotonicClock.now() < t { usleep(UInt32(max(1_000, min(20_000, (t - MonotonicClock.now()) * 1e6)))) }  // the beat's time
            if let e = m.currentEngine, e.frameMapping.isLocked { rates.append((MonotonicClock.now(), e.measuredRateRatio)) }
        })
        let engine = try #require(m.currentEngine)
        let xruns = engine.xrunCount, stalls = engine.stallCount, late = engine.lateCommandCount
        let rate = engine.measuredRateRatio, corrections = engine.scheduleCorrectionCount
        m.shutDown()
        // Beats are 0.6 s apart: 0.6 s of silence is the end, never a gap between them.
        #expect(capture.waitForWholeSound(silence: 28_800), "the session recorded whole")
        return Run(report: session.report(sampleRate: 48_000), recording: capture.stop(), references: refs, rates: rates, xruns: xruns, stalls: stalls,
                   lateCommands: late, corrections: corrections, rate: rate)
    }

    @Test("64 beats at 100 BPM through HapticManager: every beat's sound and haptic at the planned skew in the recording; spacing exactly 28800 frames")
    func lockstepSixtyFourBeats() throws {
        let run = try rigSession("rhythm rig", gap: \.gap) { try Self.sixtyFourBeats() }
        let rec = run.recording, report = run.report, refs = run.references, rates = run.rates
        let stalls = run.stalls, late = run.lateCommands, rate = run.rate, corrections = run.corrections
        #expect(run.gap == nil, "a whole recording: \(run.gap ?? "")")

        // The engine's own record: both parts of every beat at the cue's planned skew (felt alignment).
        #expect(report.rows.count == 64)
        #expect(report.summary.incomplete == 0)
        #expect(report.summary.plannedSkewBeats == 64, "engine skew vs plan: max \(report.summary.maxAbsSkewFromPlanSamples) samples")
        let planned = Int(try #require(report.rows.first?.plannedSkewSamples))

        // The recording: where each part really is.
        let h = RecordingAlignment.channel(rec.floatSamples, channels: 3, 2)
        let l = RecordingAlignment.channel(rec.floatSamples, channels: 3, 0)
        let engineFrames = report.rows.map { $0.haptic?.outputFrame }
        let recH = RhythmRig.locate(h, refs.haptic, frames: engineFrames)
        let recA = RhythmRig.locate(l, refs.audio, frames: report.rows.map { $0.audio?.outputFrame })
        #expect(recH.allSatisfy { $0 != nil } && recA.allSatisfy { $0 != nil },
                "every onset found in the recording: haptic \(recH.map { $0 == nil ? "-" : "+" }.joined()), audio \(recA.map { $0 == nil ? "-" : "+" }.joined()); engine stalls \(stalls), late commands \(late)")
        guard recH.allSatisfy({ $0 != nil }), recA.allSatisfy({ $0 != nil }) else { return }
        let hs = recH.map { $0! }, `as` = recA.map { $0! }
        // (1) Skew: audio onset minus haptic onset is the planned skew in the recording, every beat.
        let skews = zip(`as`, hs).map { $0 - $1 }
        #expect(skews.allSatisfy { $0 == planned }, "recorded skews (samples): \(skews), planned \(planned)")
        // (2) The output path is sample-exact: recording index − engine output frame is one constant.
        let offsets = zip(hs, engineFrames).map { $0 - Int($1!) }
        #expect(Set(offsets).count == 1, "recording − engine frame: \(Set(offsets).sorted())")
        // (3) Spacing: in one stream the session keeps its beat grid on the device's frames
        // (anchored once at the first beat), so beats 0.6 s apart are exactly 28800 frames apart
        // on every pair — the engine's schedule-grid corrections against CLOCK_MONOTONIC (it
        // still makes them, for monotonic-time starts) do not touch the beats.
        let spacing = (1..<hs.count).map { hs[$0] - hs[$0 - 1] - 28_800 }
        let engineSpacing = (1..<engineFrames.count).map { Int(engineFrames[$0]! - engineFrames[$0 - 1]!) - 28_800 }
        let broken = spacing.filter { $0 != 0 }
        // Absolute: recorded onset time (capture stamps) minus scheduled time. A device-clocked
        // grid drifts from the monotonic schedule by the device's rate error × elapsed time
        // (the null sink runs fast: beats come early by ~(1 − 1/ratio)·t); what is left after
        // that drift is one constant offset (the monitor's timestamp bias) plus stamp jitter.
        let t0 = report.rows[0].scheduled
        let onsetSeries = zip(hs, report.rows).compactMap { idx, row in
            rec.monotonicNanos(ofFrame: idx).map { (t: row.scheduled - t0, error: Double($0) / 1e9 - row.scheduled) }
        }
        let drift = OnsetDrift(onsets: onsetSeries, rates: rates, origin: t0)
        let onsetErrors = onsetSeries.map(\.error).sorted()
        print("rhythm rig: 64 beats, recorded skew = planned (\(planned)) on \(skews.filter { $0 == planned }.count)/64; "
              + "spacing exactly 28800 on \(spacing.count - broken.count)/\(spacing.count) (others: \(broken)); "
              + "engine grid corrections \(corrections) (not on the beat grid); engine rate ratio at the end \(rate) "
              + "(\(String(format: "%.0f", (rate - 1) * 1e6)) ppm); recorded onset − schedule: "
              + "min \(String(format: "%.2f", onsetErrors.first! * 1000)) max \(String(format: "%.2f", onsetErrors.last! * 1000)) ms, "
              + drift.summary(count: 64))
        #expect(onsetSeries.count == 64, "every onset has a capture timestamp")
        #expect(broken.isEmpty, "beat spacing exactly 28800 frames on all 63 pairs: \(broken)")
        #expect(spacing == engineSpacing, "the recording's spacing is the engine's")
        // The rate estimate settles within 0.1 % (the null sink's clock is off by tens of ppm); a
        // sample taken while a loaded machine delays the engine's wake-ups may stray further for a
        // moment (CI saw one), so: the median within 0.1 %, none past 1 %.
        let ratios = rates.map(\.ratio).sorted()
        let medianRatio = ratios.isEmpty ? .nan : ratios[ratios.count / 2]
        #expect(rates.count >= 64 && abs(medianRatio - 1) < 0.001 && ratios.allSatisfy { abs($0 - 1) < 0.01 },
                "the device's measured rate, sampled \(rates.count) times, is plausible: median \(medianRatio), range \(ratios.first ?? .nan)…\(ratios.last ?? .nan)")
        // What is left is the capture stamps' own error (biased early by 1–5 ms through the
        // PulseAudio monitor, per the rig's notes; it moves slowly). How close the onsets follow
        // the schedule plus the drift (within 1 ms on most beats, residuals about ±0.6 ms) and how
        // well the fitted slope matches the measured drift are figures for a quiet machine: a
        // loaded one stamps late now and then. They are printed above and measured by
        // bench/rhythm-bench; the test holds the recorded frames to the schedule exactly (spacing,
        // skew, offsets above) and the stamps to the monitor's error.
        #expect(abs(drift.offset) < 0.025, "the constant part within the monitor's timestamp error: \(drift.offset * 1000) ms")
    }
}
