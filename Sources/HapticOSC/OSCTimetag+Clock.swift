#if canImport(Glibc)
import Glibc
#endif
import HapticEngine

// Reading the two clocks a timetag is converted between (the conversions are in OSCTimetag.swift).
extension OSCTimetag {
    /// The wall clock (CLOCK_REALTIME) now, Unix seconds.
    public static func wallNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Wall clock minus monotonic clock, read as a close pair (the tighter of three tries).
    public static func wallMinusMonotonic() -> Double {
        var best = Double.infinity, offset = 0.0
        for _ in 0..<3 {
            let m0 = MonotonicClock.now(), w = wallNow(), m1 = MonotonicClock.now()
            if m1 - m0 < best {
                best = m1 - m0
                offset = w - (m0 + m1) / 2
            }
        }
        return offset
    }
}
