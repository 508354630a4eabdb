import Foundation
import HapticCLI
import HapticKit
import HapticPattern
import HapticRender
import HapticSoundFile
import Testing

/// `hapticsynth rhythm` run in-process (an async verb: parsed by the real root command,
/// then its `execute(into:)` is awaited).
struct RhythmRun {
    var status: Int32
    var stdout: String
    var stderr: String

    init(_ arguments: [String]) async throws {
        let command = try Hapticsynth.parseAsRoot(arguments)
        let rhythm = try #require(command as? Rhythm, "not the rhythm verb: \(arguments)")
        var output = CapturedOutput()
        status = await rhythm.execute(into: &output)
        stdout = output.standardOutput
        stderr = output.standardError
    }
}

/// The `--json` document.
struct RhythmJSON: Decodable {
    var mode: String
    var report: RhythmReport
    var summary: RhythmReport.Summary
}

let rhythmAssets = repositoryRoot.appendingPathComponent("Assets").path
let rhythmHaptics = repositoryRoot.appendingPathComponent("Haptics").path

@Suite("hapticsynth rhythm")
struct RhythmCommandTests {
    /// The cue beat_hit alone, rendered offline (haptic = heartbeat, L/R = the shield impact).
    /// `haptic` / `sound` false: without that part.
    static func beatHitReference(haptic: Bool = true, sound: Bool = true) throws -> RenderedAudio {
        let heartbeat = try AHAPPattern.decode(from: Array(try Data(contentsOf: URL(fileURLWithPath: rhythmHaptics + "/heartbeat.ahap"))))
        var elements = haptic ? heartbeat.pattern.elements : []
        if sound {
            elements.append(.event(Event(time: 0, type: .audioCustom, parameters: [EventParameter(.audioVolume, 1)],
                                         waveformPath: "sfx/sfx_shield_impact.wav", useVolumeEnvelope: false)))
        }
        let prepared = try PreparedPattern(AHAPPattern(elements: elements), profile: .bassShaker, sampleRate: 48000,
                                           sounds: SoundLibrary(assetsFolder: rhythmAssets), strict: true)
        return OfflineRenderer.render(prepared, layout: .stereoPlusHaptic)
    }

