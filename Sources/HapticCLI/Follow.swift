import ArgumentParser
import Foundation
import HapticKit

/// `hapticsynth follow -C CAPTURE [-D DEVICE] [--mode analysis|lowpass] [--input-channels LIST] ...`
public struct Follow: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "Drive the actuator from live sound: a capture device or a sound server's monitor.",
        discussion: """
            Reads the ALSA capture device -C (a sound card's input, a loopback device, or what \
            a sound server is playing: a PCM of type pulse whose device is the sink's monitor \
            source, SINK.monitor, defined in ~/.asoundrc) and plays \
            haptics made from it on -D, live, through the same actuator profile, protection \
            chain and channel layout as play. --mode analysis (the default) analyses the \
            sound as convert does, as it arrives: its loudness drives a vibration in the \
            actuator's band whose frequency follows the sound's sharpness, and each hit \
            (found with --sensitivity, as convert's) plays as a transient, decided on the \
            onset's rise; sound below --gate drives nothing. It plays each hit in the first \
            period rendered after the hit is heard (--timing earliest), or, with --timing \
            steady, every hit one fixed delay after its sound, about a period later. \
            --mode lowpass is a plain \
            crossover: the sound itself, low-passed to the top of the profile's band \
            (fourth-order, minimum delay). \
            The captured channels --input-channels names (1-based; default all) are followed \
            as their mean: --input-channels 4 follows the LFE of a 5.1 stream alone. The \
            capture must run at the output's 48000 Hz.

            Prints "follow: ready" on standard error once both devices are open. When the \
            output device goes away it reconnects as play does; a capture that goes away is \
            reopened while the output keeps running (in silence meanwhile); each prints a line \
            when lost and when back. SIGINT or SIGTERM fade out, close both devices, print a \
            summary (and with --verbose the engine's statistics) and exit 0. An unknown or \
            unusable device gives one line and exit 1.

            Examples:
              hapticsynth follow -C hw:1,0 -D hw:2,0
              hapticsynth follow -C monitor -D shaker --input-channels 4 --gain -6
              hapticsynth follow -C monitor -D shaker --sensitivity 70 --gate -45
              hapticsynth follow -C monitor -D shaker --mode lowpass
              hapticsynth follow -C hw:Loopback,1 -D hw:1,0 --layout H@LFE --profile voice-coil --period 128
            """
    )

    @Option(name: .customShort("C"), help: ArgumentHelp("ALSA capture device (PCM name) to follow.", valueName: "capture"))
    public var capture: String

    @Option(name: .long, help: ArgumentHelp("How the sound becomes drive: analysis (loudness, hits and sharpness, synthesized in the actuator's band) or lowpass (a crossover at the top of the profile's band).", valueName: "mode"))
    public var mode: FollowMode = FollowSettings.defaultMode

    @Option(name: .customLong("input-channels"), help: ArgumentHelp("Captured channels to follow, 1-based, comma-separated (default: all).", valueName: "list"))
    public var inputChannels: String?

    // `.unconditional`: "-6" is this option's value, not an unknown flag.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Gain on the followed sound, -60 to 40 dB.", valueName: "dB"))
    public var gain = FollowOptionValues.defaultGainDecibels

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Analysis: how readily hits become transients, 0-100 % (0: none), as convert's.", valueName: "percent"))
    public var sensitivity = FollowOptionValues.defaultSensitivityPercent

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Analysis: noise gate, -120 to 0 dBFS: quieter sound drives nothing (a hit must rise 12 dB above it).", valueName: "dBFS"))
    public var gate = FollowOptionValues.defaultGateDBFS

    @Option(name: .long, help: ArgumentHelp("Analysis: earliest (each hit felt in the first period after it is heard, up to a period of jitter) or steady (every hit one fixed delay after its sound, about a period later).", valueName: "timing"))
    public var timing: FollowTiming = FollowSettings.defaultTiming

    @OptionGroup public var profileOption: ProfileOption

    @OptionGroup public var channelLayout: LayoutOptions
    @OptionGroup public var live: LiveOutputOptions

    public init() {}

    /// The output's rate: the engine renders at 48 kHz and the capture must run at it.
    static let sampleRate = 48_000

    /// The output buffer without --buffer-periods: two periods, not play's three (what is
    /// followed is felt that much later; the render thread and the sound server plugin's
    /// thread run at real-time priorities).
    static let defaultBufferPeriods = 2

    var bufferPeriods: Int { live.bufferPeriods(default: Self.defaultBufferPeriods) }

    public func validate() throws {
        try FollowOptionValues.check(gainDecibels: gain, gainFlag: "--gain", sensitivityPercent: sensitivity, sensitivityFlag: "--sensitivity",
                                     gateDBFS: gate, gateFlag: "--gate")
        _ = try Self.channels(inputChannels)
    }

    /// `--input-channels` as 0-based channel numbers (empty: all); throws naming the bad entry.
    static func channels(_ list: String?) throws(ValidationError) -> [Int] {
        guard let list else { return [] }
        var channels: [Int] = []
        for entry in list.split(separator: ",", omittingEmptySubsequences: false) {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard let number = Int(text), (1...64).contains(number) else {
                throw ValidationError("--input-channels \(printable(list)): \"\(printable(text))\" is not a channel number 1...64")
            }
            if !channels.contains(number - 1) { channels.append(number - 1) }
        }
        return channels
    }

    public func run() async throws {
        var out = StandardStreams()
        let status = await execute(into: &out)
        if status != 0 { throw ExitCode(status) }
    }

    /// Follows until SIGINT/SIGTERM, writing to `out`; returns the exit status.
    public func execute(into out: inout some CommandOutput) async -> Int32 {
        // Before anything is opened: SIGINT and SIGTERM end the verb with 0 from now on.
        let finished = Finish()
        let signals = SignalWatch(verb: "follow", ending: .success, deadlineSeconds: stopDeadlineSeconds) { finished.interrupt() }
        defer { signals.cancel() }
        let resolvedProfile: ActuatorProfile
        let layout: ChannelLayout?
        let followed: [Int]
        do {
            resolvedProfile = try profileOption.resolved()
            layout = try channelLayout.resolved()
            followed = try Self.channels(inputChannels)
        } catch {
            out.printError("follow: \(error)")
            return 1
        }
        let device = live.device
        let outputConfiguration = live.playerConfiguration(
            layout: layout, profile: resolvedProfile, rate: Self.sampleRate, defaultBufferPeriods: Self.defaultBufferPeriods)
        let settings = FollowOptionValues.settings(
            mode: mode, gainDecibels: gain, inputChannels: followed, sensitivityPercent: sensitivity, gateDBFS: gate, timing: timing)
        let outages = OutageReport(verb: "follow", device: device)
        let capture = self.capture
        let follower: LiveFollower
        do {
            follower = try LiveFollower(
                configuration: .init(output: outputConfiguration, capture: .alsa(capture), follow: settings)
            ) { event in
                switch event {
                case .outputLost(let why): _ = outages.lost(why)
                case .outputBack(let outage, let gap): outages.back(outageSeconds: outage, gapSeconds: gap, droppedOnsets: 0)
                case .gaveUp(let why): finished.fail("follow: gave up reconnecting to \(device): \(why)")
                case .captureLost: OutageReport.printLine("follow: capture \(capture) lost; reopening")
                case .captureBack(let seconds):
                    OutageReport.printLine("follow: capture \(capture) is back after \(String(format: "%.2f", seconds)) s")
                }
            }
        } catch {
            out.printError("follow: \(error)")
            return 1
        }
        live.reportChannels(verb: "follow", note: outputConfiguration.layoutNote, routing: follower.channelRouting, into: &out)
        if let format = follower.captureFormat {
            out.print("following \(capture) (\(format.channels) channel(s) at \(format.sampleRate) Hz, capture period \(format.periodFrames)) on \(device) (period \(live.period), buffer \(bufferPeriods) periods), mode \(mode.rawValue)"
                      + (mode == .analysis ? ", timing \(timing.rawValue)" : ""))
        }
        signals.ready(into: &out)

        let outcome = await finished.wait()
        let statistics = follower.statistics
        if live.verbose {
            live.report(follower.report, into: &out)
            if let reads = statistics.captureReads, reads.periods > 0 {
                let render = follower.renderStatistics
                let processing = max(0, render.meanSeconds - reads.meanSeconds)
                out.print(String(
                    format: "capture reads per period: median %.3f ms, p99 %.3f ms, mean %.3f ms; the render without them (the follower and the output stage): mean %.3f ms of %.3f ms, %.2f %% of a core",
                    reads.p50Seconds * 1000, reads.p99Seconds * 1000, reads.meanSeconds * 1000, processing * 1000,
                    render.periodSeconds * 1000, render.periodSeconds > 0 ? processing / render.periodSeconds * 100 : 0))
            }
            live.reportMemoryLock(into: &out)
        }
        await follower.stop()
        out.print(String(
            format: "stopped; followed %.1f s of sound (transients %d, overruns %d, underruns %d, frames trimmed %d, capture lost %d times, reopened %d; capture clock corrected by %+.0f ppm)",
            Double(statistics.framesFollowed) / Double(Self.sampleRate), statistics.transients, statistics.overruns, statistics.underruns,
            statistics.trimmedFrames, statistics.captureLosses, statistics.captureReopens, statistics.captureRateCorrectionPPM))
        if case .failed(let message) = outcome {
            out.printError(message)
            return 1
        }
        return 0
    }

    /// How long the graceful end after SIGINT/SIGTERM may take (as `serve`'s: the fade and the
    /// device buffer played out, with room on a loaded machine).
    var stopDeadlineSeconds: Double {
        1 + 2 * Double(live.period * bufferPeriods) / Double(Self.sampleRate)
    }
}

extension FollowMode: ExpressibleByArgument {}
extension FollowTiming: ExpressibleByArgument {}
