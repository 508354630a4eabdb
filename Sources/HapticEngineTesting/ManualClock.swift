import HapticEngine
import Synchronization

/// A clock advanced by hand (like NIO's EmbeddedEventLoop), for tests that drive
/// the engine and a ``VirtualOutputDevice`` step by step.
public final class ManualClock: ManualTimeSource, Sendable {
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

extension EngineClock {
    /// A clock advanced by hand.
    public static func manual(_ clock: ManualClock) -> EngineClock { EngineClock(source: .manual(clock)) }
}
