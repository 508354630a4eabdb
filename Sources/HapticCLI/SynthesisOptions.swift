// Options shared by the verbs that synthesise (render, play, rhythm): which actuator
// profile, which rate, which channel layout, where sounds are found, how strict.

import ArgumentParser
import Foundation
import HapticKit

/// `--profile`, `--rate`, `--layout`, `--sounds`, `--strict`.
public struct SynthesisOptions: ParsableArguments {
    @OptionGroup public var profileOption: ProfileOption

    /// `--profile` as given (a built-in name or a path).
    public var profile: String {
        get { profileOption.profile }
        set { profileOption.profile = newValue }
    }

    // `.unconditional`: "-48000" is this option's value (a range error), not an unknown flag.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Sample rate in Hz.", valueName: "hz"))
    public var rate = 48000

    @OptionGroup public var channelLayout: LayoutOptions

    @Option(
        name: .customLong("audio-root"),
        help: ArgumentHelp("A folder searched for AudioCustom sound files (repeatable), after the pattern's folder and the assets folder.", valueName: "dir"))
    public var soundFolders: [String] = []

    @Flag(name: .long, help: "Turn every warning into an error (a missing sound file included).")
    public var strict = false

    public init() {}

    public func validate() throws {
        guard Limits.sampleRates.contains(rate) else {
            throw ValidationError(
                "--rate \(rate): must be between \(Limits.sampleRates.lowerBound) and \(Limits.sampleRates.upperBound) Hz")
        }
    }

    /// The profile named by `--profile`: a built-in name, else a JSON file.
    public func resolvedProfile() throws(CLIError) -> ActuatorProfile { try profileOption.resolved() }

    /// A built-in profile by name, else a JSON profile file (for `--profile` and `--layout`'s
    /// `H:PROFILE`). The error starts with the name.
    static func loadProfile(_ name: String) throws(CLIError) -> ActuatorProfile {
        if let builtIn = ActuatorProfile.builtIn(named: name) { return builtIn }
        guard name.contains("/") || name.hasSuffix(".json") else {
            throw CLIError(
                "\(name): no such built-in profile (known: \(ActuatorProfile.builtInNames.joined(separator: ", "))) and not a .json path")
        }
        let bytes: [UInt8]
        do { bytes = try PatternFile.readBytes(name) } catch {
            throw CLIError("\(error)")
        }
        do {
            return try ActuatorProfile.decode(from: bytes, source: name)
        } catch {
            throw CLIError("\(error)")
        }
    }

    /// The layout from `--layout`, or nil for the verb's default (validated already).
    public func resolvedLayout() -> ChannelLayout? { try? channelLayout.resolved() }

    /// A sound library that searches next to `patternFile`, then the assets folder, then `--audio-root`.
    public func soundLibrary(for patternFile: String) -> SoundLibrary {
        SoundLibrary(patternFile: patternFile, assetsFolder: Self.assetsFolder(), folders: soundFolders)
    }

    /// The assets folder: `$HAPTICSYNTH_ASSETS`, else `./Assets` when it exists.
    public static func assetsFolder() -> String? {
        if let env = ProcessInfo.processInfo.environment["HAPTICSYNTH_ASSETS"], !env.isEmpty { return env }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: "Assets", isDirectory: &isDirectory), isDirectory.boolValue {
            return "Assets"
        }
        return nil
    }

    /// Loads `path` and prepares it for rendering with these options.
    public func prepare(_ path: String, profile: ActuatorProfile) throws(CLIError) -> (PatternFile, PreparedPattern) {
        let file: PatternFile
        do {
            file = try PatternFile.load(path, options: .init(strict: strict))
        } catch {
            throw CLIError(error.description)
        }
        do {
            let prepared = try PreparedPattern(
                file.decoded.pattern, profile: profile, sampleRate: Double(rate),
                sounds: soundLibrary(for: path), strict: strict)
            return (file, prepared)
        } catch {
            throw CLIError("\(path): \(error)")
        }
    }
}
