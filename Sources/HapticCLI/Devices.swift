import ArgumentParser
import Foundation
import HapticKit

/// `hapticsynth devices [--json] [--quiet]`
public struct Devices: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        abstract: "List the ALSA playback devices hapticsynth can play to.",
        discussion: """
            Lists the sound cards and the ALSA PCM names a user can pass to -D, with the \
            channel counts and rates ALSA reports for each (probed briefly). A PCM marked * \
            can be opened now; one that cannot says why. Like `aplay -L`, exits 0 whenever \
            it could list, even if `default` cannot be opened; exits 1 only when ALSA lists \
            nothing at all. --usable prints only the names that can be opened now (default \
            first), and exits 1 when there are none.

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
        }
        var cards: [Card]
        var pcms: [PCM]
    }

    public func execute(into output: inout some CommandOutput) throws -> Int32 {
        // Probing makes alsa-lib and its plugins (JACK's above all) print their own
        // complaints on stderr; our listing already says why each PCM cannot open.
        let survey = withStandardErrorSilenced { PlaybackDevices.survey() }
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
                        opensNow: $0.probeError == nil)
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
        }
        if openable.isEmpty {
            output.printError("no ALSA playback device can be opened now (default: \(defaultPCM.probeError ?? "cannot open"))")
        } else if defaultPCM.probeError != nil {
            output.printError("note: default cannot be opened now (\(defaultPCM.probeError!)); the PCMs marked * can")
        }
        return listedSomething ? 0 : 1
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
