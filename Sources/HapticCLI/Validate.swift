import ArgumentParser
import Foundation
import HapticKit

/// `hapticsynth validate FILE... [--strict] [--json]`
public struct Validate: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check AHAP files and list every problem.",
        discussion: """
            Prints one line per problem, `file: path: message`, where path points into the \
            document (for example Pattern[12].Event.EventParameters[1].ParameterValue) or, for \
            text that is not JSON, gives a line and column. Warnings are what the lenient \
            reader fixed (clamped values, unknown keys, ...); they do not fail a file unless \
            --strict is given. Exits 0 when every file loads, 1 otherwise.

            Examples:
              hapticsynth validate Haptics/heartbeat.ahap
              hapticsynth validate --strict --json Haptics/*.ahap
            """
    )

    @Argument(help: ArgumentHelp("AHAP or .haptic files to check.", valueName: "file"))
    public var files: [String]

    @Flag(name: .long, help: "Treat every warning as an error.")
    public var strict = false

    @OptionGroup public var format: OutputFormatOptions

    public init() {}

    struct Report: Codable {
        struct Problem: Codable {
            var path: String
            var message: String
            var kind: String
            var line: Int?
            var column: Int?
        }
        struct FileReport: Codable {
            var file: String
            var ok: Bool
            var error: Problem?
            var warnings: [Problem]
            var events: Int?
            var duration: Double?
        }
        var ok: Bool
        var strict: Bool
        var files: [FileReport]
    }

    public func execute(into output: inout some CommandOutput) throws -> Int32 {
        var report = Report(ok: true, strict: strict, files: [])
        var warningCount = 0
        for file in files {
            var entry = Report.FileReport(file: file, ok: false, warnings: [])
            do {
                var loaded = try PatternFile.load(file, options: .init(strict: strict))
                try checkRenderLimits(&loaded, file)
                entry.ok = true
                entry.events = loaded.decoded.pattern.events.count
                entry.duration = loaded.decoded.pattern.duration
                entry.warnings = loaded.decoded.warnings.map { Report.Problem(path: $0.path, message: $0.message, kind: $0.kind.rawValue) }
                warningCount += loaded.decoded.warnings.count
                if !format.json {
                    for warning in loaded.decoded.warnings {
                        output.print(printable(warning.path.isEmpty ? "\(file): warning: \(warning.message)" : "\(file): \(warning.path): warning: \(warning.message)"))
                    }
                }
            } catch {
                report.ok = false
                switch error {
                case .unreadable(_, let reason):
                    entry.error = Report.Problem(path: "", message: "cannot read: \(reason)", kind: "unreadable")
                case .soundFile(_, let kind):
                    entry.error = Report.Problem(path: "", message: PatternFileError.soundFileReason(kind: kind), kind: "sound file")
                case .invalid(_, let ahap):
                    entry.error = Report.Problem(path: ahap.path, message: ahap.message, kind: describe(ahap.kind), line: ahap.line, column: ahap.column)
                }
                if !format.json { output.print(error.description) }
            }
            report.files.append(entry)
        }
        if format.json {
            output.print(jsonText(report))
        } else {
            let failed = report.files.filter { !$0.ok }.count
            output.print("\(files.count) file\(files.count == 1 ? "" : "s"): \(files.count - failed) loaded, \(failed) failed, \(warningCount) warning\(warningCount == 1 ? "" : "s")\(strict ? " (strict)" : "")")
        }
        return report.ok ? 0 : 1
    }
}

extension Validate {
    /// The limits that depend on the rendering: events sounding at once, the memory the
    /// sounds take, and the output's length against render's default --max-duration. Checked
    /// by preparing the pattern as `render` does by default (the default profile, 48 kHz, the
    /// sounds found beside the file or in the assets folder); lenient: a warning saying what
    /// render and play do, strict: an error.
    func checkRenderLimits(_ loaded: inout PatternFile, _ file: String) throws(PatternFileError) {
        let profile = ActuatorProfile.builtIn(named: ActuatorProfile.builtInNames[0])!
        let sounds = loaded.decoded.pattern.events.contains { $0.type == .audioCustom }
            ? SoundLibrary(patternFile: file, assetsFolder: SynthesisOptions.assetsFolder()) : nil
        guard let prepared = try? PreparedPattern(loaded.decoded.pattern, profile: profile, sampleRate: 48000, sounds: sounds) else { return }
        var messages: [String] = []
        let skipped = prepared.eventsSkippedForVoices
        if skipped > 0 {
            messages.append("\(skipped) event\(skipped == 1 ? "" : "s") would start while \(Limits.maxVoices) others still sound (the limit of events at once); render and play skip \(skipped == 1 ? "it" : "them") (counted with the \(profile.name) profile)")
        }
        let silent = prepared.soundEventsOverBudget
        if silent > 0 {
            messages.append("the sounds of \(silent) AudioCustom event\(silent == 1 ? "" : "s") would pass the \(Limits.maxPatternSoundBytes >> 20) MiB the sounds of one pattern may hold (each file at each AudioPitch is held apart); render and play keep \(silent == 1 ? "it" : "them") silent")
        }
        if prepared.duration > Limits.defaultMaxOutputSeconds {
            messages.append("the pattern lasts \(String(format: "%.1f", prepared.duration)) s, longer than render's default --max-duration \(Limits.defaultMaxOutputSeconds) s; render refuses it unless --max-duration is raised")
        }
        for message in messages {
            if strict {
                throw .invalid(file: file, error: AHAPError(path: "Pattern", message: message, kind: .strict(.beyondLimit)))
            }
            loaded.decoded.warnings.append(AHAPWarning(path: "Pattern", message: message, kind: .beyondLimit))
        }
    }
}

/// A stable name for an error kind (JSON reports).
func describe(_ kind: AHAPError.Kind) -> String {
    switch kind {
    case .syntax: "syntax"
    case .missingPattern: "missingPattern"
    case .elementShape: "elementShape"
    case .unknownEventType: "unknownEventType"
    case .invalidTime: "invalidTime"
    case .missingDuration: "missingDuration"
    case .wrongType: "wrongType"
    case .missingWaveformPath: "missingWaveformPath"
    case .missingValue: "missingValue"
    case .strict(let warning): "strict." + warning.rawValue
    case .other: "other"
    }
}
