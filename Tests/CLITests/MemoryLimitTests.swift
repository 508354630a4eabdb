import Foundation
import HapticKit
import Testing

/// Small inputs cannot ask for unbounded memory or time: one sound at many AudioPitch values
/// or under many spellings of its path, a huge cue sheet, a looped sound of 1e300 s. Each
/// case runs the tool as a process and measures its outcome: exit status, peak resident
/// memory (VmHWM, read while it runs) and time, with generous bounds. The shell caps the
/// address space (4 GiB) so that a regression fails the test instead of the machine.
@Suite("memory and time from small inputs", .serialized)
struct MemoryLimitTests {
    struct Measured {
        var status: Int32
        var stdout: String
        var stderr: String
        var peakMB: Int
        var seconds: Double
    }

    /// Runs `hapticsynth arguments` in `folder`, reading its peak RSS until it ends (killed after `timeout` s).
    func measure(_ arguments: [String], in folder: URL, timeout: Double = 300) throws -> Measured {
        let process = Process()
        (process.executableURL, process.arguments) = killedWithTestRunner(
            "/bin/sh", ["-c", "ulimit -v 4194304; exec \"$0\" \"$@\"", hapticsynthBinary] + arguments)
        process.currentDirectoryURL = folder
        let out = temporaryFile(folder, "stdout"), err = temporaryFile(folder, "stderr")
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let start = Date()
        try process.run()
        // Never leaves the process behind, whatever happens below.
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        var peakKB = 0
        while process.isRunning {
            if let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
               let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
               let kb = Int(line.split(separator: " ").dropFirst().first ?? "") {
                peakKB = max(peakKB, kb)
            }
            if Date().timeIntervalSince(start) > timeout { kill(process.processIdentifier, SIGKILL) }
            usleep(20_000)
        }
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Measured(status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                        stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "", peakMB: peakKB / 1024, seconds: seconds)
    }

    func temporaryFile(_ folder: URL, _ name: String) -> URL {
        let url = folder.appendingPathComponent(".\(name)")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return url
    }

    /// A 5 MB sound: 28 s of 16-bit stereo noise at 44.1 kHz.
    func fiveMegabyteSound(_ path: String) throws {
        var state: UInt32 = 7
        let frames = 28 * 44_100
        let samples = (0..<(frames * 2)).map { _ -> Float in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Float(Int32(bitPattern: state)) / Float(Int32.max) / 4
        }
        try SoundFileWriter.write(samples, channels: 2, sampleRate: 44_100, to: path)
    }

    func audioEvent(_ time: Double, _ path: String, pitch: Double) -> String {
        #"{"Event": {"Time": \#(time), "EventType": "AudioCustom", "EventWaveformPath": "\#(path)", "EventParameters": [{"ParameterID": "AudioPitch", "ParameterValue": \#(pitch)}]}}"#
    }

