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

    @Option(name: .long, help: ArgumentHelp("Frames per period (the render block).", valueName: "frames"))
    public var period = 256

    @Option(name: .customLong("buffer-periods"), help: ArgumentHelp("Periods in the device buffer.", valueName: "n"))
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
        var configuration = HapticEngine.Configuration(
            layout: layout, profile: profile, sampleRate: rate, periodFrames: period, bufferPeriods: bufferPeriods)
        configuration.maxRestartAttempts = 5
        return configuration
    }

    /// The engine's own measurements, for `--verbose`.
    func report(_ engine: HapticEngine, into output: inout some CommandOutput) {
        let stats = engine.renderStatistics
        output.print(String(
            format: "latency %.1f ms, xruns %d, render per period: median %.3f ms, p99 %.3f ms, max %.3f ms of %.3f ms (headroom %.0f%%), realtime scheduling: %@",
            engine.outputLatency * 1000, engine.xrunCount, stats.p50Seconds * 1000, stats.p99Seconds * 1000,
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
            closes the device. With no playback device, says so in one line and exits 1.

            Examples:
              hapticsynth play Haptics/heartbeat.ahap
              hapticsynth play -D hw:1,0 --profile voice-coil --period 128 Haptics/thud.ahap
              hapticsynth play --loop --verbose Haptics/heartbeat.ahap
            """
    )

    @Argument(help: ArgumentHelp("AHAP files to play.", valueName: "file"))
    public var files: [String]

    @Option(name: .long, help: ArgumentHelp("Start this many seconds from now (default: as soon as possible).", valueName: "seconds"))
    public var at: Double?

    @Flag(name: .long, help: "Repeat until interrupted.")
    public var loop = false

    @OptionGroup public var synthesis: SynthesisOptions
    @OptionGroup public var live: LiveOutputOptions

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
        let engine = HapticEngine(configuration: live.configuration(layout: layout, profile: profile, rate: synthesis.rate)) {
            ALSAOutputDevice(name: device)
        }
        do {
            try engine.start()
        } catch {
            output.printError("play: \(error)")
            return 1
        }

        let finished = Finish()
        engine.stoppedHandler = { reason in finished.fail("play: the engine stopped: \(reason)") }
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
        let stopped = Finish()
        engine.stop { _ in stopped.complete() }
        _ = await stopped.wait()
        if live.verbose { live.report(engine, into: &output) }
        switch outcome {
        case .completed: return 0
        case .interrupted: return 130
        case .failed(let message):
            output.printError(message)
            return 1
        }
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

/// Turns SIGINT/SIGTERM into a call (instead of the default immediate exit), so that
/// live verbs can fade out and close the device.
/// `@unchecked Sendable`: the dispatch sources are set once in init and only cancelled after
/// (DispatchSource is thread-safe but not annotated Sendable).
final class SignalWatch: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(signals: [Int32], handler: @escaping @Sendable () -> Void) {
        sources = signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
