// A sound's analysis settings as the page moves them: exactly `convert`'s options of one
// conversion. They become `convert` arguments and go through `convert`'s own parser and
// checks, so the studio's conversion is `convert`'s (one path, one set of messages), and the
// same words are what the folder's --per-sound file keeps for the sound.

import HapticCLI
import HapticKit

/// `convert`'s options of one conversion (its units: percent, ms, dB, dBFS, seconds).
public struct StudioSettings: Codable, Sendable, Hashable {
    public var sensitivity: Double = 50
    public var minGap: Double = 50
    public var ducking: Double = 50
    public var breakpointsPerSecond: Double = 40
    public var gain: Double = 0
    public var normalize: Double?
    /// The noise gate, dBFS (`--gate`).
    public var gate: Double = SoundConversionOptions().gateDBFS
    /// "mix", or a channel number from 1.
    public var channel: String = "mix"
    public var from: Double = 0
    public var to: Double?
    public var audio: Bool = false

    public init() {}

    /// The settings of a parsed `convert` command.
    init(_ command: Convert) {
        sensitivity = command.sensitivity
        minGap = command.minGap
        ducking = command.ducking
        breakpointsPerSecond = command.breakpointsPerSecond
        gain = command.gain
        normalize = command.normalize
        gate = command.gate
        channel = command.channel
        from = command.from
        to = command.to
        audio = command.audio
    }

    /// The `convert` command converting `input` to `output` with these settings, checked by
    /// `convert`'s own parser; a refusal carries its message.
    func command(input: String, output: String) throws(StudioError) -> Convert {
        var words = [
            "--sensitivity", Self.number(sensitivity), "--min-gap", Self.number(minGap), "--ducking", Self.number(ducking),
            "--breakpoints-per-second", Self.number(breakpointsPerSecond), "--gate", Self.number(gate), "--channel", channel,
        ]
        if let normalize { words += ["--normalize", Self.number(normalize)] } else { words += ["--gain", Self.number(gain)] }
        if from != 0 { words += ["--from", Self.number(from)] }
        if let to { words += ["--to", Self.number(to)] }
        if audio { words.append("--audio") }
        do {
            return try Convert.parse(words + ["-o", output, "--", input])
        } catch {
            throw .bad("settings: " + Convert.message(for: error))
        }
    }

    /// A number as `convert` prints it in a description (whole numbers without ".0"; others as
    /// Swift prints them, which reads back exactly). A non-finite one is written as it is and
    /// refused by the parser.
    static func number(_ v: Double) -> String {
        v.isFinite && v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : String(v)
    }
}
