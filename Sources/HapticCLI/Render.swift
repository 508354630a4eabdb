import ArgumentParser
import Foundation
import HapticKit

/// `hapticsynth render INPUT... -o OUTPUT`
public struct Render: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render patterns to sound files.",
        discussion: """
            Renders one pattern to a file, or several into a folder (one file each, named after \
            the pattern; several at once, --jobs, printed in input order). The haptic drive goes through the actuator profile's protection chain \
            (DC block, high-pass, limiter to the ceiling), exactly as it does live. Files are \
            written to a temporary name and renamed when complete, so an error or Ctrl-C never \
            leaves a half-written file. Prints what it wrote: duration, channels, peak, events, \
            warnings. `-o -` writes to standard output (WAV unless --format says otherwise). \
            An output is never written over an input, a symbolic link or anything that is not \
            a regular file. Outputs longer than --max-duration are refused before anything is \
            written; a WAV past 4 GiB becomes RF64 (refused with an explicit --format wav).

            A file ends in silence: past the pattern's end (and --tail), rendering goes on \
            until every sound and the protection chain's ringing have decayed below -90 dBFS \
            (at most 30 s more). --exact-length keeps the nominal length and fades the last \
            5 ms instead.

            Examples:
              hapticsynth render Haptics/heartbeat.ahap -o heartbeat.wav
              hapticsynth render Haptics/*.ahap -o rendered/ --format flac --bits 24
              hapticsynth render rain.ahap -o rain.wav --profile voice-coil --layout 0,0,H,H*0.5 --tail 0.5
              hapticsynth render Haptics/heartbeat.ahap -o - | aplay
            """
    )

    @Argument(help: ArgumentHelp("AHAP or .haptic files to render.", valueName: "input"))
    public var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("Output file (- for standard output), or a folder when rendering several inputs.", valueName: "output"))
    public var output: String

    @Option(name: .long, help: ArgumentHelp("File format (wav, flac, aiff, ...; default: from the output's extension, else wav).", valueName: "format"))
    public var format: String?

    @Option(name: .long, help: ArgumentHelp("Sample format: 16, 24 or 32f.", valueName: "bits"))
    public var bits = "16"

    // `.unconditional`: "-1" is this option's value (a range error), not an unknown flag.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seconds of extra output after the pattern ends (the render goes on past them anyway until the output is silent, below -90 dBFS, unless --exact-length).", valueName: "seconds"))
    public var tail = 0.0

    @Flag(name: .long, help: "Stop at exactly the pattern's length plus --tail, fading the last 5 ms out, instead of rendering on until the output is silent.")
    public var exactLength = false

    @Option(
        name: .customLong("max-duration"), parsing: .unconditional,
        help: ArgumentHelp("Refuse outputs longer than this many seconds, before writing anything.", valueName: "seconds"))
    public var maxDuration = Limits.defaultMaxOutputSeconds

    /// The data bytes a plain WAV may hold (a test hook: lowered to test the RF64 path
    /// without writing 4 GiB).
    @Option(name: .customLong("plain-wav-limit-bytes"), help: .hidden)
    public var plainWAVLimitBytes: Int64 = SoundFileWriter.plainWAVByteLimit

    @OptionGroup public var synthesis: SynthesisOptions

    @OptionGroup var batch: BatchOptions

    public init() {}

    public func validate() throws {
        guard SoundFileWriter.SampleFormat(bits: bits) != nil else {
            throw ValidationError("--bits \(bits): expected 16, 24 or 32f")
        }
        guard tail.isFinite, tail >= 0, tail <= 3600 else {
            throw ValidationError("--tail \(tail): expected seconds between 0 and 3600")
        }
        guard maxDuration.isFinite, maxDuration > 0, maxDuration <= Limits.maxOutputSeconds else {
            throw ValidationError("--max-duration \(maxDuration): expected seconds above 0, at most \(Limits.maxOutputSeconds)")
        }
        guard plainWAVLimitBytes > 0 else { throw ValidationError("--plain-wav-limit-bytes must be positive") }
        if SoundFileWriter.isStandardOutput(output) && inputs.count > 1 {
            throw ValidationError("-o -: standard output takes one input (\(inputs.count) given)")
        }
        if let format, SoundFileWriter.FileFormat(extensionOf: "x." + format) == nil {
            throw ValidationError(
                "--format \(format): unknown (known: \(SoundFileWriter.FileFormat.all.map(\.fileExtension).joined(separator: ", ")))")
        }
    }

    public func execute(into out: inout some CommandOutput) throws -> Int32 {
        let profile: ActuatorProfile
        do { profile = try synthesis.resolvedProfile() } catch {
            out.printError(error.description)
            return 1
        }
        let targets: [(input: String, output: String)]
        let folder: OutputFolder?
        do { (targets, folder) = try plannedOutputs() } catch {
            out.printError(error.description)
            return 1
        }
        // Ctrl-C, SIGTERM and SIGHUP remove the temporary file of the output being written;
        // the dispositions they had are back when the verb returns.
        let signals = TemporaryFiles.removeOnSignals()
        defer { signals.restore() }
        // Inputs are never written over: patterns, the profile files, the sounds they use.
        var inputs = CommandInputs(self.inputs)
        inputs.add(synthesis)
        let toStandardOutput = SoundFileWriter.isStandardOutput(output)
        let progress = targets.count > 1 ? ProgressBar(total: targets.count) : nil
        var failures = 0
        // Several files at once (--jobs); each one's lines printed in input order.
        batch.runner.run(targets.count) { index -> Result<Written, CLIError> in
            Result { () throws(CLIError) in try render(targets[index].input, to: targets[index].output, profile: profile, inputs: inputs) }
        } deliver: { index, rendered in
            let target = targets[index]
            do throws(CLIError) {
                let line = try rendered.get()
                progress?.clear()
                // With `-o -` the samples are standard output: the summary goes to stderr.
                if toStandardOutput { out.printError(line.summary) } else { out.print(line.summary) }
                for warning in line.warnings { out.printError(printable("\(target.input): warning: \(warning)")) }
            } catch {
                progress?.clear()
                out.printError(error.description)
                failures += 1
            }
            progress?.show(done: index + 1)
            return true
        }
        progress?.clear()
        if failures == targets.count { folder?.removeIfEmpty() }
        return failures == 0 ? 0 : 1
    }

    /// Input → output pairs. Several inputs (or an output ending in "/" or naming a folder)
    /// render into a folder, one file per input named after it; the folder, made when missing.
    func plannedOutputs() throws(CLIError) -> ([(input: String, output: String)], OutputFolder?) {
        if !SoundFileWriter.isStandardOutput(output),
           let (targets, folder) = try OutputFolder.plan(
               inputs, into: output, fileExtension: format ?? "wav",
               namesAFile: { SoundFileWriter.FileFormat(extensionOf: $0) != nil }) {
            return (targets, folder)
        }
        return ([(inputs[0], output)], nil)
    }

    /// A warning when the layout has no haptic channel and the pattern has haptic events: they
    /// would render to silence without a word.
    static func unrenderedHaptics(_ pattern: AHAPPattern, layout: ChannelLayout) -> String? {
        let hasHapticChannel = layout.sources.contains { if case .haptic = $0 { true } else { false } }
        let hapticEvents = pattern.events.filter { $0.type == .hapticTransient || $0.type == .hapticContinuous }.count
        guard !hasHapticChannel, hapticEvents > 0 else { return nil }
        return "the layout \(layout.mapDescription) has no haptic channel (H), so the \(hapticEvents) haptic event\(hapticEvents == 1 ? " is" : "s are") not rendered"
    }

    struct Written {
        var summary: String
        var warnings: [String]
    }

    func render(_ input: String, to path: String, profile: ActuatorProfile, inputs: CommandInputs) throws(CLIError) -> Written {
        let (file, prepared) = try synthesis.prepare(input, profile: profile)
        // Refused before anything is written (or the disk fills with a pattern that lasts years).
        let seconds = prepared.duration + tail
        guard seconds <= maxDuration else {
            throw CLIError(
                "\(input): the output would last \(String(format: "%.1f", seconds)) s, longer than --max-duration \(maxDuration) s; nothing written")
        }
        var stream = OfflineRenderStream(
            pattern: prepared, layout: synthesis.resolvedLayout(), tail: tail, ending: exactLength ? .exactLength : .silence)
        let fileFormat = format.flatMap { SoundFileWriter.FileFormat(extensionOf: "x." + $0) }
        // The sounds the pattern plays are inputs too.
        var read = inputs
        read.addSounds(of: file, soundFolders: synthesis.soundFolders)
        let writer: SoundFileWriter
        do {
            // The format counts the longest ring-out; WAV on a pipe gets the exact length in its header.
            writer = try SoundFileWriter(
                path: path, for: stream, format: fileFormat, sampleFormat: SoundFileWriter.SampleFormat(bits: bits) ?? .int16,
                inputs: read.identities, plainWAVByteLimit: plainWAVLimitBytes)
        } catch {
            throw CLIError(error.description)
        }
        do { try writer.write(&stream) } catch { throw CLIError(error.description) }
        var warnings = file.decoded.warnings.map(\.description) + prepared.warnings
        if let missing = Self.unrenderedHaptics(file.decoded.pattern, layout: stream.layout) { warnings.append(missing) }
        let duration = Double(writer.framesWritten) / Double(synthesis.rate)
        let peak = writer.peakDBFS.isFinite ? String(format: "%.1f dBFS", writer.peakDBFS) : "silent"
        let summary = "\(printable(path)): \(String(format: "%.3f", duration)) s, \(stream.channels) ch (\(stream.layout.mapDescription)), "
            + "\(synthesis.rate) Hz, \(bits)-bit, peak \(peak), \(stream.eventsRendered) events, "
            + "\(warnings.count) warning\(warnings.count == 1 ? "" : "s")"
        return Written(summary: summary, warnings: warnings)
    }
}
