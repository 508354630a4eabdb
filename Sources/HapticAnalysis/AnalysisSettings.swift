// The knobs of the sound analysis, with the defaults `hapticsynth convert` uses. Every
// number is checked by `validated()` before any buffer is sized from it: a settings value
// comes from options or files and is hostile until checked.

import HapticPattern

/// How a sound is analysed: the loudness follower, hit detection and sharpness.
///
/// Times are seconds. The defaults follow what Meta Haptics Studio's analyser does (facts
/// from its open source: a fast attack/hold/release follower of the sound's level, the
/// spectral centroid below 1 kHz mapped over 30–600 Hz, hits at least 20 ms apart), with
/// our own choices where ours differs (an RMS-smoothed follower with a longer hold, so a
/// low tone's cycles do not ripple through the envelope; hits from spectral flux with an
/// adaptive threshold, found to the sample).
public struct AnalysisSettings: Sendable, Equatable {
    /// The sound's sample rate (Hz); within `Limits.sampleRates`.
    public var sampleRate: Double

    /// Linear gain applied to the samples before anything else (1: none).
    public var gain: Double = 1

    // MARK: loudness follower

    /// Time of the mean-square smoothing before the follower (s).
    public var rmsTime: Double = 0.002
    /// Attack (99 % of a step up within it), hold and release (99 % of a step down) times (s).
    public var attack: Double = 0.001
    public var hold: Double = 0.012
    public var release: Double = 0.090
    /// Below this level (linear amplitude of the follower) the sound is silent: no
    /// continuous event is written there. -60 dBFS by default.
    public var gate: Double = 0.001

    // MARK: sharpness

    /// The spectral centroid is taken below this frequency (Hz)...
    public var centroidCutoff: Double = 1000
    /// ...and mapped linearly from `sharpnessLow` (0) to `sharpnessHigh` (1) before the square
    /// root of the `.haptic` ↔ AHAP mapping (Hz).
    public var sharpnessLow: Double = 30
    public var sharpnessHigh: Double = 600

    // MARK: hits

    /// How readily hits are found, 0…1 (0: none; 1: every onset the detector sees).
    public var sensitivity: Double = 0.5
    /// The shortest time between two hits (s).
    public var minimumGap: Double = 0.05
    /// When a hit is decided (see ``HitDecision``); `convert` waits for the onset's peak.
    public var hitDecision: HitDecision = .afterPeak

    /// The longest block `StreamingAnalyzer.process` takes in one call (frames); sizes its
    /// output buffers. Longer input is consumed in parts (the result says how much).
    public var maxBlockFrames: Int = 4096

    public init(sampleRate: Double) {
        self.sampleRate = sampleRate
    }

    /// Why a settings value cannot be used.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public var setting: String
        public var message: String
        public var description: String { "\(setting): \(message)" }
        public init(setting: String, message: String) {
            self.setting = setting
            self.message = message
        }
    }

    /// Checks every value; returns self or throws naming the first bad one.
    public func validated() throws(Invalid) -> AnalysisSettings {
        func range(_ name: String, _ value: Double, _ r: ClosedRange<Double>, _ unit: String) throws(Invalid) {
            guard value.isFinite, r.contains(value) else {
                throw Invalid(
                    setting: name,
                    message: "\(value.description)\(unit) is outside \(r.lowerBound.description)…\(r.upperBound.description)\(unit)")
            }
        }
        let rates = Double(Limits.sampleRates.lowerBound)...Double(Limits.sampleRates.upperBound)
        try range("sample rate", sampleRate, rates, " Hz")
        try range("gain", gain, 0...1e6, "")
        try range("rms time", rmsTime, 0...1, " s")
        try range("attack", attack, 0...1, " s")
        try range("hold", hold, 0...1, " s")
        try range("release", release, 0...10, " s")
        try range("gate", gate, 0...1, "")
        try range("centroid cutoff", centroidCutoff, 100...2000, " Hz")
        try range("sharpness low", sharpnessLow, 0...1000, " Hz")
        try range("sharpness high", sharpnessHigh, (sharpnessLow + 1)...2000, " Hz")
        try range("sensitivity", sensitivity, 0...1, "")
        try range("minimum gap", minimumGap, 0...10, " s")
        guard (64...1 << 20).contains(maxBlockFrames) else {
            throw Invalid(setting: "max block frames", message: "\(maxBlockFrames) is outside 64…1048576")
        }
        return self
    }
}

/// When the analyser decides that an onset is a hit.
public enum HitDecision: String, Sendable, Equatable {
    /// One hop after the onset function's local maximum over the threshold: the strongest
    /// evidence (the offline converter's choice). At 48 kHz that is 2 to 4 hops (5–11 ms)
    /// after the onset.
    case afterPeak
    /// At the first hop of the onset function's rise over the threshold that passes the
    /// other checks (level risen by 3 dB, clear of the gate, the minimum gap), at most once
    /// per rise: usually the first hop whose window reaches the onset, a hop or two earlier
    /// than `afterPeak`. For the live follower, where every millisecond is felt; the
    /// intensity is then taken from the sound up to that hop.
    case onRise
}

/// Powers of two and the sizes derived from the sample rate, computed once per analyser.
struct AnalysisGeometry: Sendable, Equatable {
    /// Samples per feature frame: the power of two nearest 2.7 ms (128 at 44.1 and 48 kHz).
    let hop: Int
    /// Window of the onset spectrum: four hops (512 at 48 kHz, 10.7 ms).
    let onsetWindow: Int
    /// Decimation before the centroid spectrum: the largest power of two that keeps the
    /// decimated rate at 5 kHz or more (8 at 44.1 and 48 kHz).
    let decimation: Int
    /// Window of the centroid spectrum at the decimated rate: the power of two nearest 43 ms
    /// (256 at 6 kHz, 23 Hz bins).
    let centroidWindow: Int

    init(sampleRate fs: Double) {
        hop = AnalysisGeometry.nearestPowerOfTwo(fs * 0.00267, atLeast: 8)
        onsetWindow = hop * 4
        var d = 1
        while fs / Double(d * 2) >= 5000, d < hop { d *= 2 }
        decimation = d
        centroidWindow = AnalysisGeometry.nearestPowerOfTwo(fs / Double(d) * 0.043, atLeast: 64)
    }

    static func nearestPowerOfTwo(_ x: Double, atLeast minimum: Int) -> Int {
        var p = minimum
        while Double(p) * 1.4142135623730951 < x { p *= 2 }
        return p
    }
}