    @Test("-o: 16 beats at 100 BPM land every 28800 frames, sound and haptic on the same frame, as the file shows")
    func offlineSession() async throws {
        let temp = try TempFolder()
        let path = temp.url.appendingPathComponent("session.wav").path
        let run = try await RhythmRun(["rhythm", "--bpm", "100", "--beats", "16", "-o", path, "--bits", "32f", "--json",
                                       "--haptics", rhythmHaptics, "--assets", rhythmAssets])
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try JSONDecoder().decode(RhythmJSON.self, from: Data(run.stdout.utf8))
        #expect(doc.mode.hasPrefix("offline"))
        #expect(doc.summary.beats == 16 && doc.summary.incomplete == 0)
        // Sample-level lockstep: every beat's skew is exactly the cue's planned (felt-alignment) skew.
        #expect(doc.summary.plannedSkewBeats == 16 && doc.summary.maxAbsSkewFromPlanSamples == 0)
        #expect(doc.summary.hapticSpacingErrorMin == 0 && doc.summary.hapticSpacingErrorMax == 0)
        let rows = doc.report.rows
        let frames = rows.compactMap { $0.haptic?.outputFrame }
        #expect(frames.count == 16)
        for i in 1..<frames.count { #expect(frames[i] - frames[i - 1] == 28_800, "beat \(i + 1)") }
        for row in rows {
            let planned = try #require(row.plannedSkewSamples)
            #expect(row.audio.map { Double($0.outputFrame) } == row.haptic.map { Double($0.outputFrame) + planned }, "beat \(row.beat)")
        }
        let audioFrames = rows.compactMap { $0.audio?.outputFrame }
        #expect(audioFrames.count == 16)

        // The file: silence before beat 1, then exactly the cue rendered alone until beat 2.
        let file = try SoundFileReader.read(path)
        #expect(file.channels == 3 && file.sampleRate == 48000)
        let reference = try Self.beatHitReference()
        // Each part at its own reported frame (the felt alignment delays the part felt earlier).
        let first = Int(min(frames[0], audioFrames[0]))
        #expect(file.samples[0..<(first * 3)].allSatisfy { $0 == 0 }, "nothing before the first beat")
        let span = min(28_000, reference.frames)
        let hapticAlone = try Self.beatHitReference(sound: false), soundAlone = try Self.beatHitReference(haptic: false)
        for (channel, start, part) in [(0, Int(audioFrames[0]), soundAlone), (1, Int(audioFrames[0]), soundAlone), (2, Int(frames[0]), hapticAlone)] {
            let got = (0..<span).map { file.samples[(start + $0) * 3 + channel] }
            let want = (0..<span).map { $0 < part.frames ? part.samples[$0 * 3 + channel] : 0 }
            // Sample for sample at the reported frame. Not bit-exact on H: the felt alignment starts the
            // haptic voice a few frames off the sound's (and the engine's block grid), and the float
            // rounding of the output stage then differs by up to ~4e-7 (-128 dBFS); 1e-6 allows that
            // and nothing a misplaced frame would give.
            let worst = zip(got, want).map { abs($0 - $1) }.max() ?? .infinity
            #expect(got.count == want.count && worst <= 1e-6, "beat 1 channel \(channel) equals the cue's part rendered alone at the reported frame (worst difference \(worst))")
            #expect(want.contains { $0 != 0 }, "the reference is not silence")
        }
        // Every beat: the first sample over -40 dBFS after the previous beat's body is at the
        // reported frame plus the reference's own first such sample, on H and on L.
        let threshold: Float = 0.01
        func firstAbove(_ channel: Int, in samples: [Float], channels: Int, from: Int) -> Int? {
            var i = from
            while i * channels + channel < samples.count {
                if abs(samples[i * channels + channel]) > threshold { return i }
                i += 1
            }
            return nil
        }
        let refH = try #require(firstAbove(2, in: reference.samples, channels: 3, from: 0))
        let refL = try #require(firstAbove(0, in: reference.samples, channels: 3, from: 0))
        for (k, (f, a)) in zip(frames, audioFrames).enumerated() {
            #expect(firstAbove(2, in: file.samples, channels: 3, from: Int(f) - 2_000) == Int(f) + refH, "haptic onset of beat \(k + 1)")
            #expect(firstAbove(0, in: file.samples, channels: 3, from: Int(a) - 2_000) == Int(a) + refL, "audio onset of beat \(k + 1)")
        }
        #expect(file.frames > Int(frames.last!) + reference.frames / 2, "the last beat is in the file")
    }

    @Test("-o: felt skew (half of the Hilbert envelope, sound minus haptic) within 2 ms on every beat; the file ends in silence")
    func offlineFeltSkew() async throws {
        let temp = try TempFolder()
        let path = temp.url.appendingPathComponent("felt.wav").path
        let run = try await RhythmRun(["rhythm", "--bpm", "120", "--beats", "8", "-o", path, "--bits", "32f", "--json",
                                       "--haptics", rhythmHaptics, "--assets", rhythmAssets])
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try JSONDecoder().decode(RhythmJSON.self, from: Data(run.stdout.utf8))
        #expect(doc.summary.plannedSkewBeats == 8 && doc.summary.maxAbsSkewFromPlanSamples == 0, "sample-level lockstep stays exact")
        let file = try SoundFileReader.read(path)
        let frames = doc.report.rows.compactMap { $0.haptic?.outputFrame }.map { Int($0) }
        #expect(frames.count == 8)
        func channel(_ c: Int, _ range: Range<Int>) -> [Float] { range.map { file.samples[$0 * 3 + c] } }
        for (k, f) in frames.enumerated() {
            // One beat's window: from a little before it to the next beat (24000 frames at 120 BPM).
            let range = (f - 100)..<min(file.frames, f + 24_000)
            let audio = envelopeOnsets(hilbertEnvelope(channel(0, range))).half
            let haptic = envelopeOnsets(hilbertEnvelope(channel(2, range))).half
            let skewMs = Double(audio - haptic) / 48
            #expect(abs(skewMs) <= 2, "beat \(k + 1): felt skew \(skewMs) ms")
            #expect(haptic >= 100, "beat \(k + 1): the haptic is felt after its beat, not before")
        }
        let last = file.samples.suffix(480 * 3)
        #expect(last.allSatisfy { abs($0) < 0.001 }, "the last 10 ms of the session are below -60 dBFS")
    }

    @Test("-o with a text beat map: the beats land at round(t·fs) apart; the table is printed")
    func offlineBeatMap() async throws {
        let temp = try TempFolder()
        let map = try temp.file("song.beats", "# a swing feel\n0\n0.5\n\n1.25   # late\n1.75\n")
        let path = temp.url.appendingPathComponent("map.flac").path
        let run = try await RhythmRun(["rhythm", "--beatmap", map, "-o", path, "--haptics", rhythmHaptics, "--assets", rhythmAssets])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("skew (ms)") == true)
        // Every beat: the skew in samples is the planned one (the felt alignment's), felt skew 0.
        let rows = lines.dropFirst().prefix(4).map { $0.split(separator: " ") }
        #expect(rows.count == 4 && rows.allSatisfy { $0.count == 9 && $0[5] == $0[6] && $0[8] == "0.000" }, "\(run.stdout)")
        #expect(run.stdout.contains("summary: 4 beats (beat map), cue beat_hit"))
        #expect(run.stdout.contains("beat spacing minus round(Δt·fs): haptic 0...0 frames"))
        #expect(try SoundFileReader.info(path).channels == 3)
    }

