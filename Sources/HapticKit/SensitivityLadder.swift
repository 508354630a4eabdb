// The transients a sound gets at each of several sensitivities: what Meta Haptics Studio's
// sensitivity slider shows as it moves. The tools' clips set the sensitivity clip by clip
// (issue 20's evaluation: no one setting serves them all), so a designer choosing
// `--sensitivity` for a sound wants to see this (`convert --list-sensitivities`, `plot
// --panels sensitivity`). Every rung is a whole conversion with that sensitivity and the other
// options as given: exactly what `convert --sensitivity` writes, not an estimate of it. The
// rungs share one reading of the file and one analysis (only the hit decisions differ between
// sensitivities; `StreamingAnalyzer(settings:sensitivities:)`): a conversion with ten rungs
// takes about twice one conversion's time, not eleven times (bench/RESULTS.md). A hit need not
// stay put as the sensitivity rises (a lower threshold can take an onset at an earlier peak of
// the onset function, and the minimum gap then drops the later one), so each rung is its own
// list rather than each transient having a "first sensitivity".

/// The transients of one sound at a ladder of sensitivities.
public struct SensitivityLadder: Sendable, Equatable {
    /// The transients' times (s, from the converted range's start) at one sensitivity (0…1).
    public struct Rung: Sendable, Equatable {
        public var sensitivity: Double
        public var times: [Double]

        public init(sensitivity: Double, times: [Double]) {
            self.sensitivity = sensitivity
            self.times = times
        }
    }

    /// In ascending sensitivity.
    public var rungs: [Rung]

    public init(rungs: [Rung]) {
        self.rungs = rungs.sorted { $0.sensitivity < $1.sensitivity }
    }

    /// The rung at `sensitivity`, if the ladder has it.
    public func rung(at sensitivity: Double) -> Rung? { rungs.first { $0.sensitivity == sensitivity } }
}

extension SoundConversion {
    /// The ladder of `sensitivities` (each 0…1) for the sound at `path`: the conversion at each
    /// sensitivity, with `options` otherwise, from one reading of the file and one analysis. The
    /// conversion's own limits apply to each rung (on a sound with more hits than a pattern
    /// holds, the weakest are left out).
    public static func sensitivityLadder(
        soundAt path: String, options: SoundConversionOptions = .init(), sensitivities: [Double]
    ) throws(SoundFileError) -> SensitivityLadder {
        let levels = ladderLevels(sensitivities)
        guard !levels.isEmpty else { return SensitivityLadder(rungs: []) }
        return ladder(levels, try convert(soundAt: path, options: options, sensitivities: levels))
    }

    /// Converts the sound at `path` with `options` and, from the same reading and analysis, makes
    /// the ladder of `sensitivities` (`convert --list-sensitivities`: the conversion and its table
    /// of ten rungs for about twice one conversion's time, not eleven times).
    public static func convert(
        soundAt path: String, options: SoundConversionOptions, ladder sensitivities: [Double]
    ) throws(SoundFileError) -> (conversion: SoundConversionResult, ladder: SensitivityLadder) {
        let levels = ladderLevels(sensitivities)
        let results = try convert(soundAt: path, options: options, sensitivities: [options.sensitivity] + levels)
        return (results[0], ladder(levels, results.dropFirst()))
    }

    /// The ladder's sensitivities: each once, ascending. (Sorted by `<`: a NaN goes where it falls
    /// and is refused by its conversion.)
    private static func ladderLevels(_ sensitivities: [Double]) -> [Double] {
        var levels: [Double] = []
        for s in sensitivities.sorted() where !levels.contains(s) { levels.append(s) }
        return levels
    }

    private static func ladder(_ levels: [Double], _ results: some Collection<SoundConversionResult>) -> SensitivityLadder {
        SensitivityLadder(rungs: zip(levels, results).map { .init(sensitivity: $0, times: $1.haptics.transients.map(\.time)) })
    }
}
