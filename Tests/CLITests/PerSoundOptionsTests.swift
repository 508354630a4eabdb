// `convert --per-sound FILE`: options for particular sounds, over the command line's. Each output
// must be exactly what `convert` writes for that sound alone with the options that apply to it;
// a bad file is one line naming it and its line, exit 1, nothing written.

import Foundation
import HapticCLI
import HapticKit
import Testing

@Suite("convert --per-sound")
struct PerSoundOptionsTests {
    /// A folder `sfx` with the graded clicks under four names (one with a space).
    func sounds(in temp: TempFolder) throws -> [String] {
        let folder = temp.url.appendingPathComponent("sfx")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try ["boom.wav", "steps_1.wav", "steps_2.wav", "rain loop.wav"].map { name in
            let path = folder.appendingPathComponent(name).path
            try SoundFileWriter.write(gradedClicks(), channels: 1, sampleRate: 48000, to: path)
            return path
        }
    }

    @Test("each sound converts with the lines that name it, over the command line's options: the same file as converting it alone")
    func linesApply() throws {
        let temp = try TempFolder()
        let inputs = try sounds(in: temp)
        let list = temp.url.appendingPathComponent("sfx/haptics.txt").path
        try """
            # the sensitivity chosen per sound
            boom.wav            --sensitivity 100 --min-gap 20

            steps_*.wav\t--sensitivity 10 --ducking=20
            sfx/steps_2.wav     --ducking 80   # a later line wins
            "rain loop.wav"     --normalize -1 --audio
            unused_*.wav        --sensitivity 5
            """.write(toFile: list, atomically: true, encoding: .utf8)
        let out = temp.url.appendingPathComponent("out").path
        let run = try CLIRun(["convert"] + inputs + ["-o", out + "/", "--gain", "3", "--per-sound", list])
        #expect(run.status == 0, "\(run.stderr)")
        // The line that names no input is said once; nothing else on stderr.
        #expect(run.stderr == "\(list) line 7: note: unused_*.wav names none of the inputs\n", "\(run.stderr)")
        let expected: [(String, [String])] = [
            ("boom", ["--gain", "3", "--sensitivity", "100", "--min-gap", "20"]),
            ("steps_1", ["--gain", "3", "--sensitivity", "10", "--ducking", "20"]),
            ("steps_2", ["--gain", "3", "--sensitivity", "10", "--ducking", "80"]),
            ("rain loop", ["--normalize", "-1", "--audio"]),
        ]
        var transients: [Int] = []
        for ((name, options), input) in zip(expected, inputs) {
            let batch = try String(contentsOfFile: "\(out)/\(name).ahap", encoding: .utf8)
            let alone = temp.url.appendingPathComponent("out/\(name)-alone.ahap").path
            let single = try CLIRun(["convert", input, "-o", alone] + options)
            #expect(single.status == 0, "\(single.stderr)")
            #expect(try String(contentsOfFile: alone, encoding: .utf8) == batch, "\(name): \(options)")
            transients.append(try AHAPPattern.decode(text: batch).pattern.events.filter { $0.type == .hapticTransient }.count)
        }
        // The sensitivities differ (else this would prove little): more hits at 100 % than at 10 %.
        #expect(transients[0] > transients[1], "\(transients)")
        // Without the file, every sound takes the command line's options.
        let plain = try CLIRun(["convert", inputs[0], "-o", temp.url.appendingPathComponent("plain.ahap").path, "--gain", "3"])
        #expect(plain.status == 0)
        #expect(try String(contentsOfFile: temp.url.appendingPathComponent("plain.ahap").path, encoding: .utf8)
            != String(contentsOfFile: "\(out)/boom.ahap", encoding: .utf8))
    }

    @Test("CRLF and lone CR end lines, a UTF-8 byte order mark is nothing: the same outputs as an LF file")
    func lineEndsAndByteOrderMark() throws {
        let temp = try TempFolder()
        let inputs = try sounds(in: temp)
        let list = temp.url.appendingPathComponent("sfx/haptics.txt").path
        try "\u{FEFF}boom.wav --sensitivity 100   # a comment\r\nsteps_*.wav --sensitivity 10\rboom.wav --min-gap 20\r\n"
            .write(toFile: list, atomically: true, encoding: .utf8)
        let out = temp.url.appendingPathComponent("out").path
        let run = try CLIRun(["convert", inputs[0], inputs[1], "-o", out + "/", "--per-sound", list])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "every line names an input: \(run.stderr)")
        for (name, input, options) in [("boom", inputs[0], ["--sensitivity", "100", "--min-gap", "20"]), ("steps_1", inputs[1], ["--sensitivity", "10"])] {
            let alone = temp.url.appendingPathComponent("\(name)-alone.ahap").path
            #expect(try CLIRun(["convert", input, "-o", alone] + options).status == 0)
            #expect(try String(contentsOfFile: alone, encoding: .utf8) == String(contentsOfFile: "\(out)/\(name).ahap", encoding: .utf8), "\(name)")
        }
    }

    @Test("100,000 lines naming one input: applied in time linear in the lines (the last value wins, as line by line)")
    func manyLinesForOneInput() throws {
        let temp = try TempFolder()
        let inputs = try sounds(in: temp)
        func run(lines count: Int) throws -> (seconds: Double, output: String) {
            let list = temp.url.appendingPathComponent("list-\(count).txt").path
            let lines = (0..<count).map { k in k % 2 == 0 ? "boom.wav --sensitivity \(k % 7 * 10) --gain 1" : "b*.wav --normalize -3 --min-gap \(20 + k % 5)" }
            try (lines + ["boom.wav --sensitivity 100"]).joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
            let out = temp.url.appendingPathComponent("boom-\(count).ahap").path
            // This thread's CPU time (the convert runs on it): a measure the machine's load leaves alone.
            func cpu() -> Double {
                var t = timespec()
                clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
                return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
            }
            let start = cpu()
            let result = try CLIRun(["convert", inputs[0], "-o", out, "--per-sound", list])
            let seconds = cpu() - start
            #expect(result.status == 0, "\(result.stderr)")
            return (seconds, try String(contentsOfFile: out, encoding: .utf8))
        }
        let small = try run(lines: 20_000), large = try run(lines: 100_000)
        print("--per-sound, lines naming one input: 20,000 in \(small.seconds) s, 100,000 in \(large.seconds) s of CPU")
        #expect(large.seconds < 20, "100,000 lines in \(large.seconds) s")
        // Five times the lines: about five times the time when linear (25 when quadratic).
        #expect(large.seconds < 12 * max(small.seconds, 0.05), "ratio \(large.seconds / small.seconds)")
        // The last value of each option, --normalize (the later of it and --gain) included.
        let alone = temp.url.appendingPathComponent("alone.ahap").path
        let single = try CLIRun(["convert", inputs[0], "-o", alone, "--sensitivity", "100", "--normalize", "-3", "--min-gap", "24"])
        #expect(single.status == 0)
        #expect(try String(contentsOfFile: alone, encoding: .utf8) == large.output)
    }

    @Test("lines that name no input: the first ten noted, then their number; repeated options checked once")
    func manyUnmatchedLines() throws {
        let temp = try TempFolder()
        let inputs = try sounds(in: temp)
        let list = temp.url.appendingPathComponent("sfx/haptics.txt").path
        // (The first name holds an escape sequence: the note must not pass it to the terminal.)
        let lines = ["\u{1B}[2Jother_1.wav --sensitivity 70"] + (2...25).map { "other_\($0).wav --sensitivity 70" } + ["boom.wav --sensitivity 70"]
        try lines.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let out = temp.url.appendingPathComponent("boom.ahap").path
        let run = try CLIRun(["convert", inputs[0], "-o", out, "--per-sound", list])
        #expect(run.status == 0, "\(run.stderr)")
        let notes = run.stderr.split(separator: "\n").map(String.init)
        #expect(notes.count == 11, "\(notes)")
        #expect(notes.first == "\(list) line 1: note: \\x1B[2Jother_1.wav names none of the inputs", "\(notes)")
        #expect(!run.stderr.unicodeScalars.contains("\u{1B}"))
        #expect(notes.last == "\(list): note: 15 more lines name none of the inputs")
        #expect(try String(contentsOfFile: out, encoding: .utf8).contains("--sensitivity 70"))
    }

    @Test("a bad file or line: one line naming the file and the line, exit 1, nothing written", arguments: [
        ("boom.wav --sensitivity 150", "line 1: --sensitivity 150.0: expected 0–100 %"),
        ("boom.wav --sensitivity nan", "line 1: --sensitivity nan: expected 0–100 %"),
        ("# ok\nboom.wav -o elsewhere.ahap", "line 2: -o is not an option of one sound"),
        ("boom.wav --format haptic", "line 1: --format is not an option of one sound"),
        ("boom.wav --list-sensitivities", "line 1: --list-sensitivities is not an option of one sound"),
        ("boom.wav --sensitivity 50 extra.wav", "line 1: extra.wav: expected an option"),
        ("boom.wav --min-gap", "line 1: --min-gap needs a value"),
        ("\"boom.wav --sensitivity 5", "line 1: a quote (\") is not closed"),
        ("--sensitivity 5", "line 1: starts with --sensitivity"),
        ("boom.wav --from 1.5 --to 0.5", "line 1: --to 0.5 must be after --from 1.5"),
        ("steps_*.wav --channel 0", "line 1: --channel 0: expected a channel number"),
    ])
    func badLines(text: String, expected: String) throws {
        let temp = try TempFolder()
        let inputs = try sounds(in: temp)
        let list = temp.url.appendingPathComponent("sfx/haptics.txt").path
        try text.write(toFile: list, atomically: true, encoding: .utf8)
        let run = try CLIRun(["convert"] + inputs + ["-o", temp.url.appendingPathComponent("out").path + "/", "--per-sound", list])
        #expect(run.status == 1)
        #expect(run.stderr.hasPrefix("\(list) \(expected)"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temp.url.appendingPathComponent("out").path), "no folder made")
    }

    @Test("an unreadable --per-sound file is refused naming it; -o naming it does not write over it")
    func unreadableAndSafe() throws {
        let temp = try TempFolder()
        let inputs = try sounds(in: temp)
        let out = temp.url.appendingPathComponent("out.ahap").path
        for (path, reason) in [
            (temp.url.appendingPathComponent("missing.txt").path, "cannot read"),
            (temp.url.appendingPathComponent("sfx").path, "cannot read"),
        ] {
            let run = try CLIRun(["convert", inputs[0], "-o", out, "--per-sound", path])
            #expect(run.status == 1 && run.stderr.hasPrefix("\(path): \(reason)"), "\(run.stderr)")
        }
        let binary = temp.url.appendingPathComponent("binary.txt")
        try Data([0x62, 0x6f, 0x6f, 0x6d, 0xff, 0xfe, 0x0a]).write(to: binary)
        let notText = try CLIRun(["convert", inputs[0], "-o", out, "--per-sound", binary.path])
        #expect(notText.status == 1 && notText.stderr == "\(binary.path): not UTF-8 text\n", "\(notText.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        // The list is an input: never written over.
        let list = temp.url.appendingPathComponent("list.ahap").path
        let text = "boom.wav --sensitivity 70\n"
        try text.write(toFile: list, atomically: true, encoding: .utf8)
        let over = try CLIRun(["convert", inputs[0], "-o", list, "--per-sound", list])
        #expect(over.status == 1 && over.stderr.contains("not written over"), "\(over.stderr)")
        #expect(try String(contentsOfFile: list, encoding: .utf8) == text)
    }
}
