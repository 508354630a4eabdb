import ArgumentParser
import Foundation
import HapticCLI
import HapticRender
import Testing

/// The verbs run in-process: arguments are parsed by the real root command
/// (`Hapticsynth.parseAsRoot`), and the chosen verb's `execute(into:)` writes into a
/// `CapturedOutput` and returns the exit status that `run()` would exit with. This tests
/// the same code the binary runs, without depending on a built executable's location.
struct CLIRun {
    var status: Int32
    var stdout: String
    var stderr: String

    init(_ arguments: [String]) throws {
        let command = try Hapticsynth.parseAsRoot(arguments)
        let verb = try #require(command as? any HapticsynthVerb, "not a verb: \(arguments)")
        var output = CapturedOutput()
        status = try verb.execute(into: &output)
        stdout = output.standardOutput
        stderr = output.standardError
    }
}

/// A temporary folder with files, removed at the end of the test.
final class TempFolder {
    let url: URL
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("hapticsynth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }

    @discardableResult
    func file(_ name: String, _ text: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }
}

let cleanPattern = """
    {"Version": 1.0, "Pattern": [
      {"Event": {"Time": 0.0, "EventType": "HapticTransient", "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 1.0}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}},
      {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.4, "EventParameters": [
        {"ParameterID": "HapticIntensity", "ParameterValue": 0.25}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.75}]}},
      {"Event": {"Time": 0.2, "EventType": "AudioCustom", "EventWaveformPath": "sounds/hit.wav"}},
      {"Event": {"Time": 0.3, "EventType": "AudioCustom", "EventWaveformPath": "gone.wav"}},
      {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.1, "ParameterCurveControlPoints": [
        {"Time": 0, "ParameterValue": 1}, {"Time": 0.9, "ParameterValue": 0.5}]}}
    ]}
    """

let clampedPattern = """
    {"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [
      {"ParameterID": "HapticIntensity", "ParameterValue": 1.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}]}
    """

@Suite("validate")
struct ValidateCommandTests {
    @Test("a clean file: exit 0, a summary line, no problems")
    func clean() throws {
        let folder = try TempFolder()
        let path = try folder.file("clean.ahap", cleanPattern)
        let run = try CLIRun(["validate", path])
        #expect(run.status == 0)
        #expect(run.stdout == "1 file: 1 loaded, 0 failed, 0 warnings\n")
        #expect(run.stderr.isEmpty)
    }

    @Test("warnings are listed as file: path: warning: message; --strict makes them fail")
    func warningsAndStrict() throws {
        let folder = try TempFolder()
        let path = try folder.file("loud.ahap", clampedPattern)
        let lenient = try CLIRun(["validate", path])
        #expect(lenient.status == 0)
        #expect(lenient.stdout.contains("\(path): Pattern[0].Event.EventParameters[0].ParameterValue: warning: HapticIntensity 1.5 is outside 0.0…1.0; clamped to 1.0\n"))
        let strict = try CLIRun(["validate", "--strict", path])
        #expect(strict.status == 1)
        #expect(strict.stdout.hasPrefix("\(path): Pattern[0].Event.EventParameters[0].ParameterValue: HapticIntensity 1.5 is outside 0.0…1.0; clamped to 1.0\n"))
        #expect(strict.stdout.hasSuffix("1 file: 0 loaded, 1 failed, 0 warnings (strict)\n"))
    }

    @Test("one line per problem across several files; exit 1 when any fails")
    func severalFiles() throws {
        let folder = try TempFolder()
        let good = try folder.file("good.ahap", cleanPattern)
        let syntax = try folder.file("syntax.ahap", "{\n  \"Pattern\": [\n    {\"Event\" {}}\n  ]\n}")
        let shape = try folder.file("shape.ahap", #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticBuzz"}}]}"#)
        let missing = folder.url.appendingPathComponent("missing.ahap").path
        let run = try CLIRun(["validate", good, syntax, shape, missing, folder.url.path])
        #expect(run.status == 1)
        #expect(run.stdout.split(separator: "\n").map(String.init) == [
            "\(syntax): line 3, column 14: unexpected '{' after a key, expected ':'",
            "\(shape): Pattern[0].Event.EventType: unknown EventType 'HapticBuzz' (expected HapticTransient, HapticContinuous, AudioCustom or AudioContinuous)",
            "\(missing): cannot read: no such file",
            "\(folder.url.path): cannot read: is a directory, not a file",
            "5 files: 1 loaded, 4 failed, 0 warnings",
        ])
    }

