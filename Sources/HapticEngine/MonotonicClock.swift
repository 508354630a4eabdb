#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// CLOCK_MONOTONIC, the program-wide clock (the Linux counterpart of
/// `CACurrentMediaTime()`): any part of a program can read it, compute a time and
/// hand it to the engine.
public enum MonotonicClock {
    /// Nanoseconds on CLOCK_MONOTONIC. Real-time safe (a vDSO call, no allocation).
    @inline(__always)
    public static func nanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
    }

    /// Seconds on CLOCK_MONOTONIC.
    @inline(__always)
    public static func now() -> Double { Double(nanos()) / 1e9 }
}

/// A time source advanced by hand: HapticEngineTesting's `ManualClock`. The engine only reads it.
package protocol ManualTimeSource: AnyObject, Sendable {
    /// Current reading in nanoseconds. Real-time safe.
    var nanos: Int64 { get }
}

/// The time base an engine (and a virtual device) runs on: CLOCK_MONOTONIC in
/// production, a hand-driven clock in step-by-step tests (HapticEngineTesting's
/// `EngineClock.manual(_:)`).
public struct EngineClock: Sendable {
    package enum Source: Sendable {
        case monotonic
        case manual(any ManualTimeSource)
    }
    package let source: Source

    package init(source: Source) { self.source = source }

    /// The system's CLOCK_MONOTONIC.
    public static let monotonic = EngineClock(source: .monotonic)

    /// Current time in nanoseconds. Real-time safe.
    @inline(__always)
    public func nanos() -> Int64 {
        switch source {
        case .monotonic: MonotonicClock.nanos()
        case .manual(let clock): clock.nanos
        }
    }

    /// Current time in seconds.
    public func seconds() -> Double { Double(nanos()) / 1e9 }

    /// True for a hand-driven clock.
    public var isManual: Bool {
        if case .manual = source { return true }
        return false
    }
}
