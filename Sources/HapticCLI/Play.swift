import ArgumentParser
import Dispatch
import Foundation
import HapticALSA
import HapticEngine
import HapticPattern
import HapticRender
import Synchronization

/// Options shared by the verbs that play live: device, period, buffer.
public struct LiveOutputOptions: ParsableArguments {
    @Option(name: .customShort("D"), help: ArgumentHelp("ALSA playback device (PCM name).", valueName: "device"))
    public var device = "default"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Frames per period (the render block).", valueName: "frames"))
    public var period = 256

    @Option(name: .customLong("buffer-periods"), parsing: .unconditional, help: ArgumentHelp("Periods in the device buffer.", valueName: "n"))
    public var bufferPeriods = 3

    @Flag(name: .shortAndLong, help: "At the end, print latency, xruns and render-time statistics.")
    public var verbose = false

    public init() {}

    public func validate() throws {
        guard (16...16384).contains(period) else { throw ValidationError("--period \(period): expected 16...16384 frames") }
        guard (2...32).contains(bufferPeriods) else { throw ValidationError("--buffer-periods \(bufferPeriods): expected 2...32") }
    }

    /// An engine configuration for these options.
    func configuration(layout: ChannelLayout, profile: ActuatorProfile, rate: Int) -> HapticEngine.Configuration {
        // The engine reconnects forever; the verb enforces --reconnect-timeout itself.
        HapticEngine.Configuration(
            layout: layout, profile: profile, sampleRate: rate, periodFrames: period, bufferPeriods: bufferPeriods)
    }

    /// The engine's own measurements, for `--verbose`.
    func report(_ engine: HapticEngine, into output: inout some CommandOutput) {
        let stats = engine.renderStatistics
        output.print(String(
            format: "latency %.1f ms, xruns %d, stalls %d, reconnections %d, onsets dropped %d, render per period: median %.3f ms, p99 %.3f ms, max %.3f ms of %.3f ms (headroom %.0f%%), realtime scheduling: %@",
            engine.outputLatency * 1000, engine.xrunCount, engine.stallCount, engine.reconnectionCount,
            engine.droppedOnsetCount, stats.p50Seconds * 1000, stats.p99Seconds * 1000,
            stats.maxSeconds * 1000, stats.periodSeconds * 1000, stats.headroom * 100, engine.isRealtime ? "yes" : "no"))
    }
}