    @Test("a JSON beat map with an object and 'beats' works; the frames follow it")
    func jsonBeatMap() async throws {
        let temp = try TempFolder()
        let map = try temp.file("song.json", #"{"beats": [0, 0.25, 0.75]}"#)
        let path = temp.url.appendingPathComponent("j.wav").path
        let run = try await RhythmRun(["rhythm", "--beatmap", map, "-o", path, "--json", "--haptics", rhythmHaptics, "--assets", rhythmAssets])
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try JSONDecoder().decode(RhythmJSON.self, from: Data(run.stdout.utf8))
        let frames = doc.report.rows.compactMap { $0.haptic?.outputFrame }
        #expect(frames.count == 3)
        if frames.count == 3 { #expect(frames[1] - frames[0] == 12_000 && frames[2] - frames[1] == 24_000) }
    }

    @Test("bad beat maps: one line naming the file and the place, exit 1, no file written", arguments: [
        ("bad.txt", "0\n0.6\nsoon\n", "bad.txt: line 3: expected a time in seconds, found \"soon\""),
        ("back.txt", "0\n1\n0.5\n", "back.txt: line 3: time 0.5 does not come after the previous beat (1.0); times must increase"),
        ("neg.json", "[0, -1]", "neg.json: [1]: time -1.0 is not between 0 and 86400 seconds"),
        ("str.json", #"{"beats": [0, "x"]}"#, "str.json: beats[1]: expected a number of seconds"),
        ("nobeats.json", #"{"times": [0]}"#, "nobeats.json: JSON object without a \"beats\" array"),
        ("broken.json", "[0, 1", "broken.json: not valid JSON"),
        ("empty.txt", "# nothing\n\n", "empty.txt: no beat times"),
    ])
    func badBeatMap(_ name: String, _ text: String, _ expected: String) async throws {
        let temp = try TempFolder()
        let map = try temp.file(name, text)
        let out = temp.url.appendingPathComponent("out.wav").path
        let run = try await RhythmRun(["rhythm", "--beatmap", map, "-o", out, "--haptics", rhythmHaptics, "--assets", rhythmAssets])
        #expect(run.status == 1)
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("a missing beat map file, an unknown cue, a missing folder: one line, exit 1", arguments: [
        (["--beatmap", "/nonexistent/map.txt"], "/nonexistent/map.txt: cannot read the beat map"),
        (["--cue", "no_such_cue"], "no cue named \"no_such_cue\""),
        (["--assets", "/nonexistent-assets"], "/nonexistent-assets: no such folder (--assets)"),
    ])
    func badSetup(_ extra: [String], _ expected: String) async throws {
        let temp = try TempFolder()
        let out = temp.url.appendingPathComponent("out.wav").path
        var args = ["rhythm", "-o", out, "--haptics", rhythmHaptics]
        if !extra.contains("--assets") { args += ["--assets", rhythmAssets] }
        let run = try await RhythmRun(args + extra)
        #expect(run.status == 1)
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("no such playback device: one line, exit 1, quickly")
    func noDevice() async throws {
        let t0 = Date()
        let run = try await RhythmRun(["rhythm", "-D", "hs_no_such_pcm", "--beats", "4", "--haptics", rhythmHaptics, "--assets", rhythmAssets])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("rhythm: no playback device:"), "\(run.stderr)")
        #expect(run.stderr.contains("hs_no_such_pcm"))
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(run.stdout.isEmpty)
        #expect(Date().timeIntervalSince(t0) < 10, "no hang")
    }

    @Test("option errors are refused by the parser", arguments: [
        ["--bpm", "0"], ["--bpm", "nan"], ["--beats", "0"], ["--lead", "0"], ["--lead", "20"],
        ["--beatmap", "x.txt", "--bpm", "90"], ["--beatmap", "x.txt", "--beats", "8"],
        ["-o", "x.wav", "--haptic-device", "hw:1"], ["-o", "x.wav", "-D", "hw:0"], ["--bits", "12"],
        ["--profile", "no-such-profile"], ["--period", "3"],
    ])
    func optionErrors(_ args: [String]) {
        #expect(throws: (any Error).self) { try Hapticsynth.parseAsRoot(["rhythm"] + args) }
    }
}
