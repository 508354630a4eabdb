import ArgumentParser
import HapticKit

/// `--profile NAME` of the live verbs that take only a built-in profile (`rhythm`, `serve`):
/// an unknown name is a usage error that lists the known ones.
func validateBuiltInProfile(_ profile: String) throws {
    guard ActuatorProfile.builtIn(named: profile) != nil else {
        throw ValidationError("--profile \(profile): no such built-in profile (known: \(ActuatorProfile.builtInNames.joined(separator: ", ")))")
    }
}
