import ArgumentParser
import Dispatch
import Foundation
import HapticKit
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

    /// A live player's configuration for these options.
    func playerConfiguration(layout: ChannelLayout, profile: ActuatorProfile, rate: Int) -> LivePlayer.Configuration {
        LivePlayer.Configuration(
            output: .alsa(device), layout: layout, profile: profile, sampleRate: rate, periodFrames: period,
            bufferPeriods: bufferPeriods, lockMemory: true, verbose: verbose)
    }

    /// The engine's own measurements, for `--verbose`.
    func report(_ report: EngineReport, into output: inout some CommandOutput) {
        output.print(report.description)
    }

    /// `--verbose`'s note that the verb locked the process's memory.
    func reportMemoryLock(into output: inout some CommandOutput) {
        output.print(Self.memoryNote)
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
            for warning in pattern.warnings { output.printError(printable("\(file): warning: \(warning)")) }
        }
        let layout = synthesis.resolvedLayout() ?? (prepared.contains { $0.hasAudio } ? .stereoPlusHaptic : .hapticMono)
        let device = live.device
        // The verb prints its own lost/back lines; the engine's notes only with --verbose.
        let player: LivePlayer
        do {
            player = try LivePlayer(configuration: live.playerConfiguration(layout: layout, profile: profile, rate: synthesis.rate))
        } catch {
            output.printError("play: \(error)")
            return 1
        }

        let finished = Finish()
        let signals = SignalWatch(signals: [SIGINT, SIGTERM]) { finished.interrupt() }
        defer { signals.cancel() }

        let reconnectLimit = reconnect.reconnectTimeout
        let looping = loop
        let outages = OutageReport(verb: "play", device: device, loopSeconds: loop && prepared.count == 1 ? prepared[0].duration : nil)
        do {
            try player.play(prepared, startingIn: at, loop: loop) { [weak player] event in
                switch event {
                case .gaveUp(let why):
                    finished.fail("play: gave up reconnecting to \(device): \(why)")
                case .lost(let why):
                    let lostAt = player?.currentTime ?? 0
                    let outage = outages.lost(why)
                    // Default limit: none with --loop, else the rest of the pattern.
                    guard let limit = reconnectLimit ?? (looping ? nil : max(0, (player?.firstRoundEnd ?? 0) - lostAt)) else { return }
                    Task.detached {
                        try? await Task.sleep(for: .seconds(limit))
                        if outages.stillLost(outage) {
                            finished.fail("play: \(device) did not come back within \(String(format: "%.1f", limit)) s (--reconnect-timeout)")
                        }
                    }
                case .back(let outage, let gap, let dropped):
                    outages.back(outageSeconds: outage, gapSeconds: gap, droppedOnsets: dropped)
                case .finished:
                    finished.complete()
                case .schedulingFailed(let why):
                    finished.fail("play: the looped playlist's next round could not be scheduled: \(why)")
                }
            }
        } catch {
            output.printError("play: \(error)")
            return 1
        }

        let outcome = await finished.wait()
        // Before the stop: after a signal the watchdog may end the process during the fade.
        if live.verbose {
            live.report(player.report, into: &output)
            live.reportMemoryLock(into: &output)
        }
        await player.stop()
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
    func lost(_ why: String) -> Int {
        let number = state.withLock { s in
            s.count += 1
            s.lost = true
            return s.count
        }
        Self.printLine("\(verb): \(device) lost (\(why)); reconnecting")
        return number
    }

    /// Whether outage `number` is still going on.
    func stillLost(_ number: Int) -> Bool { state.withLock { $0.lost && $0.count == number } }

    /// Prints the back line.
    func back(outageSeconds: Double, gapSeconds: Double, droppedOnsets: Int, extra: String? = nil) {
        state.withLock { $0.lost = false }
        var line = "\(verb): \(device) is back after \(String(format: "%.2f", outageSeconds)) s: gap \(String(format: "%.2f", gapSeconds)) s, onsets dropped \(droppedOnsets)"
        if let loopSeconds, loopSeconds > 0 {
            line += String(format: ", loop cycles skipped %.1f", gapSeconds / loopSeconds)
        }
        if let extra { line += ", " + extra }
        Self.printLine(line)
    }

    static func printLine(_ line: String) {
        StandardStreamWriter.error(line + "\n")
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
/// process at once. One watch per process at a time. `cancel()` puts back the dispositions
/// the signals had before. A signal the process inherited as ignored is not watched.
///
/// `@unchecked Sendable`: `previous` is set once in `init` and only read after.
final class SignalWatch: @unchecked Sendable {
    private final class State: Sendable { let cancelled = Atomic<Bool>(false) }
    private let state = State()
    private let signals: [Int32]
    private var previous: [(Int32, sigaction)] = []

    /// The signal received (0: none yet).
    var received: Int32 { receivedSignal.load(ordering: .acquiring) }

    /// The exit status for an interrupted verb: 128 + the signal (130 for SIGINT).
    var interruptedStatus: Int32 { 128 + (received == 0 ? SIGINT : received) }

    init(signals: [Int32], deadlineSeconds: Double = 0.1, handler: @escaping @Sendable () -> Void) {
        self.signals = signals
        _ = signalSemaphore  // made here, never first inside the signal handler
        receivedSignal.store(0, ordering: .releasing)
        let state = self.state
        spawnDetachedRealtimeThread(name: "signal-watchdog", realtimePriority: 90) {
            while sem_wait(signalSemaphore) != 0 {}  // EINTR
            if state.cancelled.load(ordering: .acquiring) { return }  // the verb ended by itself
            let number = receivedSignal.load(ordering: .acquiring)
            handler()
            usleep(UInt32(deadlineSeconds * 1e6))
            StandardStreamWriter.error("interrupted\n")
            _exit(128 + number)
        }
        // A signal inherited as ignored stays ignored (nohup, a background job): it would not have ended us.
        for number in signals where !signalIsIgnored(number) {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                if receivedSignal.exchange(number, ordering: .acquiringAndReleasing) != 0 { _exit(128 + number) }
                sem_post(signalSemaphore)
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = Int32(SA_RESTART)
            var old = sigaction()
            sigaction(number, &action, &old)
            previous.append((number, old))
        }
    }

    func cancel() {
        for (number, old) in previous.reversed() {
            var action = old
            sigaction(number, &action, nil)
        }
        if receivedSignal.load(ordering: .acquiring) == 0 {
            state.cancelled.store(true, ordering: .releasing)
            sem_post(signalSemaphore)
        }
    }
}
