#if canImport(Glibc)
import Glibc
#endif
import CHapticSynth
import HapticEngine
import HapticKit
import Synchronization

/// An engine's C callbacks (hs_callbacks) and the manager's events turned into calls of them.
///
/// Events come on the engine's service thread. A delivery notes its thread while the callback
/// runs, so that replacing the callbacks or closing the engine can wait for deliveries on other
/// threads to end — and not for one the caller itself is inside (a callback that closes its
/// own engine).
final class CallbackRelay: Sendable {
    /// The C struct's pointers, which C owns (`@unchecked Sendable`: only copied and called).
    struct Callbacks: @unchecked Sendable {
        var value: hs_callbacks
    }
    private struct State {
        var callbacks: Callbacks? = nil
        var closed = false
        /// Threads inside a callback now (one entry per delivery in progress).
        var delivering: [pthread_t] = []
    }
    private let state = Mutex(State())

    /// Replaces the callbacks (nil: none), then waits until no delivery of the old ones runs
    /// on another thread.
    func set(_ callbacks: hs_callbacks?) {
        state.withLock { $0.callbacks = callbacks.map { Callbacks(value: $0) } }
        waitForOtherDeliveries()
    }

    /// No callback after this returns (except one the caller is inside).
    func close() {
        state.withLock { $0.closed = true }
        waitForOtherDeliveries()
    }

    private func waitForOtherDeliveries() {
        let me = pthread_self()
        while state.withLock({ s in s.delivering.contains { pthread_equal($0, me) == 0 } }) {
            var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
            nanosleep(&pause, nil)
        }
    }

    /// Calls the C callback an event of the manager stands for.
    func deliver(_ event: HapticManager.EngineEvent) {
        let me = pthread_self()
        guard let callbacks = state.withLock({ s -> Callbacks? in
            guard !s.closed, let callbacks = s.callbacks else { return nil }
            s.delivering.append(me)
            return callbacks
        })?.value else { return }
        defer {
            state.withLock { s in
                if let i = s.delivering.firstIndex(where: { pthread_equal($0, me) != 0 }) { s.delivering.remove(at: i) }
            }
        }
        switch event {
        case .lost(let role, _, let reason):
            let (code, message): (Int, String) = switch reason {
            case .deviceLost(let why): (HS_STOP_DEVICE_LOST, why)
            case .deviceTimeout: (HS_STOP_DEVICE_TIMEOUT, "the device made no progress within its bounded wait")
            case .recoveryFailed(let why): (HS_STOP_RECOVERY_FAILED, why)
            }
            message.withCString { callbacks.stopped?(callbacks.user, role.code, Int32(code), $0) }
        case .gaveUp(let role, let why):
            why.withCString { callbacks.stopped?(callbacks.user, role.code, Int32(HS_STOP_RECOVERY_FAILED), $0) }
        case .reconnected(let role, _, let info):
            callbacks.reconnected?(callbacks.user, role.code, info.outageSeconds, info.gapSeconds,
                                   Int32(clamping: info.droppedOnsets))
        case .rebuilt(let role, let engine):
            callbacks.reset?(callbacks.user, role.code, Int32(clamping: engine))
        }
    }
}

extension HapticManager.EngineRole {
    /// HS_ROLE_HAPTIC or HS_ROLE_AUDIO.
    var code: Int32 { self == .haptic ? Int32(HS_ROLE_HAPTIC) : Int32(HS_ROLE_AUDIO) }
}
