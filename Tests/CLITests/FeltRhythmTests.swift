import Foundation
import HapticCLI
import HapticKit
import HapticRender
import HapticSoundFile
import Testing

/// An assets folder with a slow-swell sound effect (`sfx/swell.wav`: 220 Hz under a
/// quadratic rise over 300 ms, then a 150 ms fall; its Hilbert envelope reaches half its peak
/// ~212 ms in) and cues pairing it with one transient under each alignment.
struct SwellAssets {
    let folder: TempFolder
    var path: String { folder.url.path }

    /// The swell's half-envelope, from its first sample (ms): 300·√0.5.
    static let swellHalfMs = 300 * 0.5.squareRoot()

    init(extraCues: String = "") throws {
        folder = try TempFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("sfx"), withIntermediateDirectories: true)
        let fs = 48_000.0
        let samples = (0..<Int(0.45 * fs)).map { i -> Float in
            let t = Double(i) / fs
            let envelope = t < 0.3 ? (t / 0.3) * (t / 0.3) : max(0, 1 - (t - 0.3) / 0.15)
            return Float(0.8 * envelope * sin(2 * Double.pi * 220 * t))
        }
        let writer = try SoundFileWriter(path: folder.url.appendingPathComponent("sfx/swell.wav").path, channels: 1,
                                         sampleRate: 48_000, sampleFormat: .float32)
        try writer.write(samples)
        try writer.finish()
        let transient = #"{ "transient": { "intensity": 1, "sharpness": 0.5 } }"#
        try folder.file("cues.json", """
            {"schema": "hapticsynth-cues", "version": 1, "cues": {
              "swell_hit": { "haptic": \(transient), "sfx": { "name": "swell" } },
              "swell_sample": { "haptic": \(transient), "sfx": { "name": "swell" }, "align": "sample" },
              "swell_late": { "haptic": \(transient), "sfx": { "name": "swell" }, "hapticOffsetMs": 20 },
              "swell_early": { "haptic": \(transient), "sfx": { "name": "swell" }, "hapticOffsetMs": -20 }\(extraCues)
            }}
            """)
    }
}

@Suite("rhythm: felt alignment of a cue's sound and haptic")
struct FeltRhythmTests {
    /// Renders `cue` for `beats` beats at 120 BPM offline; returns the report and the file.
    static func session(cue: String, assets: String, beats: Int = 4) async throws -> (RhythmJSON, SoundBuffer) {
        let out = try TempFolder()
        let path = out.url.appendingPathComponent("felt.wav").path
        let run = try await RhythmRun(["rhythm", "--bpm", "120", "--beats", "\(beats)", "-o", path, "--bits", "32f", "--json",
                                       "--cue", cue, "--haptics", rhythmHaptics, "--assets", assets])
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try JSONDecoder().decode(RhythmJSON.self, from: Data(run.stdout.utf8))
        return (doc, try SoundFileReader.read(path))
    }

