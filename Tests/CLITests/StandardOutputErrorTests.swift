import Foundation
import HapticSoundFile
import Testing

/// Standard output that cannot be written (`> /dev/full`, or closed with `>&-`) ends every
/// verb as coreutils do: one line "hapticsynth: write error: REASON" on stderr and exit 1,
/// never a trap (it was SIGILL and a 100-line backtrace); a file already written stays valid.
@Suite("standard output that cannot be written")
struct StandardOutputErrorTests {
    static let redirections = [("> /dev/full", "No space left on device"), (">&-", "Bad file descriptor")]

    /// Runs `hapticsynth ARGS REDIRECTION` in `folder` and checks the one-line write error.
    @discardableResult
    func expectWriteError(_ arguments: String, _ redirection: String, _ reason: String, in folder: URL) throws -> ProcessRun {
        let run = try runShell("'\(hapticsynthBinary)' \(arguments) \(redirection)", in: folder)
        let lines = run.stderr.split(separator: "\n")
        print("hapticsynth \(arguments) \(redirection): \(run.signalled ? "signal \(run.status)" : "exit \(run.status)"); stderr \(lines.count) line(s): \(lines.last ?? "")")
        #expect(!run.signalled && run.status == 1, "\(run.stderr)")
        #expect(lines.last == "hapticsynth: write error: \(reason)"[...], "\(run.stderr)")
        // One write error, no crash; a live verb's own notes (its routing warning, the ready
        // line, --verbose's channel line) come before it.
        #expect(!run.stderr.contains("Fatal error") && lines.filter { $0.contains("write error") }.count == 1, "\(run.stderr)")
        #expect(lines.count <= 4, "\(run.stderr)")
        return run
    }

    @Test("the verbs that print to standard output", arguments: redirections)
    func verbs(_ redirection: String, _ reason: String) throws {
        let temp = try TempFolder()
        for arguments in ["validate '\(heartbeatPath)'", "validate --json '\(heartbeatPath)'", "info '\(heartbeatPath)'",
                          "devices", "--help", "render --help", "--version", "play -D null --verbose '\(heartbeatPath)'"] {
            try expectWriteError(arguments, redirection, reason, in: temp.url)
        }
    }

    @Test("render writes its file, then fails on the summary: the file stays valid", arguments: redirections)
    func renderSummary(_ redirection: String, _ reason: String) throws {
        let temp = try TempFolder()
        try expectWriteError("render '\(heartbeatPath)' -o out.wav", redirection, reason, in: temp.url)
        let info = try SoundFileReader.info(temp.url.appendingPathComponent("out.wav").path)
        #expect(info.frames == 43_200 && info.sampleRate == 48_000)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path) == ["out.wav"], "no temporary file left")
    }

    @Test("rhythm -o writes its session, then fails on the table")
    func rhythmTable() throws {
        let temp = try TempFolder()
        let assets = repositoryRoot.appendingPathComponent("Assets").path, haptics = repositoryRoot.appendingPathComponent("Haptics").path
        try expectWriteError("rhythm --beats 2 -o s.wav --haptics '\(haptics)' --assets '\(assets)'", "> /dev/full", "No space left on device", in: temp.url)
        #expect(try SoundFileReader.info(temp.url.appendingPathComponent("s.wav").path).frames > 0)
    }

    @Test("render -o - to a full standard output: one line, exit 1")
    func renderToFullStandardOutput() throws {
        let temp = try TempFolder()
        let run = try runShell("'\(hapticsynthBinary)' render '\(heartbeatPath)' -o - > /dev/full", in: temp.url)
        print("render -o - > /dev/full: exit \(run.status): \(run.stderr)")
        #expect(!run.signalled && run.status == 1)
        #expect(run.stderr.contains("No space left on device") && run.stderr.split(separator: "\n").count == 1, "\(run.stderr)")
    }
}
