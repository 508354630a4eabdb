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
/// thread that spins cannot keep it off the CPU) and taking no lock on its way to `_exit` (a
/// lock held by a thread the machine's load keeps off the CPU would hold it too), wakes on it
/// and acts for the watch made last (first raising the process's normal-scheduled threads to a
/// real-time priority, so that the end does not wait for CPU on a loaded machine); the handler
/// runs on a thread of its own. `cancel()` puts
/// back the dispositions the signals had before. A program has one watch at a time; tests that
/// run verbs side by side may overlap them (they send no signals).
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
    private let signals: [Int32]
    private var previous: [(Int32, sigaction)] = []
    private var number = 0

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
        number = SignalWatchdog.shared.watch(self)
        // A signal inherited as ignored stays ignored (nohup, a background job): it would not have ended us.
        for number in signals where !signalIsIgnored(number) {
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
        SignalWatchdog.shared.ready(number)
        output.printError(Self.readyLine(verb: verb))
    }

    func cancel() {
        for (number, old) in previous.reversed() {
            var action = old
            sigaction(number, &action, nil)
        }
        SignalWatchdog.shared.unwatch(number)
    }
}

/// What the signal handler and the watchdog reach: globals (a signal handler can reach nothing
/// else, and it may only do async-signal-safe things: an atomic exchange, `sem_post`, `_exit`),
/// and atomics only on the watchdog's path (a lock held by a thread the load keeps off the CPU
/// would hold the watchdog too).
private let receivedSignal = Atomic<Int32>(0)
private let currentWatch = Atomic<Int>(0)  // the current watch's number (0: none)
private let currentIsReady = Atomic<Bool>(false)
private let currentEndsWithSuccess = Atomic<Bool>(false)
private let currentDeadlineMicroseconds = Atomic<Int>(100_000)
private let watchNumbers = Atomic<Int>(0)
nonisolated(unsafe) private let signalSemaphore = makeSemaphore()  // the watchdog waits on it
nonisolated(unsafe) private let handlerSemaphore = makeSemaphore()  // the handler thread waits on it
/// This process's threads, listed again with `rewinddir` when a signal comes: opened here so that
/// the watchdog lists them without allocating (`readdir` reads into the stream's own buffer; the
/// stream's lock is taken by the watchdog alone).
nonisolated(unsafe) private let taskDirectory = opendir("/proc/self/task")
private let interruptedLine: StaticString = "hapticsynth: interrupted (the graceful end took too long)\n"

private func makeSemaphore() -> UnsafeMutablePointer<sem_t> {
    let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(semaphore, 0, 0)
    return semaphore
}

/// The process's two signal threads, made with the first watch. The watchdog (SCHED_FIFO 90)
/// waits for the semaphore the signal handler posts and, reading atomics only, either ends the
/// process at once (before the ready line) or wakes the handler thread, waits the deadline and
/// ends it. The handler thread (normal scheduling: it may take locks) calls the current watch's
/// handler.
private final class SignalWatchdog: Sendable {
    static let shared = SignalWatchdog()
    private let watches = Mutex<[(number: Int, watch: SignalWatch)]>([])

    private init() {
        _ = (signalSemaphore, handlerSemaphore, taskDirectory)  // made here, never first inside the signal handler
        spawnDetachedRealtimeThread(name: "signal-watchdog", realtimePriority: 90) {
            while true {
                while sem_wait(signalSemaphore) != 0 {}  // EINTR
                let number = receivedSignal.load(ordering: .acquiring)
                guard number != 0, currentWatch.load(ordering: .acquiring) != 0 else { continue }
                SignalWatchdog.raiseOrdinaryThreads()
                let success = currentEndsWithSuccess.load(ordering: .relaxed)
                // Nothing to end gracefully yet.
                guard currentIsReady.load(ordering: .acquiring) else { _exit(success ? 0 : 128 + number) }
                sem_post(handlerSemaphore)
                let deadline = currentDeadlineMicroseconds.load(ordering: .relaxed)
                var wait = timespec(tv_sec: deadline / 1_000_000, tv_nsec: (deadline % 1_000_000) * 1000)
                var left = timespec()
                while nanosleep(&wait, &left) != 0 { wait = left }  // EINTR: sleep the rest
                _ = interruptedLine.withUTF8Buffer { write(STDERR_FILENO, $0.baseAddress, $0.count) }
                _exit(128 + number)
            }
        }
        spawnDetachedRealtimeThread(name: "signal-handler", realtimePriority: nil) { [self] in
            while true {
                while sem_wait(handlerSemaphore) != 0 {}
                let current = currentWatch.load(ordering: .acquiring)
                watches.withLock { $0.first { $0.number == current }?.watch }?.handler()
            }
        }
    }

    /// Once a signal asks the process to end, every thread with normal scheduling (the main
    /// thread, the concurrency pool, the handler thread) runs at SCHED_FIFO 50: below the
    /// render thread and the device's I/O thread, which play the fade, and below the watchdog.
    /// On a loaded machine the graceful end otherwise waited for CPU (hundreds of milliseconds
    /// under two CPU hogs), and so did the process's own end after the deadline. A thread that
    /// spins now can hold a core until the deadline at most. Without permission, nothing changes.
    private static func raiseOrdinaryThreads() {
        guard let directory = taskDirectory else { return }
        var raised = sched_param(sched_priority: 50)
        rewinddir(directory)
        while let entry = readdir(directory) {
            // The entries are thread IDs ("." and ".." read as 0); atoi allocates nothing.
            let thread = withUnsafeBytes(of: entry.pointee.d_name) { atoi($0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if thread > 0 && sched_getscheduler(thread) == SCHED_OTHER { _ = sched_setscheduler(thread, SCHED_FIFO, &raised) }
        }
    }

    /// Makes `watch` the current one; returns its number.
    func watch(_ watch: SignalWatch) -> Int {
        let number = watchNumbers.add(1, ordering: .relaxed).newValue
        watches.withLock { $0.append((number, watch)) }
        currentIsReady.store(false, ordering: .relaxed)
        currentEndsWithSuccess.store(watch.ending == .success, ordering: .relaxed)
        currentDeadlineMicroseconds.store(Int(min(max(watch.deadlineSeconds, 0), 3600) * 1e6), ordering: .relaxed)
        currentWatch.store(number, ordering: .releasing)
        return number
    }

    /// The watch numbered `number` is ready; from now on a signal takes the graceful path.
    func ready(_ number: Int) {
        if currentWatch.load(ordering: .acquiring) == number { currentIsReady.store(true, ordering: .releasing) }
    }

    func unwatch(_ number: Int) {
        watches.withLock { $0.removeAll { $0.number == number } }
        _ = currentWatch.compareExchange(expected: number, desired: 0, ordering: .acquiringAndReleasing)
    }
}