    @Test("--json prints a machine-readable report")
    func json() throws {
        let folder = try TempFolder()
        let good = try folder.file("good.ahap", clampedPattern)
        let bad = try folder.file("bad.ahap", #"{"Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#)
        let run = try CLIRun(["validate", "--json", good, bad])
        #expect(run.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        let files = try #require(object["files"] as? [[String: Any]])
        #expect(files.count == 2)
        #expect(files[0]["ok"] as? Bool == true)
        #expect(files[0]["events"] as? Int == 1)
        let warnings = try #require(files[0]["warnings"] as? [[String: Any]])
        #expect(warnings.first?["kind"] as? String == "clamped")
        #expect(warnings.first?["path"] as? String == "Pattern[0].Event.EventParameters[0].ParameterValue")
        let error = try #require(files[1]["error"] as? [String: Any])
        #expect(error["kind"] as? String == "invalidTime")
        #expect(error["path"] as? String == "Pattern[0].Event.Time")
    }

    @Test("validate without files is a usage error")
    func noFiles() {
        #expect(throws: (any Error).self) { try Hapticsynth.parseAsRoot(["validate"]) }
        do {
            _ = try Hapticsynth.parseAsRoot(["validate"])
        } catch {
            #expect(Hapticsynth.exitCode(for: error) == .validationFailure)
            #expect(Hapticsynth.message(for: error).contains("Missing expected argument '<file> ...'"))
        }
    }
}

@Suite("info")
struct InfoCommandTests {
    @Test("text report: duration, counts, ranges, curves, audio files and whether they exist")
    func text() throws {
        let folder = try TempFolder()
        let path = try folder.file("p.ahap", cleanPattern)
        try folder.file("sounds/hit.wav", "not really audio, only needs to exist")
        let run = try CLIRun(["info", path])
        #expect(run.status == 0)
        let expected = """
            file: \(path) (\(try Data(contentsOf: URL(fileURLWithPath: path)).count) bytes)
            version: 1.0
            duration: 1.000 s
            events: 4 (HapticTransient 1, HapticContinuous 1, AudioCustom 2)
            dynamic parameters: 0, parameter curves: 1
            event parameter ranges:
              HapticIntensity: 0.25 … 1.0 (2 values)
              HapticSharpness: 0.5 … 0.75 (2 values)
            dynamic parameter ranges:
              HapticIntensityControl: 0.5 … 1.0 (2 values)
            curves:
              HapticIntensityControl: 1 curve, 2 points (at most 2 in one), 0.100 s to 1.000 s
            audio files:
              sounds/hit.wav: found (\(folder.url.appendingPathComponent("sounds/hit.wav").standardizedFileURL.path))
              gone.wav: MISSING
            warnings: 0

            """
        // Then the felt onset of a transient on each built-in profile, as the renderer measures it.
        var felt = "transient felt onset (half-envelope / peak of the Hilbert envelope after the event time):\n"
        for name in ActuatorProfile.builtInNames {
            let onsets = try ActuatorProfile.builtIn(named: name)!.feltOnsets()
            #expect(onsets.map(\.sharpness) == [0, 0.5, 1])
            felt += "  \(name): " + onsets.map {
                String(format: "sharpness %g (%.1f Hz) %.2f / %.2f ms", $0.sharpness, $0.frequency, $0.halfEnvelopeMs, $0.peakMs)
            }.joined(separator: "; ") + "\n"
        }
        #expect(run.stdout == expected + felt)
    }

