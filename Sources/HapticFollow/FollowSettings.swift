import HapticAnalysis

/// What the follower is told: which captured channels it follows, how loud, in which mode.
public struct FollowSettings: Sendable, Equatable {
    /// The mode a follower runs in unless told otherwise, wherever it is started (`follow
    /// --mode`, `serve --follow-mode`, ``FollowControls``, the library): the only place it is said.
    public static let defaultMode = FollowMode.analysis
    /// The analysis mode's timing unless told otherwise (`follow --timing`, `serve --follow-timing`).
    public static let defaultTiming = FollowTiming.earliest

    /// The mode (see ``FollowMode``).
    public var mode: FollowMode = Self.defaultMode
    /// Linear gain on the followed sound's drive, before the protection chain.
    public var gain: Float = 1
    /// The captured channels followed (0-based; empty: all of them), mixed as their mean.
    public var inputChannels: [Int] = []
    /// The analysis mode's hit sensitivity, 0…1 (`convert --sensitivity` / 100).
    public var sensitivity = 0.5
    /// The analysis mode's noise gate: below this level (linear amplitude of the loudness
    /// follower) the sound drives no continuous layer, and a hit must rise to 4× it.
    /// 0.001 (-60 dBFS), `convert`'s.
    public var gate = 0.001
    /// When the analysis mode plays what it heard (see ``FollowTiming``).
    public var timing: FollowTiming = Self.defaultTiming

    public init(
        mode: FollowMode = Self.defaultMode, gain: Float = 1, inputChannels: [Int] = [], sensitivity: Double = 0.5, gate: Double = 0.001,
        timing: FollowTiming = Self.defaultTiming
    ) {
        self.mode = mode
        self.timing = timing
        self.gain = gain
        self.inputChannels = inputChannels
        self.sensitivity = sensitivity
        self.gate = gate
    }

    /// The capture width to ask a device for: wide enough for the highest channel followed, and
    /// a usual layout's width (stereo, 5.1, 7.1), so that channel 4 of a 5.1 stream is its LFE
    /// and not a sound server's down-mix to four channels.
    public var captureChannels: Int {
        let highest = (inputChannels.max() ?? 0) + 1
        return [2, 6, 8].first { $0 >= highest } ?? highest
    }

    /// The analysis at `sampleRate`, as the follower runs it: hits decided on the onset's rise
    /// (``HitDecision/onRise``), sensitivity and gate from here (a value out of range, which
    /// the CLI refuses, is clamped; NaN takes the default).
    public func analysisSettings(sampleRate: Double) -> AnalysisSettings {
        var analysis = AnalysisSettings(sampleRate: sampleRate)
        analysis.hitDecision = .onRise
        if sensitivity.isFinite { analysis.sensitivity = min(1, max(0, sensitivity)) }
        if gate.isFinite { analysis.gate = min(1, max(0, gate)) }
        return analysis
    }
}
