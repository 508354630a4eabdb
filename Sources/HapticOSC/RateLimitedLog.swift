import HapticEngine
import HapticPattern
import Logging
import Synchronization

/// Logs at most `burst` lines per kind of problem in each `window` seconds and then says
/// how many were left out, so a flood of bad datagrams costs a few lines, not a full disk.
final class RateLimitedLog: Sendable {
    private let logger: Logger
    private let burst: Int
    private let window: Double
    private struct Kind {
        var windowStart = 0.0
        var logged = 0
        var suppressed = 0
    }
    private let kinds = Mutex<[String: Kind]>([:])

    init(logger: Logger, burst: Int = 5, window: Double = 10) {
        self.logger = logger
        self.burst = burst
        self.window = window
    }

    /// Logs `message()` at warning level unless `kind` used its burst in this window.
    func warning(_ kind: String, _ message: @autoclosure () -> String) {
        let now = MonotonicClock.now()
        let (log, left): (Bool, Int) = kinds.withLock { all in
            var k = all[kind] ?? Kind(windowStart: now)
            var left = 0
            if now - k.windowStart >= window {
                left = k.suppressed
                k = Kind(windowStart: now)
            }
            let log = k.logged < burst
            if log { k.logged += 1 } else { k.suppressed += 1 }
            all[kind] = k
            return (log, left)
        }
        if left > 0 { logger.warning("osc: \(left) more \(kind) left out of the log in the last \(Int(window)) s") }
        // A client's address or name may hold newlines or terminal escapes: a log line stays one line.
        if log { logger.warning("osc: \(printable(message()))") }
    }
}
