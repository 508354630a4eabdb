import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `hapticsynth studio`: runs the studio's own program, which needs its token; the CLI itself
/// carries no web server. (The page and the API in a browser: scripts/studio-browser-test.sh.)
@Suite("hapticsynth studio (the verb)")
struct StudioCommandTests {
    /// A status and body of a GET (nil on a transport failure).
    static func get(_ url: URL, token: String?) async -> (Int, String)? {
        var request = URLRequest(url: url)
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        guard let (data, response) = try? await URLSession.shared.data(for: request) else { return nil }
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    @Test("runs hapticsynth-studio: the address with its token, `studio: ready`; no token, no answer")
    func studioRuns() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("studio-verb.\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("{}".utf8).write(to: folder.appendingPathComponent("a.ahap"))
        let studio = try LiveProcess(["studio", folder.path])
        #expect(studio.wait(timeout: 120) { out, _ in out.contains("studio: ready\n") }, "\(studio.stdout) \(studio.stderr)")
        let line = try #require(studio.stdout.split(separator: "\n").first { $0.contains("open http://127.0.0.1:") })
        let address = try #require(line.split(separator: " ").last.map(String.init))
        let token = try #require(address.split(separator: "=").last.map(String.init))
        let files = try #require(URL(string: address.replacingOccurrences(of: "/?token=\(token)", with: "/api/files")))
        let refused = await Self.get(files, token: nil)
        #expect(refused?.0 == 401 && refused?.1.contains("token") == true)
        let wrong = await Self.get(files, token: String(token.reversed()))
        #expect(wrong?.0 == 401)
        let listed = await Self.get(files, token: token)
        #expect(listed?.0 == 200 && listed?.1.contains("\"a.ahap\"") == true, "\(String(describing: listed))")
        studio.signal(SIGTERM)
        #expect(studio.waitForExit(timeout: 60) != nil)
    }

    @Test("an unknown folder: one line naming it, exit 1")
    func badFolder() throws {
        let studio = try LiveProcess(["studio", "/nonexistent-studio-folder"])
        #expect(studio.waitForExit(timeout: 120) == 1)
        #expect(studio.stderr.contains("/nonexistent-studio-folder: No such file or directory"))
    }

    @Test("the CLI carries no web server: hapticsynth has no Hummingbird or NIO in it")
    func noServerInTheCLI() throws {
        let binary = try Data(contentsOf: URL(fileURLWithPath: hapticsynthBinary))
        for name in ["Hummingbird", "NIOPosix"] { #expect(binary.range(of: Data(name.utf8)) == nil, "\(name)") }
        let studio = URL(fileURLWithPath: hapticsynthBinary).deletingLastPathComponent().appendingPathComponent("hapticsynth-studio")
        #expect(try Data(contentsOf: studio).range(of: Data("Hummingbird".utf8)) != nil)
    }
}
