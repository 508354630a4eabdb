import Synchronization

/// What the OSC server saw, counted from the receiving side (atomics: read at any time).
public final class OSCServerCounters: Sendable {
    /// A consistent-enough copy of the counters (each read atomically).
    public struct Snapshot: Sendable, Equatable {
        /// Datagrams read from the socket.
        public var datagrams = 0
        /// Commands decoded and queued.
        public var accepted = 0
        /// Commands played (taken from the queue and handed to the engine).
        public var executed = 0
        /// Datagrams liblo could not parse (not OSC, truncated, bad bundle), and messages whose
        /// address is a pattern (`*`, `?`, `[…]`, `{…}`: refused, never matched).
        public var malformed = 0
        /// Datagrams over the size limit (not parsed).
        public var oversized = 0
        /// Messages to an address (or with argument types) the server does not know.
        public var unknownAddress = 0
        /// Messages with a value out of range (a time not finite or years away, a long name...).
        public var badArguments = 0
        /// Commands dropped because the queue was full (overload drops the newest).
        public var dropped = 0
        /// Datagrams the kernel dropped because the socket's buffer was full (they were never read).
        public var socketDrops = 0
        /// Replies that could not be sent.
        public var replyFailures = 0
        public init() {}
    }

    let datagrams = Atomic<Int>(0)
    let accepted = Atomic<Int>(0)
    let executed = Atomic<Int>(0)
    let malformed = Atomic<Int>(0)
    let oversized = Atomic<Int>(0)
    let unknownAddress = Atomic<Int>(0)
    let badArguments = Atomic<Int>(0)
    let dropped = Atomic<Int>(0)
    let replyFailures = Atomic<Int>(0)
    let socketDrops = Atomic<Int>(0)

    init() {}

    /// The counters now.
    public var snapshot: Snapshot {
        var s = Snapshot()
        s.datagrams = datagrams.load(ordering: .relaxed)
        s.accepted = accepted.load(ordering: .relaxed)
        s.executed = executed.load(ordering: .relaxed)
        s.malformed = malformed.load(ordering: .relaxed)
        s.oversized = oversized.load(ordering: .relaxed)
        s.unknownAddress = unknownAddress.load(ordering: .relaxed)
        s.badArguments = badArguments.load(ordering: .relaxed)
        s.dropped = dropped.load(ordering: .relaxed)
        s.replyFailures = replyFailures.load(ordering: .relaxed)
        s.socketDrops = socketDrops.load(ordering: .relaxed)
        return s
    }
}

extension Atomic<Int> {
    func bump() { add(1, ordering: .relaxed) }
}