    @Test("--audio-root adds a folder to look in; warnings are listed")
    func audioRootAndWarnings() throws {
        let folder = try TempFolder()
        let path = try folder.file("patterns/p.ahap", cleanPattern.replacingOccurrences(of: "\"Version\": 1.0, ", with: "\"Extra\": 1, "))
        try folder.file("sounds-root/gone.wav", "x")
        let run = try CLIRun(["info", path, "--audio-root", folder.url.appendingPathComponent("sounds-root").path])
        #expect(run.status == 0)
        #expect(run.stdout.contains("  gone.wav: found ("))
        #expect(run.stdout.contains("  sounds/hit.wav: MISSING"))
        #expect(run.stdout.contains("warnings: 1\n  Extra: unknown key 'Extra' ignored\ntransient felt onset"))
    }

    @Test("--json report")
    func json() throws {
        let folder = try TempFolder()
        let path = try folder.file("p.ahap", cleanPattern)
        let run = try CLIRun(["info", "--json", path])
        #expect(run.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(object["duration"] as? Double == 1.0)
        #expect((object["events"] as? [String: Int])?["AudioCustom"] == 2)
        let audio = try #require(object["audioFiles"] as? [[String: Any]])
        #expect(audio.map { $0["path"] as? String } == ["sounds/hit.wav", "gone.wav"])
        #expect(audio.map { $0["exists"] as? Bool } == [false, false])
        #expect((object["curves"] as? [[String: Any]])?.first?["controlPoints"] as? Int == 2)
    }

    @Test("metadata: each member on a line, escaped and cut to 400 characters; in --json too")
    func metadata() throws {
        let folder = try TempFolder()
        let long = String(repeating: "x", count: 1000)
        let path = try folder.file("m.ahap", cleanPattern.replacingOccurrences(
            of: "\"Version\": 1.0, ",
            with: #""Version": 1.0, "Metadata": {"Project": "door\nknock", "Description": "\#(long)", "Rating": 4.5, "Tags": ["a", "b"]}, "#))
        let run = try CLIRun(["info", path])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = "version: 1.0\nmetadata:\n  Project: door\\nknock\n  Description: \(String(repeating: "x", count: 400))… (1000 characters)\n"
            + "  Rating: 4.5\n  Tags: (a list of 2)\nduration: 1.000 s\n"
        #expect(run.stdout.contains(expected), "\(run.stdout)")
        let json = try CLIRun(["info", "--json", path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let fields = try #require(object["metadata"] as? [[String: String]])
        #expect(fields.map { $0["key"] } == ["Project", "Description", "Rating", "Tags"])
        #expect(fields.first?["value"] == "door\nknock", "--json keeps the text (JSON escapes it)")
    }

    @Test("a missing or invalid file: one line on stderr naming it, exit 1")
    func failures() throws {
        let folder = try TempFolder()
        let missing = folder.url.appendingPathComponent("nope.ahap").path
        let run = try CLIRun(["info", missing])
        #expect(run.status == 1)
        #expect(run.stderr == "\(missing): cannot read: no such file\n")
        #expect(run.stdout.isEmpty)
        let bad = try folder.file("bad.ahap", "\u{FEFF}garbage")
        let invalid = try CLIRun(["info", bad])
        #expect(invalid.status == 1)
        #expect(invalid.stderr == "\(bad): line 1, column 1: unexpected 'g', expected a value\n")
    }
}

@Suite("root command")
struct RootCommandTests {
    @Test("--version prints the version")
    func version() {
        do {
            _ = try Hapticsynth.parseAsRoot(["--version"])
            Issue.record("--version did not exit")
        } catch {
            #expect(Hapticsynth.message(for: error) == hapticsynthVersionLine)
            #expect(Hapticsynth.exitCode(for: error) == .success)
        }
    }

    @Test("the subcommand list is the one place verbs are registered")
    func subcommands() {
        let names = HapticsynthSubcommands.all.map { $0._commandName }
        #expect(names == ["validate", "info", "render", "convert", "play", "devices", "rhythm", "plot", "serve", "send", "follow", "studio"])
        #expect(Hapticsynth.configuration.subcommands.map { $0._commandName } == names)
        #expect(Hapticsynth.configuration.commandName == "hapticsynth")
    }

    @Test("an unknown verb is a usage error")
    func unknownVerb() {
        do {
            _ = try Hapticsynth.parseAsRoot(["frobnicate"])
            Issue.record("parsed an unknown verb")
        } catch {
            #expect(Hapticsynth.exitCode(for: error) != .success)
        }
    }
}
