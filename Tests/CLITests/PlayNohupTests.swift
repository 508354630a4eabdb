import Foundation
import Testing

/// `nohup hapticsynth play`: a SIGHUP the parent set to be ignored stays ignored, while
/// Ctrl-C still ends the playback. Played to ALSA's null device (nothing is listened to:
/// only the process's signal handling is under test).
@Suite("play under nohup")
struct PlayNohupTests {
    /// The signals `pid` catches (bit n-1 for signal n), from /proc; nil once it is gone.
    func caughtSignals(_ pid: Int32) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }) else { return nil }
        return UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    }

    @Test("nohup play: SIGHUP is ignored (it stays what the parent set), SIGINT still ends it with 130")
    func nohupPlay() throws {
        let temp = try TempFolder()
        // 100 × 30 s: far longer than the test, ended by the test's own SIGINT.
        let events = (0..<100).map { i in
            #"{"Event": {"Time": \#(i * 30), "EventType": "HapticContinuous", "EventDuration": 30, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}"#
        }
        try temp.file("long.ahap", #"{"Pattern": ["# + events.joined(separator: ",") + "]}")
        var handlersInstalled = false
        // What nohup does: SIGHUP ignored, then exec.
        let run = try runShell("trap '' HUP; exec '\(hapticsynthBinary)' play -D null long.ahap", in: temp.url) { process in
            let pid = process.processIdentifier
            let deadline = Date().addingTimeInterval(120)
            // Ready once play (not the shell before exec) catches SIGINT: its handlers are in place.
            // The executable, not the command line, tells them apart: the shell's command line
            // names play too, and the shell may catch SIGINT itself (a fresh-clone run signalled
            // it there, and it died of the signal).
            let binary = URL(fileURLWithPath: hapticsynthBinary).resolvingSymlinksInPath().path
            while Date() < deadline, process.isRunning {
                let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
                if executable == binary, let caught = caughtSignals(pid), caught & (1 << (SIGINT - 1)) != 0 {
                    handlersInstalled = true
                    break
                }
                usleep(5_000)
            }
            // Both pending at once: SIGHUP (the lower number) is delivered first, and would end
            // the process (status: signal 1) were it not ignored; then SIGINT's handler exits 130.
            kill(pid, SIGHUP)
            kill(pid, SIGINT)
            let end = Date().addingTimeInterval(60)
            while Date() < end, process.isRunning { usleep(10_000) }
            if process.isRunning { kill(pid, SIGKILL) }
        }
        print("nohup play, SIGHUP then SIGINT: \(run.signalled ? "ended by signal \(run.status)" : "exit \(run.status)"); stderr: \(run.stderr)")
        #expect(handlersInstalled, "play was under way when signalled: \(run.stderr)")
        #expect(!run.signalled && run.status == 130, "\(run.stderr)")
    }
}
