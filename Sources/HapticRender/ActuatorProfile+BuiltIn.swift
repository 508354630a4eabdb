// The shipped actuator profiles (their JSON text is in BuiltInProfiles.swift).

extension ActuatorProfile {
    /// Names of the shipped profiles (the first is the default).
    public static let builtInNames: [String] = ["bass-shaker", "voice-coil", "lra", "dualsense"]

    /// The shipped profile called `name` (`bass-shaker`, `voice-coil`, `lra`, `dualsense`), or nil.
    public static func builtIn(named name: String) -> ActuatorProfile? {
        switch name {
        case "bass-shaker": bassShaker
        case "voice-coil": voiceCoil
        case "lra": lra
        case "dualsense": dualsense
        default: nil
        }
    }

    /// The JSON text of a shipped profile, identical to `Assets/actuators/NAME.json`.
    public static func builtInJSON(named name: String) -> String? {
        switch name {
        case "bass-shaker": BuiltInProfileJSON.bassShaker
        case "voice-coil": BuiltInProfileJSON.voiceCoil
        case "lra": BuiltInProfileJSON.lra
        case "dualsense": BuiltInProfileJSON.dualsense
        default: nil
        }
    }

    // Process-wide and immutable: each built-in profile is decoded once, on first use.

    /// The default profile: a tactile transducer (bass shaker).
    public static let bassShaker = loadBuiltIn("bass-shaker")
    /// A wide-band vibrotactile voice-coil actuator.
    public static let voiceCoil = loadBuiltIn("voice-coil")
    /// A phone-style linear resonant actuator.
    public static let lra = loadBuiltIn("lra")
    /// The voice-coil actuators of a Sony DualSense controller (channels 3–4 of its USB audio).
    public static let dualsense = loadBuiltIn("dualsense")

    private static func loadBuiltIn(_ name: String) -> ActuatorProfile {
        do {
            return try decode(from: Array(builtInJSON(named: name)!.utf8), source: "built-in \(name)")
        } catch {
            // The shipped JSON is checked by tests; failing here is a build defect.
            fatalError("\(error)")
        }
    }
}
