import ArgumentParser
import Foundation
import HapticKit

/// `hapticsynth info FILE [--json] [--audio-root DIR]...`
public struct Info: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Summarise an AHAP or .haptic file.",
        discussion: """
            Shows the pattern's metadata (who made it, from what sound, and for a file \
            `convert` made, the options it was made with), duration, event counts by type, the \
            ranges of parameter values it uses, its parameter curves, the audio files it \
            references (and whether each exists, looked up relative to the pattern's folder and \
            then in each --audio-root), and the lenient reader's warnings. Exits 1 when the file \
            does not load.

            It also shows where a transient's energy lands on each built-in profile (or the \
            one --profile names), measured on the rendered output: the time its Hilbert \
            envelope reaches half its peak, and the peak, after the event's time, at \
            sharpness 0, 0.5 and 1. That is when it is felt; its first sample is on the \
            event's sample.

            Examples:
              hapticsynth info Haptics/heartbeat.ahap
              hapticsynth info --json --audio-root Assets/sounds Haptics/rain.ahap
              hapticsynth info --paths
            """
    )

    @Argument(help: ArgumentHelp("The AHAP or .haptic file.", valueName: "file"))
    public var file: String?

    @Flag(name: .long, help: "Instead of a file: where the pattern library and assets are looked for, in order, and which were found.")
    public var paths = false

    @Option(name: .customLong("audio-root"), help: ArgumentHelp("Another folder to look for referenced audio files in.", valueName: "dir"))
    public var audioRoots: [String] = []

    @Option(name: .long, help: ArgumentHelp("Show the transients' felt onset for this profile only (a built-in name or a JSON file).", valueName: "name|path"))
    public var profile: String?

    @OptionGroup public var format: OutputFormatOptions

    public init() {}

    struct Report: Codable {
        struct Range: Codable {
            var id: String
            var min: Double
            var max: Double
            var count: Int
        }
        struct Curve: Codable {
            var id: String
            var curves: Int
            var controlPoints: Int
            var maxControlPoints: Int
            var start: Double
            var end: Double
        }
        struct Audio: Codable {
            var path: String
            var exists: Bool
            var resolved: String?
        }
        struct Warning: Codable {
            var path: String
            var message: String
            var kind: String
        }
        /// One member of the file's metadata: who made it, from what, how (a converted file's
        /// `Description` holds the options it was made with).
        struct Field: Codable {
            var key: String
            var value: String
        }
        var file: String
        /// `ahap`, or `haptic` for a Meta/Lofelt `.haptic` clip (summarised as the AHAP it converts to).
        var format: String
        var bytes: Int
        var version: Double?
        /// The metadata's members in file order (a `.haptic` clip's, as its AHAP names them).
        var metadata: [Field]
        var duration: Double
        var events: [String: Int]
        var parameters: Int
        var curveElements: Int
        var eventParameterRanges: [Range]
        var dynamicParameterRanges: [Range]
        var curves: [Curve]
        var audioFiles: [Audio]
        var warnings: [Warning]
        /// Per profile: a full-intensity transient's felt onset at sharpness 0, 0.5 and 1.
        var transientFeltOnset: [FeltOnsets]
    }

    struct FeltOnsets: Codable {
        var profile: String
        var onsets: [FeltOnset]
    }

    func feltOnsets() throws(CLIError) -> [FeltOnsets] {
        var profiles: [ActuatorProfile] = ActuatorProfile.builtInNames.compactMap { ActuatorProfile.builtIn(named: $0) }
        if let profile {
            var options = SynthesisOptions()
            options.profile = profile
            profiles = [try options.resolvedProfile()]
        }
        var result: [FeltOnsets] = []
        for p in profiles {
            do {
                result.append(FeltOnsets(profile: p.name, onsets: try p.feltOnsets()))
            } catch {
                throw CLIError("\(p.name): \(error)")
            }
        }
        return result
    }

    public func validate() throws {
        if paths == (file != nil) { throw ValidationError(paths ? "--paths takes no file" : "Missing expected argument '<file>'") }
    }

    public func execute(into output: inout some CommandOutput) throws -> Int32 {
        guard let file else { return DataPathsReport(search: LibraryFolders.search).print(into: &output, json: format.json) }
        let loaded: PatternFile
        do {
            loaded = try PatternFile.load(file)
        } catch {
            output.printError(error.description)
            return 1
        }
        let pattern = loaded.decoded.pattern
        let summary = pattern.summary
        let felt: [FeltOnsets]
        do { felt = try feltOnsets() } catch {
            output.printError(error.description)
            return 1
        }
        let report = Report(
            file: file, format: loaded.clip == nil ? "ahap" : "haptic", bytes: loaded.byteCount, version: pattern.version,
            metadata: Self.fields(of: pattern.metadata), duration: summary.duration,
            events: Dictionary(uniqueKeysWithValues: summary.eventCounts.map { ($0.key.rawValue, $0.value) }),
            parameters: summary.parameterCount, curveElements: summary.curveCount,
            eventParameterRanges: EventParameterID.allCases.compactMap { id in
                summary.eventParameterRanges[id].map { Report.Range(id: id.rawValue, min: $0.min, max: $0.max, count: $0.count) }
            },
            dynamicParameterRanges: DynamicParameterID.allCases.compactMap { id in
                summary.dynamicParameterRanges[id].map { Report.Range(id: id.rawValue, min: $0.min, max: $0.max, count: $0.count) }
            },
            curves: summary.curves.map {
                Report.Curve(id: $0.id.rawValue, curves: $0.curves, controlPoints: $0.controlPoints, maxControlPoints: $0.maxControlPoints, start: $0.start, end: $0.end)
            },
            audioFiles: summary.audioFiles.map { reference in
                let found = loaded.locateAudio(reference, roots: audioRoots)
                return Report.Audio(path: reference, exists: found != nil, resolved: found?.path)
            },
            warnings: loaded.decoded.warnings.map { Report.Warning(path: $0.path, message: $0.message, kind: $0.kind.rawValue) },
            transientFeltOnset: felt)

        if format.json {
            output.print(jsonText(report))
            return 0
        }
        output.print("file: \(printable(file)) (\(report.bytes) bytes)")
        if let clip = loaded.clip {
            let v = clip.version
            output.print("format: .haptic \(v.major).\(v.minor).\(v.patch) (Meta/Lofelt), \(clip.amplitude.count) amplitude and \(clip.frequency.count) frequency breakpoints, \(clip.amplitude.filter { $0.emphasis != nil }.count) emphasis; summarised as the AHAP pattern it converts to")
        } else {
            output.print("version: \(pattern.version.map { $0.description } ?? "none")")
        }
        if !report.metadata.isEmpty {
            output.print("metadata:")
            for field in report.metadata { output.print(printable("  \(field.key): \(field.value)")) }
        }
        output.print("duration: \(seconds(summary.duration))")
        let counts = EventType.allCases.compactMap { type in
            summary.eventCounts[type].flatMap { $0 > 0 ? "\(type.rawValue) \($0)" : nil }
        }
        output.print("events: \(summary.eventCount)" + (counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"))
        output.print("dynamic parameters: \(summary.parameterCount), parameter curves: \(summary.curveCount)")
        if !report.eventParameterRanges.isEmpty {
            output.print("event parameter ranges:")
            for range in report.eventParameterRanges { output.print("  \(range.id): \(number(range.min)) … \(number(range.max)) (\(range.count) values)") }
        }
        if !report.dynamicParameterRanges.isEmpty {
            output.print("dynamic parameter ranges:")
            for range in report.dynamicParameterRanges { output.print("  \(range.id): \(number(range.min)) … \(number(range.max)) (\(range.count) values)") }
        }
        if !report.curves.isEmpty {
            output.print("curves:")
            for curve in report.curves {
                output.print("  \(curve.id): \(curve.curves) curve\(curve.curves == 1 ? "" : "s"), \(curve.controlPoints) points (at most \(curve.maxControlPoints) in one), \(seconds(curve.start)) to \(seconds(curve.end))")
            }
        }
        if !report.audioFiles.isEmpty {
            output.print("audio files:")
            for audio in report.audioFiles {
                output.print(printable("  \(audio.path): " + (audio.resolved.map { "found (\($0))" } ?? "MISSING")))
            }
        }
        output.print("warnings: \(report.warnings.count)")
        for warning in loaded.decoded.warnings { output.print("  \(warning)") }
        output.print("transient felt onset (half-envelope / peak of the Hilbert envelope after the event time):")
        for entry in felt {
            let parts = entry.onsets.map {
                String(format: "sharpness %g (%.1f Hz) %.2f / %.2f ms", $0.sharpness, $0.frequency, $0.halfEnvelopeMs, $0.peakMs)
            }
            output.print("  \(entry.profile): " + parts.joined(separator: "; "))
        }
        return 0
    }

    /// The metadata's members as text, each cut to `limit` characters (a file's metadata can
    /// be as long as the file): strings as they are, numbers and booleans as JSON writes them,
    /// lists and objects by their size.
    static func fields(of metadata: JSONValue?, limit: Int = 400) -> [Report.Field] {
        guard case .object(let members) = metadata else { return [] }
        func cut(_ text: String) -> String {
            text.count <= limit ? text : String(text.prefix(limit)) + "… (\(text.count) characters)"
        }
        return members.map { key, value in
            let text: String
            switch value {
            case .null: text = "null"
            case .bool(let b): text = b ? "true" : "false"
            case .number(let n): text = n.description
            case .string(let s): text = s
            case .array(let items): text = "(a list of \(items.count))"
            case .object(let fields): text = "(an object of \(fields.count))"
            }
            return Report.Field(key: cut(key), value: cut(text))
        }
    }

    private func number(_ value: Double) -> String { value.description }
    private func seconds(_ value: Double) -> String { String(format: "%.3f s", value) }
}
