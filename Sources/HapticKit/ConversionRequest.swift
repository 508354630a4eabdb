import CBuildInfo
import HapticPattern

// A conversion as `convert` is asked for it, in its own units (percent, milliseconds, dB) and
// words: one statement of what a conversion's options mean and how its output says how it was
// made, for `convert`, the studio and the C library (and so Python): the same options give the
// same file, metadata included, through every door.

/// The options of one sound's conversion in `convert`'s units. Ranges are the caller's to check
/// (``SoundConversionOptions/Ranges``), each naming its own flag or field.
public struct ConversionRequest: Sendable, Equatable {
    public var sensitivityPercent = 50.0
    public var minimumGapMilliseconds = 50.0
    public var duckingPercent = 50.0
    public var breakpointsPerSecond = 40.0
    public var gainDB = 0.0
    /// The peak normalised to this level instead of `gainDB`.
    public var normalizeDBFS: Double?
    public var gateDBFS = SoundConversionOptions().gateDBFS
    /// 1-based; nil: the channels' mean (`--channel mix`).
    public var channel: Int?
    public var from = 0.0
    public var to: Double?
    /// The sound kept in the pattern as an AudioCustom event (`--audio`).
    public var keepsSound = false

    public init() {}

    /// The converter's options (fractions and seconds).
    public var options: SoundConversionOptions {
        var o = SoundConversionOptions()
        o.sensitivity = sensitivityPercent / 100
        o.minimumGap = minimumGapMilliseconds / 1000
        o.breakpointsPerSecond = breakpointsPerSecond
        o.ducking = duckingPercent / 100
        o.gainDB = gainDB
        o.normalizeTo = normalizeDBFS
        o.gateDBFS = gateDBFS
        o.channel = channel
        o.from = from
        o.to = to
        return o
    }

    /// The options as `convert` takes them (an option and its value, or a flag, each): the
    /// words of ``description``, and the base a `--per-sound` line applies over.
    public var arguments: [[String]] {
        // (Whole numbers without ".0"; others as Swift prints them, which reads back exactly.)
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v) }
        var parts = [
            ["--sensitivity", number(sensitivityPercent)], ["--min-gap", number(minimumGapMilliseconds)],
            ["--ducking", number(duckingPercent)], ["--breakpoints-per-second", number(breakpointsPerSecond)],
            normalizeDBFS.map { ["--normalize", number($0)] } ?? ["--gain", number(gainDB)],
            ["--channel", channel.map(String.init) ?? "mix"],
        ]
        if gateDBFS != SoundConversionOptions().gateDBFS { parts.append(["--gate", number(gateDBFS)]) }
        if from != 0 { parts.append(["--from", number(from)]) }
        if let to { parts.append(["--to", number(to)]) }
        if keepsSound { parts.append(["--audio"]) }
        return parts
    }

    /// The command that makes this conversion again, written to the output's metadata (AHAP
    /// `Description`, `.haptic` `description`): a file says how it was made, and how to make it
    /// again with one value changed.
    public var description: String {
        (["hapticsynth convert"] + arguments.map { $0.joined(separator: " ") }).joined(separator: " ")
    }

    /// What wrote the file: this build's name and version.
    public static var editor: String { "hapticsynth \(String(cString: hapticsynth_build_version()))" }

    /// An AHAP's `Metadata` for the conversion of the sound file named `source`, with `extra`
    /// members after the request's own (the studio's edits).
    public func ahapMetadata(source: String, extra: [(String, JSONValue)] = []) -> JSONValue {
        .object([("Editor", .string(Self.editor)), ("Source", .string(source)), ("Description", .string(description))] + extra)
    }
}
