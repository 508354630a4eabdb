// What the streaming analysis hands out: one feature frame per hop, and hits.

/// The features of one hop of sound (`StreamingAnalyzer.hopFrames` samples).
public struct FeatureFrame: Sendable, Equatable {
    /// Index (from the stream's first sample) one past the hop's last sample.
    public var end: Int64
    /// Index of the sample where the loudness envelope peaked within the hop.
    public var peakIndex: Int64
    /// The loudness envelope's peak within the hop: linear amplitude (a full-scale sine
    /// gives 1), after the gain; may exceed 1 for clipped input.
    public var amplitude: Float
    /// The haptic intensity for that amplitude, 0…1 (`HapticClipMapping`: the square
    /// root, which is also close to perceived loudness).
    public var intensity: Float
    /// Sharpness 0…1 from the spectral centroid below the cutoff. It describes the sound
    /// `StreamingAnalyzer.sharpnessLatency` seconds before `end` (the centroid window's centre).
    public var sharpness: Float
    /// The onset detection function for this hop (mean rise of the log spectrum, log2 units).
    public var onset: Float
    /// The adaptive threshold the onset function is compared with.
    public var threshold: Float
    /// Whether the envelope is above the gate (the sound is not silent).
    public var sounding: Bool

    @_noLocks
    public init(
        end: Int64, peakIndex: Int64, amplitude: Float, intensity: Float, sharpness: Float, onset: Float,
        threshold: Float, sounding: Bool
    ) {
        self.end = end
        self.peakIndex = peakIndex
        self.amplitude = amplitude
        self.intensity = intensity
        self.sharpness = sharpness
        self.onset = onset
        self.threshold = threshold
        self.sounding = sounding
    }
}

/// A hit (an onset strong enough to become a transient), found to the sample.
public struct Hit: Sendable, Equatable {
    /// Index (from the stream's first sample) of the hit's peak sample.
    public var sampleIndex: Int64
    /// Intensity 0…1 from the loudness envelope's peak at the hit.
    public var intensity: Float
    /// Sharpness 0…1 from the frequencies where the spectrum rose (a kick is dull, a click sharp).
    public var sharpness: Float
    /// How far the onset function rose over its threshold (1: just at it).
    public var strength: Float
    /// Index one past the last sample the analyser had taken when it decided the hit: the
    /// earliest sample a live transient for it can start on.
    public var decidedAt: Int64

    @_noLocks
    public init(sampleIndex: Int64, intensity: Float, sharpness: Float, strength: Float, decidedAt: Int64) {
        self.sampleIndex = sampleIndex
        self.intensity = intensity
        self.sharpness = sharpness
        self.strength = strength
        self.decidedAt = decidedAt
    }
}
