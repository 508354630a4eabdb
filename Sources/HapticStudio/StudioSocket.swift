// The studio's WebSocket, GET /api/socket upgraded (docs/studio.md, "WebSocket"): behind the same
// guard as HTTP (StudioGuard: token, Host, Origin). The server pushes the transport while it
// changes (about 40 times a second while playing, and on play, stop, a pass, the end) and a
// sound's changes; the page sends actions, {"id": n, "action": "...", ...arguments}, each
// answered {"id": n, "result": ...} or {"id": n, "error": "..."} by the same StudioActions as
// the HTTP routes. Bounded: message size, messages a second, open sockets, unread answers.
// (The connection and its upgrade: StudioSocketChannel.)

import Foundation
import HapticStudioCore
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOWebSocket
import ServiceLifecycle
import Synchronization

struct StudioSocket: Sendable {
    static var path: String { "/api/socket" }
    /// The largest message taken (as an HTTP body).
    static var maxMessage: Int { StudioGuard<BasicRequestContext>.maxBody }
    static var maxSockets: Int { 16 }
    /// Messages a second from one socket (a page sends a few: slider moves wait for the answer).
    static var messagesPerSecond: Double { 50 }
    static var messageBurst: Double { 100 }
    /// Answers and pushes queued for a client that does not read them.
    static var maxUnsent: Int { 256 }
    /// How often the transport is looked at (its changes are pushed): 40 Hz.
    static var transportPeriod: Duration { .milliseconds(25) }

    let actions: StudioActions
    let sockets = OpenSockets()

    /// Why an upgrade request is refused (nil: taken): only GET /api/socket, behind the guard,
    /// while a socket is free.
    func refusal(_ head: HTTPRequest, guard studioGuard: StudioGuard<BasicRequestContext>) -> (HTTPResponse.Status, String)? {
        let path = head.path?.split(separator: "?", maxSplits: 1).first.map(String.init) ?? ""
        guard head.method == .get, path == Self.path else { return (.notFound, "no WebSocket at \(path): the studio's is GET \(Self.path)") }
        guard studioGuard.limiter.take() else { return (.tooManyRequests, "too many requests; slow down") }
        if let refused = studioGuard.refusal(Request(head: head, body: .init(buffer: ByteBuffer()))) { return refused }
        guard sockets.count < Self.maxSockets else { return (.serviceUnavailable, "\(Self.maxSockets) sockets are open already; close one") }
        return nil
    }

    /// What GET /api/socket answers without an upgrade (behind the guard).
    func addRefusal(to router: Router<BasicRequestContext>) {
        router.get(RouterPath(Self.path)) { _, _ in
            errorResponse(.upgradeRequired, "\(Self.path) is a WebSocket: it needs an Upgrade: websocket request")
        }
    }

