import Foundation
import HapticEngine
import HapticKit
import Logging
import Synchronization

/// The OSC server of `hapticsynth serve`: a UDP socket (loopback unless asked otherwise),
/// a receiver thread that reads datagrams and decodes them through liblo, a bounded queue,
/// and a player thread that hands the commands to the target (the HapticManager). When
/// nothing waits and nothing is being played, the receiver plays a command itself: the
/// immediate path has no thread hand-off (order is kept: see `receiveLoop`).
///
/// Nothing a client sends can stop it: a datagram liblo cannot parse, one over the size
/// limit, an address pattern (refused, never matched: see `OSCDecoder`), an unknown address
/// or a value out of range is counted and logged (rate-limited);
/// when the queue is full the newest command is dropped and counted. The engine's render
/// thread is never waited on (its command queue is lock-free).
public final class OSCServer: Sendable {
    /// How the server is set up.
    public struct Configuration: Sendable {
        /// The address to listen on (`127.0.0.1`: this machine only).
        public var host = "127.0.0.1"
        /// The UDP port (0: any free port; see ``OSCServer/port``).
        public var port = 9000
        /// Commands that may wait to be played; more are dropped (the newest).
        public var queueCapacity = 1024
        /// The largest datagram parsed (bytes); larger ones are counted as oversized.
        public var maxDatagramBytes = 8192
        /// SCHED_FIFO priority of the receiving and playing threads (below the engine's render
        /// thread, 70): a command is not kept waiting behind ordinary work on a busy machine.
        /// nil, or not permitted: ordinary scheduling.
        public var realtimePriority: Int32? = 20
        public var logger = Logger(label: "hapticsynth.osc")
        public init() {}
    }

    public let configuration: Configuration
    /// What the server saw so far.
    public let counters = OSCServerCounters()
    /// The bound socket.
    public let socket: UDPSocket
    private let target: Mutex<any OSCCommandTarget>
    private let queue: CommandQueue<Queued>
    private let log: RateLimitedLog
    private let decoder: OSCDecoder
    private let running = Atomic<Bool>(true)
    /// Held while a command is played (by either thread): commands play one at a time, in order.
    private let playing = Mutex<Void>(())
    /// How long the last command took to play (ns): the receiver plays one itself only while
    /// that is short, so a slow target never holds up reading the socket.
    private let lastPlayNanos = Atomic<Int>(0)
    /// The longest last play for which the receiver still plays a command itself.
    static let inlinePlayLimitNanos = 200_000
    private let threadsDone = Atomic<Int>(0)

    struct Queued: Sendable {
        var command: OSCCommand
        var from: SocketAddress
    }

    /// Binds the socket (`configuration.host`, `.port`) and starts the two threads.
    public convenience init(configuration: Configuration, target: any OSCCommandTarget) throws(OSCSocketError) {
        try self.init(socket: UDPSocket(host: configuration.host, port: configuration.port), configuration: configuration, target: target)
    }

    /// Serves on a socket already bound (so that a bad address is known before a device opens).
    public init(socket: UDPSocket, configuration: Configuration, target: any OSCCommandTarget) throws(OSCSocketError) {
        self.configuration = configuration
        self.socket = socket
        socket.prepareForServing()
        decoder = try OSCDecoder(followModes: FollowMode.allCases.map(\.rawValue))
        self.target = Mutex(target)
        queue = CommandQueue(capacity: configuration.queueCapacity)
        log = RateLimitedLog(logger: configuration.logger)
        let receiver = Thread { [self] in receiveLoop() }
        receiver.name = "osc receive"
        receiver.start()
        let player = Thread { [self] in playLoop() }
        player.name = "osc play"
        player.start()
    }

    /// The UDP port the server listens on.
    public var port: Int { socket.port }

    /// Replaces what plays the commands (a new manager after the old one gave up).
    public func setTarget(_ newTarget: any OSCCommandTarget) { target.withLock { $0 = newTarget } }

    /// Commands waiting to be played.
    public var queuedCommands: Int { queue.count }

    /// Stops both threads (each notices within 0.1 s) and waits for them.
    public func stop() {
        guard running.exchange(false, ordering: .relaxed) else { return }
        let deadline = MonotonicClock.now() + 2
        while threadsDone.load(ordering: .acquiring) < 2 && MonotonicClock.now() < deadline { usleep(5_000) }
    }

