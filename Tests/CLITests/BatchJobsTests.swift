// `-j N` / `--jobs N` for the batch verbs: the same files, lines and exit status for any N
// (one bad input among good ones included), and N out of range refused in one line.

import Foundation
import HapticCLI
import HapticKit
import Testing

@Suite("batch verbs: --jobs")
struct BatchJobsTests {
    /// Every file under `folder`, by name, with its bytes.
    func files(_ folder: String) throws -> [String: Data] {
        var all: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            all[name] = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
        }
        return all
    }

    /// Runs `arguments` with `-o OUT-jN/` for N = 1, 2 and 4; each run's lines (the folder's name
    /// taken out), status and files must equal the first's.
    func sameForEveryJobs(_ temp: TempFolder, _ arguments: [String], expectFailure: String) throws {
        var first: (status: Int32, stdout: String, stderr: String, files: [String: Data])?
        for jobs in [1, 2, 4] {
            let out = temp.url.appendingPathComponent("out-j\(jobs)").path
            let run = try CLIRun(arguments + ["-o", out + "/", "-j", String(jobs)])
            let result = (
                run.status, run.stdout.replacingOccurrences(of: out, with: "OUT"), run.stderr.replacingOccurrences(of: out, with: "OUT"),
                try files(out))
            #expect(result.0 == 1, "one bad input: exit 1 (-j \(jobs))")
            #expect(result.2.contains(expectFailure), "-j \(jobs): \(result.2)")
            #expect(!result.3.keys.contains { $0.contains(".partial-") }, "no temporary file left")
            if let first {
                #expect(result.0 == first.status, "-j \(jobs)")
                #expect(result.1 == first.stdout, "-j \(jobs): the same lines on standard output, in the same order")
                #expect(result.2 == first.stderr, "-j \(jobs): the same lines on standard error, in the same order")
                #expect(result.3 == first.files, "-j \(jobs): the same files, byte for byte")
            } else {
                first = result
            }
        }
        #expect((first?.files.count ?? 0) >= 4, "the good inputs were written")
    }

    @Test("render: the same files, lines and exit status for -j 1, 2 and 4, a broken pattern among six")
    func render() throws {
        let temp = try TempFolder()
        var inputs: [String] = []
        for k in 0..<6 {
            let text = k == 3 ? #"{"Pattern": [{"Event": "# : k % 2 == 0 ? clampedPattern : cleanPatternWithoutAudio
            inputs.append(try temp.file("in/p\(k).ahap", text))
        }
        try sameForEveryJobs(temp, ["render"] + inputs, expectFailure: "p3.ahap")
    }

    @Test("convert: the same files, lines and exit status for -j 1, 2 and 4, a sound with a NaN among five")
    func convert() throws {
        let temp = try TempFolder()
        var inputs: [String] = []
        for k in 0..<5 {
            let path = temp.url.appendingPathComponent("s\(k).wav").path
            let step = 0.01 * Double(k + 1)
            var samples: [Float] = (0..<24000).map { i -> Float in
                let tone = Float(0.3 * sin(Double(i) * step))
                return i % 6000 == 0 ? tone + 0.6 : tone
            }
            if k == 2 { samples[1200] = Float.nan }
            try writeSound(path, format: .wav, bits: .float32, samples: samples)
            inputs.append(path)
        }
        try sameForEveryJobs(temp, ["convert"] + inputs + ["--list-sensitivities"], expectFailure: "s2.wav: sample 1200")
    }

    @Test("plot: several inputs, one picture: the same bytes and lines for -j 1, 2 and 4; a bad input named the same")
    func plot() throws {
        let temp = try TempFolder()
        let sound = temp.url.appendingPathComponent("s.wav").path
        try writeSound(sound, seconds: 1)
        let a = try temp.file("a.ahap", clampedPattern), b = try temp.file("b.ahap", cleanPatternWithoutAudio)
        let broken = try temp.file("broken.ahap", #"{"Pattern": [{"Event": "#)
        var first: (Int32, String, String, Data?)?
        var firstBad: (Int32, String)?
        for jobs in ["1", "2", "4"] {
            let out = temp.url.appendingPathComponent("p\(jobs).png").path
            let run = try CLIRun(["plot", sound, a, b, "--panels", "sound,sensitivity,pattern,drive", "-o", out, "-j", jobs])
            let result = (run.status, run.stdout.replacingOccurrences(of: out, with: "OUT"), run.stderr, try? Data(contentsOf: URL(fileURLWithPath: out)))
            #expect(result.0 == 0 && result.3 != nil, "\(run.stderr)")
            if let first { #expect(result == first, "-j \(jobs)") } else { first = result }
            let bad = try CLIRun(["plot", a, broken, b, sound, "-o", out + ".bad.png", "-j", jobs])
            #expect(bad.status == 1 && bad.stderr.contains("broken.ahap"), "\(bad.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out + ".bad.png"))
            if let firstBad { #expect((bad.status, bad.stderr) == firstBad, "-j \(jobs)") } else { firstBad = (bad.status, bad.stderr) }
        }
    }

    @Test("SIGINT while two files render at once: the process ends by the signal, no temporary file left")
    func interrupted() throws {
        let temp = try TempFolder()
        let params = #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]"#
        for k in 0..<4 {
            try temp.file("long\(k).ahap", #"{"Pattern": [{"Event": {"Time": 1500, "EventType": "HapticTransient", \#(params)}}]}"#)
        }
        let out = temp.url.appendingPathComponent("out")
        var underWay = 0
        let run = try runShell(
            "exec '\(hapticsynthBinary)' render long0.ahap long1.ahap long2.ahap long3.ahap -o out/ --rate 384000 -j 2", in: temp.url
        ) { process in
            // Wait (at most 120 s) until both workers' temporary files exist, then signal.
            let deadline = Date().addingTimeInterval(120)
            func partials() -> Int {
                ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.contains(".partial-") }.count
            }
            while Date() < deadline, process.isRunning, partials() < 2 { usleep(20_000) }
            underWay = partials()
            kill(process.processIdentifier, SIGINT)
        }
        let left = ((try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []).filter { $0.contains(".partial-") }
        #expect(underWay == 2, "two files were being written at once when signalled")
        #expect(run.signalled && run.status == SIGINT)
        #expect(left.isEmpty, "no temporary file left: \(left)")
    }

    @Test("-j out of range: one line naming the option and the range", arguments: ["render", "convert", "plot"])
    func outOfRange(verb: String) throws {
        for jobs in ["0", "33", "-1"] {
            do {
                _ = try CLIRun([verb, "x.ahap", "-o", "x.png", "--jobs", jobs])
                Issue.record("--jobs \(jobs) accepted")
            } catch {
                let message = Hapticsynth.message(for: error)
                #expect(message.contains("--jobs \(jobs): expected 1 to 32 files at a time"), "\(message)")
            }
        }
    }
}
