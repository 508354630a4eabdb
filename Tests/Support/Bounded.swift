// A bound on a piece of work, counted from when the work starts.
//
// Not swift-testing's `.timeLimit`: its clock starts when the test's task is made, and the
// non-rig lane queues hundreds of tests on two cooperative threads, most of them waiting for
// processes. A test whose body took milliseconds was failed at its 60 s limit after waiting
// four minutes for a thread (a fresh-clone `make test`). Here the work runs on a thread of its
// own and the clock starts with it.

import Foundation

/// Runs `work` on a new thread and waits at most `seconds` for it; whether it finished.
/// Work that never ends keeps its thread, and the test fails instead of hanging.
public func finishes(within seconds: Double, _ work: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        work()
        done.signal()
    }
    return done.wait(timeout: .now() + seconds) == .success
}