/// `hapticsynth play FILE... [-D DEVICE] [--at SECONDS] [--loop] ...`
public struct Play: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        abstract: "Play patterns live through ALSA.",
        discussion: """
            Plays the patterns one after another (each starts where the previous one ends, \
            on the monotonic clock) and exits when they finish. --loop repeats them until \
            interrupted. Ctrl-C (SIGINT) or SIGTERM fades out over a few milliseconds and \
            closes the device (within 200 ms, whatever else is going on). With no playback \
            device, says so in one line and exits 1.

            When the device or its sound server goes away mid-way (a server restart, a \
            replugged amplifier), play prints one line, keeps the schedule and reconnects by \
            itself; when the device is back it prints the gap and the onsets dropped and goes \
            on. It exits 1 only when --reconnect-timeout runs out (default: never with --loop; \
            for a finite play, the rest of the pattern).

            Examples:
              hapticsynth play Haptics/heartbeat.ahap
              hapticsynth play -D hw:1,0 --profile voice-coil --period 128 Haptics/thud.ahap
              hapticsynth play --loop --verbose Haptics/heartbeat.ahap
            """
    )

    @Argument(help: ArgumentHelp("AHAP files to play.", valueName: "file"))
    public var files: [String]

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Start this many seconds from now (default: as soon as possible).", valueName: "seconds"))
    public var at: Double?

    @Flag(name: .long, help: "Repeat until interrupted.")
    public var loop = false

    @OptionGroup public var synthesis: SynthesisOptions
    @OptionGroup public var live: LiveOutputOptions
    @OptionGroup public var reconnect: ReconnectOptions

    public init() {}

    public func validate() throws {
        if let at, !(at.isFinite && at >= 0 && at <= 3600) {
            throw ValidationError("--at \(at): expected seconds between 0 and 3600")
        }
    }

    public func run() async throws {
        var output = StandardStreams()
        let status = await execute(into: &output)
        if status != 0 { throw ExitCode(status) }
    }

    /// Plays, writing to `output`; returns the exit status.
    public func execute(into output: inout some CommandOutput) async -> Int32 {
        let profile: ActuatorProfile
        var prepared: [PreparedPattern] = []
        do {
            profile = try synthesis.resolvedProfile()
            for file in files { prepared.append(try synthesis.prepare(file, profile: profile).1) }
        } catch {
            output.printError(error.description)
            return 1
        }
        for (file, pattern) in zip(files, prepared) {
            for warning in pattern.warnings { output.printError("\(file): warning: \(warning)") }
        }
        let layout = synthesis.resolvedLayout() ?? (prepared.contains { $0.hasAudio } ? .stereoPlusHaptic : .hapticMono)
        let device = live.device
        var configuration = live.configuration(layout: layout, profile: profile, rate: synthesis.rate)
        // The verb prints its own lost/back lines; the engine's notes only with --verbose.
        configuration.logger.logLevel = live.verbose ? .info : .error
        let engine = HapticEngine(configuration: configuration) {
            ALSAOutputDevice(name: device)
        }
        do {
            try engine.start()
        } catch {
            output.printError("play: \(error)")
            return 1
        }

        let finished = Finish()
        let signals = SignalWatch(signals: [SIGINT, SIGTERM]) { finished.interrupt() }
        defer { signals.cancel() }

        do {
            var startTime = at.map { engine.currentTime + $0 } ?? engine.currentTime + engine.outputLatency
            var players: [PatternPlayer] = []
            for pattern in prepared {
                if loop && prepared.count == 1 {
                    let player = try engine.makeAdvancedPlayer(with: pattern)
                    player.loopEnabled = true
                    player.loopEnd = pattern.duration
                    try player.start(atTime: startTime)
                    players.append(player)
                } else {
                    let player = try engine.makePlayer(with: pattern)
                    try player.start(atTime: startTime)
                    players.append(player)
                }
                startTime += pattern.duration
            }
            let end = startTime
            let reconnectLimit = reconnect.reconnectTimeout
            let looping = loop
            let outages = OutageReport(verb: "play", device: device, loopSeconds: loop && prepared.count == 1 ? prepared[0].duration : nil)
            engine.stoppedHandler = { reason in
                if case .recoveryFailed(let why) = reason {
                    finished.fail("play: gave up reconnecting to \(device): \(why)")
                    return
                }
                let lostAt = MonotonicClock.now()
                let outage = outages.lost(reason)
                // Default limit: none with --loop, else the rest of the pattern.
                guard let limit = reconnectLimit ?? (looping ? nil : max(0, end - lostAt)) else { return }
                Task.detached {
                    try? await Task.sleep(for: .seconds(limit))
                    if outages.stillLost(outage) {
                        finished.fail("play: \(device) did not come back within \(String(format: "%.1f", limit)) s (--reconnect-timeout)")
                    }
                }
            }
            engine.reconnectedHandler = { info in outages.back(info) }
            if !loop {
                engine.notifyWhenPlayersFinished { _ in
                    finished.complete()
                    return .leaveRunning
                }
            } else if prepared.count > 1 {
                // Several files looped: schedule rounds ahead, one round at a time.
                let round = prepared.reduce(0) { $0 + $1.duration }
                Task.detached {
                    var next = startTime
                    while !finished.isDone {
                        let wait = next - engine.currentTime - 0.5
                        if wait > 0 { try? await Task.sleep(for: .seconds(wait)) }
                        if finished.isDone { break }
                        var t = next
                        for pattern in prepared {
                            try? engine.makePlayer(with: pattern).start(atTime: t)
                            t += pattern.duration
                        }
                        next += round
                    }
                }
            }
        } catch {
            engine.stop()
            output.printError("play: \(error)")
            return 1
        }

        let outcome = await finished.wait()
        // Before the stop: after a signal the watchdog may end the process during the fade.
        if live.verbose { live.report(engine, into: &output) }
        let stopped = Finish()
        engine.stop { _ in stopped.complete() }
        _ = await stopped.wait()
        switch outcome {
        case .completed: return 0
        case .interrupted: return signals.interruptedStatus
        case .failed(let message):
            output.printError(message)
            return 1
        }
    }
}

/// The one line a live verb prints when its device is lost and the one when it is back
/// (to standard error, from the engine's handler threads), and the outage's identity for the
/// --reconnect-timeout watch.
final class OutageReport: Sendable {
    let verb: String
    let device: String
    /// The loop's length (`play --loop` of one file): the back line says how many cycles the gap skipped.
    let loopSeconds: Double?
    private let state = Mutex<(count: Int, lost: Bool)>((0, false))

    init(verb: String, device: String, loopSeconds: Double? = nil) {
        self.verb = verb
        self.device = device
        self.loopSeconds = loopSeconds
    }

    /// Prints the lost line; returns the outage's number.
    func lost(_ reason: HapticEngine.StoppedReason) -> Int {
        let number = state.withLock { s in
            s.count += 1
            s.lost = true
            return s.count
        }
        let why: String
        switch reason {
        case .deviceLost(let message): why = message
        case .deviceTimeout: why = "no progress within the bounded wait"
        case .recoveryFailed(let message): why = message
        }
        Self.printLine("\(verb): \(device) lost (\(why)); reconnecting")
        return number
    }

