// The offline converter: the streaming analysis driven over a whole sound, its frames and
// hits built into `ConvertedHaptics`. Fed in blocks of any size, so a sound file is read a
// block at a time and never held whole; the state is the analyser's buffers, the builder's
// short lookahead and one reduction region per curve, plus the result as it grows.

/// Turns mono samples into `ConvertedHaptics`.
///
/// ```swift
/// let converter = try SoundConverter(analysis: AnalysisSettings(sampleRate: 48000))
/// converter.feed(samples)          // as many times as needed
/// let haptics = converter.finish()
/// let pattern = haptics.ahapPattern()
/// ```
public final class SoundConverter {
    public let analyzer: StreamingAnalyzer
    public let conversion: ConversionSettings
    /// One per sensitivity of the analyser.
    private var builders: [ConversionBuilder]
    private var finished = false

    public convenience init(analysis: AnalysisSettings, conversion: ConversionSettings = .init()) throws(AnalysisSettings.Invalid) {
        try self.init(analysis: analysis, conversion: conversion, sensitivities: [analysis.sensitivity])
    }

    /// A converter that converts at each of `sensitivities` (each 0…1, at least one; they
    /// replace `analysis.sensitivity`) from one analysis: `finishEach()`'s results are exactly
    /// what converters made with each sensitivity alone give.
    public init(analysis: AnalysisSettings, conversion: ConversionSettings = .init(), sensitivities: [Double]) throws(AnalysisSettings.Invalid) {
        analyzer = try StreamingAnalyzer(settings: analysis, sensitivities: sensitivities)
        self.conversion = try conversion.validated()
        builders = Array(
            repeating: ConversionBuilder(
                settings: self.conversion, sampleRate: analysis.sampleRate, hop: analyzer.hopFrames,
                sharpnessLatency: analyzer.sharpnessLatency),
            count: sensitivities.count)
    }

    /// Samples fed so far.
    public var samplesFed: Int64 { analyzer.samplesProcessed }

    /// Analyses `count` more samples.
    public func feed(_ samples: UnsafePointer<Float>, count: Int) {
        precondition(!finished, "feed after finish")
        var done = 0
        while done < count {
            done += analyzer.process(samples + done, count: count - done)
            for k in builders.indices {
                // Hits first: a hit lies at most a few hops back, in frames the builder still holds
                // in its lookahead or in this call's frames, which it must not commit before
                // knowing the hit (its ducking dip and breakpoint).
                for hit in analyzer.hits(at: k) { builders[k].add(hit) }
                for frame in analyzer.frames { builders[k].add(frame) }
            }
        }
    }

    public func feed(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { if let base = $0.baseAddress { feed(base, count: $0.count) } }
    }

    /// The result at the first sensitivity (`analysis.sensitivity`); the converter takes no
    /// more samples after this.
    public func finish() -> ConvertedHaptics { finishEach()[0] }

    /// The results, one per sensitivity in the order given; the converter takes no more samples
    /// after this.
    public func finishEach() -> [ConvertedHaptics] {
        finished = true
        return builders.indices.map { builders[$0].finish(totalSamples: analyzer.samplesProcessed) }
    }

    /// Converts a whole buffer of mono samples in one call.
    public static func convert(
        _ samples: [Float], analysis: AnalysisSettings, conversion: ConversionSettings = .init()
    ) throws(AnalysisSettings.Invalid) -> ConvertedHaptics {
        let converter = try SoundConverter(analysis: analysis, conversion: conversion)
        converter.feed(samples)
        return converter.finish()
    }
}
