// The limits every number from outside is held to, stated once. The reader warns about
// (strict: refuses) what lies past them, `PreparedPattern` and the profile validation
// enforce them, `render` and `play` refuse or skip what is past them, and the README's
// "Limits" table lists them. Each is derived from what the domain needs, with room to
// spare, so that no real file comes near one while no hostile file can make a conversion
// trap, a loop run for a number of steps the file chooses, or an output fill a disk.

/// The limits on patterns, profiles, rates and outputs (see the README's "Limits" table).
public enum Limits {
    // MARK: patterns

    /// The latest time (seconds) an event, parameter or curve point may fall at, measured
    /// from the pattern's start (a curve point at its curve's time plus its own). AHAP
    /// patterns are effects and short sequences: the corpus's longest lasts about 3 minutes.
    /// Later elements are skipped by `render` and `play` (an error when strict).
    public static let maxTime: Double = 3600

    /// The longest a continuous event lasts; longer ones are capped (as Core Haptics does).
    public static let maxContinuousDuration: Double = 30

    /// At most this many elements (events, parameters, curves) in one pattern; the rest are
    /// skipped (an error when strict). The corpus's largest file has about 1,000.
    public static let maxElements = 100_000

    /// At most this many control points in all of a pattern's curves together; curves past
    /// it are skipped (an error when strict).
    public static let maxControlPoints = 200_000

    /// At most this many events sound at once (each costs work on the render thread for
    /// every sample it sounds). An event that would start while this many already sound is
    /// skipped (an error when strict). No corpus file comes near it (a test checks).
    public static let maxVoices = 1024

    /// At most this many cues in a cue sheet (each is prepared, and its sound and haptic
    /// measured for the felt alignment, when a manager loads the sheet: 50,000 cues took
    /// `rhythm -o` 106 s and 6.4 GB). A game's sheet has tens to hundreds.
    public static let maxCues = 1024

    /// Pattern, profile and cue-sheet files larger than this are refused before reading
    /// (the largest corpus file is about 200 kB).
    public static let maxFileBytes = 64 << 20

    // MARK: rates, channels, outputs

    /// Sample rates the renderer and the CLI accept (Hz).
    public static let sampleRates: ClosedRange<Int> = 8000...384_000

    /// At most this many output channels in a layout.
    public static let maxChannels = 64

    /// `render --max-duration` when not given: outputs longer than this are refused before
    /// anything is written (seconds).
    public static let defaultMaxOutputSeconds: Double = 3600

    /// The largest `--max-duration` and `--tail` accept (seconds): a day.
    public static let maxOutputSeconds: Double = 86_400

    /// AudioCustom sounds longer than this are refused (rendered as silence with a warning;
    /// an error when strict).
    public static let maxSoundSeconds: Double = 3600

    /// The samples the sounds of one prepared pattern may hold together (bytes of Float: each
    /// file at each AudioPitch is converted and held apart). 256 MiB is over ten minutes of
    /// stereo at 48 kHz; a sound that would pass it is not loaded and its events are silent
    /// (a warning; an error when strict).
    public static let maxPatternSoundBytes = 256 << 20

    /// The bytes of decoded and converted sounds a sound library keeps in its cache; past them
    /// the least recently used are forgotten (patterns that hold them keep them).
    public static let maxSoundCacheBytes = 256 << 20

    /// The sound samples all the patterns a HapticManager prepares for one engine may hold
    /// together (its library's patterns, its cues — each holds its own copy of its sound
    /// effect — and the sound effects). Past it, further patterns and cues are not prepared
    /// (logged; they are unknown when played): 1,024 cues that each play a 5 MB sound would
    /// otherwise take 20 GB.
    public static let maxManagerSoundBytes = 512 << 20

    // MARK: actuator profiles

    /// `band.low` and `band.high` lie in this range (Hz): below 1 Hz is not a vibration,
    /// 20 kHz is the top of hearing.
    public static let bandHz: ClosedRange<Double> = 1...20_000

    /// `protection.highPassHz` is at least this (Hz) (and below `band.low`).
    public static let minHighPassHz: Double = 0.5

    /// A transient burst (`cycles` at `band.low`, or `milliseconds`) lasts at most this (s).
    public static let maxTransientSeconds: Double = 10

    /// Envelope times (`envelope.*.min`/`max`) lie in this range (seconds): from a tenth of a
    /// millisecond (under one sample at the lowest rate) to a minute.
    public static let envelopeSeconds: ClosedRange<Double> = 0.0001...60
}
