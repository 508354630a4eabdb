import Foundation
import Synchronization
import Testing

@testable import HapticStudio

/// The studio's WebSocket (GET /api/socket, docs/studio.md), `hapticsynth-studio` run as a
/// process on a folder with clicks.wav: the same guard as HTTP, the same actions, the transport
/// pushed, and the bounds.
@Suite("Studio: the WebSocket (the studio as a process)")
struct StudioSocketTests {
    /// A socket as the page opens one: the token (here as a header) and this server's Origin.
    static func open(_ studio: StudioProcess) throws -> StudioSocketClient {
        let handshake = try StudioSocketClient.connect(studio.address, headers: ["Authorization": "Bearer \(studio.token)", "Origin": studio.address])
        guard let client = handshake.client else { throw StudioProcessError("not upgraded: \(handshake.status) \(handshake.body)") }
        return client
    }

    /// Messages until one with `id` (an answer), skipping pushes; the pushes seen on the way are
    /// kept in `pushed`.
    static func answer(_ client: StudioSocketClient, _ id: Int, pushed: inout [[String: Any]]) throws -> [String: Any] {
        while true {
            let message = try client.receiveJSON()
            if message["id"] as? Int == id { return message }
            pushed.append(message)
        }
    }

    static func answer(_ client: StudioSocketClient, _ id: Int) throws -> [String: Any] {
        var pushed: [[String: Any]] = []
        return try answer(client, id, pushed: &pushed)
    }

    /// The next message that is not a push (the transport, an event).
    static func nextAnswer(_ client: StudioSocketClient) throws -> [String: Any] {
        while true {
            let message = try client.receiveJSON()
            if message["transport"] == nil && message["event"] == nil { return message }
        }
    }

    /// A sound's settings, all of them (as the page sends them).
    static func settings(sensitivity: String) -> String {
        #""settings": {"sensitivity": \#(sensitivity), "minGap": 30, "ducking": 20, "breakpointsPerSecond": 40, "gain": -3, "gate": -60, "channel": "mix", "from": 0, "audio": false}"#
    }

    /// A socket opened once the studio takes one (a closed one is counted until the server sees it end).
    static func openEventually(_ studio: StudioProcess) async throws -> StudioSocketClient {
        var opened: StudioSocketClient?
        _ = await waitUntil(60) { opened = try? Self.open(studio); return opened != nil }
        return try opened ?? Self.open(studio)
    }

