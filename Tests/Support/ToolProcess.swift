// Waiting and timing for tests on a busy machine, and a program run as its own process (the
// built `hapticsynth` above all) with the waits such a test needs: for a line it prints (a live
// verb's ready line), for its end and its last bytes. Never a fixed sleep.

import Foundation
import Synchronization

/// Seconds on CLOCK_MONOTONIC.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// Polls `condition` every `poll` seconds until it holds or `seconds` have passed; returns
/// whether it held (checked once more at the deadline).
@discardableResult
public func waitUntil(seconds: Double, poll: Double = 0.005, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = monotonicSeconds() + seconds
    while monotonicSeconds() < deadline {
        if try condition() { return true }
        usleep(UInt32(max(0.0005, poll) * 1e6))
    }
    return try condition()
}

/// Runs `body` with the calling thread at SCHED_FIFO `priority` (when permitted), then puts its
/// scheduling back. For timing what a call or a process does rather than how long a loaded
/// machine keeps this test off the CPU: only a higher real-time thread preempts it then.
public func withRealtimePriority<T>(_ priority: Int32 = 80, _ body: () throws -> T) rethrows -> T {
    let thread = pthread_self()
    var policy: Int32 = 0
    var saved = sched_param()
    pthread_getschedparam(thread, &policy, &saved)
    var raised = sched_param(sched_priority: priority)
    let changed = pthread_setschedparam(thread, SCHED_FIFO, &raised) == 0
    defer { if changed { pthread_setschedparam(thread, policy, &saved) } }
    return try body()
}

/// A running program with its standard output and error collected as they come.
public final class ToolProcess: Sendable {
    /// The line a live `hapticsynth` verb prints on standard error once it is ready (device
    /// open, signal handlers installed, library loaded): README "Live verbs: ready line".
    public static func readyLine(verb: String) -> String { "\(verb): ready" }

    /// How long a test waits for a ready line or a prompt: a debug build on a loaded 2-core
    /// machine loads the library and measures the cues' felt onsets in seconds, not 1.5 s.
    public static let generousSeconds = 60.0

    public let process: Process
    private let outPipe = Pipe(), errPipe = Pipe()
    private struct Collected {
        var out = "", err = ""
        var outClosed = false, errClosed = false
    }
    /// What the pipes' handlers collected (a class: the handlers share it).
    private final class Streams: Sendable {
        let state = Mutex(Collected())
        func withLock<R>(_ body: (inout Collected) -> R) -> R { state.withLock { body(&$0) } }
    }
    private let streams = Streams()

    /// Starts `executable` with `arguments` (and `environment`, else this process's).
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                currentDirectory: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
        process.standardOutput = outPipe
        process.standardError = errPipe
        self.process = process
        let streams = self.streams
        outPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            streams.withLock { s in
                if data.isEmpty { s.outClosed = true } else { s.out += String(decoding: data, as: UTF8.self) }
            }
        }
        errPipe.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            streams.withLock { s in
                if data.isEmpty { s.errClosed = true } else { s.err += String(decoding: data, as: UTF8.self) }
            }
        }
        try process.run()
    }

    deinit { kill() }

    public var stdout: String { streams.withLock { $0.out } }
    public var stderr: String { streams.withLock { $0.err } }
    public var pid: pid_t { process.processIdentifier }
    public var isRunning: Bool { process.isRunning }

    /// Waits until a line of standard error (or output, with `onStandardOutput`) satisfies
    /// `matches`, the process ended, or `timeout` passed; returns the line, or nil.
    public func waitForLine(onStandardOutput: Bool = false, timeout: Double = generousSeconds,
                            _ matches: (Substring) -> Bool) -> Substring? {
        var found: Substring? = nil
        waitUntil(seconds: timeout) {
            let text = onStandardOutput ? stdout : stderr
            found = text.split(separator: "\n").first(where: matches)
            return found != nil || !process.isRunning
        }
        // A line written just before the end is in the pipe's last bytes.
        if found == nil && !process.isRunning {
            waitUntil(seconds: 2) { streams.withLock { onStandardOutput ? $0.outClosed : $0.errClosed } }
            found = (onStandardOutput ? stdout : stderr).split(separator: "\n").first(where: matches)
        }
        return found
    }

    /// Waits for `verb`'s ready line (see `readyLine(verb:)`); false if the process ended or
    /// the bound passed first.
    public func waitForReady(_ verb: String, timeout: Double = generousSeconds) -> Bool {
        let line = Self.readyLine(verb: verb)
        return waitForLine(timeout: timeout) { $0 == line } != nil
    }

    /// Waits for the process to end and for its pipes' last bytes; returns the seconds it took,
    /// or nil when it was still running after `timeout` seconds — then it is killed (SIGKILL)
    /// and collected, so that reading its status afterwards fails the test instead of trapping
    /// in Foundation (a running process's terminationStatus took a whole rig run down once).
    public func waitForExit(timeout: Double) -> Double? {
        let t0 = monotonicSeconds()
        guard waitUntil(seconds: timeout, poll: 0.0005, { !process.isRunning }) else {
            kill()
            process.waitUntilExit()
            return nil
        }
        let took = monotonicSeconds() - t0
        waitUntil(seconds: 2) { streams.withLock { $0.outClosed && $0.errClosed } }
        return took
    }

    /// Sends `signal` to the process.
    public func signal(_ number: Int32) { Glibc.kill(pid, number) }

    /// Whether the process has ended (a zombie not yet collected, or gone), from /proc: what
    /// the kernel knows, not when this process's Foundation noticed.
    public var hasEnded: Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(close, offsetBy: 2)...].first == "Z"
    }

    /// Sends `signal` and returns the seconds until the process had ended, or nil after
    /// `timeout`. Timed from a real-time thread (SCHED_FIFO while it waits, when permitted), so
    /// that the figure is the process's own even when this test process is starved of CPU on a
    /// loaded machine.
    public func signalAndTimeEnd(_ number: Int32, timeout: Double) -> Double? {
        withRealtimePriority {
            let t0 = monotonicSeconds()
            signal(number)
            guard waitUntil(seconds: timeout, poll: 0.0002, { hasEnded }) else { return nil }
            return monotonicSeconds() - t0
        }
    }

    /// SIGKILL if it is still running.
    public func kill() { if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) } }
}
