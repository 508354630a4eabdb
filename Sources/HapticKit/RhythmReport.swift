
/// Where each beat's sound and haptic started, and how far apart (the rhythm command's
/// table and JSON).
public struct RhythmReport: Sendable, Codable, Equatable {
    /// Where one part of a beat started.
    public struct Onset: Sendable, Codable, Equatable {
        /// The device it played on.
        public var device: String
        /// The render frame the voice started at (the engine's own record).
        public var startFrame: Int64
        /// The device frame the onset is output at (`startFrame` + the output stage's look-ahead).
        public var outputFrame: Int64
        /// The output frame the mapping predicted when the beat was scheduled.
        public var predictedFrame: Int64
        /// Monotonic seconds at which `outputFrame` plays (the engine's mapping).
        public var time: Double
    }

    public struct Row: Sendable, Codable, Equatable {
        /// 1-based beat number.
        public var beat: Int
        /// Monotonic seconds the beat was scheduled for.
        public var scheduled: Double
        /// Seconds from the session's origin (the beat map's time).
        public var offset: Double
        public var audio: Onset?
        public var haptic: Onset?
        /// Audio onset minus haptic onset, in samples (whole in one stream; through each
        /// device's mapping in two-device mode). nil when a part is missing.
        public var skewSamples: Double?
        public var skewMs: Double?
        /// The skew the cue's alignment plans (audio start minus haptic start, in samples:
        /// felt alignment, the sheet's offsets); in one stream `skewSamples` equals it exactly.
        public var plannedSkewSamples: Double?
        /// Felt skew: the sound's felt onset (its Hilbert envelope first at half its peak) minus
        /// the haptic's, in ms — the sample skew plus the difference of the two parts' felt
        /// onsets, each measured once per cue on its rendered waveform (``CueAlignment``).
        /// nil when a part is missing or has no felt onset.
        public var feltSkewMs: Double?

        public init(beat: Int, scheduled: Double, offset: Double, audio: Onset?, haptic: Onset?, skewSamples: Double?,
                    skewMs: Double?, plannedSkewSamples: Double? = nil, feltSkewMs: Double? = nil) {
            self.beat = beat
            self.scheduled = scheduled
            self.offset = offset
            self.audio = audio
            self.haptic = haptic
            self.skewSamples = skewSamples
            self.skewMs = skewMs
            self.plannedSkewSamples = plannedSkewSamples
            self.feltSkewMs = feltSkewMs
        }
    }

    /// Figures over all beats.
    public struct Summary: Sendable, Codable, Equatable {
        public var beats: Int
        /// Beats where a part is missing (could not start, or was not found in the trace).
        public var incomplete: Int
        public var maxAbsSkewSamples: Double
        public var maxAbsSkewMs: Double
        /// Beats whose skew is exactly 0 samples.
        public var zeroSkewBeats: Int
        /// Beats whose skew is exactly the planned skew (``Row/plannedSkewSamples``).
        public var plannedSkewBeats: Int
        /// Largest |skew − planned skew| in samples over the beats with both.
        public var maxAbsSkewFromPlanSamples: Double
        /// Largest |felt skew| in ms (``Row/feltSkewMs``); 0 when no beat has one.
        public var maxAbsFeltSkewMs: Double
        /// Beats with a felt skew.
        public var feltBeats: Int
        /// Haptic onset spacing minus round(Δt·fs), in frames, over consecutive beats.
        public var hapticSpacingErrorMin: Int64
        public var hapticSpacingErrorMax: Int64
        /// The same for the audio onsets.
        public var audioSpacingErrorMin: Int64
        public var audioSpacingErrorMax: Int64
        /// Output-frame minus predicted frame (mapping movement between scheduling and rendering).
        public var predictionErrorMaxAbs: Int64
    }

    public var cue: String
    public var sampleRate: Int
    public var bpm: Double?
    public var lead: Double
    public var origin: Double
    public var twoDevice: Bool
    public var rows: [Row]
    /// The beat map's times (seconds from the origin).
    public var times: [Double]

    public var summary: Summary {
        let skews = rows.compactMap(\.skewSamples)
        let maxSkew = skews.map(abs).max() ?? 0
        func spacing(_ pick: (Row) -> Onset?) -> (Int64, Int64) {
            var lo = Int64.max, hi = Int64.min
            for i in 1..<max(1, rows.count) {
                guard let a = pick(rows[i - 1]), let b = pick(rows[i]), a.device == b.device else { continue }
                let nominal = Int64(((times[rows[i].beat - 1] - times[rows[i - 1].beat - 1]) * Double(sampleRate)).rounded())
                let e = (b.outputFrame - a.outputFrame) - nominal
                lo = min(lo, e)
                hi = max(hi, e)
            }
            return lo > hi ? (0, 0) : (lo, hi)
        }
        let h = spacing(\.haptic), a = spacing(\.audio)
        let prediction = rows.flatMap { [$0.haptic, $0.audio] }.compactMap { $0 }.map { abs($0.outputFrame - $0.predictedFrame) }.max() ?? 0
        return Summary(
            beats: rows.count, incomplete: rows.filter { $0.skewSamples == nil }.count,
            maxAbsSkewSamples: maxSkew, maxAbsSkewMs: maxSkew / Double(sampleRate) * 1000,
            zeroSkewBeats: skews.filter { $0 == 0 }.count,
            plannedSkewBeats: rows.filter { $0.skewSamples != nil && $0.skewSamples == $0.plannedSkewSamples }.count,
            maxAbsSkewFromPlanSamples: rows.compactMap { r in r.skewSamples.flatMap { s in r.plannedSkewSamples.map { abs(s - $0) } } }.max() ?? 0,
            maxAbsFeltSkewMs: rows.compactMap(\.feltSkewMs).map(abs).max() ?? 0,
            feltBeats: rows.filter { $0.feltSkewMs != nil }.count,
            hapticSpacingErrorMin: h.0, hapticSpacingErrorMax: h.1, audioSpacingErrorMin: a.0, audioSpacingErrorMax: a.1,
            predictionErrorMaxAbs: prediction)
    }
}
