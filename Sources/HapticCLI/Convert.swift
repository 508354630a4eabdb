import ArgumentParser
import Foundation
import HapticKit

/// `hapticsynth convert INPUT... -o OUTPUT`
public struct Convert: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Turn sounds into haptic patterns, and convert between AHAP and .haptic.",
        discussion: """
            A sound (any file libsndfile reads: WAV, FLAC, AIFF, Ogg, MP3...) becomes a pattern: \
            continuous events over the stretches where it sounds (silence stays silent), shaped \
            by intensity and sharpness curves (the loudness envelope, and the spectral centroid \
            below 1 kHz mapped over 30-600 Hz; at most 16 points per curve, chained), with a \
            transient at every hit and the continuous layer ducked under it. The sound is read a \
            block at a time, so a long one takes little memory; up to an hour converts at once \
            (a longer one a part at a time with --from and --to).

            The output's extension chooses its format: .ahap (Apple Core Haptics) or .haptic \
            (Meta Haptics Studio / Lofelt v1; amplitude and frequency envelopes with emphasis). \
            An AHAP or .haptic input is converted to the other format (.haptic -> AHAP as Meta \
            Haptics Studio's AHAP export maps it; AHAP -> .haptic reads what the pattern plays). \
            Outputs are written to a temporary file and renamed when complete, never over an \
            input, a symbolic link or anything that is not a regular file; `-o -` writes AHAP \
            (or --format) to standard output. Several inputs convert into a folder, several at \
            once (--jobs), printed in input order.

            How many hits become transients is a choice for each sound (the clips designers \
            make with Meta Haptics Studio and Lofelt Studio set it clip by clip): \
            --list-sensitivities lists what each --sensitivity gives, and a --per-sound file \
            keeps the choices for a batch, a line per sound or glob (`boom.wav --sensitivity \
            70`, `steps_*.wav --sensitivity 20`; matched against the end of the input's path, \
            later lines winning, all over the command line's options).

            Examples:
              hapticsynth convert explosion.wav -o explosion.ahap
              hapticsynth convert explosion.wav -o explosion.ahap --audio --sensitivity 70
              hapticsynth convert explosion.wav -o explosion.ahap --list-sensitivities
              hapticsynth convert sfx/*.wav -o haptics/ --format haptic
              hapticsynth convert sfx/*.wav -o haptics/ --per-sound sfx/haptics.txt
              hapticsynth convert song.flac -o chorus.ahap --from 62.5 --to 80 --channel 1
              hapticsynth convert clip.haptic -o clip.ahap
              hapticsynth convert clip.ahap -o clip.haptic
            """
    )

    @Argument(help: ArgumentHelp("Sounds, AHAP or .haptic files to convert.", valueName: "input"))
    public var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (- for standard output), or a folder when converting several inputs.", valueName: "output"))
    public var output: String

    @Option(name: .long, help: ArgumentHelp("Output format: ahap or haptic (default: from the output's extension, else ahap).", valueName: "format"))
    public var format: String?

    @Option(name: .customLong("breakpoints-per-second"), parsing: .unconditional, help: ArgumentHelp("At most this many curve points per second, per curve (2-1000; fewer where the sound is steady).", valueName: "n"))
    public var breakpointsPerSecond = 40.0

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("How readily hits become transients, 0-100 % (0: none).", valueName: "percent"))
    public var sensitivity = 50.0

    @Option(name: .customLong("min-gap"), parsing: .unconditional, help: ArgumentHelp("The shortest time between two transients (10-10000 ms).", valueName: "ms"))
    public var minGap = 50.0

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("How much the continuous layer's amplitude gives way under a transient, 0-100 % (Meta Haptics Studio's ducking).", valueName: "percent"))
    public var ducking = 50.0

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Gain applied to the sound before analysis (-60 to 60 dB).", valueName: "dB"))
    public var gain = 0.0

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Normalise the sound's peak to this level first (-60 to 0 dBFS; instead of --gain).", valueName: "dBFS"))
    public var normalize: Double?

    // As `follow --gate` (same name, units, range and default).
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Noise gate, -120 to 0 dBFS: quieter sound (after --gain or --normalize) counts as silence, with no haptics (a hit must rise 12 dB above it).", valueName: "dBFS"))
    public var gate = SoundConversionOptions().gateDBFS

    @Option(name: .long, help: ArgumentHelp("The channel to analyse (1, 2, ...), or mix (their mean; the default).", valueName: "n|mix"))
    public var channel = "mix"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Start of the part of the sound to convert (s); the pattern starts there.", valueName: "seconds"))
    public var from = 0.0

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("End of the part of the sound to convert (s; default: its end).", valueName: "seconds"))
    public var to: Double?

    @Flag(name: .long, help: "Keep the sound in the pattern as an AudioCustom event (its path relative to the output), played in lockstep by play and rhythm.")
    public var audio = false

    @Flag(name: .customLong("list-sensitivities"), help: "Also list, for each sensitivity from 10 to 100 %, how many transients the sound gets and when (to choose --sensitivity for it).")
    public var listSensitivities = false

    @Flag(name: .long, help: "Read AHAP and .haptic inputs strictly (every warning is an error).")
    public var strict = false

    @Option(name: .customLong("per-sound"), help: ArgumentHelp("A file of options for particular sounds, over the command line's: lines such as `boom.wav --sensitivity 70` (# starts a comment).", valueName: "file"))
    public var perSound: String?

    @OptionGroup var batch: BatchOptions

    public init() {}

    public func validate() throws {
        typealias Ranges = SoundConversionOptions.Ranges
        try requireWithin("--breakpoints-per-second", breakpointsPerSecond, Ranges.breakpointsPerSecond, "")
        try requireWithin("--sensitivity", sensitivity, Ranges.sensitivityPercent, " %")
        try requireWithin("--min-gap", minGap, Ranges.minimumGapMilliseconds, " ms")
        try requireWithin("--ducking", ducking, Ranges.duckingPercent, " %")
        try requireWithin("--gain", gain, Ranges.gainDB, " dB")
        if let normalize {
            try requireWithin("--normalize", normalize, Ranges.normalizeDBFS, " dBFS")
            if gain != 0 { throw ValidationError("--normalize and --gain: give one of them") }
        }
        try requireWithin("--gate", gate, Ranges.gateDBFS, " dBFS")
        try requireWithin("--from", from, Ranges.seconds, " s")
        if let to {
            try requireWithin("--to", to, Ranges.seconds, " s")
            guard to > from else { throw ValidationError("--to \(to) must be after --from \(from)") }
        }
        if channel != "mix" {
            guard let n = Int(channel), (1...1024).contains(n) else { throw ValidationError("--channel \(channel): expected a channel number (1, 2, ...) or mix") }
        }
        if let format, OutputFormat(name: format) == nil { throw ValidationError("--format \(format): expected ahap or haptic") }
        if SoundFileWriter.isStandardOutput(output) && inputs.count > 1 {
            throw ValidationError("-o -: standard output takes one input (\(inputs.count) given)")
        }
    }

    package enum OutputFormat: Equatable {
        case ahap, haptic
        package init?(name: String) {
            switch name.lowercased() {
            case "ahap", "json": self = .ahap
            case "haptic": self = .haptic
            default: return nil
            }
        }
        package var fileExtension: String { self == .ahap ? "ahap" : "haptic" }
    }

    /// This command's options of one conversion, in its units: what the C library and the
    /// studio build too (one statement of the options, the description and the metadata).
    package var request: ConversionRequest {
        var r = ConversionRequest()
        r.sensitivityPercent = sensitivity
        r.minimumGapMilliseconds = minGap
        r.duckingPercent = ducking
        r.breakpointsPerSecond = breakpointsPerSecond
        r.gainDB = gain
        r.normalizeDBFS = normalize
        r.gateDBFS = gate
        r.channel = Int(channel)
        r.from = from
        r.to = to
        r.keepsSound = audio
        return r
    }

    package var soundOptions: SoundConversionOptions { request.options }

    /// The options of one conversion as `convert` takes them: the base a `--per-sound` line
    /// applies over.
    package var soundArguments: [[String]] { request.arguments }

    /// This command with `arguments` (a `--per-sound` line's) applied over its options of one
    /// conversion; refused with the parser's message. A line giving --gain or --normalize
    /// replaces the command line's choice of either.
    package func applying(_ arguments: [String]) throws(CLIError) -> Convert {
        guard !arguments.isEmpty else { return self }
        let named = Set(arguments.map(PerSoundOptions.optionName))
        var base = soundArguments
        if named.contains("--gain") || named.contains("--normalize") {
            base.removeAll { $0[0] == "--gain" || $0[0] == "--normalize" }
        }
        var rest = ["-o", output]
        if let format { rest += ["--format", format] }
        if listSensitivities { rest.append("--list-sensitivities") }
        if strict { rest.append("--strict") }
        do {
            let command = try Convert.parse(base.flatMap { $0 } + arguments + rest + ["--"] + inputs)
            guard command.inputs == inputs else { throw CLIError("unexpected words: \(arguments.joined(separator: " "))") }
            return command
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(Convert.message(for: error))
        }
    }

    public func execute(into out: inout some CommandOutput) throws -> Int32 {
        // Every line of a --per-sound file checked before anything is converted (or a folder made).
        var perSoundOptions: PerSoundOptions?
        if let perSound {
            do throws(CLIError) {
                let file = try PerSoundOptions.read(perSound)
                // (Each distinct set of options parsed once: a long file repeats a few.)
                var checked: Set<[String]> = []
                for line in file.lines where !checked.contains(line.arguments) {
                    do { _ = try applying(line.arguments) } catch {
                        throw CLIError("\(perSound) line \(line.number): \(error.description)")
                    }
                    checked.insert(line.arguments)
                }
                let unmatched = file.unmatched(by: inputs)
                for line in unmatched.prefix(10) {
                    // (The name is the file's text: any control character in it is escaped.)
                    out.printError(printable("\(perSound) line \(line.number): note: \(line.pattern) names none of the inputs"))
                }
                if unmatched.count > 10 { out.printError(printable("\(perSound): note: \(unmatched.count - 10) more lines name none of the inputs")) }
                perSoundOptions = file
            } catch {
                out.printError(error.description)
                return 1
            }
        }
        let targets: [(input: String, output: String, format: OutputFormat)]
        let folder: OutputFolder?
        do { (targets, folder) = try plannedOutputs() } catch {
            out.printError(error.description)
            return 1
        }
        // Ctrl-C, SIGTERM and SIGHUP remove the temporary file of the output being written.
        let signals = TemporaryFiles.removeOnSignals()
        defer { signals.restore() }
        // (The --per-sound file is an input too: never written over.)
        let inputIdentities = CommandInputs(inputs + [perSound].compactMap { $0 }).identities
        let toStandardOutput = SoundFileWriter.isStandardOutput(output)
        var failures = 0
        var unexpected: (any Error)?
        // Each file's options parsed here, on one thread (the argument parser is not known to
        // be thread-safe); then several files at once (--jobs), their lines printed in input order.
        let commands = targets.map { target -> Result<Convert, CLIError> in
            guard let perSoundOptions else { return .success(self) }
            do throws(CLIError) { return .success(try applying(perSoundOptions.arguments(for: target.input))) } catch { return .failure(error) }
        }
        batch.runner.run(targets.count) { index -> Result<Converted, any Error> in
            Result { () throws -> Converted in
                let target = targets[index]
                let command = try commands[index].get()
                let converted = try command.convert(target.input, to: target.output, format: target.format)
                try TextFileWriter.write(converted.text, to: target.output, inputs: inputIdentities + converted.sounds)
                return converted
            }
        } deliver: { index, result in
            let target = targets[index]
            do {
                let converted = try result.get()
                for line in [converted.summary] + converted.sensitivityTable {
                    if toStandardOutput { out.printError(line) } else { out.print(line) }
                }
                for note in converted.notes { out.printError("\(target.input): note: \(note)") }
            } catch let error as CLIError {
                out.printError(error.description)
                failures += 1
            } catch let error as SoundFileError {
                out.printError(error.description)
                failures += 1
            } catch {
                unexpected = error
                return false
            }
            return true
        }
        if let unexpected { throw unexpected }
        if failures == targets.count { folder?.removeIfEmpty() }
        return failures == 0 ? 0 : 1
    }

    /// Input → output pairs (several inputs, or an output ending in "/" or naming a folder:
    /// one file per input in that folder, named after it); the folder, made when missing.
    func plannedOutputs() throws(CLIError) -> ([(input: String, output: String, format: OutputFormat)], OutputFolder?) {
        let given = format.flatMap(OutputFormat.init(name:))
        if SoundFileWriter.isStandardOutput(output) { return ([(inputs[0], output, given ?? .ahap)], nil) }
        let inFolder = given ?? .ahap
        // (`-o x.ahap` with several inputs is a mistake, not a folder to make: only "/" or an existing folder is one.)
        if let (targets, folder) = try OutputFolder.plan(inputs, into: output, fileExtension: inFolder.fileExtension, namesAFile: { _ in true }) {
            return (targets.map { ($0.input, $0.output, inFolder) }, folder)
        }
        guard let chosen = given ?? OutputFormat(name: URL(fileURLWithPath: output).pathExtension) else {
            throw CLIError("\(output): cannot tell the format from the extension; name it .ahap or .haptic, or give --format")
        }
        return ([(inputs[0], output, chosen)], nil)
    }

    /// What converting one input gives: the output's text, a summary line, notes, and for a sound
    /// with `--list-sensitivities` the table of its transients at each sensitivity.
    package struct Converted {
        package var text: String
        package var summary: String
        package var notes: [String]
        var sensitivityTable: [String] = []
        /// The sound files a pattern input plays: read, so never written over.
        var sounds: [FileIdentity] = []
    }

    func convert(_ input: String, to path: String, format: OutputFormat) throws -> Converted {
        var bytes: [UInt8]?
        if isPattern(input) {
            do { bytes = try PatternFile.readBytes(input) } catch { throw CLIError(error.description) }
        }
        if let bytes {
            return try convertPattern(input, bytes: bytes, to: path, format: format)
        }
        return try convertSound(input, to: path, format: format)
    }

    private func convertSound(_ input: String, to path: String, format: OutputFormat) throws -> Converted {
        let result: SoundConversionResult
        var table: [String] = []
        if listSensitivities {
            // The conversion and the table's rungs from one reading and one analysis.
            let (conversion, ladder) = try SoundConversion.convert(
                soundAt: input, options: soundOptions, ladder: Self.listedPercents.map { Double($0) / 100 })
            result = conversion
            table = sensitivityTable(input, ladder)
        } else {
            result = try SoundConversion.convert(soundAt: input, options: soundOptions)
        }
        return try converted(result, input: input, to: path, format: format, sensitivityTable: table)
    }

    /// The output of a sound's conversion `result` (its haptics as converted, or as the studio's
    /// designer edited them: `edits` is then added to the metadata, and a `.haptic`'s description
    /// says so): one writer for `convert` and `hapticsynth studio`.
    package func converted(
        _ result: SoundConversionResult, input: String, to path: String, format: OutputFormat,
        sensitivityTable table: [String] = [], edits: [(String, JSONValue)] = []
    ) throws(CLIError) -> Converted {
        let haptics = result.haptics
        let name = URL(fileURLWithPath: input).lastPathComponent
        let editor = ConversionRequest.editor
        let text: String
        var counts = ""
        switch format {
        case .ahap:
            let metadata = request.ahapMetadata(source: name, extra: edits)
            let pattern = result.ahapPattern(audio: audio ? relativePath(of: input, from: path) : nil, metadata: metadata)
            do { _ = try pattern.validate(options: .init(strict: true)) } catch {
                throw CLIError("\(input): the converted pattern does not pass strict validation (\(error)); please report this")
            }
            text = pattern.encoded()
            let events = pattern.events
            counts = "\(events.filter { $0.type == .hapticContinuous }.count) continuous events, "
                + "\(events.filter { $0.type == .hapticTransient }.count) transients"
        case .haptic:
            let description = request.description + (edits.isEmpty ? "" : " (edited in hapticsynth studio)")
            let clip = haptics.hapticClip(metadata: .init(editor: editor, source: name, description: description))
            text = clip.encoded()
            do { _ = try HapticClip.decode(text: text, options: .init(strict: true)) } catch {
                throw CLIError("\(input): the converted clip does not pass strict validation (\(error)); please report this")
            }
            counts = "\(clip.amplitude.count) amplitude and \(clip.frequency.count) frequency breakpoints, "
                + "\(clip.amplitude.filter { $0.emphasis != nil }.count) emphasis"
        }
        let info = result.info
        let source = "\(String(format: "%.3f", haptics.duration)) s of \(name) (\(info.channels) ch, \(info.sampleRate) Hz, "
            + (soundOptions.channel.map { "channel \($0)" } ?? (info.channels > 1 ? "mixed" : "mono")) + ")"
        let summary = "\(path): \(source): \(counts), \(haptics.stretches.count) stretch\(haptics.stretches.count == 1 ? "" : "es"), "
            + "\(String(format: "%.1f", haptics.breakpointsPerSecond)) curve points per second"
        var notes = result.notes
        if audio && format == .haptic { notes.append("--audio: a .haptic holds no sound; left out") }
        return Converted(text: text, summary: summary, notes: notes, sensitivityTable: table)
    }

    private func convertPattern(_ input: String, bytes: [UInt8], to path: String, format: OutputFormat) throws -> Converted {
        let options = AHAPDecodeOptions(strict: strict)
        var notes: [String] = []
        let text: String
        let what: String
        var sounds = CommandInputs()
        do {
            if PatternFile.isHapticClip(path: input, bytes: bytes) {
                let decoded = try HapticClip.decode(from: bytes, options: options)
                notes += decoded.warnings.map { "warning: \($0)" }
                switch format {
                case .ahap:
                    let pattern = decoded.clip.ahapPattern()
                    text = pattern.encoded()
                    what = "\(pattern.events.count) events, \(pattern.summary.curveCount) curves"
                case .haptic:
                    text = decoded.clip.encoded()
                    what = "\(decoded.clip.amplitude.count) amplitude breakpoints"
                }
            } else {
                let decoded = try AHAPPattern.decode(from: bytes, options: options)
                notes += decoded.warnings.map { "warning: \($0)" }
                sounds.addSounds(of: PatternFile(path: input, decoded: decoded, clip: nil, byteCount: bytes.count), soundFolders: [])
                switch format {
                case .ahap:
                    text = decoded.pattern.encoded()
                    what = "\(decoded.pattern.events.count) events"
                case .haptic:
                    let (clip, left) = HapticClip.converting(decoded.pattern)
                    notes += left
                    text = clip.encoded()
                    what = "\(clip.amplitude.count) amplitude and \(clip.frequency.count) frequency breakpoints, "
                        + "\(clip.amplitude.filter { $0.emphasis != nil }.count) emphasis"
                }
            }
        } catch {
            throw CLIError(PatternFileError.invalid(file: input, error: error).description)
        }
        if audio { notes.append("--audio applies to sound inputs; ignored") }
        if listSensitivities { notes.append("--list-sensitivities applies to sound inputs; ignored") }
        return Converted(text: text, summary: "\(path): from \(input): \(what)", notes: notes, sounds: sounds.identities)
    }

    /// Whether `input` is read as a pattern (AHAP or .haptic) rather than a sound: by its extension.
    func isPattern(_ input: String) -> Bool {
        let lower = input.lowercased()
        return lower.hasSuffix(".ahap") || lower.hasSuffix(".haptic") || lower.hasSuffix(".json")
    }

    /// The sensitivities `--list-sensitivities` lists (%).
    static let listedPercents = Array(stride(from: 10, through: 100, by: 10))

    /// `--list-sensitivities`: the transients the sound gets at each sensitivity 10…100 %, the
    /// other options as given, one line each (a conversion per line: exactly what `convert
    /// --sensitivity` with that value writes).
    func sensitivityTable(_ input: String, _ ladder: SensitivityLadder) -> [String] {
        let shown = 16
        var lines = ["\(input): transients at each --sensitivity (this conversion: \(String(format: "%g", sensitivity)) %):"]
        for (percent, rung) in zip(Self.listedPercents, ladder.rungs) {
            let times = rung.times
            var line = (percent < 100 ? " " : "") + " \(percent) %: \(times.count)"
            if !times.isEmpty {
                line += " at " + times.prefix(shown).map { String(format: "%.3f", $0) }.joined(separator: " ") + " s"
                if times.count > shown { line += ", and \(times.count - shown) more" }
            }
            lines.append(line)
        }
        return lines
    }

    /// `file`'s path relative to the folder of `output` (the current folder for standard output).
    func relativePath(of file: String, from output: String) -> String {
        let base = SoundFileWriter.isStandardOutput(output)
            ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            : URL(fileURLWithPath: output).deletingLastPathComponent()
        let from = base.standardizedFileURL.resolvingSymlinksInPath().pathComponents
        let to = URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().pathComponents
        var common = 0
        while common < from.count && common < to.count && from[common] == to[common] { common += 1 }
        return (Array(repeating: "..", count: from.count - common) + to[common...]).joined(separator: "/")
    }
}
