// What a converted sound is, before it is written as AHAP or .haptic: the sounding
// stretches with their reduced intensity and sharpness curves, and the hits.

/// The haptic description of a sound: continuous stretches and hits. Intensity and
/// sharpness are in AHAP terms (0…1; `HapticClipMapping` turns them into `.haptic`
/// amplitude and frequency).
public struct ConvertedHaptics: Sendable, Equatable {
    /// A stretch where the sound is not silent: one continuous layer, with its curves.
    public struct Stretch: Sendable, Equatable {
        public var start: Double
        public var end: Double
        /// Intensity points from `start` to `end` (absolute times, increasing; the first and
        /// last are 0, so the layer rises from and falls back to silence). Ducked under hits.
        public var intensity: [CurvePoint]
        /// Sharpness points from `start` to `end` (absolute times, increasing).
        public var sharpness: [CurvePoint]

        public init(start: Double, end: Double, intensity: [CurvePoint], sharpness: [CurvePoint]) {
            self.start = start
            self.end = end
            self.intensity = intensity
            self.sharpness = sharpness
        }
    }

    /// A hit: a transient.
    public struct Transient: Sendable, Equatable {
        public var time: Double
        public var intensity: Double
        public var sharpness: Double
        public init(time: Double, intensity: Double, sharpness: Double) {
            self.time = time
            self.intensity = intensity
            self.sharpness = sharpness
        }
    }

    public var stretches: [Stretch]
    public var transients: [Transient]
    /// The length of the sound analysed (s).
    public var duration: Double

    public init(stretches: [Stretch] = [], transients: [Transient] = [], duration: Double = 0) {
        self.stretches = stretches
        self.transients = transients
        self.duration = duration
    }

    /// Curve points per second of sound (intensity and sharpness together), the measure of
    /// how editable the result is.
    public var breakpointsPerSecond: Double {
        guard duration > 0 else { return 0 }
        let points = stretches.reduce(0) { $0 + $1.intensity.count + $1.sharpness.count }
        return Double(points) / duration
    }
}
