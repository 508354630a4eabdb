import ArgumentParser
import Foundation
import HapticKit
import HapticPlot

/// `hapticsynth plot INPUT... -o OUT.(png|svg|pdf)`
public struct Plot: HapticsynthVerb {
    public static let configuration = CommandConfiguration(
        commandName: "plot",
        abstract: "Draw patterns, their render, sounds and rhythm timing to PNG, SVG or PDF.",
        discussion: """
            Draws time-aligned panels, one picture for all inputs: for a pattern (.ahap, or a \
            .haptic clip read as `render` reads it) its events (continuous intensity with \
            envelopes and curves as an area coloured by sharpness, transients as stems, audio \
            events as named bars) and its render on the --profile (the drive per channel, its \
            envelope, the ceiling, the limiter's gain reduction where it acts, each transient's \
            felt onset against its event time); for a sound file its waveform and envelope (the \
            envelope also behind a pattern given with it); for a rhythm report (the JSON of \
            `rhythm --json`, live or -o) the planned, sample and felt skew per beat. \
            What is drawn is computed by the renderer itself, not re-implemented for the picture.

            The sensitivity panel (--panels sound,sensitivity; drawn only when asked for) shows \
            the transients `convert` gives a sound at each --sensitivity from 5 to 100 % (a \
            conversion at each: a row of dots per sensitivity), the chosen --sensitivity's row \
            on a dashed line, so that a sound's sensitivity can be chosen by eye, as Meta Haptics \
            Studio's slider shows it (the tools' clips set it clip by clip). The conversions \
            take --sensitivity and --min-gap as `convert` does, the channels mixed, no gain.

            The format follows the output's extension (png, svg, pdf), or --format; `-o -` \
            writes to standard output (PNG unless --format says otherwise). The file is written \
            like `render` writes: to a temporary name renamed when complete, never over an \
            input, a symbolic link or anything that is not a regular file.

            Examples:
              hapticsynth plot Haptics/heartbeat.ahap -o heartbeat.png
              hapticsynth plot rain.ahap -o rain.svg --profile voice-coil --from 0.5 --to 1.5
              hapticsynth plot sound.wav sound.ahap -o converted.pdf --theme dark
              hapticsynth plot clip.wav clip.haptic clip.ahap -o compare.png
              hapticsynth plot explosion.wav -o choose.png --panels sound,sensitivity
              hapticsynth rhythm --bpm 120 --beats 32 -o session.wav --json > session.json
              hapticsynth plot session.json -o timing.png
            """
    )

    @Argument(help: ArgumentHelp("Patterns (.ahap, .haptic), sound files, rhythm reports (.json).", valueName: "input"))
    public var inputs: [String]

    @Option(name: .shortAndLong, help: ArgumentHelp("The picture (.png, .svg, .pdf; - for standard output).", valueName: "output"))
    public var output: String

