// The control-side service thread: one per engine in thread drive, alive while the engine
// needs servicing (players to take back, recovery, auto-shutdown); it holds the engine weakly.

#if canImport(Glibc)
import Glibc
#endif
import HapticPattern
import HapticRender
import Logging
import Synchronization

extension HapticEngine {
    /// Keeps one control-side service thread alive while the engine runs in thread drive.
    func ensureServiceThread() {
        guard configuration.drive == .renderThread else { return }
        let spawn: Bool = control.withLock { c in
            guard !c.serviceThreadRunning, c.lifecycle.wantsServiceThread else { return false }
            c.serviceThreadRunning = true
            return true
        }
        guard spawn else { return }
        let weakEngine = WeakEngine(self)
        let poll = configuration.servicePollSeconds
        let started = EngineThread.spawn(name: "haptic-service", realtimePriority: nil) {
            while true {
                guard let engine = weakEngine.engine else { return }
                engine.serviceStep()
                let keepGoing: Bool = engine.control.withLock { c in
                    let busy = c.lifecycle.keepsServiceThread
                    if !busy { c.serviceThreadRunning = false }
                    return busy
                }
                if !keepGoing { return }
                EngineThread.sleep(seconds: poll)
            }
        }
        if let started {
            pthread_detach(started.thread)
        } else {
            control.withLock { $0.serviceThreadRunning = false }
        }
    }

    final class WeakEngine: @unchecked Sendable {
        // Written once at init; read from the service thread.
        weak var engine: HapticEngine?
        init(_ engine: HapticEngine) { self.engine = engine }
    }
}
