import Foundation
import HapticKit
import Synchronization

/// How a live verb's process ends on SIGINT or SIGTERM, from the first line of the verb to its
/// last: the one mechanism every verb that plays live (`play`, `rhythm`, `serve`, and any later
/// one) goes through.
///
/// 1. Made first thing in the verb, before anything is loaded or opened, so that no signal
///    finds the process with the default disposition (which would end it by the signal, not
///    with the verb's status) or half-way through loading.
/// 2. Until `ready(into:)`, a signal ends the process at once with `ending`'s status: nothing
///    has started that needs a fade or a summary, and a live verb writes no file.
/// 3. `ready(into:)` prints the verb's one ready line on standard error (`readyLine(verb:)`,
///    documented in the README: tests and scripts wait for it) once the device is open and
///    everything is loaded. From then on a signal calls `handler` (the verb's graceful path:
///    fade, close, summary), and the process ends with 128 + the signal if the verb has not
///    returned within `deadlineSeconds` (a render thread that does not come back, a sound
///    server that does not answer a close). A second signal ends it at once.
///
/// The signal handler only records the signal and posts a semaphore (async-signal-safe); one
/// watchdog thread per process, made at a real-time priority above the render thread's (a render
/// thread that spins cannot keep it off the CPU), wakes on it and acts for the watch made last.
/// `cancel()` puts back the dispositions the signals had before. A program has one watch at a
/// time; tests that run verbs side by side may overlap them (they send no signals).
///
/// `@unchecked Sendable`: `previous` is set once in `init` and only read after; the rest is
/// immutable or atomic.
final class SignalWatch: @unchecked Sendable {
    /// The exit status of a verb ended by a signal.
    enum Ending: Sendable {
        /// 128 + the signal (130 for SIGINT, 143 for SIGTERM): `play`, `rhythm`.
        case signalStatus
        /// 0: being asked to stop is how a server ends (`serve`).
        case success

        func status(for signal: Int32) -> Int32 {
            switch self {
            case .signalStatus: 128 + signal
            case .success: 0
            }
        }
    }

    /// The line a live verb prints on standard error when it is ready.
    static func readyLine(verb: String) -> String { "\(verb): ready" }

    let verb: String
    let ending: Ending
    let deadlineSeconds: Double
    let handler: @Sendable () -> Void
    private let isReady = Atomic<Bool>(false)
    private let signals: [Int32]
    private var previous: [(Int32, sigaction)] = []

    /// The signal received (0: none yet).
    var received: Int32 { receivedSignal.load(ordering: .acquiring) }

    /// The exit status for a verb that ended on a signal (`ending`'s; SIGINT if none came).
    var interruptedStatus: Int32 { ending.status(for: received == 0 ? SIGINT : received) }

    /// Catches `signals` from now on (see the type's steps).
    /// - Parameters:
    ///   - verb: the verb's name, for the ready line.
    ///   - deadlineSeconds: how long the graceful path may take after a signal.
    ///   - handler: the graceful path's start, called on the watchdog thread (it must return quickly).
    init(verb: String, signals: [Int32] = [SIGINT, SIGTERM], ending: Ending = .signalStatus, deadlineSeconds: Double = 0.1,
         handler: @escaping @Sendable () -> Void) {
        self.verb = verb
        self.signals = signals
        self.ending = ending
        self.deadlineSeconds = deadlineSeconds
        self.handler = handler
        receivedSignal.store(0, ordering: .releasing)
        SignalWatchdog.shared.watch(self)
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if receivedSignal.exchange(number, ordering: .acquiringAndReleasing) != 0 { _exit(128 + number) }
                sem_post(signalSemaphore)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(SA_RESTART)
            var old = sigaction()
            sigaction(number, &action, &old)
            previous.append((number, old))
        }
    }

    /// The verb is ready (device open, everything loaded): prints the ready line, and from now
    /// on a signal takes the graceful path.
    func ready(into output: inout some CommandOutput) {
        isReady.store(true, ordering: .releasing)
        output.printError(Self.readyLine(verb: verb))
    }

    var hasBeenReady: Bool { isReady.load(ordering: .acquiring) }

    func cancel() {
        for (number, old) in previous.reversed() {
            var action = old
            sigaction(number, &action, nil)
        }
        SignalWatchdog.shared.unwatch(self)
    }
}

/// The signal a live verb received (0: none), and the semaphore the watchdog waits on. Globals:
/// a signal handler can reach nothing else, and it may only do async-signal-safe things (an
/// atomic exchange, `sem_post`, `_exit`).
private let receivedSignal = Atomic<Int32>(0)
nonisolated(unsafe) private let signalSemaphore: UnsafeMutablePointer<sem_t> = {
    let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(semaphore, 0, 0)
    return semaphore
}()

/// The process's one watchdog thread: made with the first watch, it waits for the semaphore the
/// signal handler posts and ends the process as the current watch says.
private final class SignalWatchdog: Sendable {
    static let shared = SignalWatchdog()
    private let watches = Mutex<[SignalWatch]>([])

    private init() {
        _ = signalSemaphore  // made here, never first inside the signal handler
        spawnDetachedRealtimeThread(name: "signal-watchdog", realtimePriority: 90) { [self] in
            while true {
                while sem_wait(signalSemaphore) != 0 {}  // EINTR
                let number = receivedSignal.load(ordering: .acquiring)
                guard number != 0, let watch = self.watches.withLock({ $0.last }) else { continue }
                let status = watch.ending.status(for: number)
                guard watch.hasBeenReady else { _exit(status) }  // nothing to end gracefully yet
                watch.handler()
                usleep(UInt32(min(watch.deadlineSeconds, 3600) * 1e6))
                FileHandle.standardError.write(Data("\(watch.verb): interrupted (the graceful end took over \(String(format: "%g", watch.deadlineSeconds)) s)\n".utf8))
                _exit(128 + number)
            }
        }
    }

    func watch(_ watch: SignalWatch) { watches.withLock { $0.append(watch) } }
    func unwatch(_ watch: SignalWatch) { watches.withLock { $0.removeAll { $0 === watch } } }
}
