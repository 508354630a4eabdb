import ArgumentParser
import Foundation
import HapticKit

/// `serve --follow CAPTURE [--input-channels LIST] [--follow-gain dB] [--follow-mode MODE]
/// [--follow-ducking dB]`: live sound followed as one more voice of serve's engine.
public struct ServeFollowOptions: ParsableArguments {
    @Option(name: .customLong("follow"), help: ArgumentHelp("ALSA capture device to follow as one more voice (as the follow verb does).", valueName: "capture"))
    public var capture: String?

    @Option(name: .customLong("input-channels"), help: ArgumentHelp("With --follow: captured channels to follow, 1-based, comma-separated (default: all).", valueName: "list"))
    public var inputChannels: String?

    // `.unconditional`: "-6" is this option's value, not an unknown flag.
    @Option(name: .customLong("follow-gain"), parsing: .unconditional, help: ArgumentHelp("With --follow: gain on the followed sound, -60 to 40 dB (OSC /hapticsynth/follow/gain).", valueName: "dB"))
    public var gain = 0.0

    @Option(name: .customLong("follow-mode"), help: ArgumentHelp("With --follow: \(FollowMode.allCases.map(\.rawValue).joined(separator: ", ")) (OSC /hapticsynth/follow/mode).", valueName: "mode"))
    public var mode: FollowMode = .lowpass

    @Option(name: .customLong("follow-ducking"), parsing: .unconditional, help: ArgumentHelp("With --follow: the follower ducked by this much while a pattern sounds, -60 to 0 dB (OSC /hapticsynth/follow/ducking).", valueName: "dB"))
    public var ducking = Double(FollowControls.defaultDuckingDecibels)

    public init() {}

    public func validate() throws {
        guard gain.isFinite, (-60...40).contains(gain) else { throw ValidationError("--follow-gain \(gain): expected -60...40 dB") }
        guard ducking.isFinite, (-60...0).contains(ducking) else { throw ValidationError("--follow-ducking \(ducking): expected -60...0 dB") }
        _ = try Follow.channels(inputChannels)
        if capture == nil, inputChannels != nil || gain != 0 || mode != .lowpass || ducking != Double(FollowControls.defaultDuckingDecibels) {
            throw ValidationError("--input-channels, --follow-gain, --follow-mode and --follow-ducking need --follow CAPTURE")
        }
    }

    /// What the manager is asked to follow (nil without --follow).
    struct Request: Sendable {
        var capture: String
        var settings: FollowSettings
        var duckingDecibels: Float

        /// Starts following on `manager`; throws one line.
        func start(on manager: HapticManager) throws(LivePlayerError) {
            try manager.startFollowing(.alsa(capture), settings: settings, duckingDecibels: duckingDecibels)
        }
    }

    /// The options as a request (validated: the channels parse).
    var request: Request? {
        capture.map { capture in
            Request(
                capture: capture,
                settings: FollowSettings(mode: mode, gain: Float(pow(10, gain / 20)), inputChannels: (try? Follow.channels(inputChannels)) ?? []),
                duckingDecibels: Float(ducking))
        }
    }

    /// The summary's part about the follower (empty without --follow).
    func summary(_ statistics: FollowStatistics?) -> String {
        guard let capture, let s = statistics else { return "" }
        return String(
            format: "; followed %.1f s of %@ (overruns %d, underruns %d, capture lost %d times, reopened %d)",
            Double(s.framesFollowed) / 48_000, capture, s.overruns, s.underruns, s.captureLosses, s.captureReopens)
    }
}
