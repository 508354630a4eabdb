import ArgumentParser
import Foundation
import HapticCLI
import HapticKit
import HapticPlot
import HapticSoundFile
import Testing

/// `hapticsynth plot`: the three formats, the inputs it tells apart, and render's rules for
/// bad input and the user's files.
@Suite("hapticsynth plot")
struct PlotCommandTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47]

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    @Test("writes PNG, SVG and PDF from the extension, says what it wrote, leaves nothing else")
    func formats() throws {
        let temp = try TempFolder()
        for (name, magic) in [("p.png", Self.png), ("p.svg", Array("<?xm".utf8)), ("p.pdf", Array("%PDF".utf8)), ("p.out", Array("%PDF".utf8))] {
            var args = ["plot", heartbeatPath, "-o", temp.url.appendingPathComponent(name).path]
            if name == "p.out" { args += ["--format", "pdf"] }
            let run = try CLIRun(args)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("\(name): "), "\(run.stdout)")
            #expect(Array(try bytes(temp.url.appendingPathComponent(name).path).prefix(4)) == magic, "\(name)")
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
        #expect(names == ["p.out", "p.pdf", "p.png", "p.svg"], "no temporary file left")
    }

    @Test("a pattern with a sound and a rhythm report in one picture; --panels chooses")
    func inputsTogether() throws {
        let temp = try TempFolder()
        let sound = temp.url.appendingPathComponent("s.wav").path
        try SoundFileWriter.write((0..<24_000).map { i in i > 6_000 && i < 12_000 ? Float(sin(Double(i) * 0.05) * 0.5) : 0 },
                                  channels: 1, sampleRate: 48_000, to: sound)
        let rhythm = try temp.file("session.json", Self.rhythmReport)
        let out = temp.url.appendingPathComponent("all.png").path
        let run = try CLIRun(["plot", sound, heartbeatPath, rhythm, "-o", out, "--size", "900"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("4 panels"), "sound, pattern, drive, rhythm: \(run.stdout)")
        let only = try CLIRun(["plot", sound, heartbeatPath, "-o", out, "--panels", "sound"])
        #expect(only.status == 0 && only.stdout.contains("1 panel,"), "\(only.stdout)\(only.stderr)")
    }

    @Test("the sensitivity panel: the transients convert gives at each sensitivity, the chosen row exactly convert's file")
    func sensitivityPanel() throws {
        let temp = try TempFolder()
        let sound = temp.url.appendingPathComponent("clicks.wav").path
        try writeSound(sound, samples: gradedClicks())
        let picture = temp.url.appendingPathComponent("s.svg").path
        let run = try CLIRun(["plot", sound, "-o", picture, "--panels", "sound,sensitivity", "--sensitivity", "30", "--min-gap", "80", "--size", "900"])
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        #expect(run.stdout.contains("2 panels"), "\(run.stdout)")
        // What convert gives at each sensitivity of the panel, with the same minimum gap.
        var counts: [Int: Int] = [:]
        for percent in Array(stride(from: 5, through: 100, by: 5)) {
            var options = SoundConversionOptions()
            options.sensitivity = Double(percent) / 100
            options.minimumGap = 0.08
            counts[percent] = try SoundConversion.convert(soundAt: sound, options: options).haptics.transients.count
        }
        let ahap = temp.url.appendingPathComponent("s.ahap").path
        #expect(try CLIRun(["convert", sound, "-o", ahap, "--sensitivity", "30", "--min-gap", "80"]).status == 0)
        let written = try AHAPPattern.decode(text: String(contentsOfFile: ahap, encoding: .utf8)).pattern.events.filter { $0.type == .hapticTransient }
        #expect(written.count == counts[30] && counts[5]! < counts[100]!, "\(counts)")
        // The picture's dots: one closed sub-path each, the chosen row's in its own colour (its
        // data path; the legend's swatch is a path of one).
        let svg = try String(contentsOfFile: picture, encoding: .utf8)
        let body = svg.components(separatedBy: "</defs>").last ?? svg
        func dots(_ c: PlotColour) -> Int {
            func percent(_ v: Double) -> String { String(format: "%.6f", v * 100).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression) + "%" }
            let fill = "fill:rgb(\(percent(c.red)),\(percent(c.green)),\(percent(c.blue)));"
            return body.split(separator: "\n").filter { $0.hasPrefix("<path") && $0.contains(fill) }.map { $0.components(separatedBy: " Z").count - 1 }.max() ?? 0
        }
        #expect(dots(PlotTheme.light.hitAtSensitivity) == written.count)
        #expect(dots(PlotTheme.light.hit) == counts.filter { $0.key != 30 }.values.reduce(0, +), "\(counts)")
        // Asked for with no sound among the inputs: nothing to draw, said.
        let none = try CLIRun(["plot", heartbeatPath, "-o", temp.url.appendingPathComponent("n.png").path, "--panels", "sensitivity"])
        #expect(none.status != 0 && none.stderr.contains("nothing to draw"), "\(none.stderr)")
    }

    @Test("a .haptic clip plots as the AHAP it converts to: its pattern and drive, over the same time")
    func hapticClip() throws {
        let temp = try TempFolder()
        let clip = temp.url.appendingPathComponent("h.haptic").path
        let back = temp.url.appendingPathComponent("back.ahap").path
        for (input, output) in [(heartbeatPath, clip), (clip, back)] {
            let run = try CLIRun(["convert", input, "-o", output])
            #expect(run.status == 0, "\(run.stderr)")
        }
        // "x.svg: svg 900x540, 2 panels, 0.000–1.500 s": everything after the picture's name.
        var summaries: [String] = []
        for (input, name) in [(clip, "x.svg"), (back, "x.svg")] {
            let run = try CLIRun(["plot", input, "-o", temp.url.appendingPathComponent(name).path, "--size", "900"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.contains("2 panels"), "pattern and drive: \(run.stdout)")
            summaries.append(String(run.stdout.split(separator: "\n").first { $0.contains("x.svg: ") }?.split(separator: " ", maxSplits: 1).last ?? ""))
        }
        #expect(!summaries[0].isEmpty && summaries[0] == summaries[1], "the clip drawn as the pattern it converts to: \(summaries)")
    }

    /// What `rhythm --json` prints, cut to two beats.
    static let rhythmReport = """
        {"mode": "offline to session.wav", "report": {"cue": "beat_hit", "sampleRate": 48000, "bpm": 120, "lead": 0.2,
          "origin": 1.2, "twoDevice": false, "times": [0, 0.5], "rows": [
            {"beat": 1, "scheduled": 1.2, "offset": 0, "skewSamples": -11, "skewMs": -0.229, "plannedSkewSamples": -11, "feltSkewMs": 0},
            {"beat": 2, "scheduled": 1.7, "offset": 0.5, "skewSamples": -11, "skewMs": -0.229, "plannedSkewSamples": -11, "feltSkewMs": 0.1}]},
         "summary": {}}
        """

    /// Parses and runs `arguments`; returns (status, the one error line).
    func refusal(_ arguments: [String]) -> (status: Int32, line: String) {
        do {
            let run = try CLIRun(arguments)
            return (run.status, run.stderr.trimmingCharacters(in: .newlines))
        } catch {
            return (Hapticsynth.exitCode(for: error).rawValue, Hapticsynth.message(for: error))
        }
    }

    @Test("bad options and inputs: one line, non-zero exit, nothing written", arguments: [
        (["-o", "@DIR/x.gif"], "unknown picture extension (known: png, svg, pdf"),
        (["-o", "@DIR/x.png", "--format", "jpeg"], "--format jpeg: unknown"),
        (["-o", "@DIR/x.png", "--size", "10x10"], "--size 10x10"),
        (["-o", "@DIR/x.png", "--theme", "blue"], "--theme blue"),
        (["-o", "@DIR/x.png", "--from", "2", "--to", "1"], "--to 1.0: must come after --from 2.0"),
        (["-o", "@DIR/x.png", "--from", "nan"], "--from nan"),
        (["-o", "@DIR/x.png", "--panels", "pattern,spectrum"], "unknown panel \"spectrum\""),
        (["-o", "@DIR/x.png", "--profile", "nope"], "--profile nope: no such built-in profile"),
        (["-o", "@DIR/x.png", "--sensitivity", "150"], "--sensitivity 150.0: expected 0–100 %"),
        (["-o", "@DIR/x.png", "--sensitivity", "nan"], "--sensitivity nan"),
        (["-o", "@DIR/x.png", "--min-gap", "5"], "--min-gap 5.0: expected 10–10000 ms"),
        (["-o", "@DIR/x.png", "--min-gap", "1e308"], "--min-gap 1e+308"),
    ])
    func badOptions(extra: [String], expected: String) throws {
        let temp = try TempFolder()
        let p = try temp.file("p.ahap", cleanPatternWithoutAudio)
        let result = refusal(["plot", p] + extra.map { $0.replacingOccurrences(of: "@DIR", with: temp.url.path) })
        print("plot \(extra.joined(separator: " ")): \(result.line)")
        #expect(result.status != 0)
        #expect(result.line.contains(expected), "\(result.line)")
        #expect(!result.line.contains("\n"), "one line")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path) == ["p.ahap"])
    }

    @Test("bad inputs: one line naming the file")
    func badInputs() throws {
        let temp = try TempFolder()
        let out = temp.url.appendingPathComponent("x.png").path
        let broken = try temp.file("broken.ahap", #"{"Pattern": [{"Event": "#)
        let noise = try temp.file("noise.wav", "RIFF but not a sound at all")
        let notReport = try temp.file("bad.json", #"{"report": {"cue": 1}}"#)
        try FileManager.default.createDirectory(atPath: temp.url.appendingPathComponent("folder").path, withIntermediateDirectories: false)
        let fifo = temp.url.appendingPathComponent("fifo.ahap").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // Hostile numbers in a rhythm report (they would choose the picture's time range).
        let farOffset = try temp.file("far.json", Self.rhythmReport.replacingOccurrences(of: #""offset": 0.5"#, with: #""offset": -3e14"#))
        let hugeSkew = try temp.file("skew.json", Self.rhythmReport.replacingOccurrences(of: #""feltSkewMs": 0.1"#, with: #""feltSkewMs": 1e308"#))
        let cases: [(String, String)] = [
            (farOffset, "far.json: report.rows[1].offset -3e+14: expected 0 to 86400 s"),
            (hugeSkew, "skew.json: report.rows[1].feltSkewMs 1e+308: expected a finite skew"),
            (temp.url.appendingPathComponent("missing.ahap").path, "missing.ahap: cannot read: no such file"),
            (temp.url.appendingPathComponent("folder").path, "folder: cannot read: is a directory"),
            (fifo, "fifo.ahap: cannot read: not a regular file"),
            (broken, "broken.ahap: "),
            (noise, "noise.wav: not a pattern (.ahap, .haptic), a rhythm report (.json) or a sound file libsndfile reads"),
            (notReport, "bad.json: not a rhythm report as `rhythm --json` writes it"),
        ]
        for (input, expected) in cases {
            let result = refusal(["plot", input, "-o", out])
            print("plot \(URL(fileURLWithPath: input).lastPathComponent): \(result.line)")
            #expect(result.status == 1)
            #expect(result.line.contains(expected), "\(result.line)")
            #expect(!result.line.contains("\n"))
            #expect(!FileManager.default.fileExists(atPath: out))
        }
    }

    @Test("never written over an input, a link, a folder or a pipe; contents unchanged")
    func fileSafety() throws {
        let temp = try TempFolder()
        let p = try temp.file("p.ahap", cleanPatternWithoutAudio)
        let target = try temp.file("target.png", "mine")
        let link = temp.url.appendingPathComponent("link.png").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let folder = temp.url.appendingPathComponent("folder.png").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let fifo = temp.url.appendingPathComponent("fifo.png").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let alternative = temp.url.path + "/../" + temp.url.lastPathComponent + "/./p.ahap"
        for (output, expected) in [
            (alternative, "is one of the inputs; not written over"), (link, "is a symbolic link, not a regular file; not replaced"),
            (folder, "is a folder, not a regular file"), (fifo, "is a pipe, not a regular file"),
        ] {
            let result = refusal(["plot", p, "-o", output, "--format", "png"])
            #expect(result.status == 1)
            #expect(result.line.contains(expected), "\(result.line)")
        }
        #expect(try String(contentsOfFile: p, encoding: .utf8) == cleanPatternWithoutAudio)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "mine")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.contains("partial") }.isEmpty)
        // An existing regular file is replaced (like render).
        let old = try temp.file("old.png", "old")
        #expect(refusal(["plot", p, "-o", old]).status == 0)
        #expect(Array(try bytes(old).prefix(4)) == Self.png)
    }

    @Test("SIGINT, SIGTERM and SIGHUP while a long drive is drawn leave no temporary file", arguments: [SIGINT, SIGTERM, SIGHUP])
    func signals(signal: Int32) throws {
        let temp = try TempFolder()
        let params = #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]"#
        let pattern = try temp.file("long.ahap", #"{"Pattern": [{"Event": {"Time": 3000, "EventType": "HapticTransient", \#(params)}}]}"#)
        var sawPartial = false
        let run = try runShell("exec '\(hapticsynthBinary)' plot long.ahap -o long.png --rate 384000", in: temp.url) { process in
            // Wait (at most 60 s) until the temporary file exists, then signal.
            let deadline = Date().addingTimeInterval(60)
            func partials() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: temp.url.path).filter { $0.contains(".partial-") } }
            while Date() < deadline, process.isRunning, try partials().isEmpty { usleep(20_000) }
            sawPartial = try !partials().isEmpty
            kill(process.processIdentifier, signal)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
        print("plot killed by signal \(signal): \(run.signalled ? "ended by signal \(run.status)" : "exit \(run.status)"), left \(left)")
        #expect(sawPartial, "the plot was under way when signalled")
        #expect(run.signalled && run.status == signal)
        #expect(left == ["long.ahap"], "no temporary file, no output")
        #expect(FileManager.default.contents(atPath: pattern) != nil)
    }

    @Test("as a process: -o - writes the picture to standard output, equal bytes run to run, the umask's mode")
    func process() throws {
        let temp = try TempFolder()
        let piped = try runShell("'\(hapticsynthBinary)' plot '\(heartbeatPath)' -o - | cat", in: temp.url)
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(Array(piped.stdout.prefix(4)) == Self.png)
        #expect(piped.stderr.contains("-: png"), "the summary goes to stderr: \(piped.stderr)")
        for format in ["svg", "pdf", "png"] {
            let a = try runShell("'\(hapticsynthBinary)' plot '\(heartbeatPath)' -o a.\(format)", in: temp.url)
            let b = try runShell("'\(hapticsynthBinary)' plot '\(heartbeatPath)' -o b.\(format)", in: temp.url)
            #expect(a.status == 0 && b.status == 0)
            #expect(try bytes(temp.url.appendingPathComponent("a.\(format)").path) == bytes(temp.url.appendingPathComponent("b.\(format)").path),
                    "\(format): the same input gives the same bytes")
        }
        let masked = try runShell("umask 027; '\(hapticsynthBinary)' plot '\(heartbeatPath)' -o masked.png", in: temp.url)
        #expect(masked.status == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: temp.url.appendingPathComponent("masked.png").path)[.posixPermissions] as? Int
        #expect(mode == 0o640)
    }
}