    /// Whether outage `number` is still going on.
    func stillLost(_ number: Int) -> Bool { state.withLock { $0.lost && $0.count == number } }

    /// Prints the back line.
    func back(_ info: HapticEngine.Reconnection, extra: String? = nil) {
        state.withLock { $0.lost = false }
        var line = "\(verb): \(device) is back after \(String(format: "%.2f", info.outageSeconds)) s: gap \(String(format: "%.2f", info.gapSeconds)) s, onsets dropped \(info.droppedOnsets)"
        if let loopSeconds, loopSeconds > 0 {
            line += String(format: ", loop cycles skipped %.1f", info.gapSeconds / loopSeconds)
        }
        if let extra { line += ", " + extra }
        Self.printLine(line)
    }

    static func printLine(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}

/// How a live run ended; the first outcome wins. Waited on from async code.
final class Finish: Sendable {
    enum Outcome: Sendable { case completed, interrupted, failed(String) }
    private let state = Mutex<(outcome: Outcome?, waiters: [CheckedContinuation<Outcome, Never>])>((nil, []))

    var isDone: Bool { state.withLock { $0.outcome != nil } }
    func complete() { settle(.completed) }
    func interrupt() { settle(.interrupted) }
    func fail(_ message: String) { settle(.failed(message)) }

    private func settle(_ outcome: Outcome) {
        let waiters = state.withLock { s -> [CheckedContinuation<Outcome, Never>] in
            guard s.outcome == nil else { return [] }
            s.outcome = outcome
            defer { s.waiters = [] }
            return s.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    func wait() async -> Outcome {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { s -> Outcome? in
                if let outcome = s.outcome { return outcome }
                s.waiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// The signal a live verb received (0: none), and the semaphore its watchdog waits on. Globals:
/// a signal handler can reach nothing else, and it may only do async-signal-safe things (an
/// atomic exchange, `sem_post`, `_exit`).
private let receivedSignal = Atomic<Int32>(0)
nonisolated(unsafe) private let signalSemaphore: UnsafeMutablePointer<sem_t> = {
    let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    sem_init(semaphore, 0, 0)
    return semaphore
}()

/// Turns SIGINT/SIGTERM into a call (instead of the default immediate exit), so that live verbs
/// can fade out and close the device — and guarantees the process ends within `deadlineSeconds`
/// of the signal whatever else happens. The signal handler only posts a semaphore; a watchdog
/// thread, made up front at a real-time priority above the render thread's (a render thread
/// that spins cannot keep it off the CPU), wakes on it, makes the call, and ends the process
/// with 128 + the signal if the verb has not returned by the deadline (a render thread that
/// does not come back, a sound server that does not answer a close). A second signal ends the
/// process at once. One watch per process at a time.
final class SignalWatch: Sendable {
    private final class State: Sendable { let cancelled = Atomic<Bool>(false) }
    private let state = State()
    private let signals: [Int32]

    /// The signal received (0: none yet).
    var received: Int32 { receivedSignal.load(ordering: .acquiring) }

    /// The exit status for an interrupted verb: 128 + the signal (130 for SIGINT).
    var interruptedStatus: Int32 { 128 + (received == 0 ? SIGINT : received) }

    init(signals: [Int32], deadlineSeconds: Double = 0.1, handler: @escaping @Sendable () -> Void) {
        self.signals = signals
        _ = signalSemaphore  // made here, never first inside the signal handler
        receivedSignal.store(0, ordering: .releasing)
        let state = self.state
        HapticEngine.spawnDetachedThread(name: "signal-watchdog", realtimePriority: 90) {
            while sem_wait(signalSemaphore) != 0 {}  // EINTR
            if state.cancelled.load(ordering: .acquiring) { return }  // the verb ended by itself
            let number = receivedSignal.load(ordering: .acquiring)
            handler()
            usleep(UInt32(deadlineSeconds * 1e6))
            FileHandle.standardError.write(Data("interrupted\n".utf8))
            _exit(128 + number)
        }
        for number in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if receivedSignal.exchange(number, ordering: .acquiringAndReleasing) != 0 { _exit(128 + number) }
                sem_post(signalSemaphore)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(SA_RESTART)
            sigaction(number, &action, nil)
        }
    }

    func cancel() {
        for number in signals { signal(number, SIG_DFL) }
        if receivedSignal.load(ordering: .acquiring) == 0 {
            state.cancelled.store(true, ordering: .releasing)
            sem_post(signalSemaphore)
        }
    }
}
