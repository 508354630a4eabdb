import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `hapticsynth-studio` run as a process by a test: its address and token once it is ready,
/// and requests to its API.
final class StudioProcess: @unchecked Sendable {
    let process: Process
    let output = SharedText()
    let errors = SharedText()
    /// The server's address (http://127.0.0.1:PORT) and its token, once ready.
    let address: String
    let token: String

    /// The built `hapticsynth-studio` (beside the test bundle, or $HAPTICSYNTH_STUDIO_BIN).
    static let binary: String = {
        if let env = ProcessInfo.processInfo.environment["HAPTICSYNTH_STUDIO_BIN"], !env.isEmpty { return env }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent("hapticsynth-studio").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return "hapticsynth-studio"
    }()

    /// Starts the studio with `arguments` and waits (at most `timeout` seconds) for `studio: ready`.
    init(_ arguments: [String], timeout: Double = 120) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let output = output, errors = errors
        out.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            output.withLock { $0 += text }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            errors.withLock { $0 += text }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while !output.withLock({ $0.contains("studio: ready\n") }) {
            guard Date() < deadline, process.isRunning else {
                process.terminate()
                throw StudioProcessError("the studio did not become ready: \(output.withLock { $0 }) \(errors.withLock { $0 })")
            }
            usleep(10_000)
        }
        let line = output.withLock { $0 }.split(separator: "\n").first { $0.contains("open http://") } ?? ""
        let url = line.split(separator: " ").last.map(String.init) ?? ""
        guard let tokenStart = url.range(of: "/?token=") else { throw StudioProcessError("no address in \(line)") }
        address = String(url[..<tokenStart.lowerBound])
        token = String(url[tokenStart.upperBound...])
    }

    /// An API request; the status and the JSON answer.
    func request(_ method: String, _ path: String, body: String? = nil) async throws -> (status: Int, json: Any) {
        var request = URLRequest(url: URL(string: address + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    /// The raw text of a GET.
    func text(_ path: String) async throws -> String {
        var request = URLRequest(url: URL(string: address + path)!)
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return String(decoding: try await URLSession.shared.data(for: request).0, as: UTF8.self)
    }

    /// SIGTERM, then waits for the exit (at most `timeout` seconds); the exit status.
    @discardableResult
    func stop(timeout: Double = 60) -> Int32? {
        if process.isRunning { process.terminate() }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return process.isRunning ? nil : process.terminationStatus
    }
}

struct StudioProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Text appended from the pipes' reading threads and read by the test.
final class SharedText: Sendable {
    private let text = Mutex("")
    func withLock<T>(_ body: (inout String) -> T) -> T { text.withLock { body(&$0) } }
}
