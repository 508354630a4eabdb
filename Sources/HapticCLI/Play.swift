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

    @Option(
        name: .customLong("buffer-periods"), parsing: .unconditional,
        help: ArgumentHelp("Periods in the device buffer (default: 3; follow: 2, its latency is the point).", valueName: "n"))
    public var requestedBufferPeriods: Int?

    /// Periods in the device buffer: as asked, else 3 (`follow` uses `bufferPeriods(default:)`).
    public var bufferPeriods: Int { bufferPeriods(default: 3) }

    /// Periods in the device buffer: as asked, else `fallback`.
    func bufferPeriods(default fallback: Int) -> Int { requestedBufferPeriods ?? fallback }

    @Flag(name: .shortAndLong, help: "At the end, print latency, xruns and render-time statistics.")
    public var verbose = false

    public init() {}

    public func validate() throws {
        guard (16...16384).contains(period) else { throw ValidationError("--period \(period): expected 16...16384 frames") }
        if let requestedBufferPeriods, !(2...32).contains(requestedBufferPeriods) {
            throw ValidationError("--buffer-periods \(requestedBufferPeriods): expected 2...32")
        }
    }

    /// A live player's configuration for these options (`layout` nil: chosen from the device,
    /// carrying the sound too when `sound`).
    /// `defaultBufferPeriods`: the buffer when --buffer-periods is not given.
    func playerConfiguration(
        layout: ChannelLayout?, sound: Bool = false, profile: ActuatorProfile, rate: Int, defaultBufferPeriods: Int = 3
    ) -> LivePlayer.Configuration {
        var configuration = LivePlayer.Configuration(
            output: .alsa(device), layout: layout, sound: sound, profile: profile, sampleRate: rate, periodFrames: period,
            bufferPeriods: bufferPeriods(default: defaultBufferPeriods), lockMemory: true, verbose: verbose)
        configuration.logsChannelRouting = false  // the verb prints it (`reportChannels`)
        return configuration
    }

    /// Where the channels went, once the device is open: the layout's note and the routing
    /// warning (one line each, on stderr), and with --verbose the map.
    func reportChannels(
        verb: String, note: String?, routing: ChannelRouting?, into output: inout some CommandOutput
    ) {
        if let note { output.printError("\(verb): \(note)") }
        if let warning = routing?.warning { output.printError("\(verb): warning: \(warning)") }
        if verbose, let routing { output.printError("\(verb): \(routing.device) channels: \(routing.summary)") }
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
            on the monotonic clock) and exits when they have finished and rung out, where \
            render ends its file (below -90 dBFS): the device gets the rendered file to its \
            last sample. --loop repeats them until interrupted. Prints "play: ready" on \
            standard error once the device is open and the patterns are scheduled. Ctrl-C \
            (SIGINT) or SIGTERM fades out over a few milliseconds and closes the device \
            (within 200 ms, whatever else is going on; exit 130 or 143). With no playback \
            device, says so in one line and exits 1.

            When the device or its sound server goes away mid-way (a server restart, a \
            replugged amplifier), play prints one line, keeps the schedule and reconnects by \
            itself; when the device is back it prints the gap and the onsets dropped and goes \
            on. It exits 1 only when --reconnect-timeout runs out (default: never with --loop; \
            for a finite play, the rest of the pattern).

            Without --layout the channels are chosen from the device's channel map (the haptic \
            on LFE where there is one, on both channels of a stereo device; see `hapticsynth \
            devices`). When the device or its sound server would drop the haptic (AUX0 on a \
            stereo, 2.1 or 5.1 sink, LFE on a stereo one), play says so in one line with the fix.

            Examples:
              hapticsynth play Haptics/heartbeat.ahap
              hapticsynth play -D hw:1,0 --profile voice-coil --period 128 Haptics/thud.ahap
              hapticsynth play --layout H@LFE Haptics/thud.ahap
              hapticsynth play -D hw:1,0 --layout FL=H:bass-shaker,FR=H:voice-coil*0.5 Haptics/thud.ahap
              hapticsynth play --loop --verbose Haptics/heartbeat.ahap
            """
    )

    @Argument(help: ArgumentHelp("AHAP or .haptic files to play.", valueName: "file"))
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
        // Before anything is loaded: a signal from now on ends the verb with 130/143.
        let finished = Finish()
        let signals = SignalWatch(verb: "play") { finished.interrupt() }
        defer { signals.cancel() }
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
        let device = live.device
        // The verb prints its own lost/back lines; the engine's notes only with --verbose.
        let player: LivePlayer
        let configuration = live.playerConfiguration(
            layout: synthesis.resolvedLayout(), sound: prepared.contains { $0.hasAudio }, profile: profile,
            rate: synthesis.rate)
        do {
            player = try LivePlayer(configuration: configuration)
        } catch {
            output.printError("play: \(error)")
            return 1
        }
        live.reportChannels(verb: "play", note: configuration.layoutNote, routing: player.channelRouting, into: &output)

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
        signals.ready(into: &output)

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
