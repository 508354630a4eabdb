import Foundation
import HapticALSA
import HapticEngine
import HapticEngineTesting
import HapticALSATesting
import HapticRender
import HapticTestSupport
import Testing

@testable import HapticKit

@Suite("Two-device mode through the rig's two PCMs", .serialized, .enabled(if: KitRig.isRunning, "needs scripts/rig.sh"))
struct TwoDeviceRigTests {
    static let outB = KitRig.env["HAPTICSYNTH_RIG_OUT_B"] ?? "hs_out_b"
    static let inB = KitRig.env["HAPTICSYNTH_RIG_IN_B"] ?? "hs_in_b"
    static let outMono = KitRig.env["HAPTICSYNTH_RIG_OUT_MONO"] ?? "hs_out_mono"
    static let inMono = KitRig.env["HAPTICSYNTH_RIG_IN_MONO"] ?? "hs_in_mono"

    /// What one session left: the engines' report, the two recordings and the parts' references.
    struct Run {
        let report: RhythmReport
        let sound: ALSARecording, haptic: ALSARecording
        let references: (haptic: [Float], audio: [Float])
        let xruns: (haptic: Int, audio: Int)
        let recordedWhole: Bool
        /// What broke the recordings, nil when they are whole.
        var gap: String? {
            xruns == (0, 0) && sound.overruns == 0 && haptic.overruns == 0 ? nil
                : "engine xruns \(xruns), capture overruns: sound \(sound.overruns), haptic \(haptic.overruns)"
        }
    }

    /// 32 beats of beat_hit at 100 BPM through a new HapticManager, sound on the stereo sink and
    /// haptic on the mono sink (1024-frame periods), both sinks' monitors recorded.
    static func session(period: Int) throws -> Run {
        var config = HapticManager.Configuration(hapticsFolder: kitHaptics, assetsFolder: kitAssets,
                                                 output: .alsa(Self.outMono), audioOutput: .alsa(Self.outB))
        for role in 0..<2 {
            var e = role == 0 ? config.engine : config.audioEngine
            e.lockMemory = false
            e.periodFrames = period
            e.bufferPeriods = 4
            e.appliedCommandTraceCapacity = 1024
            if role == 0 { config.engine = e } else { config.audioEngine = e }
        }
        config.logger.logLevel = .warning
        let m = HapticManager(configuration: config)
        #expect(m.engineAvailable && m.audioAvailable)
        m.preloadPatterns()
        let refs = try RhythmRig.references(m)
        let capA = ALSACaptureDevice(name: Self.inB, channels: 2, sampleRate: 48_000, periodFrames: 256, bufferFrames: 8192, seconds: 30)
        let capH = ALSACaptureDevice(name: Self.inMono, channels: 1, sampleRate: 48_000, periodFrames: 256, bufferFrames: 8192, seconds: 30)
        try capA.start()
        try capH.start()
        let session = RhythmSession(manager: m, cue: "beat_hit", map: BeatMap(bpm: 100, beats: 32), lead: 0.2)
        session.run(wait: { t in
            while MonotonicClock.now() < t { usleep(UInt32(max(1_000, min(20_000, (t - MonotonicClock.now()) * 1e6)))) }  // the beat's time
        })
        let xruns = (haptic: m.currentEngine?.xrunCount ?? -1, audio: m.currentAudioEngine?.xrunCount ?? -1)
        m.shutDown()
        // Beats are 0.6 s apart: 0.6 s of silence is the end, never a gap between them.
        let whole = capA.waitForWholeSound(silence: 28_800) && capH.waitForWholeSound(silence: 28_800)
        return Run(report: session.report(sampleRate: 48_000), sound: capA.stop(), haptic: capH.stop(), references: refs,
                   xruns: xruns, recordedWhole: whole)
    }

    @Test("32 beats: sound on the stereo sink, haptic on the mono sink; recorded skew under one period")
    func twoRealPCMs() throws {
        let period = 1024
        let run = try rigSession("two-device rig", gap: \.gap) { try Self.session(period: period) }
        #expect(run.recordedWhole, "the session recorded whole")
        #expect(run.gap == nil, "a whole recording: \(run.gap ?? "")")
        let recA = run.sound, recH = run.haptic, report = run.report, refs = run.references
        #expect(report.twoDevice && report.summary.incomplete == 0)
        let devices = Set(report.rows.flatMap { [$0.audio?.device, $0.haptic?.device] }.compactMap { $0 })
        #expect(devices == [Self.outB, Self.outMono])

        let l = RecordingAlignment.channel(recA.floatSamples, channels: 2, 0)
        let h = recH.floatSamples
        let at = RhythmRig.locate(l, refs.audio, frames: report.rows.map { $0.audio?.outputFrame })
        let ht = RhythmRig.locate(h, refs.haptic, frames: report.rows.map { $0.haptic?.outputFrame })
        #expect(at.allSatisfy { $0 != nil } && ht.allSatisfy { $0 != nil }, "every onset found in both recordings")
        guard at.allSatisfy({ $0 != nil }), ht.allSatisfy({ $0 != nil }) else { return }
        // Skew from the two captures' own monotonic stamps.
        var skews: [Double] = []
        for k in 0..<report.rows.count {
            guard let ta = recA.monotonicNanos(ofFrame: at[k]!), let th = recH.monotonicNanos(ofFrame: ht[k]!) else { continue }
            skews.append(Double(ta - th) / 1e6)
        }
        let engineSkews = report.rows.compactMap(\.skewMs)
        let sorted = skews.sorted()
        print("two-device rig: \(skews.count) beats, recorded skew (ms, capture stamps) min \(String(format: "%.3f", sorted.first ?? .nan)) "
              + "median \(String(format: "%.3f", sorted.isEmpty ? .nan : sorted[sorted.count / 2])) max \(String(format: "%.3f", sorted.last ?? .nan)); "
              + "engines' own skew max |\(String(format: "%.3f", engineSkews.map(abs).max() ?? .nan))| ms; period \(String(format: "%.2f", Double(period) / 48)) ms")
        #expect(skews.count == 32)
        let onePeriod = Double(period) / 48_000 * 1000
        #expect(skews.allSatisfy { abs($0) < onePeriod }, "recorded skews: \(skews)")
        #expect(engineSkews.allSatisfy { abs($0) < onePeriod }, "engine skews: \(engineSkews)")
    }
}
