import Foundation
import HapticEngine
import HapticTestSupport
import Synchronization
import Testing

@testable import HapticOSC

/// The running rig (scripts/rig.sh), if the tests were started inside one.
enum OSCRig {
    static let env = ProcessInfo.processInfo.environment
    static var isRunning: Bool { env["HAPTICSYNTH_RIG_DIR"] != nil }
    static let out = env["HAPTICSYNTH_RIG_OUT"] ?? "hs_out"
    static let input = env["HAPTICSYNTH_RIG_IN"] ?? "hs_in"
    static let control = env["HAPTICSYNTH_RIG_CTL"] ?? "scripts/rig.sh"
    static let outB = env["HAPTICSYNTH_RIG_OUT_B"] ?? "hs_out_b", inputB = env["HAPTICSYNTH_RIG_IN_B"] ?? "hs_in_b"
    static let outMono = env["HAPTICSYNTH_RIG_OUT_MONO"] ?? "hs_out_mono", inputMono = env["HAPTICSYNTH_RIG_IN_MONO"] ?? "hs_in_mono"
}

/// `hapticsynth serve` as its own process (the built tool next to the test binary), on a
/// free port, with its output collected.
final class ServeProcess: Sendable {
    let tool: ToolProcess
    let port: Int
    let client: OSCClient

    static var toolPath: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hapticsynth").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return oscRepoRoot + "/.build/debug/hapticsynth"
    }

    /// The arguments of a server on the rig after `serve -D <rig> --osc-port 0`.
    static func arguments(_ extra: [String], haptics: String, device: String) -> [String] {
        ["serve", "-D", device, "--osc-port", "0", "--haptics", haptics, "--assets", oscRepoRoot + "/Assets"] + extra
    }

    /// Starts the server with `arguments` after `serve -D <rig> --osc-port 0`; waits (bounded)
    /// for its ready line and reads the port from its "listening on" line.
    init(_ arguments: [String] = [], haptics: String = oscRepoRoot + "/Haptics", device: String = OSCRig.out) throws {
        tool = try ToolProcess(Self.toolPath, Self.arguments(arguments, haptics: haptics, device: device))
        guard tool.waitForReady("serve"),
              let line = tool.waitForLine(onStandardOutput: true, timeout: 5, { $0.hasPrefix("listening on ") }),
              let address = line.split(separator: " ").dropFirst(2).first, let port = address.split(separator: ":").last.flatMap({ Int($0) })
        else {
            tool.kill()
            throw ServeError(message: "serve did not start: \(tool.stdout) \(tool.stderr)")
        }
        self.port = port
        client = try OSCClient(port: port)
    }

    struct ServeError: Error, CustomStringConvertible { var message: String; var description: String { message } }

    var isRunning: Bool { tool.isRunning }
    var process: Process { tool.process }
    var standardOutput: String { tool.stdout }
    var standardError: String { tool.stderr }

    func signal(_ number: Int32) { tool.signal(number) }

    /// The status reply's fields (README: state, now, latency, then the counters).
    func status() -> [OSCClient.Argument]? {
        for _ in 0..<3 {
            client.send("/hapticsynth/status")
            if let reply = client.receive(timeout: 1), reply.address == "/hapticsynth/status" { return reply.arguments }
        }
        return nil
    }

    /// A counter of the status reply by its position among the integers (README order).
    func counter(_ index: Int) -> Int64? {
        guard let fields = status() else { return nil }
        let ints = fields.compactMap { if case .int64(let v) = $0 { v } else { nil } }
        return index < ints.count ? ints[index] : nil
    }

    /// SIGTERM and the exit status (killed if it has not ended within a generous bound).
    @discardableResult
    func stop() -> Int32 {
        guard tool.isRunning else { return tool.process.terminationStatus }
        tool.signal(SIGTERM)
        if tool.waitForExit(timeout: ToolProcess.generousSeconds) == nil { tool.kill() }
        tool.process.waitUntilExit()
        return tool.process.terminationStatus
    }
}

/// Status counters by position (README "status"): datagrams, executed, malformed, oversized,
/// unknown addresses, bad arguments, dropped, unknown names, unknown loop ids, voices started, engine,
/// socket drops.
enum StatusField: Int {
    case datagrams = 0, executed, malformed, oversized, unknownAddress, badArguments, dropped, unknownNames, unknownLoopIDs, voicesStarted, engine, socketDrops
}
