import Foundation
import Testing

/// The patterns folder and the assets are the user's, and anything can sit there under a
/// pattern's name: a named pipe called `*.ahap` or a FIFO `cues.json` is skipped (and named)
/// at once, never waited on, so `rhythm` and `serve` start and every SIGHUP is still served.
/// (ALSA's `null` PCM stands in for a device: these tests need no sound server.)
@Suite("library folders: named pipes and reloads")
struct LibraryFolderTests {
    /// A patterns folder with the bundled heartbeat (the beat_hit cue's pattern) and a FIFO `trap.ahap`.
    func hapticsWithFIFO(_ temp: TempFolder) throws -> String {
        let folder = temp.url.appendingPathComponent("haptics").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent("Haptics/heartbeat.ahap").path, toPath: folder + "/heartbeat.ahap")
        #expect(mkfifo(folder + "/trap.ahap", 0o644) == 0)
        return folder
    }

    @Test("rhythm -o with a named pipe among the patterns: the pipe is skipped and the session rendered")
    func rhythmWithFIFOPattern() throws {
        let temp = try TempFolder()
        let haptics = try hapticsWithFIFO(temp)
        let out = temp.url.appendingPathComponent("session.wav").path
        let run = try LiveProcess(["rhythm", "--beats", "2", "-o", out, "--haptics", haptics,
                                   "--assets", repositoryRoot.appendingPathComponent("Assets").path])
        let status = run.waitForExit(timeout: 300)
        print("rhythm -o with a FIFO pattern: \(status.map { "exit \($0)" } ?? "still running after 300 s (killed)"); \(run.stderr.split(separator: "\n").first ?? "")")
        #expect(status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: out))
    }

    @Test("rhythm -o with a FIFO cues.json: one line naming the file, exit 1")
    func rhythmWithFIFOCueSheet() throws {
        let temp = try TempFolder()
        let assets = temp.url.appendingPathComponent("assets").path
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: assets + "/sfx", withDestinationPath: repositoryRoot.appendingPathComponent("Assets/sfx").path)
        #expect(mkfifo(assets + "/cues.json", 0o644) == 0)
        let out = temp.url.appendingPathComponent("session.wav").path
        let run = try LiveProcess(["rhythm", "--beats", "2", "-o", out, "--haptics", repositoryRoot.appendingPathComponent("Haptics").path, "--assets", assets])
        let status = run.waitForExit(timeout: 300)
        print("rhythm -o with a FIFO cues.json: \(status.map { "exit \($0)" } ?? "still running after 300 s (killed)"): \(run.stderr)")
        #expect(status == 1)
        #expect(run.stderr.contains("cues.json") && run.stderr.contains("named pipe"), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    @Test("serve starts with a named pipe among the patterns, and every SIGHUP reload names what it skipped")
    func serveWithFIFOPattern() throws {
        let temp = try TempFolder()
        let haptics = try hapticsWithFIFO(temp)
        let serve = try LiveProcess(["serve", "-D", "null", "--osc-port", "0", "--haptics", haptics,
                                     "--assets", repositoryRoot.appendingPathComponent("Assets").path])
        defer { serve.kill() }
        // Generous: a debug build measures every cue's felt onset before it listens (a minute on a loaded machine).
        let ready = serve.wait(timeout: 300) { out, _ in out.contains("listening on") }
        print("serve with a FIFO pattern: \(ready ? "listening" : "not listening after 300 s"); stderr: \(serve.stderr)")
        #expect(ready)
        guard ready else { return }
        #expect(serve.stderr.contains("trap.ahap: a named pipe, not a regular file"), "\(serve.stderr)")
        // A second pipe appears: the reload names it (and the first).
        #expect(mkfifo(haptics + "/second.ahap", 0o644) == 0)
        serve.signal(SIGHUP)
        let named = serve.wait(timeout: 180) { _, err in err.contains("second.ahap: a named pipe") }
        #expect(named, "the reload named the new pipe: \(serve.stderr)")
        // The folder goes away: the next reload names it; every SIGHUP is served, none lost behind a pipe.
        try FileManager.default.moveItem(atPath: haptics, toPath: haptics + "-moved")
        serve.signal(SIGHUP)
        let folderNamed = serve.wait(timeout: 180) { _, err in err.contains("\(haptics): cannot open the folder") }
        print("serve reloads: \(serve.stderr)")
        #expect(folderNamed, "the reload named the missing folder: \(serve.stderr)")
        serve.signal(SIGTERM)
        #expect(serve.waitForExit(timeout: 30) != nil, "serve ended on SIGTERM")
    }
}
