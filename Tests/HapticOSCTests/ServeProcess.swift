import Foundation
import HapticEngine
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
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    let port: Int
    let client: OSCClient
    private let output = Pipe(), errors = Pipe()
    private final class Collected: Sendable {
        let text = Mutex<(out: String, err: String)>(("", ""))
        func withLock<R>(_ body: (inout (out: String, err: String)) -> R) -> R { text.withLock { body(&$0) } }
    }
    private let collected = Collected()

    static var tool: String {
        let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hapticsynth").path
        if FileManager.default.isExecutableFile(atPath: beside) { return beside }
        return oscRepoRoot + "/.build/debug/hapticsynth"
    }

    /// Starts the server with `arguments` after `serve -D <rig> --osc-port 0`; waits for its "listening" line.
    init(_ arguments: [String] = [], haptics: String = oscRepoRoot + "/Haptics", device: String = OSCRig.out) throws {
        process.executableURL = URL(fileURLWithPath: Self.tool)
        process.arguments = ["serve", "-D", device, "--osc-port", "0", "--haptics", haptics, "--assets", oscRepoRoot + "/Assets"] + arguments
        process.standardOutput = output
        process.standardError = errors
        let collected = self.collected
        output.fileHandleForReading.readabilityHandler = { h in
            let text = String(decoding: h.availableData, as: UTF8.self)
            collected.withLock { $0.out += text }
        }
        errors.fileHandleForReading.readabilityHandler = { h in
            let text = String(decoding: h.availableData, as: UTF8.self)
            collected.withLock { $0.err += text }
        }
        try process.run()
        let end = MonotonicClock.now() + 10
        var port: Int?
        while port == nil && MonotonicClock.now() < end && process.isRunning {
            let out = collected.withLock { $0.out }
            if let line = out.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
               let address = line.split(separator: " ").dropFirst(2).first, let p = address.split(separator: ":").last {
                port = Int(p)
            }
            usleep(10_000)
        }
        guard let port else {
            process.terminate()
            throw ServeError(message: "serve did not start: \(collected.withLock { $0 })")
        }
        self.port = port
        client = try OSCClient(port: port)
    }

    struct ServeError: Error, CustomStringConvertible { var message: String; var description: String { message } }

    var isRunning: Bool { process.isRunning }
    var standardOutput: String { collected.withLock { $0.out } }
    var standardError: String { collected.withLock { $0.err } }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

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

    /// SIGTERM and the exit status (killed after 5 s).
    @discardableResult
    func stop() -> Int32 {
        guard process.isRunning else { return process.terminationStatus }
        signal(SIGTERM)
        let end = MonotonicClock.now() + 5
        while process.isRunning && MonotonicClock.now() < end { usleep(10_000) }
        if process.isRunning { process.interrupt(); kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

/// Status counters by position (README "status"): datagrams, executed, malformed, oversized,
/// unknown addresses, bad arguments, dropped, unknown names, unknown loop ids, voices started, engine,
/// socket drops.
enum StatusField: Int {
    case datagrams = 0, executed, malformed, oversized, unknownAddress, badArguments, dropped, unknownNames, unknownLoopIDs, voicesStarted, engine, socketDrops
}
