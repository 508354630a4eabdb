import Foundation
import HapticALSATesting
import HapticEngineTesting
import HapticKit
import Testing

/// The studio's audition through the sound-server rig (scripts/rig.sh): `hapticsynth-studio` on
/// a folder with a sound of three noise hits plays through the rig's 3-channel sink (L,R,H), its
/// monitor recorded: the haptic's hits are felt at the pattern's times, the sound and the haptic
/// start on the same frame, and an edit made through the API while the selection loops is gone
/// from the next pass.
@Suite("Studio audition through the sound-server rig", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["HAPTICSYNTH_RIG_DIR"] != nil, "needs scripts/rig.sh"))
struct StudioAuditionRigTests {
    static let env = ProcessInfo.processInfo.environment
    static let out = env["HAPTICSYNTH_RIG_OUT"] ?? "hs_out"
    static let input = env["HAPTICSYNTH_RIG_IN"] ?? "hs_in"
    static let outB = env["HAPTICSYNTH_RIG_OUT_B"] ?? "hs_out_b"
    static let inB = env["HAPTICSYNTH_RIG_IN_B"] ?? "hs_in_b"
    static let outMono = env["HAPTICSYNTH_RIG_OUT_MONO"] ?? "hs_out_mono"
    static let inMono = env["HAPTICSYNTH_RIG_IN_MONO"] ?? "hs_in_mono"

    struct Run {
        var left: [Float], haptic: [Float]
        var hitTimes: [Double]
        var reference: [Float]
        /// The render of the pattern after the edit.
        var edited: [Float]
        var passesBeforeEdit: Int, passesAfterEdit: Int
        var overruns: Int
    }

    /// One session: loop the whole sound, delete the second hit during the first pass, stop once
    /// the pass after the first one scheduled after the edit is scheduled (that one has played
    /// its hits: passes are scheduled a fraction of a second ahead).
    static func session() async throws -> Run {
        let folder = try AuditionRecording.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let studio = try StudioProcess([folder.path, "-D", out, "--layout", "L,R,H", "--period", "1024", "--buffer-periods", "4"])
        defer { studio.stop() }
        let view = try await studio.request("GET", "/api/sound?name=hits.wav")
        let haptic = try #require((view.json as? [String: Any])?["haptic"] as? [String: Any])
        let hitTimes = ((haptic["transients"] as? [[String: Any]]) ?? []).compactMap { $0["time"] as? Double }
        let pattern = try AHAPPattern.decode(from: Array(try await studio.text("/api/pattern?name=hits.wav").utf8)).pattern
        let reference = RecordingAlignment.s16(try AuditionRecording.reference(pattern))

        let capture = ALSACaptureDevice(name: input, channels: 3, sampleRate: 48_000, periodFrames: 256, bufferFrames: 8192, seconds: 60)
        try capture.start()
        let played = try await studio.request("POST", "/api/sounds/hits.wav/play", body: #"{"loop": true}"#)
        #expect(played.status == 200, "\(played.json)")
        func transport() async -> [String: Any] { ((try? await studio.request("GET", "/api/transport"))?.json as? [String: Any]) ?? [:] }
        func passes() async -> Int { (await transport())["passes"] as? Int ?? 0 }
        #expect(await waitUntil(60) {
            let t = await transport()
            return ((t["passes"] as? Int) ?? 0) >= 1 && ((t["position"] as? Double) ?? 0) > 0.35
        })
        let beforeEdit = await passes()
        let edit = try await studio.request("POST", "/api/edit", body: #"{"name": "hits.wav", "edit": {"op": "deleteTransient", "index": 1}}"#)
        #expect(edit.status == 200)
        let afterEdit = await passes()
        let text = try await studio.text("/api/pattern?name=hits.wav")
        let edited = RecordingAlignment.s16(try AuditionRecording.reference(try AHAPPattern.decode(from: Array(text.utf8)).pattern))
        #expect(await waitUntil(60) { await passes() >= afterEdit + 3 })  // the edited pass played through, a pass to spare
        let stopped = try await studio.request("POST", "/api/stop")
        #expect((stopped.json as? [String: Any])?["playing"] as? Bool == false)
        #expect(capture.waitForSilence(after: capture.framesRecorded, frames: 9_600, timeout: 30), "silence after the stop")
        let recording = capture.stop()
        #expect(studio.stop() == 0, "the studio ends on SIGTERM: \(studio.errors.withLock { $0 })")
        return Run(
            left: RecordingAlignment.channel(recording.floatSamples, channels: 3, 0),
            haptic: RecordingAlignment.channel(recording.floatSamples, channels: 3, 2),
            hitTimes: hitTimes, reference: reference, edited: edited, passesBeforeEdit: beforeEdit, passesAfterEdit: afterEdit, overruns: recording.overruns)
    }