    func serve(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter) async throws {
        guard sockets.open() else {
            try await outbound.close(.unknown(1013), reason: "\(Self.maxSockets) sockets are open already")
            return
        }
        defer { sockets.close() }
        let outbox = Outbox()
        // Actions on sounds in order, and the audition's in order beside them (play and stop
        // do not wait behind an analysis).
        let soundActions = ActionQueue(), auditionActions = ActionQueue()
        let (events, subscription) = actions.events.subscribe()
        defer { actions.events.unsubscribe(subscription) }
        // The session: its parts run side by side and the first to end ends it (the client
        // gone or flooding, a write failing); the server stopping ends it too.
        let closing: Closing?
        do {
            closing = try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Closing?.self) { group in
                    group.addTask { try await read(inbound, outbox, soundActions, auditionActions) }
                    group.addTask {
                        for await text in outbox.texts {
                            try await outbound.writeTextMessage(text)
                            outbox.sent()
                        }
                        return nil
                    }
                    group.addTask {
                        for await event in events { outbox.send(event) }
                        return nil
                    }
                    group.addTask { try await pushTransport(outbox) }
                    for queue in [soundActions, auditionActions] {
                        group.addTask {
                            await queue.run { item in outbox.send(await answer(item.id, item.action, item.arguments)) }
                            return nil
                        }
                    }
                    defer { group.cancelAll() }
                    return try await group.next() ?? nil
                }
            }
        } catch is CancellationError {
            return
        }
        if let closing { try await outbound.close(closing.code, reason: closing.reason) }
    }

    typealias Closing = (code: WebSocketErrorCode, reason: String)

    /// The client's messages, each answered or queued, until the client closes (nil) or breaks a
    /// bound (the close code and reason).
    func read(_ inbound: WebSocketInboundStream, _ outbox: Outbox, _ soundActions: ActionQueue, _ auditionActions: ActionQueue) async throws -> Closing? {
        let limiter = RateLimiter(perSecond: Self.messagesPerSecond, burst: Self.messageBurst)
        var messages = inbound.messages(maxSize: Self.maxMessage).makeAsyncIterator()
        while let message = try await messages.next() {
            guard limiter.take() else {
                return (.policyViolation, "more than \(Int(Self.messagesPerSecond)) messages a second")
            }
            guard outbox.unsent <= Self.maxUnsent else { return (.policyViolation, "\(Self.maxUnsent) answers unread") }
            guard case .text(let text) = message else {
                outbox.send(Self.reply(nil, error: "a message is JSON text, not binary"))
                continue
            }
            let data = Data(text.utf8)
            guard let envelope = try? JSONDecoder().decode(Envelope.self, from: data) else {
                outbox.send(Self.reply(nil, error: "the message: not a JSON object with a whole-number id and an action"))
                continue
            }
            guard let action = envelope.action.flatMap(StudioActions.Action.init(rawValue:)) else {
                let known = StudioActions.Action.allCases.map(\.rawValue).joined(separator: ", ")
                outbox.send(Self.reply(envelope.id, error: "unknown action \(envelope.action ?? "(none)"): expected one of \(known)"))
                continue
            }
            let name = try? JSONDecoder().decode(StudioAPI.NameBody.self, from: data).name
            let queue = [.play, .stop, .transport].contains(action) ? auditionActions : soundActions
            for old in queue.add(.init(id: envelope.id, action: action, name: name, arguments: data)) {
                outbox.send(Self.reply(old, error: "superseded by a newer analyse of \(name ?? "")", superseded: true))
            }
        }
        return nil
    }

    /// The envelope of a message: its id (answered back) and its action.
    struct Envelope: Decodable {
        var id: Int?
        var action: String?
    }

    func answer(_ id: Int?, _ action: StudioActions.Action, _ arguments: Data) async -> String {
        do {
            let result = try await actions.run(action, arguments, source: "the message")
            return "{\"id\":\(id.map(String.init) ?? "null"),\"result\":\(String(decoding: result, as: UTF8.self))}"
        } catch {
            return Self.reply(id, error: (error as? StudioError)?.description ?? "\(error)")
        }
    }

    static func reply(_ id: Int?, error: String, superseded: Bool = false) -> String {
        struct Reply: Encodable {
            var id: Int?
            var error: String
            var superseded: Bool?
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(id, forKey: .id)  // null when the message had none
                try c.encode(error, forKey: .error)
                try c.encodeIfPresent(superseded, forKey: .superseded)
            }
            enum CodingKeys: String, CodingKey { case id, error, superseded }
        }
        let data = (try? JSONEncoder().encode(Reply(id: id, error: error, superseded: superseded ? true : nil))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The transport, pushed as {"transport": ...} when it differs from the last one pushed: on
    /// connecting, then while playing (the position moves) and on play, stop, a pass, the end.
    func pushTransport(_ outbox: Outbox) async throws -> Closing? {
        var last: AuditionTransport?
        while true {
            let transport = await actions.audition.transport()
            // A client slow to read misses positions, not the change that ends a play.
            if transport != last, outbox.unsent < 8 || transport.playing != last?.playing {
                last = transport
                let data = try JSONEncoder().encode(transport)
                outbox.send("{\"transport\":\(String(decoding: data, as: UTF8.self))}")
            }
            try await Task.sleep(for: Self.transportPeriod)
        }
    }
}

/// The sockets open now, bounded.
final class OpenSockets: Sendable {
    private let counter = Mutex(0)
    var count: Int { counter.withLock { $0 } }
    func open() -> Bool {
        counter.withLock { n in
            guard n < StudioSocket.maxSockets else { return false }
            n += 1
            return true
        }
    }
    func close() { counter.withLock { $0 -= 1 } }
}

/// One socket's outgoing messages, written in order by one task (a message larger than a frame
/// goes out as several frames, which must not interleave with another's).
final class Outbox: Sendable {
    let texts: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private let queued = Atomic(0)

    init() { (texts, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded) }
    deinit { continuation.finish() }

    var unsent: Int { queued.load(ordering: .relaxed) }
    func send(_ text: String) {
        queued.add(1, ordering: .relaxed)
        continuation.yield(text)
    }
    func sent() { queued.subtract(1, ordering: .relaxed) }
}

/// One socket's actions, worked in order; a newer analyse of a sound replaces the sound's last
/// action when that is an analyse not yet started (the slider's newest position is the one wanted).
final class ActionQueue: Sendable {
    struct Item: Sendable {
        var id: Int?
        var action: StudioActions.Action
        var name: String?
        var arguments: Data
    }
    private let pending = Mutex<[Item]>([])
    private let wake: AsyncStream<Void>.Continuation
    private let wakes: AsyncStream<Void>

    init() { (wakes, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1)) }
    deinit { wake.finish() }

    /// Queues `item`; the ids of the analyses it supersedes.
    func add(_ item: Item) -> [Int?] {
        let superseded = pending.withLock { items -> [Int?] in
            var dropped: [Int?] = []
            // (Only the sound's last action: an analyse before an edit is what the edit was made on.)
            if item.action == .analyse, item.name != nil, let last = items.lastIndex(where: { $0.name == item.name }), items[last].action == .analyse {
                dropped = [items.remove(at: last).id]
            }
            items.append(item)
            return dropped
        }
        wake.yield()
        return superseded
    }

    /// Works the items, oldest first, as they come (until cancelled).
    func run(_ work: (Item) async -> Void) async {
        for await _ in wakes {
            while let item = pending.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { await work(item) }
        }
    }
}
