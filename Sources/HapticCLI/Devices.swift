import ArgumentParser
import Foundation
import HapticKit

/// `hapticsynth devices [--json] [--quiet]`
public struct Devices: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the ALSA playback devices hapticsynth can play to.",
        discussion: """
            Lists the sound cards and the ALSA PCM names a user can pass to -D, with the \
            channel counts and rates ALSA reports for each (probed briefly). A PCM marked * \
            can be opened now; one that cannot says why. Like `aplay -L`, exits 0 whenever \
            it could list, even if `default` cannot be opened; exits 1 only when ALSA lists \
            nothing at all. --usable prints only the names that can be opened now (default \
            first), and exits 1 when there are none.

            Under each PCM that opens: the channel maps it can take (ALSA's, or through a \
            sound server's plugin the maps it gives a stream of each width), where its \
            channels go (the server's sink and the sink's own map), and the layout the live \
            verbs choose for it by default. A DualSense or DualSense Edge plugged in over USB \
            is named with the command that drives its actuators.

            Examples:
              hapticsynth devices
              hapticsynth devices --json
              hapticsynth play -D "$(hapticsynth devices --usable | head -n1)" Haptics/heartbeat.ahap
            """
    )

    @Flag(name: .long, help: "Print nothing; only the exit status tells whether a playback device can be opened now.")
    public var quiet = false

    @Flag(name: .long, help: "Print only the names of the playback PCMs that can be opened now, default first (exit 1 if none).")
    public var usable = false

    @OptionGroup public var format: OutputFormatOptions

    /// Where /proc and /sys are read (tests hand it a fake tree).
    @Option(name: .customLong("sysroot"), help: .hidden)
    public var systemRoot = "/"

    public init() {}

    struct Report: Codable {
        struct Card: Codable {
            var index: Int
            var id: String
            var name: String
        }
        struct PCM: Codable {
            var name: String
            var description: String?
            var direction: String
            var channels: [Int]?
            var rates: [Int]?
            var error: String?
            var opensNow: Bool
            /// The maps it can take ("FL FR", "FL FR RL RR FC LFE"...).
            var channelMaps: [String]?
            /// The sound server's sink it plays into, and the sink's map.
            var sink: String?
            var sinkChannels: String?
            /// What the live verbs play on it by default, with sound and haptic.
            var defaultLayout: String?
        }
        struct Gamepad: Codable {
            var name: String
            var usbID: String
            var card: Int
            var device: String
            var command: String
        }
        var cards: [Card]
        var pcms: [PCM]
        var gamepads: [Gamepad]
    }

    /// The PCM that drives a DualSense card directly (the sound server's split sinks hide channels 3-4).
    static func dualSenseDevice(_ card: PlaybackDevices.SoundCard) -> String { "hw:CARD=\(card.id),DEV=0" }

    static func dualSenseCommand(_ card: PlaybackDevices.SoundCard) -> String {
        "hapticsynth play -D \(dualSenseDevice(card)) --layout dualsense FILE.ahap"
    }

    public func execute(into output: inout some CommandOutput) throws -> Int32 {
        // Probing makes alsa-lib and its plugins (JACK's above all) print their own
        // complaints on stderr; our listing already says why each PCM cannot open.
        let survey = withStandardErrorSilenced { PlaybackDevices.survey(root: systemRoot) }
        let (cards, listed, defaultPCM) = (survey.cards, survey.pcms, survey.defaultPCM)
        var pcms = listed
        if !pcms.contains(where: { $0.name == "default" }) && defaultPCM.probeError == nil { pcms.insert(defaultPCM, at: 0) }
        let openable = pcms.filter { $0.probeError == nil }.map(\.name)
            .sorted { a, b in a == "default" && b != "default" }
        if quiet { return openable.isEmpty ? 1 : 0 }
        if usable {
            for name in openable { output.print(name) }
            if openable.isEmpty { output.printError("no ALSA playback device can be opened now") }
            return openable.isEmpty ? 1 : 0
        }
        // Like `aplay -L`: listing worked unless ALSA knows of nothing at all.
        let listedSomething = !pcms.isEmpty || !cards.isEmpty
        if format.json {
            let report = Report(
                cards: cards.map { Report.Card(index: $0.index, id: $0.id, name: $0.name) },
                pcms: pcms.map {
                    Report.PCM(
                        name: $0.name, description: $0.description, direction: $0.direction.rawValue,
                        channels: $0.channels.map { [$0.lowerBound, $0.upperBound] },
                        rates: $0.rates.map { [$0.lowerBound, $0.upperBound] }, error: $0.probeError,
                        opensNow: $0.probeError == nil, channelMaps: $0.channelMaps?.offers.map(\.description),
                        sink: $0.channelMaps?.server?.name, sinkChannels: $0.channelMaps?.server?.positions?.mapDescription,
                        defaultLayout: $0.channelMaps.map {
                            DefaultChannelLayout(for: $0, sound: true, device: "").layout.mapDescription
                        })
                },
                gamepads: survey.dualSenses.map {
                    Report.Gamepad(
                        name: $0.gamepadName ?? "DualSense", usbID: $0.usbID ?? "", card: $0.index,
                        device: Self.dualSenseDevice($0), command: Self.dualSenseCommand($0))
                })
            output.print(jsonText(report))
            return listedSomething ? 0 : 1
        }
        output.print(cards.isEmpty ? "cards: none" : "cards:")
        for card in cards { output.print("  \(card.index): \(card.id) — \(card.name)") }
        output.print("playback PCMs (* = can be opened now):")
        for pcm in pcms {
            var line = (pcm.probeError == nil ? "* " : "  ") + pcm.name
            if let channels = pcm.channels { line += "  channels \(Self.range(channels))" }
            if let rates = pcm.rates { line += "  rates \(Self.range(rates)) Hz" }
            if let error = pcm.probeError { line += "  (cannot open now: \(error))" }
            if let description = pcm.description?.split(separator: "\n").first { line += "  — \(description)" }
            output.print(line)
            for detail in Self.channelLines(pcm.channelMaps) { output.print("      " + detail) }
        }
        for pad in survey.dualSenses {
            output.print("\(pad.gamepadName ?? "DualSense") (USB \(pad.usbID ?? "?")) on card \(pad.index) (\(pad.id)): its actuators are channels 3-4 of \(Self.dualSenseDevice(pad))")
            output.print("  \(Self.dualSenseCommand(pad))")
            output.print("  (USB only: over Bluetooth the actuators are not a sound device; stop a sound server's use of the card first, and do not drive the HID rumble at the same time)")
        }
        if openable.isEmpty {
            output.printError("no ALSA playback device can be opened now (default: \(defaultPCM.probeError ?? "cannot open"))")
        } else if defaultPCM.probeError != nil {
            output.printError("note: default cannot be opened now (\(defaultPCM.probeError!)); the PCMs marked * can")
        }
        return listedSomething ? 0 : 1
    }

    /// The lines under a PCM: its maps, where its channels go, the default layout.
    static func channelLines(_ described: DeviceChannels?) -> [String] {
        guard let described else { return [] }
        var lines: [String] = []
        lines.append(
            "channel maps: " + (described.offers.isEmpty
                ? "none reported (the device cannot say where its channels go)"
                : described.offers.map(\.description).joined(separator: " | ")))
        if let server = described.server {
            lines.append("plays into \(server.summary) via \(server.via)")
        }
        let sound = DefaultChannelLayout(for: described, sound: true, device: "")
        let haptic = DefaultChannelLayout(for: described, sound: false, device: "")
        lines.append("default layout: \(sound.layout.mapDescription) (sound and haptic), \(haptic.layout.mapDescription) (haptic only)")
        return lines
    }

    static func range(_ r: ClosedRange<Int>) -> String {
        r.lowerBound == r.upperBound ? "\(r.lowerBound)" : "\(r.lowerBound)–\(r.upperBound)"
    }
}

/// Runs `body` with file descriptor 2 pointed at /dev/null (C libraries' own chatter).
func withStandardErrorSilenced<T>(_ body: () -> T) -> T {
    let saved = dup(STDERR_FILENO)
    let null = open("/dev/null", O_WRONLY)
    guard saved >= 0, null >= 0 else { return body() }
    dup2(null, STDERR_FILENO)
    close(null)
    defer {
        dup2(saved, STDERR_FILENO)
        close(saved)
    }
    return body()
}