    // MARK: - threads

    /// Raises the calling thread to `realtimePriority` (best effort).
    private func raisePriority() {
        guard let priority = configuration.realtimePriority else { return }
        var parameters = sched_param(sched_priority: priority)
        let rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters)
        if rc != 0 { configuration.logger.debug("osc: no real-time priority for \(Thread.current.name ?? "a thread") (error \(rc))") }
    }

    private func receiveLoop() {
        defer { threadsDone.add(1, ordering: .releasing) }
        raisePriority()
        let limit = configuration.maxDatagramBytes
        // One byte more than the limit: MSG_TRUNC gives the real length of a longer datagram.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: limit + 1, alignment: 8)
        let control = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer {
            buffer.deallocate()
            control.deallocate()
        }
        while running.load(ordering: .relaxed) {
            guard let (length, from, kernelDrops) = socket.receive(into: buffer, control: control, timeout: 0.1) else { continue }
            counters.datagrams.bump()
            if let kernelDrops, Int(kernelDrops) > counters.socketDrops.load(ordering: .relaxed) {
                counters.socketDrops.store(Int(kernelDrops), ordering: .relaxed)
                log.warning("socket drops", "the socket's buffer overflowed: \(kernelDrops) datagrams lost so far (sent faster than they are read)")
            }
            guard length <= limit else {
                counters.oversized.bump()
                log.warning("oversized", "a \(length)-byte datagram from \(from.description) (limit \(limit)); ignored")
                continue
            }
            let (outcome, problems) = decoder.decode(
                UnsafeMutableRawBufferPointer(rebasing: buffer[0..<length]), now: MonotonicClock.now(),
                wallMinusMonotonic: OSCTimetag.wallMinusMonotonic)
            for problem in problems {
                switch problem {
                case .unknownAddress(let what):
                    counters.unknownAddress.bump()
                    log.warning("unknown", "unknown address or arguments from \(from.description): \(what); ignored")
                case .badArgument(let what):
                    counters.badArguments.bump()
                    log.warning("bad argument", "from \(from.description): \(what); ignored")
                case .addressPattern(let what):
                    counters.malformed.bump()
                    log.warning("pattern", "an address pattern from \(from.description): \(what); refused (patterns are not served: send the exact address)")
                }
            }
            let commands: [OSCCommand]
            switch outcome {
            case .malformed(let why):
                counters.malformed.bump()
                log.warning("malformed", "a malformed datagram (\(length) bytes) from \(from.description): \(why); ignored")
                continue
            case .commands(let list): commands = list
            }
            for command in commands {
                // Played here when the queue is empty and the player is not playing: the player
                // takes a queued command only while holding `playing`, so nothing older can be
                // pending (this thread is the only producer) and the order is that of arrival.
                let quick = lastPlayNanos.load(ordering: .relaxed) <= Self.inlinePlayLimitNanos
                let played = !quick ? false : playing.withLockIfAvailable { _ -> Bool in
                    guard queue.count == 0 else { return false }
                    perform(Queued(command: command, from: from))
                    return true
                } ?? false
                if played {
                    counters.accepted.bump()
                } else if queue.push(Queued(command: command, from: from)) {
                    counters.accepted.bump()
                } else {
                    counters.dropped.bump()
                    log.warning("dropped", "the command queue is full (\(queue.capacity)); the newest command was dropped")
                }
            }
        }
    }

    private func playLoop() {
        defer { threadsDone.add(1, ordering: .releasing) }
        raisePriority()
        while running.load(ordering: .relaxed) {
            guard queue.waitForItem(timeout: 0.1) else { continue }
            playing.withLock { _ in
                if let item = queue.take() { perform(item) }
            }
        }
    }

    /// Plays one command and sends its reply, if it has one.
    private func perform(_ item: Queued) {
        let target = target.withLock { $0 }
        let t0 = MonotonicClock.now()
        let reply = target.perform(item.command, counters: counters.snapshot)
        lastPlayNanos.store(Int((MonotonicClock.now() - t0) * 1e9), ordering: .relaxed)
        counters.executed.bump()
        if let reply {
            let sent = reply.serialised().map { bytes in bytes.withUnsafeBytes { socket.send($0, to: item.from) } } ?? false
            if !sent {
                counters.replyFailures.bump()
                log.warning("reply", "the reply to \(item.from.description) could not be sent")
            }
        }
    }
}
