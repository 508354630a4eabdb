import Foundation
import HapticCLI
import HapticPattern
import HapticRender
import HapticSoundFile
import Testing

/// The repository's root (for the bundled Haptics/ library).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let heartbeatPath = repositoryRoot.appendingPathComponent("Haptics/heartbeat.ahap").path

@Suite("hapticsynth render")
struct RenderCommandTests {
    /// Files in `folder` (to prove nothing half-written was left behind).
    func contents(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("renders heartbeat to a WAV that equals the offline renderer's output")
    func rendersHeartbeat() throws {
        let temp = try TempFolder()
        let out = temp.url.appendingPathComponent("heartbeat.wav").path
        let run = try CLIRun(["render", heartbeatPath, "-o", out, "--bits", "32f"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("heartbeat.wav:"))
        #expect(run.stdout.contains("1 ch"))
        #expect(run.stdout.contains("peak"))

        let written = try SoundFileReader.read(out)
        let decoded = try AHAPPattern.decode(from: Array(try Data(contentsOf: URL(fileURLWithPath: heartbeatPath))))
        let prepared = try PreparedPattern(decoded.pattern, profile: .bassShaker, sampleRate: 48000)
        let expected = OfflineRenderer.render(prepared)
        #expect(written.channels == 1)
        #expect(written.sampleRate == 48000)
        #expect(written.frames == expected.frames)
        #expect(written.samples == expected.samples, "the file holds exactly what the renderer produced")
        let ceiling = Float(pow(10, ActuatorProfile.bassShaker.ceilingDBFS / 20))
        #expect(written.samples.allSatisfy { abs($0) <= ceiling })
        #expect(try contents(temp.url) == ["heartbeat.wav"], "no temporary file left")
    }

    @Test("a layout without a haptic channel warns that the haptic events are not rendered (and counts it)")
    func layoutWithoutHaptics() throws {
        let temp = try TempFolder()
        let p = try temp.file("p.ahap", cleanPatternWithoutAudio)
        for layout in ["FL,FR", "L,R", "0,L"] {
            let run = try CLIRun(["render", p, "--layout", layout, "-o", temp.url.appendingPathComponent("out.wav").path])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("\(p): warning: the layout ") && lines[0].contains("has no haptic channel (H), so the "), "\(run.stderr)")
            #expect(lines.first?.hasSuffix("not rendered") == true)
            #expect(run.stdout.contains(", 1 warning"), "\(run.stdout)")
        }
        let haptic = try CLIRun(["render", p, "--layout", "L,R,H", "-o", temp.url.appendingPathComponent("out.wav").path])
        #expect(haptic.status == 0 && haptic.stderr.isEmpty && haptic.stdout.contains("0 warnings"), "\(haptic.stderr)")
    }

    @Test("a layout by position is written as the WAV's channel mask (WAVE_FORMAT_EXTENSIBLE), readable back")
    func channelMask() throws {
        let temp = try TempFolder()
        let p = try temp.file("p.ahap", cleanPatternWithoutAudio)
        // libsndfile's SF_CHANNEL_MAP_LEFT, _RIGHT, _CENTER, _LFE: 2, 3, 4, 11.
        for (layout, expected) in [("2.1", [Int32(2), 3, 11]), ("FL,FR,FC=0,LFE=H", [2, 3, 4, 11])] {
            let out = temp.url.appendingPathComponent("out.wav").path
            let run = try CLIRun(["render", p, "--layout", layout, "-o", out])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(SoundFileWriter.channelMap(ofFileAt: out) == expected, "\(layout)")
            #expect(try SoundFileReader.read(out).channels == expected.count)
        }
        // By column: no positions, a plain WAV.
        let plain = temp.url.appendingPathComponent("plain.wav").path
        #expect(try CLIRun(["render", p, "--layout", "L,R,H", "-o", plain]).status == 0)
        #expect(SoundFileWriter.channelMap(ofFileAt: plain) == nil)
        let header = try #require(FileManager.default.contents(atPath: plain))
        #expect(header[20] == 1 && header[21] == 0, "WAVE_FORMAT_PCM")
    }

    @Test("several inputs render into a folder, one file each; --tail lengthens the output")
    func rendersIntoFolder() throws {
        let temp = try TempFolder()
        let a = try temp.file("a.ahap", cleanPatternWithoutAudio)
        let b = try temp.file("b.ahap", clampedPattern)
        let folder = temp.url.appendingPathComponent("out").path
        let run = try CLIRun(["render", a, b, "-o", folder, "--tail", "0.5", "--format", "flac", "--bits", "24"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try contents(URL(fileURLWithPath: folder)) == ["a.flac", "b.flac"])
        let info = try SoundFileReader.info(folder + "/b.flac")
        #expect(info.frames >= 24000, "a transient plus a 0.5 s tail")
    }

    @Test("a layout map gives that many channels")
    func layoutMap() throws {
        let temp = try TempFolder()
        let out = temp.url.appendingPathComponent("four.wav").path
        let run = try CLIRun(["render", heartbeatPath, "-o", out, "--layout", "0,0,H,H*0.5"])
        #expect(run.status == 0, "\(run.stderr)")
        let sound = try SoundFileReader.read(out)
        #expect(sound.channels == 4)
        let frames = sound.frames
        var peak2: Float = 0, peak3: Float = 0, peak0: Float = 0
        for i in 0..<frames {
            peak0 = max(peak0, abs(sound.samples[i * 4]))
            peak2 = max(peak2, abs(sound.samples[i * 4 + 2]))
            peak3 = max(peak3, abs(sound.samples[i * 4 + 3]))
        }
        #expect(peak0 == 0)
        #expect(peak2 > 0.1)
        #expect(abs(peak3 - peak2 / 2) < 0.001)
    }

    @Test(
        "bad input: one clear line, exit 1, nothing written",
        arguments: [
            (["render", "/nonexistent/x.ahap"], "/nonexistent/x.ahap: cannot read: no such file"),
            (["render", "@BROKEN", "--profile", "no-such-profile"], "--profile no-such-profile: no such built-in profile"),
            (["render", "@BROKEN"], "line 1, column"),
            (["render", "@MISSING_SOUND", "--strict"], "sounds/hit.wav: sound file not found"),
        ])
    func badInput(_ arguments: [String], _ expected: String) throws {
        let temp = try TempFolder()
        let broken = try temp.file("broken.ahap", "{ not json")
        let missingSound = try temp.file("missing.ahap", cleanPattern)
        let out = temp.url.appendingPathComponent("out.wav").path
        let args = arguments.map { $0 == "@BROKEN" ? broken : $0 == "@MISSING_SOUND" ? missingSound : $0 } + ["-o", out]
        let before = try contents(temp.url)
        let run = try CLIRun(args)
        #expect(run.status == 1)
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(try contents(temp.url) == before, "nothing written")
    }

    @Test("an unwritable output path is one clear line and leaves nothing")
    func unwritable() throws {
        let run = try CLIRun(["render", heartbeatPath, "-o", "/nonexistent-dir/x.wav"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("/nonexistent-dir/x.wav"))
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent-dir"))
    }

    @Test("a missing sound in lenient use is a warning and silence, not a failure")
    func lenientMissingSound() throws {
        let temp = try TempFolder()
        let pattern = try temp.file("p.ahap", cleanPattern)
        let out = temp.url.appendingPathComponent("p.wav").path
        let run = try CLIRun(["render", pattern, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning"))
        #expect(run.stderr.contains("gone.wav"))
        #expect(try SoundFileReader.info(out).channels == 3, "audio events select stereo + haptic")
    }

    @Test("option errors are refused by the parser", arguments: [["--bits", "12"], ["--rate", "10"], ["--layout", "H,X"], ["--tail", "-1"], ["--format", "mp9"]])
    func optionErrors(_ extra: [String]) throws {
        #expect(throws: (any Error).self) { try Hapticsynth.parseAsRoot(["render", heartbeatPath, "-o", "/tmp/x.wav"] + extra) }
    }

    @Test("every bundled pattern renders with default options to a file whose last 10 ms are below -60 dBFS")
    func bundledPatternsEndInSilence() throws {
        let temp = try TempFolder()
        let haptics = repositoryRoot.appendingPathComponent("Haptics")
        let inputs = try FileManager.default.contentsOfDirectory(atPath: haptics.path).filter { $0.hasSuffix(".ahap") }.sorted()
        #expect(inputs.count >= 9)
        let folder = temp.url.appendingPathComponent("out").path
        let run = try CLIRun(["render"] + inputs.map { haptics.appendingPathComponent($0).path } + ["-o", folder])
        #expect(run.status == 0, "\(run.stderr)")
        for input in inputs {
            let file = try SoundFileReader.read(folder + "/" + input.replacingOccurrences(of: ".ahap", with: ".wav"))
            let last = file.samples.suffix(480 * file.channels)
            #expect(last.count == 480 * file.channels)
            #expect(last.allSatisfy { abs($0) < 0.001 }, "\(input): last 10 ms peak \(last.map { abs($0) }.max() ?? 0)")
            #expect(file.samples.contains { $0 != 0 }, "\(input) is not silence")
        }
    }

    @Test("--exact-length: the nominal length (plus --tail), the end faded to 0")
    func exactLength() throws {
        let temp = try TempFolder()
        let input = repositoryRoot.appendingPathComponent("Haptics/capacitor_charge.ahap").path
        let exact = temp.url.appendingPathComponent("exact.wav").path
        let silent = temp.url.appendingPathComponent("silent.wav").path
        #expect(try CLIRun(["render", input, "-o", exact, "--exact-length", "--bits", "32f"]).status == 0)
        #expect(try CLIRun(["render", input, "-o", silent, "--bits", "32f"]).status == 0)
        let decoded = try AHAPPattern.decode(from: Array(try Data(contentsOf: URL(fileURLWithPath: input))))
        let prepared = try PreparedPattern(decoded.pattern, profile: .bassShaker, sampleRate: 48000)
        let a = try SoundFileReader.read(exact), b = try SoundFileReader.read(silent)
        #expect(a.frames == prepared.frameCount)
        #expect(b.frames > a.frames, "the default render goes on past the nominal end")
        #expect(a.samples.last == 0)
        let fade = 240  // 5 ms
        #expect(Array(a.samples[..<(a.frames - fade)]) == Array(b.samples[..<(a.frames - fade)]))
    }
}

let cleanPatternWithoutAudio = """
    {"Version": 1.0, "Pattern": [
      {"Event": {"Time": 0.0, "EventType": "HapticTransient", "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 1.0}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}},
      {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.4, "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 0.25}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.75}]}}
    ]}
    """