    /// Per beat: the felt skew measured on the file (half of the Hilbert envelope of the audio
    /// channel L minus that of the haptic channel H, in ms), each in the window from 100 frames
    /// before the beat's earlier part to the next beat (24000 frames at 120 BPM).
    static func fileFeltSkews(_ doc: RhythmJSON, _ file: SoundBuffer) throws -> [Double] {
        func channel(_ c: Int, _ range: Range<Int>) -> [Float] { range.map { file.samples[$0 * 3 + c] } }
        return try doc.report.rows.map { row in
            let a = Int(try #require(row.audio).outputFrame), h = Int(try #require(row.haptic).outputFrame)
            let range = (min(a, h) - 100)..<min(file.frames, min(a, h) + 24_000)
            let audio = envelopeOnsets(hilbertEnvelope(channel(0, range))).half
            let haptic = envelopeOnsets(hilbertEnvelope(channel(2, range))).half
            return Double(audio - haptic) / 48
        }
    }

    @Test("beat_hit (default: felt alignment): felt skew from the file within 2 ms on every beat, sample skew = planned on every beat")
    func beatHitFeltAndSampleLockstep() async throws {
        let (doc, file) = try await Self.session(cue: "beat_hit", assets: rhythmAssets, beats: 8)
        let rows = doc.report.rows
        #expect(rows.count == 8 && doc.summary.incomplete == 0)
        for row in rows {
            let planned = try #require(row.plannedSkewSamples)
            #expect(row.skewSamples == planned, "beat \(row.beat): sample skew \(String(describing: row.skewSamples)), planned \(planned)")
            #expect(abs(try #require(row.feltSkewMs)) <= 2, "beat \(row.beat): reported felt skew")
        }
        #expect(doc.summary.plannedSkewBeats == 8 && doc.summary.maxAbsFeltSkewMs <= 2 && doc.summary.feltBeats == 8)
        let skews = try Self.fileFeltSkews(doc, file)
        for (k, skew) in skews.enumerated() { #expect(abs(skew) <= 2, "beat \(k + 1): felt skew in the file \(skew) ms") }
        print("felt rhythm beat_hit: planned skew \(rows[0].plannedSkewSamples!) samples; felt skew in the file \(skews.map { String(format: "%.3f", $0) }) ms; reported \(rows.map { String(format: "%.3f", $0.feltSkewMs!) })")
    }

    @Test("a slow-swell SFX: the felt alignment delays the haptic by the swell's rise; felt together in the file; sample skew = planned")
    func swellMovesTheHaptic() async throws {
        let assets = try SwellAssets()
        let (doc, file) = try await Self.session(cue: "swell_hit", assets: assets.path)
        let skews = try Self.fileFeltSkews(doc, file)
        for row in doc.report.rows {
            let planned = try #require(row.plannedSkewSamples)
            // The haptic comes about the swell's half-envelope after the sound (less the transient's own few ms).
            #expect(planned < -(Self.ms(SwellAssets.swellHalfMs) - Self.ms(5)) && planned > -(Self.ms(SwellAssets.swellHalfMs) + Self.ms(2)),
                    "planned skew \(planned) samples")
            #expect(row.skewSamples == planned, "beat \(row.beat): the sample skew is the planned one exactly")
            #expect(row.audio!.outputFrame < row.haptic!.outputFrame, "the sound is not moved earlier: the haptic waits")
            #expect(abs(row.feltSkewMs!) <= 2, "beat \(row.beat): reported felt skew \(row.feltSkewMs!) ms")
        }
        for (k, skew) in skews.enumerated() { #expect(abs(skew) <= 2, "beat \(k + 1): felt skew in the file \(skew) ms") }
        print("felt rhythm swell_hit: planned skew \(doc.report.rows[0].plannedSkewSamples!) samples; felt skew in the file \(skews.map { String(format: "%.3f", $0) }) ms")
    }

    @Test("align: sample keeps the first samples together; the report's felt skew says what the file shows (the swell's rise)")
    func sampleAlignmentReportsTheFeltSkew() async throws {
        let assets = try SwellAssets()
        let (doc, file) = try await Self.session(cue: "swell_sample", assets: assets.path)
        let skews = try Self.fileFeltSkews(doc, file)
        for (row, skew) in zip(doc.report.rows, skews) {
            #expect(row.plannedSkewSamples == 0 && row.skewSamples == 0, "beat \(row.beat)")
            #expect(skew > SwellAssets.swellHalfMs - 10, "beat \(row.beat): the swell is felt late: \(skew) ms")
            #expect(abs(row.feltSkewMs! - skew) <= 0.5, "beat \(row.beat): reported \(row.feltSkewMs!) ms, file \(skew) ms")
        }
        #expect(doc.summary.maxAbsFeltSkewMs > SwellAssets.swellHalfMs - 10)
    }

    @Test("hapticOffsetMs: +20 delays the haptic 960 samples after the sample alignment, -20 delays the sound instead")
    func explicitOffsetIsHonoured() async throws {
        let assets = try SwellAssets()
        for (cue, planned, hapticLater) in [("swell_late", -960.0, true), ("swell_early", 960.0, false)] {
            let (doc, _) = try await Self.session(cue: cue, assets: assets.path)
            #expect(doc.summary.plannedSkewBeats == 4, "\(cue)")
            for row in doc.report.rows {
                #expect(row.plannedSkewSamples == planned && row.skewSamples == planned, "\(cue) beat \(row.beat)")
                // Nothing moves earlier than the beat: the part that waits is the later one.
                let a = row.audio!.outputFrame, h = row.haptic!.outputFrame
                #expect(hapticLater ? h == a + 960 : a == h + 960, "\(cue) beat \(row.beat)")
            }
            #expect(doc.report.rows.map { $0.haptic!.outputFrame }.enumerated().allSatisfy { k, f in
                k == 0 || f - doc.report.rows[k - 1].haptic!.outputFrame == 24_000 }, "\(cue): beats 24000 frames apart")
        }
    }

    @Test("the table shows planned skew and felt skew per beat and max |felt skew| in the summary")
    func tableShowsFeltSkew() async throws {
        let out = try TempFolder()
        let assets = try SwellAssets()
        let run = try await RhythmRun(["rhythm", "--bpm", "120", "--beats", "2", "-o", out.url.appendingPathComponent("t.wav").path,
                                       "--cue", "swell_late", "--haptics", rhythmHaptics, "--assets", assets.path])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains("planned (smp)") == true && lines.first?.contains("felt (ms)") == true, "\(run.stdout)")
        let fields = lines.dropFirst().prefix(2).map { $0.split(separator: " ").map(String.init) }
        #expect(fields.allSatisfy { $0.count == 9 && $0[5] == "-960" && $0[6] == "-960" && $0[7] == "-20.000" }, "\(run.stdout)")
        #expect(run.stdout.contains("2 at the planned skew"))
        #expect(run.stdout.contains("felt skew audio - haptic (half of each part's Hilbert envelope): max |"))
    }

    @Test("a hostile cue sheet offset: one line naming the file and the field, exit 1")
    func hostileOffsetIsRefused() async throws {
        let out = try TempFolder()
        let field = "cues.json: cues.bad.hapticOffsetMs: "
        for (value, expected) in [("1e308", field + "1e+308 ms is outside -2000…2000 ms"), ("-2000.5", field + "-2000.5 ms is outside"),
                                  ("\"5\"", field + "not a finite number"), ("true", field + "not a finite number"),
                                  ("null", field + "not a finite number"),
                                  // Not a finite double: refused while scanning, at its line and column.
                                  ("1e400", "cues.json: not valid JSON: line 5, column"), ("-1e400", "1e400 is too large")] {
            let assets = try SwellAssets(extraCues: #", "bad": { "haptic": { "transient": { "intensity": 1, "sharpness": 0.5 } }, "hapticOffsetMs": "# + value + " }")
            let run = try await RhythmRun(["rhythm", "--bpm", "120", "--beats", "1", "-o", out.url.appendingPathComponent("x.wav").path,
                                           "--cue", "swell_hit", "--haptics", rhythmHaptics, "--assets", assets.path])
            #expect(run.status == 1, "\(value)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains(expected),
                    "\(value): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.url.appendingPathComponent("x.wav").path), "\(value): no file left")
        }
    }

    static func ms(_ value: Double) -> Double { value * 48 }
}
