import Foundation
import Synchronization

/// The built `hapticsynth` run as a subprocess whose output is read as it comes, for verbs
/// that print a line when they are ready and then keep running (`serve`): a test waits for a
/// line, signals the process, waits for the next line. Killed (SIGKILL) if still running
/// when dropped, so a hung verb fails its test instead of hanging the suite.
final class LiveProcess: Sendable {
    private let process: Process
    /// What it printed (a class, so the pipes' handlers can share it).
    private final class Output: Sendable { let text = Mutex<(out: String, err: String)>(("", "")) }
    private let output = Output()

    /// Starts `hapticsynth arguments...` (in `folder`, when given).
    init(_ arguments: [String], in folder: URL? = nil) throws {
        let process = Process()
        (process.executableURL, process.arguments) = killedWithTestRunner(hapticsynthBinary, arguments)
        if let folder { process.currentDirectoryURL = folder }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        self.process = process
        for (pipe, isError) in [(out, false), (err, true)] {
            pipe.fileHandleForReading.readabilityHandler = { [output] handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil  // end of file
                    return
                }
                let text = String(decoding: data, as: UTF8.self)
                output.text.withLock { if isError { $0.err += text } else { $0.out += text } }
            }
        }
        try process.run()
    }

    deinit { kill() }

    /// What it printed so far.
    var stdout: String { output.text.withLock { $0.out } }
    var stderr: String { output.text.withLock { $0.err } }
    var isRunning: Bool { process.isRunning }
    var pid: Int32 { process.processIdentifier }

    /// Waits up to `timeout` seconds until `condition` holds for (stdout, stderr); false if it never did.
    func wait(timeout: Double, until condition: (String, String) -> Bool) -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if output.text.withLock({ condition($0.out, $0.err) }) { return true }
            usleep(20_000)
        }
        return output.text.withLock { condition($0.out, $0.err) }
    }

    /// Waits up to `timeout` seconds for the process to end; its exit status (128 + the signal
    /// when a signal ended it), or nil when it is still running.
    func waitForExit(timeout: Double) -> Int32? {
        let end = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < end { usleep(20_000) }
        guard !process.isRunning else { return nil }
        usleep(50_000)  // the last output
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }

    /// Sends `signal` to the process.
    func signal(_ signal: Int32) { Foundation.kill(process.processIdentifier, signal) }

    /// Ends it at once (a hung verb) and waits for it.
    func kill() {
        guard process.isRunning else { return }
        Foundation.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// `executable arguments...` made to end when the test runner does: started through util-linux's
/// `setpriv --pdeathsig KILL`, which execs it (same pid) with the parent-death signal set, so a
/// runner that crashes or is killed mid-test leaves no child behind (a `serve -D null` left
/// over spins a core forever: the null device does not pace it). The signal follows the thread
/// that started the child: only for synchronous tests, whose thread lives until they reap it.
/// Without setpriv, the command as it is.
func killedWithTestRunner(_ executable: String, _ arguments: [String]) -> (URL, [String]) {
    let setpriv = "/usr/bin/setpriv"
    guard FileManager.default.isExecutableFile(atPath: setpriv) else { return (URL(fileURLWithPath: executable), arguments) }
    return (URL(fileURLWithPath: setpriv), ["--pdeathsig", "KILL", executable] + arguments)
}
