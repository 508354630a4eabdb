import Synchronization

/// How a live run ended; the first outcome wins. Waited on from async code.
final class Finish: Sendable {
    enum Outcome: Sendable { case completed, interrupted, failed(String) }
    private let state = Mutex<(outcome: Outcome?, waiters: [CheckedContinuation<Outcome, Never>])>((nil, []))

    var isDone: Bool { state.withLock { $0.outcome != nil } }
    func complete() { settle(.completed) }
    func interrupt() { settle(.interrupted) }
    func fail(_ message: String) { settle(.failed(message)) }

    private func settle(_ outcome: Outcome) {
        let waiters = state.withLock { s -> [CheckedContinuation<Outcome, Never>] in
            guard s.outcome == nil else { return [] }
            s.outcome = outcome
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    func wait() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Outcome? in
                if let outcome = s.outcome { return outcome }
                s.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}