    @Test("one 5 MB sound at 200 AudioPitch values: bounded memory, the events past the budget silent with one warning; validate --strict flags it")
    func manyPitches() throws {
        let temp = try TempFolder()
        try fiveMegabyteSound(temp.url.appendingPathComponent("s.wav").path)
        let events = (0..<200).map { audioEvent(Double($0) * 0.01, "s.wav", pitch: -1 + Double($0) / 100) }
        let text = #"{"Pattern": ["# + events.joined(separator: ",\n") + "]}"
        try temp.file("pitches.ahap", text)
        let run = try measure(["render", "pitches.ahap", "-o", "out.wav"], in: temp.url)
        print("render 200 pitches of a 5 MB sound (\(text.utf8.count) bytes of AHAP): exit \(run.status), peak \(run.peakMB) MB, \(String(format: "%.1f", run.seconds)) s; \(run.stderr.split(separator: "\n").last ?? "")")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.peakMB < 1024, "peak RSS \(run.peakMB) MB")
        #expect(run.stderr.contains("would pass the 256 MiB the sounds of one pattern may hold"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one warning for all of them")
        let strict = try CLIRun(["validate", "--strict", temp.url.appendingPathComponent("pitches.ahap").path])
        #expect(strict.status == 1 && strict.stdout.contains("256 MiB"), "\(strict.stdout)")
    }

    @Test("one 5 MB sound under 100 spellings of its path: decoded and converted once")
    func manySpellings() throws {
        let temp = try TempFolder()
        try FileManager.default.createDirectory(at: temp.url.appendingPathComponent("d"), withIntermediateDirectories: true)
        try fiveMegabyteSound(temp.url.appendingPathComponent("s.wav").path)
        let events = (0..<100).map { k in audioEvent(Double(k) * 0.01, String(repeating: k % 2 == 0 ? "./" : "d/../", count: k / 2) + "s.wav", pitch: 0) }
        try temp.file("spellings.ahap", #"{"Pattern": ["# + events.joined(separator: ",\n") + "]}")
        let run = try measure(["render", "spellings.ahap", "-o", "out.wav"], in: temp.url)
        print("render 100 spellings of a 5 MB sound: exit \(run.status), peak \(run.peakMB) MB, \(String(format: "%.1f", run.seconds)) s")
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        #expect(run.peakMB < 400, "peak RSS \(run.peakMB) MB")
    }

    @Test("a cue sheet of 50,000 cues is refused in one line, quickly and in little memory")
    func hugeCueSheet() throws {
        let temp = try TempFolder()
        let assets = temp.url.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: assets.path + "/sfx", withDestinationPath: rhythmAssets + "/sfx")
        let cues = (0..<50_000).map { i in
            #""c\#(i)": {"haptic": {"buzz": [{"time": 0, "intensity": 0.5, "sharpness": \#(Double(i % 100) / 100)}, {"time": \#(0.05 + Double(i) * 1e-6), "intensity": 0.4, "sharpness": 0.3}]}, "sfx": {"name": "sfx_click"}}"#
        }
        let sheet = #"{"schema": "hapticsynth-cues", "version": 1, "cues": {"beat_hit": {"haptic": {"pattern": "heartbeat"}}, "# + cues.joined(separator: ",\n") + "}}"
        try temp.file("assets/cues.json", sheet)
        let run = try measure(["rhythm", "--beats", "1", "-o", "s.wav", "--haptics", rhythmHaptics, "--assets", assets.path], in: temp.url, timeout: 120)
        print("rhythm -o with a \(sheet.utf8.count / 1000) kB cue sheet of 50,001 cues: exit \(run.status), peak \(run.peakMB) MB, \(String(format: "%.1f", run.seconds)) s: \(run.stderr)")
        #expect(run.status == 1)
        #expect(run.stderr.contains("50001 cues; at most \(Limits.maxCues)") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
        #expect(run.seconds < 60 && run.peakMB < 600)
    }

    @Test("200 cues that each play a 5 MB sound effect: the manager prepares what fits its sound budget, in bounded memory")
    func manyCuesWithBigSounds() throws {
        let temp = try TempFolder()
        let assets = temp.url.appendingPathComponent("assets")
        try FileManager.default.createDirectory(at: assets.appendingPathComponent("sfx"), withIntermediateDirectories: true)
        try fiveMegabyteSound(assets.appendingPathComponent("sfx/big.wav").path)
        let cues = (0..<200).map { i in #""c\#(i)": {"haptic": {"transient": {"intensity": 1, "sharpness": \#(Double(i) / 200)}}, "sfx": {"name": "big"}}"# }
        try temp.file("assets/cues.json", #"{"schema": "hapticsynth-cues", "version": 1, "cues": {"# + cues.joined(separator: ",\n") + "}}")
        let run = try measure(["rhythm", "--beats", "1", "--cue", "c0", "-o", "s.wav", "--haptics", rhythmHaptics, "--assets", assets.path], in: temp.url, timeout: 600)
        print("rhythm -o, 200 cues of a 5 MB sound: exit \(run.status), peak \(run.peakMB) MB, \(String(format: "%.1f", run.seconds)) s")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.peakMB < 1200, "peak RSS \(run.peakMB) MB")
    }

    @Test("a looped AudioCustom with EventDuration 1e300: validate warns it is capped, --strict fails")
    func loopedForever() throws {
        let temp = try TempFolder()
        let p = try temp.file("loop.ahap", #"{"Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventDuration": 1e300, "EventWaveformLoopEnabled": true, "EventWaveformPath": "s.wav"}}]}"#)
        let lenient = try CLIRun(["validate", p])
        print("validate looped 1e300: \(lenient.stdout.split(separator: "\n").first ?? "")")
        #expect(lenient.status == 0 && lenient.stdout.contains("EventDuration: warning: EventDuration 1e+300 s is longer than the 3600.0 s limit; capped"), "\(lenient.stdout)")
        let strict = try CLIRun(["validate", "--strict", p])
        #expect(strict.status == 1 && strict.stdout.contains("capped"), "\(strict.stdout)")
    }
}