    @Option(name: .long, help: ArgumentHelp("Picture format: png, svg or pdf (default: from the output's extension).", valueName: "format"))
    public var format: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Start of the time range, in seconds (default 0).", valueName: "seconds"))
    public var from: Double?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("End of the time range, in seconds (default: the end of the longest input).", valueName: "seconds"))
    public var to: Double?

    @Option(name: .long, help: ArgumentHelp("Picture size, WIDTHxHEIGHT or WIDTH (pixels; the height then follows the panels).", valueName: "size"))
    public var size = "1600"

    @Option(name: .long, help: ArgumentHelp("Colours: light or dark.", valueName: "theme"))
    public var theme = PlotThemeName.light.rawValue

    @Option(name: .long, help: ArgumentHelp("The panels to draw, in order: any of pattern, drive, sound, sensitivity, rhythm (default: all the inputs give, except sensitivity).", valueName: "list"))
    public var panels: String?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("The sensitivity panel's chosen sensitivity, 0-100 % (convert's --sensitivity).", valueName: "percent"))
    public var sensitivity = 50.0

    @Option(name: .customLong("min-gap"), parsing: .unconditional, help: ArgumentHelp("The sensitivity panel's shortest time between two transients (10-10000 ms; convert's --min-gap).", valueName: "ms"))
    public var minGap = 50.0

    @OptionGroup public var synthesis: SynthesisOptions

    @OptionGroup var batch: BatchOptions

    public init() {}

    /// The panels `--panels` can name.
    enum PanelKind: String, CaseIterable {
        case pattern, drive, sound, sensitivity, rhythm
    }

    public func validate() throws {
        guard pictureFormat != nil else {
            if let format { throw ValidationError("--format \(format): unknown (known: \(PlotFormat.known))") }
            throw ValidationError("\(output): unknown picture extension (known: \(PlotFormat.known); or give --format)")
        }
        guard pictureSize != nil else {
            throw ValidationError(
                "--size \(size): expected WIDTHxHEIGHT or WIDTH, from \(PlotOptions.minimumSize.width)x\(PlotOptions.minimumSize.height) "
                    + "to \(PlotOptions.maximumSize.width)x\(PlotOptions.maximumSize.height)")
        }
        guard PlotThemeName(rawValue: theme) != nil else { throw ValidationError("--theme \(theme): expected light or dark") }
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, !(value.isFinite && value >= 0 && value <= Limits.maxOutputSeconds) {
                throw ValidationError("\(name) \(value): expected seconds between 0 and \(Limits.maxOutputSeconds)")
            }
        }
        if let from, let to, to <= from { throw ValidationError("--to \(to): must come after --from \(from)") }
        try requireWithin("--sensitivity", sensitivity, SoundConversionOptions.Ranges.sensitivityPercent, " %")
        try requireWithin("--min-gap", minGap, SoundConversionOptions.Ranges.minimumGapMilliseconds, " ms")
        if let panels {
            for name in panels.split(separator: ",", omittingEmptySubsequences: false) where PanelKind(rawValue: String(name)) == nil {
                throw ValidationError("--panels: unknown panel \"\(name)\" (known: \(PanelKind.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
        }
    }

    var pictureFormat: PlotFormat? {
        if let format { return PlotFormat(rawValue: format.lowercased()) }
        return SoundFileWriter.isStandardOutput(output) ? .png : PlotFormat(fileName: output)
    }

    /// `WIDTHxHEIGHT` or `WIDTH`, within the drawable sizes.
    var pictureSize: (width: Int, height: Int?)? {
        let parts = size.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let width = Int(parts[0]),
            (PlotOptions.minimumSize.width...PlotOptions.maximumSize.width).contains(width)
        else { return nil }
        guard parts.count == 2 else { return (width, nil) }
        guard let height = Int(parts[1]), (PlotOptions.minimumSize.height...PlotOptions.maximumSize.height).contains(height) else { return nil }
        return (width, height)
    }

    public func execute(into out: inout some CommandOutput) throws -> Int32 {
        // Ctrl-C, SIGTERM and SIGHUP remove the temporary file; the dispositions they had are
        // back when the verb returns.
        let signals = TemporaryFiles.removeOnSignals()
        defer { signals.restore() }
        do throws(CLIError) {
            let profile = try synthesis.resolvedProfile()
            let loaded = try PlotInputs.load(inputs, synthesis: synthesis, profile: profile, runner: batch.runner)
            // As `render` does: the output (a temporary file beside it) is made before the work,
            // so that a refused destination is said at once.
            let toStandardOutput = SoundFileWriter.isStandardOutput(output)
            let file: TemporaryOutputFile?
            do {
                file = toStandardOutput ? nil : try TemporaryOutputFile(path: output, inputs: loaded.identities)
            } catch { throw CLIError(error.description) }
            let picture = try draw(loaded, profile: profile)
            do {
                if let file {
                    try file.write(picture.bytes)
                    try file.commit()
                } else {
                    try TextFileWriter.writeStandardOutput(picture.bytes, inputs: loaded.identities)
                }
            } catch {
                throw CLIError(error.description)
            }
            let line = "\(output): \(picture.summary)"
            if SoundFileWriter.isStandardOutput(output) { out.printError(line) } else { out.print(line) }
            for warning in loaded.warnings { out.printError(warning) }
            return 0
        } catch {
            out.printError(error.description)
            return 1
        }
    }

    /// What was drawn: the file's bytes and the summary line.
    struct Picture {
        var bytes: [UInt8]
        var summary: String
    }

    func draw(_ loaded: PlotInputs, profile: ActuatorProfile) throws(CLIError) -> Picture {
        let wanted = panels.map { $0.split(separator: ",").compactMap { PanelKind(rawValue: String($0)) } }
            ?? [.sound, .pattern, .drive, .rhythm]
        // Panel titles name their file only when there are several inputs.
        let named = inputs.count > 1
        func titled(_ title: String, _ path: String) -> String { named ? "\(title) · \(Self.name(path))" : title }
        let profiles = profileNames(profile).joined(separator: ", ")
        // The sounds' sensitivity ladders (a conversion each), several at once.
        let ladders: [any PlotPanel] = try wanted.contains(.sensitivity) ? sensitivityPanels(loaded.sounds, titled: titled) : []
        var drawn: [any PlotPanel] = []
        for kind in wanted {
            switch kind {
            case .pattern:
                for p in loaded.patterns {
                    drawn.append(PatternPanel(
                        trace: p.trace, elements: p.file.decoded.pattern.elements, title: titled("pattern", p.file.path),
                        soundEnvelope: loaded.sounds.first?.envelope))
                }
            case .drive:
                for p in loaded.patterns {
                    drawn.append(DrivePanel(pattern: p.prepared, layout: synthesis.resolvedLayout(), trace: p.trace,
                                            title: titled("drive on \(profiles)", p.file.path)))
                }
            case .sound:
                for s in loaded.sounds {
                    drawn.append(SoundPanel(sound: s.buffer, title: titled("sound", s.path), envelope: s.envelope))
                }
            case .sensitivity:
                drawn += ladders
            case .rhythm:
                for r in loaded.rhythms { drawn.append(SkewPanel(beats: r.beats, title: titled("skew audio − haptic per beat", r.path))) }
            }
        }
        guard !drawn.isEmpty else {
            throw CLIError("plot: nothing to draw (--panels \(panels ?? "") names no panel the inputs give)")
        }
        let size = pictureSize ?? (1600, nil)
        let document = PlotDocument(
            title: inputs.map(Self.name).joined(separator: " + ") + (loaded.patterns.isEmpty ? "" : " · \(profiles)"),
            subtitle: loaded.facts(rate: synthesis.rate),
            panels: drawn,
            options: PlotOptions(width: size.width, height: size.height, theme: PlotThemeName(rawValue: theme) ?? .light, from: from, to: to))
        let bytes: [UInt8]
        do { bytes = try document.render(pictureFormat ?? .png) } catch { throw CLIError("\(output): \(error)") }
        let range = document.timeRange
        let summary = "\(pictureFormat?.rawValue ?? "png") \(size.width)x\(document.height), \(drawn.count) panel\(drawn.count == 1 ? "" : "s"), "
            + "\(String(format: "%.3f", range.from))–\(String(format: "%.3f", range.to)) s"
        return Picture(bytes: bytes, summary: summary)
    }

    static func name(_ path: String) -> String { URL(fileURLWithPath: path).lastPathComponent }

    /// The profiles the drive is rendered for: each haptic channel's (`--layout ...:voice-coil`)
    /// or else --profile's, each once, in channel order.
    func profileNames(_ profile: ActuatorProfile) -> [String] {
        guard let layout = synthesis.resolvedLayout() else { return [profile.name] }
        var names: [String] = []
        for (channel, source) in layout.sources.enumerated() {
            guard case .haptic = source else { continue }
            let name = (layout.profile(ofChannel: channel) ?? profile).name
            if !names.contains(name) { names.append(name) }
        }
        return names.isEmpty ? [profile.name] : names
    }

    /// The sensitivity panels of `sounds`, their ladders worked out several at once (--jobs);
    /// the first sound in input order that fails ends the picture with its message.
    func sensitivityPanels(_ sounds: [PlotInputs.Sound], titled: (String, String) -> String) throws(CLIError) -> [SensitivityPanel] {
        var panels: [SensitivityPanel] = []
        var failure: CLIError?
        batch.runner.run(sounds.count) { index -> Result<SensitivityPanel, CLIError> in
            Result { () throws(CLIError) in try sensitivityPanel(sounds[index], title: titled("transients by sensitivity", sounds[index].path)) }
        } deliver: { _, result in
            switch result {
            case .success(let panel): panels.append(panel)
            case .failure(let error): failure = error
            }
            return failure == nil
        }
        if let failure { throw failure }
        return panels
    }

    /// The sound's sensitivity ladder, 5 to 100 % and the chosen sensitivity, as `convert` gives it.
    func sensitivityPanel(_ sound: PlotInputs.Sound, title: String) throws(CLIError) -> SensitivityPanel {
        var options = SoundConversionOptions()
        options.minimumGap = minGap / 1000
        let chosen = sensitivity / 100
        let ladder: SensitivityLadder
        do {
            ladder = try SoundConversion.sensitivityLadder(
                soundAt: sound.path, options: options, sensitivities: stride(from: 5, through: 100, by: 5).map { Double($0) / 100 } + [chosen])
        } catch { throw CLIError(error.description) }
        return SensitivityPanel(
            rows: ladder.rungs.map { SensitivityPanel.Row(sensitivity: $0.sensitivity, times: $0.times) }, chosen: chosen,
            duration: Double(sound.buffer.frames) / sound.buffer.sampleRate, title: title)
    }
}