    /// Every file of the folder with its size and modification time.
    static func snapshot(_ folder: SoundFolder) throws -> [String: [Double]] {
        var found: [String: [Double]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let a = try FileManager.default.attributesOfItem(atPath: folder.path + "/" + name)
            found[name] = [Double((a[.size] as? Int) ?? -1), (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0]
        }
        return found
    }

    @Test("a socket's queue: a newer analyse of a sound replaces its last action if that is an analyse not yet started; the rest keep their order")
    func queue() async throws {
        let queue = ActionQueue()
        func item(_ id: Int, _ action: StudioActions.Action, _ name: String) -> ActionQueue.Item {
            .init(id: id, action: action, name: name, arguments: Data())
        }
        #expect(queue.add(item(1, .analyse, "a.wav")).isEmpty)
        #expect(queue.add(item(2, .edit, "a.wav")).isEmpty)
        #expect(queue.add(item(3, .analyse, "b.wav")).isEmpty)
        #expect(queue.add(item(4, .analyse, "a.wav")).isEmpty, "the edit was made on analyse 1's view")
        #expect(queue.add(item(5, .analyse, "a.wav")) == [4])
        #expect(queue.add(item(6, .analyse, "b.wav")) == [3])
        #expect(queue.add(item(7, .undo, "a.wav")).isEmpty)
        let worked = Mutex<[Int]>([])
        let task = Task { await queue.run { item in worked.withLock { $0.append(item.id ?? -1) } } }
        #expect(await waitUntil(60) { worked.withLock { $0.count } == 5 })
        task.cancel()
        #expect(worked.withLock { $0 } == [1, 2, 5, 6, 7])
    }

    @Test("refused upgrades get the HTTP refusal: no token 401, another site's Origin or a foreign Host 403, no upgrade 426")
    func refusals() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try StudioProcess([folder.path])
        defer { studio.stop() }
        let bearer = "Bearer \(studio.token)"
        let noToken = try StudioSocketClient.connect(studio.address, headers: ["Origin": studio.address])
        #expect(noToken.status == 401 && noToken.client == nil && noToken.body.contains("token"), "\(noToken.status) \(noToken.body)")
        let wrongToken = try StudioSocketClient.connect(studio.address, headers: ["Authorization": "Bearer 00\(studio.token.dropFirst(2))"])
        #expect(wrongToken.status == 401 && wrongToken.client == nil)
        for origin in ["http://evil.example", "http://127.0.0.1:1", "null"] {
            let foreign = try StudioSocketClient.connect(studio.address, headers: ["Authorization": bearer, "Origin": origin])
            #expect(foreign.status == 403 && foreign.client == nil && foreign.body.contains("Origin"), "\(origin): \(foreign.status) \(foreign.body)")
        }
        let crossSite = try StudioSocketClient.connect(studio.address, headers: ["Authorization": bearer, "Sec-Fetch-Site": "cross-site"])
        #expect(crossSite.status == 403 && crossSite.client == nil)
        let plain = try StudioSocketClient.connect(studio.address, headers: ["Authorization": bearer], upgrade: false)
        #expect(plain.status == 426 && plain.body.contains("WebSocket"), "\(plain.status) \(plain.body)")
        // The token in the address (as the page's first visit has it) is taken too.
        let byQuery = try StudioSocketClient.connect(studio.address, path: "/api/socket?token=\(studio.token)", headers: ["Origin": studio.address])
        #expect(byQuery.status == 101 && byQuery.client != nil)
        byQuery.client?.close()
    }

    @Test("analyse over the socket answers what POST /api/analyse answers; bad messages answer an error and change nothing; a change is told")
    func analyse() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try StudioProcess([folder.path])
        defer { studio.stop() }
        let client = try Self.open(studio)
        let watcher = try Self.open(studio)
        defer { client.close(); watcher.close() }
        let arguments = #""name": "clicks.wav", "# + Self.settings(sensitivity: "80")
        try client.send("{\"id\": 1, \"action\": \"analyse\", \(arguments)}")
        let overSocket = try Self.answer(client, 1)
        let socketView = try #require(overSocket["result"] as? NSDictionary, "\(overSocket)")
        let socketPattern = try await studio.text("/api/pattern?name=clicks.wav")

        // The other socket is told the sound changed.
        var event: [String: Any] = [:]
        while event["event"] == nil { event = try watcher.receiveJSON() }
        #expect(event["event"] as? String == "changed" && event["name"] as? String == "clicks.wav" && event["action"] as? String == "analyse")

        let overHTTP = try await studio.request("POST", "/api/analyse", body: "{\(arguments)}")
        #expect(overHTTP.status == 200)
        #expect(socketView == (overHTTP.json as? NSDictionary), "the same view")
        #expect(try await studio.text("/api/pattern?name=clicks.wav") == socketPattern, "the same pattern")
        #expect(((socketView["haptic"] as? [String: Any])?["transients"] as? [Any])?.isEmpty == false)

