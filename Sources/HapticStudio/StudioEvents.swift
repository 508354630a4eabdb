// Changes every open socket is told of: a sound analysed, edited, undone, redone or saved, by
// any client (HTTP or a socket), as {"event": "changed", "name": ..., "action": ...}, so that a
// second page or a script sees what changed without asking.

import Foundation
import Synchronization

final class StudioEvents: Sendable {
    private let subscribers = Mutex<[Int: AsyncStream<String>.Continuation]>([:])
    private let lastID = Atomic(0)

    /// A stream of the events' JSON texts; a subscriber that does not keep up loses the oldest.
    func subscribe() -> (AsyncStream<String>, Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        let id = lastID.add(1, ordering: .relaxed).newValue
        subscribers.withLock { $0[id] = continuation }
        return (stream, id)
    }

    func unsubscribe(_ id: Int) { subscribers.withLock { $0.removeValue(forKey: id) }?.finish() }

    func soundChanged(_ name: String, by action: String) {
        struct Event: Encodable {
            var event = "changed"
            var name: String
            var action: String
        }
        guard let data = try? JSONEncoder().encode(Event(name: name, action: action)) else { return }
        let text = String(decoding: data, as: UTF8.self)
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(text) }
    }
}
