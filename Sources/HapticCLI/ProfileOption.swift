import ArgumentParser
import HapticKit

/// `--profile NAME|PATH`, as every verb that drives an actuator takes it (render, play, plot,
/// info through ``SynthesisOptions``; follow; serve): a built-in profile's name or a JSON
/// profile file.
public struct ProfileOption: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Actuator profile: a built-in name (\(ActuatorProfile.builtInNames.joined(separator: ", "))) or a JSON file.",
            valueName: "name|path"))
    public var profile = ActuatorProfile.builtInNames[0]

    public init() {}

    /// Refuses, as a usage error, a name that is neither built in nor a path (a .json name or one
    /// with a /); a path is read later (`resolved()`), when the verb runs.
    func checkName() throws(ValidationError) {
        if ActuatorProfile.builtIn(named: profile) == nil, !Self.isPath(profile), Self.assetsFile(profile) == nil {
            throw ValidationError(Self.unknownName(profile))
        }
    }

    /// The profile: a built-in one by name, else the JSON file.
    public func resolved() throws(CLIError) -> ActuatorProfile {
        if ActuatorProfile.builtIn(named: profile) == nil, !Self.isPath(profile) {
            guard let file = Self.assetsFile(profile) else { throw CLIError(Self.unknownName(profile)) }
            return try SynthesisOptions.loadProfile(file)
        }
        return try SynthesisOptions.loadProfile(profile)
    }

    static func isPath(_ name: String) -> Bool { name.contains("/") || name.hasSuffix(".json") }

    /// A name of the assets folder's profiles (actuators/NAME.json in the folder DataFolders
    /// finds: the user's own first), as the C library resolves it.
    static func assetsFile(_ name: String) -> String? {
        ActuatorProfile.assetsFile(named: name, assetsFolder: SynthesisOptions.assetsFolder())
    }

    static func unknownName(_ name: String) -> String {
        "--profile \(name): no such built-in profile (known: \(ActuatorProfile.builtInNames.joined(separator: ", "))) and not a .json path"
    }
}
