import ArgumentParser
import Foundation
import HapticCLI
import HapticSoundFile
import Testing

/// The user's files are sacred, and bad input is one line: each case prints its outcome and
/// checks no crash (reaching the checks), no hang, a non-zero exit, nothing left behind and
/// every input unchanged.
@Suite("render: hostile input and file safety")
struct HostileRenderTests {
    /// A folder's entries with each file's bytes (symbolic links by their target), to prove nothing changed.
    func snapshot(_ folder: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let path = folder.appendingPathComponent(name).path
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path) {
                result[name] = Data(("-> " + target).utf8)
            } else {
                result[name] = FileManager.default.contents(atPath: path) ?? Data()
            }
        }
        return result
    }

    /// Runs `arguments` (with @P the pattern, @DIR the folder) and checks a one-line refusal containing `expected`.
    func refuses(_ arguments: [String], _ expected: String, pattern: String = cleanPatternWithoutAudio, setUp: (TempFolder) throws -> Void = { _ in }) throws {
        let temp = try TempFolder()
        let p = try temp.file("p.ahap", pattern)
        try setUp(temp)
        // @ALT is the folder spelt another way: FOLDER/../NAME/.
        let alternative = temp.url.path + "/../" + temp.url.lastPathComponent + "/."
        let args = arguments.map {
            $0.replacingOccurrences(of: "@P", with: p).replacingOccurrences(of: "@ALT", with: alternative)
                .replacingOccurrences(of: "@DIR", with: temp.url.path)
        }
        let before = try snapshot(temp.url)
        let run = try CLIRun(args)
        print("render \(arguments.joined(separator: " ")): exit \(run.status): \(run.stderr.trimmingCharacters(in: .newlines))")
        #expect(run.status == 1)
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(try snapshot(temp.url) == before, "nothing written, nothing left, inputs unchanged")
    }

    @Test("an output that is an input, however spelt, is refused (device and inode compared)")
    func outputIsInput() throws {
        try refuses(["render", "@P", "-o", "@ALT/p.ahap", "--format", "wav"], "is one of the inputs")
        try refuses(["render", "@P", "-o", "@DIR/p.ahap", "--format", "wav"], "is one of the inputs")
        try refuses(["render", "@DIR/same.wav", "-o", "@DIR/same.wav"], "same.wav: a WAV sound file, not a pattern") { temp in
            try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("Assets/sfx/sfx_click.wav").path, toPath: temp.url.appendingPathComponent("same.wav").path)
        }
        try refuses(["render", "@P", "-o", "@DIR/hard.wav"], "is one of the inputs") { temp in
            try FileManager.default.linkItem(atPath: temp.url.appendingPathComponent("p.ahap").path, toPath: temp.url.appendingPathComponent("hard.wav").path)
        }
        try refuses(["render", "@P", "-o", "@DIR/prof.json", "--format", "wav", "--profile", "@DIR/prof.json"], "is one of the inputs") { temp in
            try temp.file("prof.json", ActuatorProfile_bassShakerJSON())
        }
    }

    @Test("an output that is a profile file --layout names, in any spelling, is refused (render and plot)")
    func outputIsALayoutProfile() throws {
        let profile: (TempFolder) throws -> Void = { temp in try temp.file("prof.json", ActuatorProfile_bassShakerJSON()) }
        for layout in ["H:@DIR/prof.json", "FL=H:@DIR/prof.json,FR=H:voice-coil", "FL=H:@DIR/prof.json*0.5,FR=H", "0,H:@ALT/prof.json*-6dB"] {
            try refuses(["render", "@P", "--layout", layout, "-o", "@DIR/prof.json", "--format", "wav"], "prof.json: is one of the inputs", setUp: profile)
            try refuses(["plot", "@P", "--layout", layout, "-o", "@DIR/prof.json", "--format", "png"], "prof.json: is one of the inputs", setUp: profile)
        }
        // A hard link of the profile is the profile.
        try refuses(["render", "@P", "--layout", "H:@DIR/prof.json", "-o", "@DIR/hard.wav"], "hard.wav: is one of the inputs") { temp in
            try profile(temp)
            try FileManager.default.linkItem(atPath: temp.url.appendingPathComponent("prof.json").path, toPath: temp.url.appendingPathComponent("hard.wav").path)
        }
    }

    @Test("a symbolic-link loop or a name too long says what the system said, in every verb that reads it")
    func systemReasons() throws {
        let temp = try TempFolder()
        let out = temp.url.appendingPathComponent("out").path
        for ext in ["ahap", "wav", "json"] {
            try FileManager.default.createSymbolicLink(atPath: temp.url.appendingPathComponent("loop.\(ext)").path, withDestinationPath: "loop.\(ext)")
        }
        let long = String(repeating: "x", count: 5000)
        for (stem, reason) in [(temp.url.appendingPathComponent("loop").path, "too many levels of symbolic links"), (temp.url.path + "/" + long, "file name too long")] {
            for arguments in [
                ["render", stem + ".ahap", "-o", out + ".wav"], ["info", stem + ".ahap"], ["validate", stem + ".ahap"],
                ["convert", stem + ".ahap", "-o", out + ".haptic"], ["convert", stem + ".wav", "-o", out + ".ahap"],
                ["render", heartbeatPath, "-o", out + ".wav", "--profile", stem + ".json"],
            ] {
                let run = try CLIRun(arguments)
                // (validate prints its report, the failure among it, on standard output.)
                let said = arguments[0] == "validate" ? String(run.stdout.split(separator: "\n").first ?? "") + "\n" : run.stderr
                #expect(run.status == 1)
                #expect(said.contains(reason) && !said.contains("no such file"), "\(arguments): \(said.suffix(200))")
                #expect(said.split(separator: "\n").count == 1, "\(said.suffix(300))")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: out + ".wav") && !FileManager.default.fileExists(atPath: out + ".ahap"))
    }

    @Test("a sound file given for a pattern (by its content: WAV, FLAC, Ogg, MP3) is named as one, with convert to make a pattern of it")
    func soundFileForAPattern() throws {
        let temp = try TempFolder()
        try writeSound(temp.url.appendingPathComponent("s.wav").path, seconds: 0.2)
        try writeSound(temp.url.appendingPathComponent("s.flac").path, seconds: 0.2)
        try writeSound(temp.url.appendingPathComponent("s.ogg").path, seconds: 0.2, format: SoundFileWriter.FileFormat.all.first { $0.fileExtension == "oga" })
        try Data([0x49, 0x44, 0x33, 0x04, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 64)).write(to: temp.url.appendingPathComponent("s.mp3"))
        try Data([0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 400)).write(to: temp.url.appendingPathComponent("frames.mp3"))
        // Named as a pattern: the content says what it is.
        try FileManager.default.copyItem(atPath: temp.url.appendingPathComponent("s.wav").path, toPath: temp.url.appendingPathComponent("named.ahap").path)
        for (name, kind) in [("s.wav", "a WAV"), ("s.flac", "a FLAC"), ("s.ogg", "an Ogg"), ("s.mp3", "an MP3"), ("frames.mp3", "an MP3"), ("named.ahap", "a WAV")] {
            let path = temp.url.appendingPathComponent(name).path
            let expected = "\(path): \(kind) sound file, not a pattern; `hapticsynth convert` makes a pattern of it"
            for arguments in [["render", path, "-o", temp.url.appendingPathComponent("out.wav").path], ["info", path]] {
                let run = try CLIRun(arguments)
                #expect(run.status == 1)
                #expect(run.stderr == expected + "\n", "\(arguments[0]) \(name): \(run.stderr)")
            }
            let validate = try CLIRun(["validate", path])
            #expect(validate.status == 1 && validate.stdout.hasPrefix(expected + "\n"), "validate \(name): \(validate.stdout)")
        }
        // play refuses it before it opens a device.
        let play = try runShell("'\(hapticsynthBinary)' play s.flac", in: temp.url)
        #expect(play.status == 1)
        #expect(play.stderr.contains("s.flac: a FLAC sound file, not a pattern; `hapticsynth convert` makes a pattern of it"), "\(play.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temp.url.appendingPathComponent("out.wav").path))
    }

    @Test("an output that is not a regular file is never replaced")
    func notRegular() throws {
        try refuses(["render", "@P", "-o", "@DIR/link.wav"], "is a symbolic link") { temp in
            try temp.file("target.wav", "keep me")
            try FileManager.default.createSymbolicLink(atPath: temp.url.appendingPathComponent("link.wav").path, withDestinationPath: "target.wav")
        }
        try refuses(["render", "@P", "-o", "@DIR/dangling.wav"], "is a symbolic link") { temp in
            try FileManager.default.createSymbolicLink(atPath: temp.url.appendingPathComponent("dangling.wav").path, withDestinationPath: "nowhere.wav")
        }
        try refuses(["render", "@P", "-o", "@DIR/fifo.wav"], "is a pipe") { temp in
            #expect(mkfifo(temp.url.appendingPathComponent("fifo.wav").path, 0o644) == 0)
        }
        let run = try CLIRun(["render", heartbeatPath, "-o", "/dev/null", "--format", "wav"])
        print("render -o /dev/null: exit \(run.status): \(run.stderr.trimmingCharacters(in: .newlines))")
        #expect(run.status == 1)
        #expect(run.stderr.contains("/dev/null: is a device"))
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "still a device")
    }

    @Test("an output longer than --max-duration is refused before anything is written")
    func maxDuration() throws {
        let late = #"{"Pattern": [{"Event": {"Time": 3000, "EventType": "HapticTransient"}}]}"#
        try refuses(["render", "@P", "-o", "@DIR/out.wav", "--max-duration", "60"], "longer than --max-duration 60.0 s; nothing written", pattern: late)
        try refuses(["render", "@P", "-o", "@DIR/out.wav", "--tail", "3600", "--max-duration", "3000"], "longer than --max-duration", pattern: cleanPatternWithoutAudio)
    }

    @Test("a time of 1e15 s or 1e5 s: strict refuses; lenient skips the event and says so, writing a short file")
    func absurdTimes() throws {
        for time in ["1e15", "1e5"] {
            let parameters = #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]"#
            let pattern = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", \#(parameters)}}, {"Event": {"Time": \#(time), "EventType": "HapticTransient", \#(parameters)}}]}"#
            try refuses(["render", "@P", "-o", "@DIR/out.wav", "--strict"], "limit", pattern: pattern)
            let temp = try TempFolder()
            let p = try temp.file("p.ahap", pattern)
            let out = temp.url.appendingPathComponent("out.wav").path
            let run = try CLIRun(["render", p, "-o", out])
            print("render Time \(time) (lenient): exit \(run.status): \(run.stderr.split(separator: "\n").last ?? "")")
            #expect(run.status == 0)
            #expect(run.stderr.contains("past the 3600.0 s limit"))
            #expect(try SoundFileReader.info(out).frames < 48_000)
        }
    }

    @Test("bad profiles: one line naming the field and its range")
    func badProfiles() throws {
        let cases: [(String, String, String)] = [
            ("\"order\": 2", "\"order\": 2.5", "protection.order: must be 2 or 4 (got 2.5)"),
            ("\"order\": 2", "\"order\": 1e300", "protection.order: must be 2 or 4"),
            ("\"low\": 22", "\"low\": 1e-300", "band.low: must be between 1.0 and 20000.0 Hz"),
            ("\"highPassHz\": 16", "\"highPassHz\": 16, \"highPassHz\": 12", "protection.highPassHz: given twice"),
        ]
        for (from, to, expected) in cases {
            let text = ActuatorProfile_bassShakerJSON().replacingOccurrences(of: from, with: to)
            try refuses(["render", "@P", "-o", "@DIR/out.wav", "--profile", "@DIR/prof.json"], expected) { temp in
                try temp.file("prof.json", text)
            }
        }
    }

    @Test("a pattern that is a device or too big is refused without reading it all")
    func hugeInput() throws {
        try refuses(["render", "/dev/zero", "-o", "@DIR/out.wav"], "larger than the 64 MiB limit")
    }

    @Test("negative numbers in options are range errors naming the option", arguments: [
        (["--rate", "-48000"], "--rate -48000: must be between 8000 and 384000 Hz"),
        (["--tail", "-1"], "--tail -1.0: expected seconds between 0 and 3600"),
        (["--max-duration", "-5"], "--max-duration -5.0: expected seconds above 0"),
        (["--rate", "1e300"], "--rate"),
    ])
    func negativeOptions(_ extra: [String], _ expected: String) {
        do {
            _ = try Hapticsynth.parseAsRoot(["render", heartbeatPath, "-o", "/nonexistent/x.wav"] + extra)
            Issue.record("accepted \(extra)")
        } catch {
            let message = Hapticsynth.message(for: error)
            print("render \(extra.joined(separator: " ")): \(message)")
            #expect(message.contains(expected), "\(message)")
            #expect(!message.contains("Missing value"))
        }
    }

    @Test("negative numbers in the live verbs' options are range errors naming the option", arguments: [
        (["play", "x.ahap", "--period", "-256"], "--period -256: expected 16...16384 frames"),
        (["play", "x.ahap", "--buffer-periods", "-3"], "--buffer-periods -3: expected 2...32"),
        (["play", "x.ahap", "--reconnect-timeout", "-1"], "--reconnect-timeout -1.0: expected"),
        (["play", "x.ahap", "--at", "-0.5"], "--at -0.5: expected seconds between 0 and 3600"),
        (["rhythm", "--bpm", "-100"], "--bpm -100.0: expected 1...1000"),
        (["rhythm", "--beats", "-4"], "--beats -4: expected 1..."),
        (["rhythm", "--lead", "-0.2"], "--lead -0.2: expected 0.01...10 seconds"),
        (["serve", "--osc-port", "-9000"], "--osc-port -9000: expected 0...65535"),
        (["serve", "--queue", "-1"], "--queue -1: expected 1...1000000"),
        (["send", "/hapticsynth/stop", "--port", "-1"], "--port -1: expected 1...65535"),
        (["send", "/hapticsynth/stop", "--timeout", "-1"], "--timeout -1.0: expected"),
        (["send", "/hapticsynth/stop", "--at", "-0.5"], "--at -0.5: expected +SECONDS"),
    ])
    func negativeLiveOptions(_ arguments: [String], _ expected: String) {
        do {
            _ = try Hapticsynth.parseAsRoot(arguments)
            Issue.record("accepted \(arguments)")
        } catch {
            let message = Hapticsynth.message(for: error)
            print("\(arguments.joined(separator: " ")): \(message)")
            #expect(message.contains(expected), "\(message)")
            #expect(!message.contains("Missing value"))
        }
    }

    @Test("past the plain-WAV size: RF64 when WAV was inferred, refused up front when --format wav was given")
    func largeWAV() throws {
        let temp = try TempFolder()
        let auto = temp.url.appendingPathComponent("auto.wav").path
        let run = try CLIRun(["render", heartbeatPath, "-o", auto, "--plain-wav-limit-bytes", "1000"])
        #expect(run.status == 0, "\(run.stderr)")
        let head = try #require(FileManager.default.contents(atPath: auto)).prefix(4)
        print("past the plain-WAV limit, inferred: \(String(decoding: head, as: UTF8.self))")
        #expect(head == Data("RF64".utf8))
        #expect(try SoundFileReader.info(auto).frames == 43200)
        try refuses(["render", "@P", "-o", "@DIR/forced.wav", "--format", "wav", "--plain-wav-limit-bytes", "1000"], "do not fit a plain WAV file")
        let small = temp.url.appendingPathComponent("small.wav").path
        #expect(try CLIRun(["render", heartbeatPath, "-o", small]).status == 0)
        #expect(try #require(FileManager.default.contents(atPath: small)).prefix(4) == Data("RIFF".utf8))
    }
}

