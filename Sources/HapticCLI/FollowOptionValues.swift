import ArgumentParser
import Foundation
import HapticKit

/// The follower's options as the CLI takes them (gain in dB, sensitivity in %, gate in dBFS):
/// their defaults, their ranges and the ``FollowSettings`` they make. `follow` names them
/// `--gain`, `--sensitivity`, `--gate`; `serve --follow` names them `--follow-gain`, ….
enum FollowOptionValues {
    static let defaultGainDecibels = 0.0
    static let defaultSensitivityPercent = 50.0
    static let defaultGateDBFS = -60.0

    /// Throws one line naming `flag` when a value is NaN, infinite or out of its range.
    static func check(gainDecibels: Double, gainFlag: String, sensitivityPercent: Double, sensitivityFlag: String,
                      gateDBFS: Double, gateFlag: String) throws(ValidationError) {
        guard gainDecibels.isFinite, (-60...40).contains(gainDecibels) else {
            throw ValidationError("\(gainFlag) \(gainDecibels): expected -60...40 dB")
        }
        guard sensitivityPercent.isFinite, (0...100).contains(sensitivityPercent) else {
            throw ValidationError("\(sensitivityFlag) \(sensitivityPercent): expected 0...100 %")
        }
        guard gateDBFS.isFinite, (-120...0).contains(gateDBFS) else { throw ValidationError("\(gateFlag) \(gateDBFS): expected -120...0 dBFS") }
    }

    /// The follower's settings from the CLI's units (checked values).
    static func settings(mode: FollowMode, gainDecibels: Double, inputChannels: [Int], sensitivityPercent: Double, gateDBFS: Double,
                         timing: FollowTiming) -> FollowSettings {
        FollowSettings(
            mode: mode, gain: Float(pow(10, gainDecibels / 20)), inputChannels: inputChannels, sensitivity: sensitivityPercent / 100,
            gate: pow(10, gateDBFS / 20), timing: timing)
    }
}
