import Foundation
import HapticSoundFile
import Testing

/// The built `hapticsynth` run as a subprocess, for what only a process shows: signals,
/// standard output, the umask. (`swift build --build-tests` builds it beside the tests.)
let hapticsynthBinary: String = {
    if let env = ProcessInfo.processInfo.environment["HAPTICSYNTH_BIN"], !env.isEmpty { return env }
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    // Inside an .xctest bundle on some layouts: walk up to the build folder.
    for _ in 0..<4 {
        let candidate = folder.appendingPathComponent("hapticsynth").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/hapticsynth").path
}()

struct ProcessRun {
    var status: Int32
    var signalled: Bool
    var stdout: Data
    var stderr: String
}

/// Runs `/bin/sh -c script` in `folder`; `whileRunning` gets the process (e.g. to signal it).
/// The shell starts with SIGHUP, SIGINT and SIGTERM at their defaults, as from a user's terminal:
/// a test running beside it in this process may ignore SIGHUP for a moment (an in-process
/// `serve`'s reload listener), and a child started then would inherit that (as under nohup).
func runShell(_ script: String, in folder: URL, whileRunning: (Process) throws -> Void = { _ in }) throws -> ProcessRun {
    let process = Process()
    (process.executableURL, process.arguments) = killedWithTestRunner(
        "/usr/bin/env", ["--default-signal=HUP,INT,TERM", "/bin/sh", "-c", script])
    process.currentDirectoryURL = folder
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Drain both pipes while it runs (a full pipe would block it).
    let outData = Recorded()
    let errData = Recorded()
    let group = DispatchGroup()
    for (pipe, sink) in [(out, outData), (err, errData)] {
        group.enter()
        DispatchQueue.global().async {
            sink.data = pipe.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
    }
    do {
        try whileRunning(process)
    } catch {
        // Never left running behind a failed test.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        throw error
    }
    process.waitUntilExit()
    group.wait()
    return ProcessRun(
        status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
        stdout: outData.data, stderr: String(decoding: errData.data, as: UTF8.self))
}

final class Recorded: @unchecked Sendable {  // written by one reader thread, read after group.wait()
    var data = Data()
}

@Suite("render as a process: signals, standard output, umask")
struct RenderProcessTests {
    func partials(_ folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.contains(".partial-") }
    }

    @Test("SIGINT, SIGTERM and SIGHUP during a long render leave no temporary file", arguments: [SIGINT, SIGTERM, SIGHUP])
    func signals(signal: Int32) throws {
        let temp = try TempFolder()
        let params = #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]"#
        let pattern = try temp.file("long.ahap", #"{"Pattern": [{"Event": {"Time": 3000, "EventType": "HapticTransient", \#(params)}}]}"#)
        let before = try Data(contentsOf: URL(fileURLWithPath: pattern))
        var sawPartial = false
        let run = try runShell("exec '\(hapticsynthBinary)' render long.ahap -o long.wav --rate 384000 --bits 32f", in: temp.url) { process in
            // Wait (at most 60 s) until the temporary file exists, then signal.
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, process.isRunning, try partials(temp.url).isEmpty { usleep(20_000) }
            sawPartial = try !partials(temp.url).isEmpty
            kill(process.processIdentifier, signal)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
        print("render killed by signal \(signal): \(run.signalled ? "ended by signal \(run.status)" : "exit \(run.status)"), left \(left)")
        #expect(sawPartial, "the render was under way when signalled")
        #expect(run.signalled && run.status == signal)
        #expect(left == ["long.ahap"], "no temporary file, no output")
        #expect(try Data(contentsOf: URL(fileURLWithPath: pattern)) == before)
    }

    @Test("-o - writes the WAV to standard output (a pipe), the same bytes as a file; no file named -")
    func standardOutput() throws {
        let temp = try TempFolder()
        let piped = try runShell("'\(hapticsynthBinary)' render '\(heartbeatPath)' -o - | cat", in: temp.url)
        let file = try runShell("'\(hapticsynthBinary)' render '\(heartbeatPath)' -o f.wav", in: temp.url)
        let written = try Data(contentsOf: temp.url.appendingPathComponent("f.wav"))
        print("render -o - | cat: exit \(piped.status), \(piped.stdout.count) bytes on stdout; summary on stderr: \(piped.stderr.trimmingCharacters(in: .newlines))")
        #expect(piped.status == 0 && file.status == 0)
        #expect(piped.stdout == written)
        #expect(piped.stderr.contains("-: 0.900 s"))
        #expect(!FileManager.default.fileExists(atPath: temp.url.appendingPathComponent("-").path))
        let flac = try runShell("'\(hapticsynthBinary)' render '\(heartbeatPath)' -o - --format flac | cat", in: temp.url)
        #expect(flac.status == 0 && flac.stdout.prefix(4) == Data("fLaC".utf8))
        // AIFF cannot be streamed to a pipe by libsndfile: one line, exit 1 (the status is
        // hapticsynth's, printed from inside the pipeline).
        let refused = try runShell("('\(hapticsynthBinary)' render '\(heartbeatPath)' -o - --format aiff; echo \"exit $?\" >&2) | cat", in: temp.url)
        print("render -o - --format aiff | cat: \(refused.stderr.split(separator: "\n").joined(separator: " / "))")
        #expect(refused.stderr.contains("exit 1") && refused.stderr.contains("-: cannot write aiff to standard output"))
        #expect(refused.stdout.isEmpty)
    }

    @Test("the finished file gets the mode the umask gives a new file", arguments: [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600), (0o002, 0o664)])
    func umaskMode(mask: Int, expected: Int) throws {
        let temp = try TempFolder()
        let run = try runShell("umask \(String(mask, radix: 8)); '\(hapticsynthBinary)' render '\(heartbeatPath)' -o out.wav", in: temp.url)
        #expect(run.status == 0, "\(run.stderr)")
        let attributes = try FileManager.default.attributesOfItem(atPath: temp.url.appendingPathComponent("out.wav").path)
        let mode = (attributes[.posixPermissions] as? Int ?? -1) & 0o777
        print("umask \(String(mask, radix: 8)): out.wav mode \(String(mode, radix: 8))")
        #expect(mode == expected)
    }
}
