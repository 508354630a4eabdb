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

/// A clock advanced by hand (like NIO's EmbeddedEventLoop), for tests that drive
/// the engine and a ``VirtualOutputDevice`` step by step.
public final class ManualClock: Sendable {
    private let current: Atomic<Int64>

    /// A clock that reads `nanos` until advanced.
    public init(nanos: Int64 = 1_000_000_000) { current = Atomic(nanos) }

    /// Current reading in nanoseconds.
    public var nanos: Int64 { current.load(ordering: .acquiring) }

    /// Current reading in seconds.
    public var seconds: Double { Double(nanos) / 1e9 }

    /// Moves the clock forward by `delta` nanoseconds (negative values are ignored).
    public func advance(byNanos delta: Int64) {
        if delta > 0 { current.wrappingAdd(delta, ordering: .acquiringAndReleasing) }
    }

    /// Moves the clock forward by `seconds`.
    public func advance(bySeconds seconds: Double) { advance(byNanos: Int64((seconds * 1e9).rounded())) }

    /// Moves the clock forward to `nanos` if it is behind it (never backwards).
    public func advance(toNanos target: Int64) {
        var seen = current.load(ordering: .acquiring)
        while seen < target {
            let (done, now) = current.compareExchange(expected: seen, desired: target, ordering: .acquiringAndReleasing)
            if done { return }
            seen = now
        }
    }
}

/// The time base an engine (and a virtual device) runs on: CLOCK_MONOTONIC in
/// production, a ``ManualClock`` in step-by-step tests.
public struct EngineClock: Sendable {
    enum Source: Sendable {
        case monotonic
        case manual(ManualClock)
    }
    let source: Source

    /// The system's CLOCK_MONOTONIC.
    public static let monotonic = EngineClock(source: .monotonic)

    /// A clock advanced by hand.
    public static func manual(_ clock: ManualClock) -> EngineClock { EngineClock(source: .manual(clock)) }

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
