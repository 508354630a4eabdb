import ArgumentParser
import HapticKit

/// Options shared by the verbs that play live: device, period, buffer, real-time scheduling.
public struct LiveOutputOptions: ParsableArguments {
    @Option(name: .customShort("D"), help: ArgumentHelp("ALSA playback device (PCM name).", valueName: "device"))
    public var device = "default"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Frames per period (the render block).", valueName: "frames"))
    public var period = 256

    @Option(
        name: .customLong("buffer-periods"), parsing: .unconditional,
        help: ArgumentHelp("Periods in the device buffer (default: 3; follow: 2, its latency is the point).", valueName: "n"))
    public var requestedBufferPeriods: Int?

    // Where SCHED_FIFO and mlockall are refused or unwanted (a container, a CI runner, a desktop
    // session beside other real-time work): a plain process. The memory lock goes with it: it
    // keeps a real-time thread from page faults, and is process-wide.
    @Flag(
        name: .customLong("no-realtime"),
        help: "Ask for no real-time scheduling (SCHED_FIFO) for the render thread and lock no memory: run as an ordinary process.")
    public var noRealtime = false

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
            bufferPeriods: bufferPeriods(default: defaultBufferPeriods), lockMemory: !noRealtime, verbose: verbose)
        if noRealtime { configuration.realtimePriority = nil }
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

    /// `--verbose`'s note that the verb locked the process's memory (or, with --no-realtime, did not).
    func reportMemoryLock(into output: inout some CommandOutput) {
        output.print(noRealtime ? Self.noRealtimeNote : Self.memoryNote)
    }
}
