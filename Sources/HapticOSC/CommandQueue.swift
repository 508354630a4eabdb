import Dispatch
import Synchronization

/// The bounded queue between the OSC receiver and the thread that plays the commands.
/// `push` never waits: when `capacity` commands are waiting the newest is dropped (the
/// caller counts it). Neither side ever touches the engine's render thread, whose own
/// command queue is lock-free.
final class CommandQueue<Element: Sendable>: Sendable {
    let capacity: Int
    private struct Ring {
        var items: [Element?]
        var head = 0
        var count = 0
    }
    private let ring: Mutex<Ring>
    private let ready = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        ring = Mutex(Ring(items: Array(repeating: nil, count: max(1, capacity))))
    }

    /// Appends `item`; false (nothing queued) when the queue is full.
    func push(_ item: Element) -> Bool {
        let queued = ring.withLock { r -> Bool in
            guard r.count < r.items.count else { return false }
            r.items[(r.head + r.count) % r.items.count] = item
            r.count += 1
            return true
        }
        if queued { ready.signal() }
        return queued
    }

    /// Waits up to `timeout` seconds until an item was pushed (then `take()` has it).
    func waitForItem(timeout: Double) -> Bool { ready.wait(timeout: .now() + timeout) == .success }

    /// The oldest item, without waiting (after `waitForItem`).
    func take() -> Element? {
        ring.withLock { r -> Element? in
            guard r.count > 0 else { return nil }
            defer {
                r.items[r.head] = nil
                r.head = (r.head + 1) % r.items.count
                r.count -= 1
            }
            return r.items[r.head]
        }
    }

    /// Items waiting now.
    var count: Int { ring.withLock { $0.count } }
}
