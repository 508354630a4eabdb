import ArgumentParser
import Foundation
import HapticALSA

/// `hapticsynth devices [--json] [--quiet]`
public struct Devices: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        abstract: "List the ALSA playback devices hapticsynth can play to.",
        discussion: """
            Lists the sound cards and the ALSA PCM names a user can pass to -D, with the \
            channel counts and rates ALSA reports for each (probed briefly; a PCM that cannot \
            be opened right now says why). Exits 1 when there is no playback device at all.

            Examples:
              hapticsynth devices
              hapticsynth devices --json
            """
    )

    @Flag(name: .long, help: "Print nothing; only the exit status tells whether a playback device exists.")
    public var quiet = false

    @OptionGroup public var format: OutputFormatOptions

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
        }
        var cards: [Card]
        var pcms: [PCM]
    }

    public func execute(into output: inout some CommandOutput) throws -> Int32 {
        // Probing makes alsa-lib and its plugins (JACK's above all) print their own
        // complaints on stderr; our listing already says why each PCM cannot open.
        let (cards, pcms, defaultPCM) = withStandardErrorSilenced {
            (
                ALSADevices.cards(),
                quiet ? [] : ALSADevices.list().filter { $0.direction != .capture },
                ALSADevices.probe("default")
            )
        }
        // Playable: ALSA's `default` opens (a card, or a sound server behind it).
        let usable = defaultPCM.probeError == nil
        if quiet { return usable ? 0 : 1 }
        if format.json {
            let report = Report(
                cards: cards.map { Report.Card(index: $0.index, id: $0.id, name: $0.name) },
                pcms: pcms.map {
                    Report.PCM(
                        name: $0.name, description: $0.description, direction: $0.direction.rawValue,
                        channels: $0.channels.map { [$0.lowerBound, $0.upperBound] },
                        rates: $0.rates.map { [$0.lowerBound, $0.upperBound] }, error: $0.probeError)
                })
            output.print(jsonText(report))
            return usable ? 0 : 1
        }
        output.print(cards.isEmpty ? "cards: none" : "cards:")
        for card in cards { output.print("  \(card.index): \(card.id) — \(card.name)") }
        output.print("playback PCMs:")
        for pcm in pcms {
            var line = "  \(pcm.name)"
            if let channels = pcm.channels { line += "  channels \(Self.range(channels))" }
            if let rates = pcm.rates { line += "  rates \(Self.range(rates)) Hz" }
            if let error = pcm.probeError { line += "  (cannot open now: \(error))" }
            if let description = pcm.description?.split(separator: "\n").first { line += "  — \(description)" }
            output.print(line)
        }
        if !usable {
            output.printError("no ALSA playback device: default: \(defaultPCM.probeError ?? "cannot open")")
        }
        return usable ? 0 : 1
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
