import Foundation
import HapticALSA
import HapticEngine
import HapticEngineTesting
import HapticALSATesting
import HapticRender
import HapticTestSupport
import HapticSoundFile
import Testing

@testable import HapticKit

/// An assets folder for the felt rig test: the bundled beat_hit (its sound copied from
/// Assets/sfx) and `swell_hit`, one transient with a slow-swell sound (`slowSwell`).
private final class FeltRigAssets {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("hapticsynth-felt-rig-\(UUID().uuidString)")
        let sfx = url.appendingPathComponent("sfx")
        try FileManager.default.createDirectory(at: sfx, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: kitAssets + "/sfx/sfx_shield_impact.wav", toPath: sfx.appendingPathComponent("sfx_shield_impact.wav").path)
        let writer = try SoundFileWriter(path: sfx.appendingPathComponent("swell.wav").path, channels: 1, sampleRate: 48_000,
                                         sampleFormat: .float32)
        try writer.write(slowSwell)
        try writer.finish()
        try Data("""
            {"schema": "hapticsynth-cues", "version": 1, "cues": {
              "beat_hit": { "haptic": { "pattern": "heartbeat" }, "sfx": { "name": "sfx_shield_impact" } },
              "swell_hit": { "haptic": { "transient": { "intensity": 1, "sharpness": 0.5 } }, "sfx": { "name": "swell" } }
            }}
            """.utf8).write(to: url.appendingPathComponent("cues.json"))
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite("Felt timing through the sound-server rig", .serialized, .enabled(if: KitRig.isRunning, "needs scripts/rig.sh"))
struct FeltRhythmRigTests {
    /// Plays `beats` beats of `cue` at 100 BPM through the rig and records the sink's monitor;
    /// returns the report, the recorded onsets of each part (least squares against the part
    /// rendered alone) and the recorded L and H channels.
    static func session(_ cue: String, assets: String, beats: Int)
        throws -> (report: RhythmReport, audio: [Int?], haptic: [Int?], l: [Float], h: [Float], gap: String?)
    {
        let m = RhythmRig.manager(assets: assets)
        #expect(m.engineAvailable)
        let (hapticPart, sound) = try #require(m.state.withLock { s -> (PreparedPattern, PreparedPattern)? in
            guard let h = s.caches.cueHaptics[cue], let name = m.cueSheet[cue]?.sfx?.name, let a = s.caches.sounds[name] else { return nil }
            return (h, a)
        })
        let refH = RecordingAlignment.s16(RecordingAlignment.channel(OfflineRenderer.render(hapticPart, layout: .stereoPlusHaptic).samples, channels: 3, 2))
        let refA = RecordingAlignment.s16(RecordingAlignment.channel(OfflineRenderer.render(sound, layout: .stereoPlusHaptic).samples, channels: 3, 0))
        let capture = ALSACaptureDevice(name: KitRig.input, channels: 3, sampleRate: 48_000, periodFrames: 256, bufferFrames: 8192,
                                        seconds: Double(beats) * 0.6 + 12)
        try capture.start()
        let session = RhythmSession(manager: m, cue: cue, map: BeatMap(bpm: 100, beats: beats), lead: 0.2)
        session.run(wait: { t in
            while MonotonicClock.now() < t { usleep(UInt32(max(1_000, min(20_000, (t - MonotonicClock.now()) * 1e6)))) }  // the beat's time
        })
        let xruns = m.currentEngine?.xrunCount ?? -1
        m.shutDown()
        // Beats are 0.6 s apart: 0.6 s of silence is the end, never a gap between them.
        #expect(capture.waitForWholeSound(silence: 28_800), "the session recorded whole")
        let rec = capture.stop()
        let report = session.report(sampleRate: 48_000)
        let l = RecordingAlignment.channel(rec.floatSamples, channels: 3, 0)
        let h = RecordingAlignment.channel(rec.floatSamples, channels: 3, 2)
        let recH = RecordingAlignment.track(h, reference: refH, frames: report.rows.map { $0.haptic?.outputFrame })
        let recA = RecordingAlignment.track(l, reference: refA, frames: report.rows.map { $0.audio?.outputFrame })
        let gap = rec.overruns == 0 && xruns == 0 ? nil : "engine xruns \(xruns), capture overruns \(rec.overruns)"
        return (report, recA, recH, l, h, gap)
    }

    /// Felt skew in the recording: half of the Hilbert envelope of L minus that of H (ms),
    /// both in the window from 100 frames before the beat's earlier part to 0.5 s after it
    /// (beats are 0.6 s apart).
    static func feltSkew(l: [Float], h: [Float], audio: Int, haptic: Int) -> Double {
        let start = max(0, min(audio, haptic) - 100), end = min(l.count, min(audio, haptic) + 24_000)
        let a = envelopeOnsets(hilbertEnvelope(Array(l[start..<end]))).half
        let b = envelopeOnsets(hilbertEnvelope(Array(h[start..<end]))).half
        return Double(a - b) / 48
    }

    @Test("beat_hit and a slow-swell cue through the rig: recorded felt skew within 2 ms and recorded sample skew = planned, every beat")
    func feltTogetherThroughTheServer() throws {
        let assets = try FeltRigAssets()
        for cue in ["beat_hit", "swell_hit"] {
            let beats = 12
            let run = try rigSession("felt rig \(cue)", gap: \.gap) { try Self.session(cue, assets: assets.url.path, beats: beats) }
            #expect(run.gap == nil, "\(cue): the recording must be whole: \(run.gap ?? "")")
            let rows = run.report.rows
            #expect(rows.count == beats && run.report.summary.incomplete == 0, "\(cue)")
            // The engine's own record: every beat at the planned skew.
            #expect(run.report.summary.plannedSkewBeats == beats, "\(cue): engine skew vs plan max \(run.report.summary.maxAbsSkewFromPlanSamples)")
            let planned = try #require(rows.first?.plannedSkewSamples)
            #expect(run.audio.allSatisfy { $0 != nil } && run.haptic.allSatisfy { $0 != nil }, "\(cue): every onset found in the recording")
            guard run.audio.allSatisfy({ $0 != nil }), run.haptic.allSatisfy({ $0 != nil }) else { continue }
            let recorded = zip(run.audio, run.haptic).map { Double($0! - $1!) }
            let felt = zip(run.audio, run.haptic).map { Self.feltSkew(l: run.l, h: run.h, audio: $0!, haptic: $1!) }
            print("felt rig \(cue): planned skew \(planned) samples; recorded sample skews \(Set(recorded).sorted()); "
                  + "recorded felt skew min \(String(format: "%.3f", felt.min()!)) max \(String(format: "%.3f", felt.max()!)) ms; "
                  + "reported felt skew max |\(String(format: "%.3f", run.report.summary.maxAbsFeltSkewMs))| ms")
            // (1) Sample lockstep in what the server received: the planned skew exactly, every beat.
            #expect(recorded.allSatisfy { $0 == planned }, "\(cue): recorded sample skews \(recorded), planned \(planned)")
            // (2) Felt together in what the server received.
            for (k, skew) in felt.enumerated() { #expect(abs(skew) <= 2, "\(cue) beat \(k + 1): recorded felt skew \(skew) ms") }
            if cue == "swell_hit" {
                // The swell moved the haptic: it starts ~the swell's half-envelope after the sound.
                #expect(planned < -48 * 190, "the felt alignment delays the haptic behind the slow swell: planned \(planned) samples")
            }
        }
    }
}
