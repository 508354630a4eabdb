import ArgumentParser
import Foundation
import HapticKit

/// `hapticsynth play FILE... [-D DEVICE] [--at SECONDS] [--loop] ...`
public struct Play: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "play",
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
