import Dispatch
import Glibc

/// Turns a signal that asks for work, not for an end (SIGHUP: reload), into a call on a
/// dispatch queue, as often as it arrives. Unlike `SignalWatch` it never ends the process;
/// the two must not share a signal. `cancel()` restores the disposition the signal had.
/// Unlike the handlers that end the process, it listens even to a signal inherited as
/// ignored (`nohup hapticsynth serve`): a reload never ends the process, so nohup's
/// promise holds, and a SIGHUP sent to reload is still served.
///
/// `@unchecked Sendable`: the stored properties are set once in `init`; dispatch sources are
/// safe to cancel from any thread, and a dispatch group to wait on from any.
final class SignalListener: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private let previous: [(Int32, sigaction)]
    /// Left by each source's cancel handler: libdispatch registers and unregisters a signal
    /// source on its own thread, and may set the signal's handler as it does, so the old
    /// disposition is put back only once that is over (a listener cancelled at once could
    /// otherwise be left with dispatch's handler, as a test running beside others found).
    private let cancelled = DispatchGroup()

    init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
        var previous: [(Int32, sigaction)] = []
        let cancelled = cancelled
        sources = signals.map { number in
            // Ignored at the process level, so that the dispatch source alone sees it (the
            // default action of SIGHUP is to end the process).
            var ignore = sigaction()
            ignore.__sigaction_handler.sa_handler = SIG_IGN
            sigemptyset(&ignore.sa_mask)
            var old = sigaction()
            sigaction(number, &ignore, &old)
            previous.append((number, old))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            cancelled.enter()
            source.setCancelHandler { [cancelled] in cancelled.leave() }
            source.resume()
            return source
        }
        self.previous = previous
    }

    func cancel() {
        for source in sources where !source.isCancelled { source.cancel() }
        cancelled.wait()
        for (number, old) in previous {
            var action = old
            sigaction(number, &action, nil)
        }
    }
}
