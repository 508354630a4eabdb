import Foundation
import HapticTestSupport
import Testing

/// examples/hapticsynth-serve.service, the systemd user unit of the README. No systemd runs
/// here: the test reads the unit's own lines and does what systemd would with them — the
/// ExecStart command (its `${VAR}` from the unit's Environment= lines, `%h` a home made for the
/// test with the library where the unit expects it), ExecReload for a reload, KillSignal for
/// a stop — against a real `serve` on the rig, and holds the stop to exit 0 within the unit's
/// TimeoutStopSec. `systemd-analyze verify` (Debian's systemd package) checks the syntax.
@Suite("The systemd unit of serve", .serialized, .enabled(if: OSCRig.isRunning, "needs scripts/rig.sh"))
struct ServeUnitRigTests {
    static let unitPath = oscRepoRoot + "/examples/hapticsynth-serve.service"

    /// The [Service] section's settings, each key with its values in order.
    static func service(_ text: String) -> [String: [String]] {
        var section = ""
        var settings: [String: [String]] = [:]
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") { section = line; continue }
            guard section == "[Service]", let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals]), default: []].append(String(line[line.index(after: equals)...]))
        }
        return settings
    }

    /// A command line as systemd splits and expands it here: words on spaces, `%h` the home,
    /// `${NAME}` and `$NAME` from `environment`.
    static func command(_ line: String, home: String, environment: [String: String]) -> [String] {
        line.split(separator: " ").map { word in
            var w = String(word).replacingOccurrences(of: "%h", with: home)
            for (name, value) in environment {
                w = w.replacingOccurrences(of: "${\(name)}", with: value)
                if w == "$\(name)" { w = value }
            }
            return w
        }
    }

    static func signalNumber(_ name: String) -> Int32? {
        ["SIGTERM": SIGTERM, "SIGINT": SIGINT, "SIGHUP": SIGHUP, "SIGQUIT": SIGQUIT, "SIGKILL": SIGKILL][name]
    }

    @Test("the unit's ExecStart starts serve, ExecReload reloads it, KillSignal stops it with exit 0 within TimeoutStopSec")
    func startReloadStop() throws {
        let text = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
        let unit = Self.service(text)
        let execStart = try #require(unit["ExecStart"]?.last, "ExecStart=")
        let execReload = try #require(unit["ExecReload"]?.last, "ExecReload=")
        let killSignal = try #require(Self.signalNumber(unit["KillSignal"]?.last ?? "SIGTERM"), "KillSignal=")
        let stopTimeout = try #require(Double(unit["TimeoutStopSec"]?.last ?? "90"), "TimeoutStopSec=")
        let success = Set((unit["SuccessExitStatus"] ?? []).flatMap { $0.split(separator: " ").compactMap { Int32($0) } } + [0])

        // A home with the library where the unit looks for it.
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("hs-unit-\(getpid())-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: home) }
        let share = home + "/.local/share/hapticsynth"
        try FileManager.default.createDirectory(atPath: share, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: share + "/Haptics", withDestinationPath: oscRepoRoot + "/Haptics")
        try FileManager.default.createSymbolicLink(atPath: share + "/Assets", withDestinationPath: oscRepoRoot + "/Assets")

        // Environment= as systemd sets it, with the device a drop-in would give (the rig's sink).
        var environment = ProcessInfo.processInfo.environment
        for assignment in unit["Environment"] ?? [] {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { environment[parts[0]] = parts[1].replacingOccurrences(of: "%h", with: home) }
        }
        #expect(environment["HAPTICSYNTH_OSC_PORT"] == "9000", "the README's port by default")
        // A drop-in's values: the rig's sink, and any free port (9000 may be taken on a shared machine).
        environment["HAPTICSYNTH_DEVICE"] = OSCRig.out
        environment["HAPTICSYNTH_OSC_PORT"] = "0"
        var start = Self.command(execStart, home: home, environment: environment)
        // The tool as the unit installs it is the one built for these tests.
        #expect(URL(fileURLWithPath: start[0]).lastPathComponent == "hapticsynth", "ExecStart runs hapticsynth: \(start)")
        start[0] = ServeProcess.toolPath
        #expect(Array(start.dropFirst().prefix(1)) == ["serve"], "\(start)")

        let serve = try ToolProcess(start[0], Array(start.dropFirst()), environment: environment, currentDirectory: home)
        defer { serve.kill() }
        try #require(serve.waitForReady("serve"), "started: \(serve.stdout) \(serve.stderr)")
        #expect(serve.stdout.contains("listening on 127.0.0.1:"), "on this machine only: \(serve.stdout)")

        // Reload: ExecReload with $MAINPID.
        environment["MAINPID"] = String(serve.pid)
        let reload = Self.command(execReload, home: home, environment: environment)
        let reloader = try ToolProcess(reload[0], Array(reload.dropFirst()), environment: environment)
        #expect(reloader.waitForExit(timeout: 30) != nil && reloader.process.terminationStatus == 0, "\(reload): \(reloader.stderr)")
        let reloaded = serve.waitForLine { $0.contains("serve: SIGHUP: reloaded") }
        #expect(reloaded != nil && serve.isRunning, "reloaded and still serving: \(serve.stderr)")

        // Stop: KillSignal, then the status systemd would judge.
        let took = serve.signalAndTimeEnd(killSignal, timeout: stopTimeout)
        _ = serve.waitForExit(timeout: 5)
        print("systemd unit: \(start.joined(separator: " ")); reload: \(reloaded ?? "-"); stop after \(took.map { String(format: "%.0f ms", $0 * 1000) } ?? "-"), exit \(serve.process.terminationStatus)")
        #expect(took != nil, "stopped within TimeoutStopSec=\(stopTimeout)")
        #expect(serve.process.terminationReason == .exit && serve.process.terminationStatus == 0 && success.contains(0))
        #expect(serve.stdout.contains("stopped; served"), "the summary: \(serve.stdout)")
        #expect(!serve.stderr.contains("interrupted"), "the graceful end, not the watchdog: \(serve.stderr)")
    }

    @Test("systemd-analyze verify finds nothing to say about the unit")
    func verifies() throws {
        let analyze = "/usr/bin/systemd-analyze"
        guard FileManager.default.isExecutableFile(atPath: analyze) else {
            // Not on every machine (Debian's systemd package); the test above ran the unit's lines.
            print("systemd unit: \(analyze) is not installed: the unit's syntax was not verified by it")
            return
        }
        // A copy whose ExecStart names the built tool (verify checks that the program exists).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hs-unit-verify-\(getpid())-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let runtime = folder.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let text = try String(contentsOfFile: Self.unitPath, encoding: .utf8)
            .replacingOccurrences(of: "ExecStart=/usr/local/bin/hapticsynth", with: "ExecStart=\(ServeProcess.toolPath)")
        let copy = folder.appendingPathComponent("hapticsynth-serve.service").path
        try text.write(toFile: copy, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        let run = try ToolProcess(analyze, ["verify", "--user", copy], environment: environment)
        #expect(run.waitForExit(timeout: 60) != nil)
        print("systemd unit: systemd-analyze verify --user: exit \(run.process.terminationStatus) \(run.stderr.debugDescription)")
        #expect(run.process.terminationStatus == 0 && run.stderr.isEmpty && run.stdout.isEmpty, "\(run.stdout)\(run.stderr)")
    }
}
