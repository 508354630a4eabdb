#if canImport(Glibc)
import Glibc
#endif
import CHapticSynth
import HapticEngine
import HapticKit
import Synchronization

/// An engine's C callbacks (hs_callbacks) and the manager's events turned into calls of them.
///
/// Events come on the engine's service threads (two in two-device mode, one per role), one
/// delivery at a time, as the header promises: a delivery waits for the one in progress, so two
/// callbacks that each replace the callbacks cannot wait for each other. The delivering thread
/// is noted while the callback runs, so that replacing the callbacks or closing the engine can
/// wait for a delivery on another thread to end — and not for one the caller itself is inside
/// (a callback that closes its own engine). A delivery still waiting when the engine closes is
/// dropped (its thread may be the one the close is waiting for).
final class CallbackRelay: Sendable {
    /// The C struct's pointers, which C owns (`@unchecked Sendable`: only copied and called).
    struct Callbacks: @unchecked Sendable {
        var value: hs_callbacks
    }
    private struct State {
        var callbacks: Callbacks? = nil
        var closed = false
        /// The thread inside a callback now, and how many deliveries deep (an event raised on
        /// that thread from inside its own callback is delivered there and then, not waited for).
        var delivering: pthread_t? = nil
        var depth = 0
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
        while state.withLock({ s in s.delivering.map { pthread_equal($0, me) == 0 } ?? false }) { pause() }
    }

    /// 0.2 ms: deliveries are rare and short, and nobody waits for them on a real-time thread.
    private func pause() {
        var pause = timespec(tv_sec: 0, tv_nsec: 200_000)
        nanosleep(&pause, nil)
    }

    /// Waits for the delivery in progress on another thread to end, then notes this one; nil
    /// when there is nothing to deliver (no callbacks, or the engine closed meanwhile).
    private func beginDelivery() -> Callbacks? {
        let me = pthread_self()
        while true {
            enum Turn { case mine(Callbacks), none, wait }
            let turn = state.withLock { s -> Turn in
                guard !s.closed, let callbacks = s.callbacks else { return .none }
                if let other = s.delivering, pthread_equal(other, me) == 0 { return .wait }
                s.delivering = me
                s.depth += 1
                return .mine(callbacks)
            }
            switch turn {
            case .mine(let callbacks): return callbacks
            case .none: return nil
            case .wait: pause()
            }
        }
    }

    /// Calls the C callback an event of the manager stands for.
    func deliver(_ event: HapticManager.EngineEvent) {
        guard let callbacks = beginDelivery()?.value else { return }
        defer {
            state.withLock { s in
                s.depth -= 1
                if s.depth == 0 { s.delivering = nil }
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
        case .captureLost, .captureBack:
            break  // the C API does not follow captures
        }
    }
}

extension HapticManager.EngineRole {
    /// HS_ROLE_HAPTIC or HS_ROLE_AUDIO.
    var code: Int32 { self == .haptic ? Int32(HS_ROLE_HAPTIC) : Int32(HS_ROLE_AUDIO) }
}