func ActuatorProfile_bassShakerJSON() -> String {
    (try? String(contentsOf: repositoryRoot.appendingPathComponent("Assets/actuators/bass-shaker.json"), encoding: .utf8)) ?? ""
}

@Suite("validate: what render and play would refuse")
struct ValidateLimitTests {
    @Test("a time past the limit: lenient warns and says what happens; strict fails")
    func timePastLimit() throws {
        let temp = try TempFolder()
        let p = try temp.file("late.ahap", #"{"Pattern": [{"Event": {"Time": 1e15, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}]}"#)
        let lenient = try CLIRun(["validate", p])
        print("validate (lenient): exit \(lenient.status): \(lenient.stdout.split(separator: "\n").first ?? "")")
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("Pattern[0].Event.Time: warning: Time 1000000000000000.0 s is past the 3600.0 s limit; render and play skip this event"))
        let strict = try CLIRun(["validate", "--strict", p])
        print("validate --strict: exit \(strict.status): \(strict.stdout.split(separator: "\n").first ?? "")")
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("past the 3600.0 s limit"))
    }

    @Test("longer than render's default --max-duration: lenient warns, strict fails")
    func longOutput() throws {
        let temp = try TempFolder()
        let p = try temp.file("long.ahap", #"{"Pattern": [{"Event": {"Time": 3590, "EventType": "HapticContinuous", "EventDuration": 30, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}]}"#)
        let lenient = try CLIRun(["validate", p])
        print("validate long (lenient): exit \(lenient.status): \(lenient.stdout.split(separator: "\n").first ?? "")")
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("longer than render's default --max-duration 3600.0 s; render refuses it"))
        #expect(try CLIRun(["validate", "--strict", p]).status == 1)
        let render = try CLIRun(["render", p, "-o", temp.url.appendingPathComponent("long.wav").path])
        #expect(render.status == 1 && render.stderr.contains("longer than --max-duration 3600.0 s"))
    }

    @Test("more events at once than the voice limit: lenient warns, strict fails")
    func voices() throws {
        let temp = try TempFolder()
        let event = #"{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}"#
        let p = try temp.file("dense.ahap", #"{"Pattern": ["# + Array(repeating: event, count: 1030).joined(separator: ",") + "]}")
        let lenient = try CLIRun(["validate", p])
        print("validate dense (lenient): exit \(lenient.status): \(lenient.stdout.split(separator: "\n").first ?? "")")
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("6 events would start while 1024 others still sound"))
        let strict = try CLIRun(["validate", "--strict", p])
        #expect(strict.status == 1)
        #expect(strict.stdout.contains("6 events would start while 1024 others still sound"))
    }
}