        // Bad messages: one error line each, and the sound's pattern unchanged.
        let bad: [(String, String)] = [
            ("{not json", "not a JSON object"), ("[1, 2]", "not a JSON object"), (#"{"id": 1.5, "action": "stop"}"#, "not a JSON object"),
            (#"{"id": 7, "action": "format"}"#, "unknown action format"), (#"{"id": 8}"#, "unknown action"),
            (#"{"id": 9, "action": "analyse", "name": "clicks.wav", "# + Self.settings(sensitivity: "1e308") + "}", "sensitivity"),
            (#"{"id": 10, "action": "analyse", "name": "../x.wav", "# + Self.settings(sensitivity: "50") + "}", "out of the folder"),
            (#"{"id": 12, "action": "analyse", "name": "clicks.wav", "settings": {"sensitivity": 50}}"#, "missing"),
            (#"{"id": 11, "action": "edit", "name": "clicks.wav", "edit": {"op": "addTransient", "time": -1}}"#, "time -1"),
        ]
        for (n, (message, expected)) in bad.enumerated() {
            try client.send(message)
            let answer = try Self.nextAnswer(client)
            let error = answer["error"] as? String ?? ""
            #expect(!error.isEmpty && !error.contains("\n") && error.contains(expected), "\(n) \(message): \(answer)")
            #expect(answer["result"] == nil)
        }
        #expect(try await studio.text("/api/pattern?name=clicks.wav") == socketPattern, "bad messages change nothing")
        try client.sendFrame(opcode: 2, [1, 2, 3])
        #expect((try Self.nextAnswer(client)["error"] as? String)?.contains("text") == true)

        // Slider moves sent at once: each answered once (worked or superseded), the newest worked.
        let sensitivities = [10.0, 20, 30, 40, 50, 60, 70]
        for (n, s) in sensitivities.enumerated() {
            try client.send(#"{"id": \#(100 + n), "action": "analyse", "name": "clicks.wav", "# + Self.settings(sensitivity: "\(s)") + "}")
        }
        var answered: [Int: [String: Any]] = [:]
        while answered[100 + sensitivities.count - 1] == nil {
            let message = try client.receiveJSON()
            if let id = message["id"] as? Int { #expect(answered.updateValue(message, forKey: id) == nil, "answered twice: \(id)") }
        }
        #expect(Set(answered.keys) == Set(100..<(100 + sensitivities.count)))
        #expect(answered.values.allSatisfy { $0["result"] != nil || $0["superseded"] as? Bool == true })
        let newest = try #require(answered[100 + sensitivities.count - 1]?["result"] as? NSDictionary)
        let fresh = try await studio.request("POST", "/api/analyse", body: #"{"name": "clicks.wav", "# + Self.settings(sensitivity: "70") + "}")
        #expect(newest == (fresh.json as? NSDictionary), "the newest position is what the sound has")
    }

    @Test("a socket is pushed the transport during a play (its position moving) and at play, a pass and stop; play and stop over the socket")
    func transportPushed() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        // ALSA's null device: paced by the clock, nothing heard.
        let studio = try StudioProcess([folder.path, "-D", "null"])
        defer { studio.stop() }
        let client = try Self.open(studio)
        defer { client.close() }
        let first = try client.receiveJSON()
        #expect((first["transport"] as? [String: Any])?["playing"] as? Bool == false, "the transport on connecting: \(first)")

        try client.send(#"{"id": 1, "action": "play", "name": "clicks.wav", "start": 0.2, "end": 0.6, "loop": true}"#)
        var pushed: [[String: Any]] = []
        let played = try Self.answer(client, 1, pushed: &pushed)
        let result = try #require(played["result"] as? [String: Any], "\(played)")
        #expect(result["playing"] as? Bool == true && result["loop"] as? Bool == true && result["name"] as? String == "clicks.wav")

        // Pushed while playing: positions within the selection, moving, into a second pass.
        var positions: [Double] = [], passes = 0
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && (passes < 2 || Set(positions).count < 5) {
            let message = try client.receiveJSON()
            guard let transport = message["transport"] as? [String: Any], transport["playing"] as? Bool == true else { continue }
            if let position = transport["position"] as? Double { positions.append(position) }
            passes = max(passes, transport["passes"] as? Int ?? 0)
        }
        #expect(passes >= 2 && Set(positions).count >= 5, "passes \(passes), positions \(positions.prefix(20))")
        #expect(positions.allSatisfy { $0 >= 0.2 - 1e-9 && $0 <= 0.6 + 1e-9 }, "\(positions.filter { $0 < 0.2 || $0 > 0.6 })")

        try client.send(#"{"id": 2, "action": "stop"}"#)
        pushed = []
        let stopped = try Self.answer(client, 2, pushed: &pushed)
        #expect((stopped["result"] as? [String: Any])?["playing"] as? Bool == false)
        var last = pushed.compactMap { $0["transport"] as? [String: Any] }.last
        while last?["playing"] as? Bool != false { last = try client.receiveJSON()["transport"] as? [String: Any] ?? last }
        #expect(last?["playing"] as? Bool == false, "the stop pushed")
        // Stopped, nothing more is pushed (the transport no longer changes).
        try client.send(#"{"id": 3, "action": "transport"}"#)
        pushed = []
        _ = try Self.answer(client, 3, pushed: &pushed)
        let playingAfterStop = pushed.filter { message in (message["transport"] as? [String: Any])?["playing"] as? Bool == true }
        #expect(playingAfterStop.isEmpty, "\(pushed)")
    }

    @Test("the studio stops at once with a socket open and playing whose client reads nothing; the socket is closed 1000")
    func stopsWithSocketOpen() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try StudioProcess([folder.path, "-D", "null"])
        defer { studio.stop() }
        let client = try Self.open(studio)
        defer { client.close() }
        try client.send(#"{"id": 1, "action": "play", "name": "clicks.wav", "loop": true}"#)
        #expect(try Self.answer(client, 1)["result"] != nil)
        client.pauseReading()
        let started = Date()
        #expect(studio.stop(timeout: 60) == 0, "exited by itself, with status 0")
        #expect(Date().timeIntervalSince(started) < 30, "not held by the socket")
        client.resumeReading()
        var last: StudioSocketClient.Message?
        while let message = try client.receive() { last = message }
        #expect(last == .close(code: 1000, reason: ""), "\(String(describing: last))")
    }

    @Test("an oversized message closes the socket (1009), a flood closes it (1008, with a reason), too many sockets are refused (503); nothing changes on disk")
    func bounds() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try StudioProcess([folder.path])
        defer { studio.stop() }
        let before = try Self.snapshot(folder)

        // The open sockets are bounded.
        var open: [StudioSocketClient] = []
        defer { open.forEach { $0.close() } }
        var refused: StudioSocketClient.Handshake?
        for _ in 0..<40 {
            let handshake = try StudioSocketClient.connect(studio.address, headers: ["Authorization": "Bearer \(studio.token)"])
            guard let client = handshake.client else { refused = handshake; break }
            open.append(client)
            _ = try client.receiveJSON()  // its first transport: the server has counted it
        }
        #expect(open.count == 16 && refused?.status == 503, "\(open.count) open, then \(String(describing: refused?.status)) \(refused?.body ?? "")")
        open.forEach { $0.close() }
        open = []

        let big = try await Self.openEventually(studio)
        let padding = String(repeating: " ", count: 70 * 1024)
        try big.send(#"{"id": 1, "action": "save", "name": "clicks.wav", "haptic": true}"# + padding)
        var closing: StudioSocketClient.Message?
        repeat { closing = try big.receive() } while closing != nil && closing.map { if case .close = $0 { false } else { true } } == true
        if case .close(let code, _) = closing { #expect(code == 1009, "message too big") } else { Issue.record("not closed: \(String(describing: closing))") }
        big.close()

        let flooded = try await Self.openEventually(studio)
        let flood = (0..<400).map { #"{"id": \#($0), "action": "nothing"}"# }
        var closed: (code: Int, reason: String)?
        do {
            for message in flood { try flooded.send(message) }
        } catch {}  // the server may close before all are sent
        while closed == nil, let message = try flooded.receive() {
            if case .close(let code, let reason) = message { closed = (code, reason) }
        }
        #expect(closed?.code == 1008 && closed?.reason.contains("messages a second") == true, "\(String(describing: closed))")
        flooded.close()

        #expect(try Self.snapshot(folder) == before, "nothing written")
        #expect(try await studio.request("GET", "/api/files").status == 200, "the studio goes on")
    }
}
