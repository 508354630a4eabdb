import Foundation
import HapticSoundFile
import Testing

/// `rhythm -o` keeps render's promises: it never writes over what it reads (the sound
/// effects, the cue sheet, the patterns, the beat map — by device and inode), and Ctrl-C,
/// SIGTERM and SIGHUP leave no temporary file. `render -o -` never appends its WAV to one of
/// its inputs, and a signal a parent set to be ignored (nohup) stays ignored.
@Suite("rhythm -o and render: the user's files, signals")
struct RhythmFileSafetyTests {
    /// A copy of the assets (cue sheet and sounds) and of the patterns in `temp`.
    func copiedLibrary(_ temp: TempFolder) throws -> (haptics: String, assets: String) {
        let haptics = temp.url.appendingPathComponent("haptics").path, assets = temp.url.appendingPathComponent("assets").path
        try FileManager.default.copyItem(atPath: rhythmHaptics, toPath: haptics)
        try FileManager.default.copyItem(atPath: rhythmAssets, toPath: assets)
        return (haptics, assets)
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    @Test("rhythm -o over the sound effect it plays, the cue sheet or the beat map (a hard link of it) is refused; nothing changes")
    func outputIsAnInput() async throws {
        let temp = try TempFolder()
        let (haptics, assets) = try copiedLibrary(temp)
        let beatmap = try temp.file("map.txt", "0\n0.5\n")
        try FileManager.default.linkItem(atPath: beatmap, toPath: temp.url.appendingPathComponent("map.wav").path)
        try FileManager.default.linkItem(atPath: assets + "/cues.json", toPath: temp.url.appendingPathComponent("cues.wav").path)
        let cases: [(output: String, guarded: String, beatmap: Bool)] = [
            (assets + "/sfx/sfx_shield_impact.wav", assets + "/sfx/sfx_shield_impact.wav", false),
            (temp.url.appendingPathComponent("assets/./sfx/../sfx/sfx_click.wav").path, assets + "/sfx/sfx_click.wav", false),
            (temp.url.appendingPathComponent("map.wav").path, beatmap, true),
            (temp.url.appendingPathComponent("cues.wav").path, assets + "/cues.json", false),
        ]
        for (output, guarded, withBeatmap) in cases {
            let before = bytes(guarded)
            let timing = withBeatmap ? ["--beatmap", beatmap] : ["--beats", "2"]
            let run = try await RhythmRun(["rhythm"] + timing + ["-o", output, "--haptics", haptics, "--assets", assets])
            print("rhythm -o \(output): exit \(run.status): \(run.stderr.trimmingCharacters(in: .newlines))")
            #expect(run.status == 1)
            #expect(run.stderr.contains("is one of the inputs; not written over") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
            #expect(bytes(guarded) == before, "\(guarded) unchanged")
        }
        let partials = try FileManager.default.subpathsOfDirectory(atPath: temp.url.path).filter { $0.contains(".partial-") }
        #expect(partials.isEmpty, "\(partials)")
    }

    @Test("rhythm -o over a profile file --layout names (a hard link of it) is refused; nothing changes")
    func outputIsALayoutProfile() async throws {
        let temp = try TempFolder()
        let profile = try temp.file("prof.json", ActuatorProfile_bassShakerJSON())
        let link = temp.url.appendingPathComponent("prof.wav").path
        try FileManager.default.linkItem(atPath: profile, toPath: link)
        let before = bytes(profile)
        let run = try await RhythmRun(["rhythm", "--beats", "2", "--layout", "H:\(profile)", "-o", link, "--haptics", rhythmHaptics, "--assets", rhythmAssets])
        print("rhythm --layout H:prof.json -o prof.wav: exit \(run.status): \(run.stderr.trimmingCharacters(in: .newlines))")
        #expect(run.status == 1)
        #expect(run.stderr.contains("is one of the inputs; not written over") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(bytes(profile) == before)
    }

    @Test("SIGINT, SIGTERM and SIGHUP during rhythm -o leave no temporary file", arguments: [SIGINT, SIGTERM, SIGHUP])
    func signals(signal: Int32) throws {
        let temp = try TempFolder()
        var sawPartial = false
        let script = "exec '\(hapticsynthBinary)' rhythm --bpm 30 --beats 2000 -o session.wav --haptics '\(rhythmHaptics)' --assets '\(rhythmAssets)'"
        let run = try runShell(script, in: temp.url) { process in
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline, process.isRunning, partials(temp.url).isEmpty { usleep(20_000) }
            sawPartial = !partials(temp.url).isEmpty
            kill(process.processIdentifier, signal)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path)
        print("rhythm -o killed by signal \(signal): \(run.signalled ? "ended by signal \(run.status)" : "exit \(run.status)"), left \(left)")
        #expect(sawPartial, "the session was under way when signalled")
        #expect(run.signalled && run.status == signal || !run.signalled && run.status == 128 + signal)
        #expect(left.isEmpty, "no temporary file, no output")
    }

    func partials(_ folder: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.contains(".partial-") }
    }

    @Test("render -o - >> input.ahap: standard output is the input; refused, the input unchanged")
    func appendToInput() throws {
        let temp = try TempFolder()
        let pattern = try temp.file("p.ahap", cleanPatternWithoutAudio)
        let before = bytes(pattern)
        let run = try runShell("'\(hapticsynthBinary)' render p.ahap -o - >> p.ahap", in: temp.url)
        print("render -o - >> p.ahap: exit \(run.status): \(run.stderr.trimmingCharacters(in: .newlines))")
        #expect(run.status == 1)
        #expect(run.stderr.contains("standard output is one of the inputs") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(bytes(pattern) == before)
        // Another regular file is fine.
        let other = try runShell("'\(hapticsynthBinary)' render '\(heartbeatPath)' -o - > out.wav", in: temp.url)
        #expect(other.status == 0, "\(other.stderr)")
        #expect(try SoundFileReader.info(temp.url.appendingPathComponent("out.wav").path).frames > 0)
    }

    @Test("nohup: a SIGHUP the parent set to be ignored stays ignored; the render finishes")
    func nohupRender() throws {
        let temp = try TempFolder()
        let params = #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]"#
        try temp.file("late.ahap", #"{"Pattern": [{"Event": {"Time": 30, "EventType": "HapticTransient", \#(params)}}]}"#)
        var sawPartial = false
        // What nohup does: SIGHUP ignored, then exec.
        let run = try runShell("trap '' HUP; exec '\(hapticsynthBinary)' render late.ahap -o late.wav --rate 384000 --bits 32f", in: temp.url) { process in
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline, process.isRunning, partials(temp.url).isEmpty { usleep(5_000) }
            sawPartial = !partials(temp.url).isEmpty
            kill(process.processIdentifier, SIGHUP)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
        print("nohup render, SIGHUP: \(run.signalled ? "ended by signal \(run.status)" : "exit \(run.status)"), left \(left)")
        #expect(sawPartial, "the render was under way when signalled")
        #expect(!run.signalled && run.status == 0, "\(run.stderr)")
        #expect(left == ["late.ahap", "late.wav"])
    }
}
