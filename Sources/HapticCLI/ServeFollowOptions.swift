import ArgumentParser
import Foundation
import HapticKit

/// `serve --follow CAPTURE [--input-channels LIST] [--follow-gain dB] [--follow-mode MODE]
/// [--follow-ducking dB] [--follow-sensitivity %] [--follow-gate dBFS] [--follow-timing T]`:
/// live sound followed as one more voice of serve's engine, with the follow verb's settings.
public struct ServeFollowOptions: ParsableArguments {
    @Option(name: .customLong("follow"), help: ArgumentHelp("ALSA capture device to follow as one more voice (as the follow verb does).", valueName: "capture"))
    public var capture: String?

    @Option(name: .customLong("input-channels"), help: ArgumentHelp("With --follow: captured channels to follow, 1-based, comma-separated (default: all).", valueName: "list"))
    public var inputChannels: String?

    // `.unconditional`: "-6" is this option's value, not an unknown flag.
    @Option(name: .customLong("follow-gain"), parsing: .unconditional, help: ArgumentHelp("With --follow: gain on the followed sound, -60 to 40 dB (OSC /hapticsynth/follow/gain).", valueName: "dB"))
    public var gain = FollowOptionValues.defaultGainDecibels

    @Option(name: .customLong("follow-mode"), help: ArgumentHelp("With --follow: \(FollowMode.allCases.map(\.rawValue).joined(separator: ", ")) (OSC /hapticsynth/follow/mode).", valueName: "mode"))
    public var mode: FollowMode = FollowSettings.defaultMode

    @Option(name: .customLong("follow-ducking"), parsing: .unconditional, help: ArgumentHelp("With --follow: the follower ducked by this much while a pattern sounds, -60 to 0 dB (OSC /hapticsynth/follow/ducking).", valueName: "dB"))
    public var ducking = Double(FollowControls.defaultDuckingDecibels)

    // The analysis mode's settings, as the follow verb's --sensitivity, --gate and --timing.
    // They hold from the start whatever the mode, since OSC may switch to analysis later.
    @Option(name: .customLong("follow-sensitivity"), parsing: .unconditional, help: ArgumentHelp("With --follow, in the analysis mode: how readily hits become transients, 0-100 % (0: none), as follow's --sensitivity.", valueName: "percent"))
    public var sensitivity = FollowOptionValues.defaultSensitivityPercent

    @Option(name: .customLong("follow-gate"), parsing: .unconditional, help: ArgumentHelp("With --follow, in the analysis mode: noise gate, -120 to 0 dBFS, as follow's --gate.", valueName: "dBFS"))
    public var gate = FollowOptionValues.defaultGateDBFS

    @Option(name: .customLong("follow-timing"), help: ArgumentHelp("With --follow, in the analysis mode: earliest or steady, as follow's --timing.", valueName: "timing"))
    public var timing: FollowTiming = FollowSettings.defaultTiming

    public init() {}

    public func validate() throws {
        try FollowOptionValues.check(gainDecibels: gain, gainFlag: "--follow-gain", sensitivityPercent: sensitivity,
                                     sensitivityFlag: "--follow-sensitivity", gateDBFS: gate, gateFlag: "--follow-gate")
        guard ducking.isFinite, (-60...0).contains(ducking) else { throw ValidationError("--follow-ducking \(ducking): expected -60...0 dB") }
        _ = try Follow.channels(inputChannels)
        let anySet = inputChannels != nil || gain != FollowOptionValues.defaultGainDecibels || mode != FollowSettings.defaultMode
            || ducking != Double(FollowControls.defaultDuckingDecibels) || sensitivity != FollowOptionValues.defaultSensitivityPercent
            || gate != FollowOptionValues.defaultGateDBFS || timing != FollowSettings.defaultTiming
        if capture == nil, anySet {
            throw ValidationError("--input-channels and the --follow-... options need --follow CAPTURE")
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
                settings: FollowOptionValues.settings(
                    mode: mode, gainDecibels: gain, inputChannels: (try? Follow.channels(inputChannels)) ?? [],
                    sensitivityPercent: sensitivity, gateDBFS: gate, timing: timing),
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