    @Test("loop through the rig: hits felt at the pattern's times, sound and haptic within 1 ms, an edit gone from the next pass")
    func auditionThroughTheRig() async throws {
        var run = try await Self.session()
        if run.overruns > 0 {
            print("studio audition rig: capture overruns \(run.overruns); running the session once more")
            run = try await Self.session()
        }
        #expect(run.overruns == 0, "a whole recording")
        let times = run.hitTimes
        try #require(times.count == 3 && zip(times, AuditionRecording.hitTimes).allSatisfy { abs($0 - $1) < 0.005 }, "the analysis finds the hits: \(times)")
        try AuditionRecording.checkLoop(
            left: run.left, haptic: run.haptic, times: times, before: run.reference, after: run.edited,
            passesBeforeEdit: run.passesBeforeEdit, passesAfterEdit: run.passesAfterEdit, label: "studio audition rig", tolerance: 0.05)
    }

    /// Loops a selection of the three hits for 8 passes with the sound on `soundDevice` and the
    /// haptic on `hapticDevice`, records `captures`, and checks every hit of every pass played and
    /// the sound − haptic skew (ms) as `tracks` dates the two recordings' hits.
    static func twoDeviceLoop(
        _ label: String, soundDevice: String, hapticDevice: String, captures: [(name: String, channels: Int)],
        tracks: ([ALSARecording], Int64) -> (sound: AuditionRecording.Track, haptic: AuditionRecording.Track)
    ) async throws -> (median: Double, p95: Double, skews: [Double]) {
        let folder = try AuditionRecording.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let period = 1024, passes = 8
        // A selection of the three hits: 1.25 s passes, 8 of them in 10 s.
        let (start, end) = (0.2, 1.45)
        let studio = try StudioProcess([folder.path, "-D", soundDevice, "--haptic-device", hapticDevice, "--period", String(period), "--buffer-periods", "4"])
        defer { studio.stop() }
        let view = try await studio.request("GET", "/api/sound?name=hits.wav")
        let haptic = try #require((view.json as? [String: Any])?["haptic"] as? [String: Any])
        let times = ((haptic["transients"] as? [[String: Any]]) ?? []).compactMap { $0["time"] as? Double }
        try #require(times.count == 3 && zip(times, AuditionRecording.hitTimes).allSatisfy { abs($0 - $1) < 0.005 }, "the analysis finds the hits: \(times)")
        let text = try await studio.text("/api/pattern?name=hits.wav")
        let reference = RecordingAlignment.s16(try AuditionRecording.reference(try AHAPPattern.decode(from: Array(text.utf8)).pattern))
        // The studio opens two devices at its start; it says when their clocks have settled
        // (through a sound server the streams' latency estimates take about 10 s to agree), as
        // a designer's first audition usually comes well after the studio opened.
        let settling = AuditionRecording.monotonicNanos()
        #expect(await waitUntil(90) {
            (((try? await studio.request("GET", "/api/transport"))?.json as? [String: Any])?["devicesSettled"] as? Bool) == true
        }, "the devices' clocks settle")
        print("\(label): devices settled \(String(format: "%.1f", Double(AuditionRecording.monotonicNanos() - settling) / 1e9)) s after the first view")
        let devices = captures.map { ALSACaptureDevice(name: $0.name, channels: $0.channels, sampleRate: 48_000, periodFrames: 256, bufferFrames: 8192, seconds: 60) }
        for device in devices { try device.start() }
        // A capture's first second can hold bursts that nothing played now (a monitor's earlier
        // audio, seen up to 0.65 s into a capture): the passes are looked for after the play
        // request, which comes once the captures have run a second, and each from the first
        // burst that the pass's other hits follow.
        #expect(await waitUntil(30) { devices.allSatisfy { $0.framesRecorded >= 48_000 } }, "the captures run")
        let playRequested = AuditionRecording.monotonicNanos()
        let played = try await studio.request("POST", "/api/sounds/hits.wav/play", body: #"{"loop": true, "start": \#(start), "end": \#(end)}"#)
        #expect(played.status == 200, "\(played.json)")
        // Pass `passes` + 2 scheduled (a lead ahead of its start): the first `passes` have played their hits.
        #expect(await waitUntil(120) {
            (((try? await studio.request("GET", "/api/transport"))?.json as? [String: Any])?["passes"] as? Int ?? 0) >= passes + 2
        }, "the loop plays \(passes) passes")
        _ = try await studio.request("POST", "/api/stop")
        #expect(devices.allSatisfy { $0.waitForSilence(after: $0.framesRecorded, frames: 9_600, timeout: 30) }, "silence after the stop")
        let recordings = devices.map { $0.stop() }
        #expect(studio.stop() == 0)
        #expect(recordings.allSatisfy { $0.overruns == 0 }, "whole recordings")
        let (soundTrack, hapticTrack) = tracks(recordings, playRequested)
        let passFrames = Int(((end - start) * 48_000).rounded())
        let found = AuditionRecording.twoDeviceSkews(sound: soundTrack, haptic: hapticTrack, reference: reference, times: times,
                                                     start: start, passFrames: passFrames, passes: passes)
        // A pass the loop skipped (its thread held up past the pass's start on a loaded machine:
        // silent by design) has no hit in either recording; up to two are allowed.
        let skipped = (0..<passes).filter { k in found.count == 3 * passes && found[3 * k..<3 * k + 3].allSatisfy { $0 == nil } }
        let skews = found.compactMap { $0 }, sorted = skews.sorted(), magnitudes = skews.map(abs).sorted()
        let median = sorted.isEmpty ? .nan : sorted[sorted.count / 2]
        let p95 = magnitudes.isEmpty ? .nan : magnitudes[min(magnitudes.count - 1, magnitudes.count * 95 / 100)]
        // Where the passes landed, for a failure: each track's bursts (ms after the play request's
        // frame), against the grid (a pass every passFrames).
        func landed(_ track: AuditionRecording.Track, _ threshold: Float) -> String {
            let origin = track.from ?? 0
            return AuditionRecording.burstStarts(track.samples, threshold: threshold, from: origin)
                .map { String(format: "%.1f", Double($0 - origin) / 48) }.joined(separator: " ")
        }
        func f(_ x: Double) -> String { String(format: "%+.3f", x) }
        print("\(label): \(skews.count) hits of \(passes) passes (skipped \(skipped)), sound − haptic (ms): "
              + "median \(f(median)) p95 |\(String(format: "%.3f", p95))| min \(f(sorted.first ?? .nan)) max \(f(sorted.last ?? .nan)); "
              + "period \(String(format: "%.2f", Double(period) / 48)) ms; each: \(found.map { $0.map(f) ?? "none" })")
        #expect(found.count == 3 * passes && skipped.count <= 2 && skews.count == 3 * (passes - skipped.count),
                """
                every hit of every pass played found in both recordings (passes skipped: \(skipped)): \(found); \
                a pass every \(String(format: "%.1f", Double(passFrames) / 48)) ms; the sound's bursts at \
                [\(landed(soundTrack, 0.05))] ms, the haptic's at [\(landed(hapticTrack, 0.001))] ms (after the play request)
                """)
        return (median, p95, skews)
    }

    @Test("two devices of one card (a USB 5.1 card split into front and LFE sinks), once their clocks settled: a loop's every hit within 1 ms in the card's own recording")
    func twoDevicesOfOneCard() async throws {
        let front = Self.env["HAPTICSYNTH_RIG_OUT_SPLIT_FRONT"] ?? "hs_out_split_front"
        let lfe = Self.env["HAPTICSYNTH_RIG_OUT_SPLIT_LFE"] ?? "hs_out_split_lfe"
        let card = Self.env["HAPTICSYNTH_RIG_IN_SPLIT"] ?? "hs_in_split"
        // The card's monitor: FL FR RL RR FC LFE, both devices in one stream, compared to the sample.
        let run = try await Self.twoDeviceLoop(
            "studio audition rig, one card split in two", soundDevice: front, hapticDevice: lfe, captures: [(card, 6)]
        ) { recordings, request in
            (.init(recordings[0], channels: 6, 0, after: request, sampleClock: true), .init(recordings[0], channels: 6, 5, after: request, sampleClock: true))
        }
        #expect(run.skews.allSatisfy { abs($0) < 1024.0 / 48 }, "each hit within one period: \(run.skews)")
        // Every hit, not the p95: this recording is exact. (A loop in the first 10 s after the
        // devices open follows the server's estimates while they still disagree: up to 3.9 ms
        // apart, bench/RESULTS.md; the studio opens two devices at its start for that.)
        #expect(run.skews.allSatisfy { abs($0) < 1 }, "sound and haptic in lockstep within 1 ms, every hit: median skew \(run.median) ms, p95 |skew| \(run.p95) ms: \(run.skews)")
    }

    @Test("two devices (--haptic-device): the sound on the stereo sink, the haptic on the mono sink, recorded by two captures; every hit of a loop found, each within a period (within 1 ms the aim: a known intermittent miss of this instrument)")
    func twoDevices() async throws {
        let run = try await Self.twoDeviceLoop(
            "studio audition rig, two devices (capture stamps)", soundDevice: Self.outB, hapticDevice: Self.outMono,
            captures: [(Self.inB, 2), (Self.inMono, 1)]
        ) { recordings, request in
            (.init(recordings[0], channels: 2, 0, after: request), .init(recordings[1], channels: 1, 0, after: request))
        }
        let (median, p95) = (run.median, run.p95)
        // Two cards' recordings meet only through their captures' stamps, which carry each
        // capture stream's clock error through the sound server (the captures open just before
        // the loop: their estimates are in their first, unsettled seconds); the lockstep is
        // measured to the sample on the split card (twoDevicesOfOneCard). Here every hit must be
        // found and within a period (a hit a period off is a start in the wrong block).
        #expect(run.skews.allSatisfy { abs($0) < 1024.0 / 48 }, "each hit within one period: \(run.skews)")
        withKnownIssue("two devices through the sound server: the skew passes 1 ms now and then", isIntermittent: true) {
            #expect(abs(median) < 1 && p95 < 1, "sound and haptic in lockstep within 1 ms: median skew \(median) ms, p95 |skew| \(p95) ms")
        }
    }
}
