import Foundation
import HapticEngine
import Synchronization

@testable import HapticOSC

/// The repository root, found from this file's location (Tests/HapticOSCTests/<file>).
let oscRepoRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// A target that records every command it is given (and can be made slow, for overload).
final class RecordingTarget: OSCCommandTarget {
    private let commands = Mutex<[(OSCCommand, Double)]>([])
    let delaySeconds: Double
    init(delaySeconds: Double = 0) { self.delaySeconds = delaySeconds }

    func perform(_ command: OSCCommand, counters: OSCServerCounters.Snapshot) -> OSCReply? {
        if delaySeconds > 0 { usleep(UInt32(delaySeconds * 1e6)) }
        commands.withLock { $0.append((command, MonotonicClock.now())) }
        switch command {
        case .clock: return .clock()
        case .status: return OSCReply(address: "/hapticsynth/status", arguments: [.string("recording"), .int64(Int64(counters.malformed))])
        default: return nil
        }
    }

    var received: [OSCCommand] { commands.withLock { $0.map(\.0) } }
    var arrivals: [Double] { commands.withLock { $0.map(\.1) } }

    /// Waits until `count` commands arrived (or 5 s passed).
    func wait(for count: Int, timeout: Double = 5) -> [OSCCommand] {
        let end = MonotonicClock.now() + timeout
        while commands.withLock({ $0.count }) < count && MonotonicClock.now() < end { usleep(2_000) }
        return received
    }
}

/// A server on a free loopback port with a recording target.
func makeServer(target: RecordingTarget = RecordingTarget(), queue: Int = 1024) throws -> (OSCServer, RecordingTarget, OSCClient) {
    var config = OSCServer.Configuration()
    config.port = 0
    config.queueCapacity = queue
    let server = try OSCServer(configuration: config, target: target)
    return (server, target, try OSCClient(port: server.port))
}

/// Runs a program; returns its exit status and standard output.
func runProgram(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (Int32, String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}
