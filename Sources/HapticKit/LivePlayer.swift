import HapticALSA
import HapticEngine
import HapticRender
import Logging
import Synchronization

/// Plays prepared patterns live on an engine it assembles (what the `play` verb does): one
/// after another from a start time, once, or looped until stopped — one pattern looped by its
/// own voice, several as a playlist scheduled a round ahead on the monotonic clock.
///
/// What happens on the way — the device lost or back, recovery given up, the patterns done, a
/// playlist round that could not be scheduled — is reported to `events`, from the engine's
/// threads or the playlist's task; the player never prints.
public final class LivePlayer: Sendable {
    /// What a live player is made with.
    public struct Configuration: Sendable {
        /// Where the output goes.
        public var output: HapticManager.Output
        /// The engine's settings (layout, profile, rate, period, buffer, logging...).
        var engine: HapticEngine.Configuration
        /// One line about the layout chosen from the device (nil when the caller gave one, or
        /// the choice gave nothing up).
        public private(set) var layoutNote: String? = nil

        /// - Parameters:
        ///   - layout: the channels; nil: chosen from what the device says about its channels
        ///     (`HapticManager.Output.defaultLayout(sound:)`), carrying the sound too when `sound`.
        ///   - lockMemory: lock the process's memory (`mlockall`) while playing: a process-wide
        ///     effect, off unless asked for (the CLI's live verbs ask).
        ///   - verbose: the engine's notes from info level up (else errors only).
        public init(
            output: HapticManager.Output, layout: ChannelLayout?, sound: Bool = false, profile: ActuatorProfile,
            sampleRate: Int, periodFrames: Int, bufferPeriods: Int, lockMemory: Bool = false, verbose: Bool = false
        ) {
            self.output = output
            var chosen = layout
            if chosen == nil {
                let choice = output.defaultLayout(sound: sound)
                chosen = choice.layout
                layoutNote = choice.note
            }
            // The engine reconnects forever; a caller with a deadline watches `events`.
            engine = HapticEngine.Configuration(
                layout: chosen!, profile: profile, sampleRate: sampleRate, periodFrames: periodFrames,
                bufferPeriods: bufferPeriods)
            engine.lockMemory = lockMemory
            engine.logger.logLevel = verbose ? .info : .error
        }

        /// Whether the engine logs (as a warning) a haptic that does not reach a channel of its
        /// own; a caller that reports `LivePlayer.channelRouting` itself turns it off.
        public var logsChannelRouting: Bool {
            get { engine.logsChannelRouting }
            set { engine.logsChannelRouting = newValue }
        }

        /// The layout the engine plays (as given, or as chosen from the device).
        public var layout: ChannelLayout { engine.layout }

        /// Whether the engine locks the process's memory.
        public var lockMemory: Bool { engine.lockMemory }

        /// The render thread's SCHED_FIFO priority (nil: normal scheduling, nothing asked for).
        public var realtimePriority: Int32? {
            get { engine.realtimePriority }
            set { engine.realtimePriority = newValue }
        }
    }

    /// What a live playback reports.
    public enum Event: Sendable {
        /// The device was lost; the engine reconnects by itself.
        case lost(String)
        /// The device is back after an outage.
        case back(outageSeconds: Double, gapSeconds: Double, droppedOnsets: Int)
        /// The engine gave up reconnecting.
        case gaveUp(String)
        /// Every pattern of a one-time playback has finished and rung out (the end rule of
        /// `render`: the device has been given the whole offline render, ring-out included).
        case finished
        /// A looped playlist's next round could not be scheduled (the engine refused a start:
        /// its command queue full, the engine stopped...). Nothing more is scheduled.
        case schedulingFailed(String)
    }

    /// The player's configuration.
    public let configuration: Configuration
    let engine: HapticEngine
    private let done = StopFlag()
    private let roundEnd = Mutex<Double>(0)

    /// Makes the player and starts its engine on the device (throws, in one line, when it
    /// cannot be opened).
    public init(configuration: Configuration) throws(LivePlayerError) {
        self.configuration = configuration
        let output = configuration.output
        engine = HapticEngine(configuration: configuration.engine) {
            switch output {
            case .alsa(let name): ALSAOutputDevice(name: name)
            case .device(let make): make()
            }
        }
        do { try engine.start() } catch { throw LivePlayerError(description: "\(error)") }
    }

    deinit { engine.stop() }

    /// Where the channels went when the device opened (`ChannelRouting.warning` says when the
    /// haptic does not reach a channel of its own); nil before it opened.
    public var channelRouting: ChannelRouting? { engine.channelRouting }

    /// Seconds on the monotonic clock (the time base of `play`'s start).
    public var currentTime: Double { engine.currentTime }

    /// Seconds from a start call to the sound leaving the device.
    public var outputLatency: Double { engine.outputLatency }

    /// Plays `patterns` one after another from `start` (nil: as soon as possible), once or
    /// looped; returns the monotonic time the first round ends. `events` hears the outcome.
    /// Throws when a first start is refused (nothing is left playing then).
    @discardableResult
    public func play(
        _ patterns: [PreparedPattern], startingIn delay: Double? = nil, loop: Bool,
        events: @escaping @Sendable (Event) -> Void
    ) throws(LivePlayerError) -> Double {
        var startTime = delay.map { engine.currentTime + $0 } ?? engine.currentTime + engine.outputLatency
        do {
            for pattern in patterns {
                if loop && patterns.count == 1 {
                    let player = try engine.makeAdvancedPlayer(with: pattern)
                    player.loopEnabled = true
                    player.loopEnd = pattern.duration
                    try player.start(atTime: startTime)
                } else {
                    try engine.makePlayer(with: pattern).start(atTime: startTime)
                }
                startTime += pattern.duration
            }
        } catch {
            engine.stop()
            throw LivePlayerError(description: "\(error)")
        }
        roundEnd.withLock { [startTime] in $0 = startTime }
        engine.stoppedHandler = { reason in
            switch reason {
            case .recoveryFailed(let why): events(.gaveUp(why))
            case .deviceLost(let message): events(.lost(message))
            case .deviceTimeout: events(.lost("no progress within the bounded wait"))
            }
        }
        engine.reconnectedHandler = { info in
            events(.back(outageSeconds: info.outageSeconds, gapSeconds: info.gapSeconds, droppedOnsets: info.droppedOnsets))
        }
        if !loop {
            engine.notifyWhenRungOut { events(.finished) }
        } else if patterns.count > 1 {
            let playlist = Playlist(patterns: patterns, firstRound: startTime)
            let engine = self.engine, done = self.done
            Task.detached {
                await playlist.run(on: engine, while: { !done.isSet }, failed: { events(.schedulingFailed($0)) })
            }
        }
        return startTime
    }

    /// The monotonic time the first round of the last `play` ends (set before any event is reported).
    public var firstRoundEnd: Double { roundEnd.withLock { $0 } }

    /// The engine's measurements now, for `--verbose`.
    public var report: EngineReport { EngineReport(engine) }

    /// Fades out, closes the device and returns when it is closed.
    public func stop() async {
        done.set()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            engine.stop { _ in continuation.resume() }
        }
    }
}

/// Why a live player could not start or play, in one line.
public struct LivePlayerError: Error, Sendable, CustomStringConvertible {
    public let description: String
}

/// Set once, read from any thread (the playlist's task stops on it).
final class StopFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
