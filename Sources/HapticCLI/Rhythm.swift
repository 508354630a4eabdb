import ArgumentParser
import Foundation
import HapticKit
import Synchronization

/// `hapticsynth rhythm --bpm 100 --beats 64 [--cue beat_hit] [-D DEVICE | -o FILE] [--haptic-device D2]`
public struct Rhythm: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "rhythm",
        abstract: "Play the rhythm chapter: a cue on every beat, sound and haptic in lockstep.",
        discussion: """
            Schedules every beat on the monotonic clock --lead seconds ahead of time and fires \
            the cue's sound effect and haptic pattern at the same timestamp through the \
            HapticManager (one stream on -D, laid out from its channel map unless --layout says: \
            the sound on the fronts and the haptic on LFE where there is one; with \
            --haptic-device, the sound goes to -D and the haptic to the second device). At the end it prints, per beat and in summary, \
            the scheduled time, the output frame of each part's onset, and the skew between \
            audio and haptic in samples and milliseconds (--json for machines).

            With -o the whole session is rendered offline (the same engine, driven on a \
            simulated clock) to a 3-channel file (L,R,H), and the table comes from its frames.

            --beatmap FILE gives explicit beat times in seconds instead of --bpm/--beats: JSON \
            ([0, 0.6, 1.2] or {"beats": [...]}) or text (one time per line, # comments). \
            Patterns come from --haptics, sounds and cues.json from --assets (default: \
            ./Haptics and ./Assets, else the installed ones; `hapticsynth info --paths` shows \
            where they are looked for). Live, it prints "rhythm: ready" on \
            standard error before the first beat; Ctrl-C fades out, prints what was played and \
            exits 130 (SIGTERM: 143). \
            With no playback device, says so in one line and exits 1.

            Examples:
              hapticsynth rhythm --bpm 100 --beats 64
              hapticsynth rhythm --layout FL,FR,LFE=H --bpm 120
              hapticsynth rhythm -D speakers --haptic-device shaker --json
              hapticsynth rhythm --beatmap song.beats -o session.wav
            """
    )

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Tempo in beats per minute (default 100).", valueName: "bpm"))
    public var bpm: Double?

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Number of beats (default 64).", valueName: "n"))
    public var beats: Int?

    @Option(name: .long, help: ArgumentHelp("A file of beat times in seconds (JSON or text), instead of --bpm/--beats.", valueName: "file"))
    public var beatmap: String?

    @Option(name: .long, help: ArgumentHelp("The cue fired on every beat (from the assets' cues.json).", valueName: "name"))
    public var cue = "beat_hit"

    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("Seconds ahead of each beat at which it is scheduled.", valueName: "seconds"))
    public var lead = 0.2

    @Option(name: .shortAndLong, help: ArgumentHelp("Render the session offline to this file (L,R,H) instead of playing it.", valueName: "file"))
    public var output: String?

    @Option(name: .customLong("haptic-device"), help: ArgumentHelp("Two-device mode: the haptic goes to this ALSA device, the sound to -D.", valueName: "device"))
    public var hapticDevice: String?

    @Option(name: .long, help: ArgumentHelp("The patterns folder (.ahap files and .haptic clips).", valueName: "dir"))
    public var haptics: String?

    @Option(name: .long, help: ArgumentHelp("The assets folder (sfx/, cues.json).", valueName: "dir"))
    public var assets: String?

    @Option(name: .long, help: ArgumentHelp("Actuator profile: a built-in name (\(ActuatorProfile.builtInNames.joined(separator: ", "))).", valueName: "name"))
    public var profile = ActuatorProfile.builtInNames[0]

    @Option(name: .long, help: ArgumentHelp("Sample format of the -o file: 16, 24 or 32f.", valueName: "bits"))
    public var bits = "16"

    @OptionGroup public var channelLayout: LayoutOptions
    @OptionGroup public var format: OutputFormatOptions
    @OptionGroup public var live: LiveOutputOptions
    @OptionGroup public var reconnect: ReconnectOptions

    public init() {}

    public func validate() throws {
        if let bpm, !(bpm.isFinite && bpm >= 1 && bpm <= 1000) { throw ValidationError("--bpm \(bpm): expected 1...1000") }
        if let beats, !(1...BeatMap.maximumBeats).contains(beats) {
            throw ValidationError("--beats \(beats): expected 1...\(BeatMap.maximumBeats)")
        }
        if beatmap != nil && (bpm != nil || beats != nil) {
            throw ValidationError("--beatmap gives the beat times: do not combine it with --bpm or --beats")
        }
        guard lead.isFinite, lead >= 0.01, lead <= 10 else { throw ValidationError("--lead \(lead): expected 0.01...10 seconds") }
        if output != nil && hapticDevice != nil {
            throw ValidationError("-o renders one L,R,H file: do not combine it with --haptic-device")
        }
        if output != nil && live.device != "default" {
            throw ValidationError("-o renders offline: do not combine it with -D")
        }
        guard SoundFileWriter.SampleFormat(bits: bits) != nil else { throw ValidationError("--bits \(bits): expected 16, 24 or 32f") }
        try validateBuiltInProfile(profile)
    }

    public func run() async throws {
        var out = StandardStreams()
        let status = await execute(into: &out)
        if status != 0 { throw ExitCode(status) }
    }

    // MARK: - execution

    /// Runs the session, writing to `out`; returns the exit status.
    public func execute(into out: inout some CommandOutput) async -> Int32 {
        // Live, before anything is loaded: a signal from now on ends the verb with 130/143.
        let interrupted = Finish()
        let signals = output == nil ? SignalWatch(verb: "rhythm") { interrupted.interrupt() } : nil
        defer { signals?.cancel() }
        let map: BeatMap
        do { map = try beatMap() } catch {
            out.printError("rhythm: \(error)")
            return 1
        }
        let folders: LibraryFolders
        do { folders = try LibraryFolders(haptics: haptics, assets: assets) } catch {
            out.printError("rhythm: \(error)")
            return 1
        }
        if output != nil, (try? channelLayout.resolved())??.namesPositions == true {
            out.printError("rhythm: --layout \(channelLayout.layout ?? ""): a file has no channel map; give -o a layout by column (e.g. L,R,H)")
            return 1
        }
        if let output { return await offline(map: map, haptics: folders.haptics, assets: folders.assets, to: output, into: &out) }
        guard let signals else { preconditionFailure("made above whenever -o is not given") }
        return await playLive(map: map, haptics: folders.haptics, assets: folders.assets, signals: signals,
                              interrupted: interrupted, into: &out)
    }

    func beatMap() throws(CLIError) -> BeatMap {
        guard let beatmap else { return BeatMap(bpm: bpm ?? 100, beats: beats ?? 64) }
        // Bounded like a pattern (a beat map of /dev/zero is refused, not read until memory runs out).
        let bytes: [UInt8]
        do { bytes = try PatternFile.readBytes(beatmap) } catch {
            guard case .unreadable(_, let reason) = error else { throw CLIError(error.description) }
            throw CLIError("\(beatmap): cannot read the beat map (\(reason))")
        }
        do { return try BeatMap.parse(bytes, source: beatmap) } catch { throw CLIError(error.description) }
    }

    func managerConfiguration(haptics: String, assets: String, output: HapticManager.Output,
                              audioOutput: HapticManager.Output?, beats: Int) -> HapticManager.Configuration {
        // The verb reports failures itself, in one line; the manager's notes only with --verbose.
        var config = live.managerConfiguration(
            haptics: haptics, assets: assets, output: output, audioOutput: audioOutput,
            layout: try? channelLayout.resolved(), profile: ActuatorProfile.builtIn(named: profile) ?? .bassShaker, managerLogLevel: .error)
        config.engine.appliedCommandTraceCapacity = 4 * beats + 1024
        config.audioEngine.appliedCommandTraceCapacity = 4 * beats + 1024
        return config
    }

    /// Checks the manager can play the cue; returns an error line or nil.
    func problem(with manager: HapticManager, assets: String) -> String? {
        unplayable(manager, assets: assets).map { printable($0) }  // names from the cue sheet and the command line
    }

    private func unplayable(_ manager: HapticManager, assets: String) -> String? {
        if let error = manager.cueSheetError { return "rhythm: \(error)" }
        guard let cueEntry = manager.cueSheet[cue] else {
            return "rhythm: no cue named \"\(cue)\" in \(assets)/cues.json (known: \(manager.cueSheet.cues.keys.sorted().joined(separator: ", ")))"
        }
        if case .pattern(let name)? = cueEntry.haptic, manager.library.pattern(named: name) == nil {
            return "rhythm: cue \(cue) needs the pattern \(name), which is not in the patterns folder (or does not load)"
        }
        if let sfx = cueEntry.sfx, !manager.soundEffectNames.contains(sfx.name) {
            return "rhythm: cue \(cue) needs the sound effect \(sfx.name), which is not in \(assets)/sfx/"
        }
        return nil
    }

    func playLive(map: BeatMap, haptics: String, assets: String, signals: SignalWatch, interrupted: Finish,
                  into out: inout some CommandOutput) async -> Int32 {
        let audioDevice = live.device
        let config = managerConfiguration(
            haptics: haptics, assets: assets, output: .alsa(hapticDevice ?? audioDevice),
            audioOutput: hapticDevice == nil ? nil : .alsa(audioDevice), beats: map.times.count)
        let manager = HapticManager(configuration: config)
        guard manager.engineAvailable else {
            out.printError("rhythm: no playback device: \(manager.status)")
            return 1
        }
        if manager.isTwoDevice && !manager.audioAvailable {
            manager.shutDown()
            out.printError("rhythm: audio device \(audioDevice): \(manager.audioStatus.map { "\($0)" } ?? "unavailable")")
            return 1
        }
        live.reportChannels(verb: "rhythm", note: manager.layoutNote, routing: manager.channelRouting, into: &out)
        manager.preloadPatterns()
        if let line = problem(with: manager, assets: assets) {
            manager.shutDown()
            out.printError(line)
            return 1
        }
        signals.ready(into: &out)
        let session = RhythmSession(manager: manager, cue: cue, map: map, lead: lead)
        let watch = RhythmOutageWatch(device: hapticDevice ?? audioDevice, limit: reconnect.reconnectTimeout)
        // Polled every ≤ 20 ms while the session waits: prints the lost/back lines, and ends the
        // session only when the manager gave up or --reconnect-timeout ran out.
        let stop = {
            watch.check(manager, session: session)
            return interrupted.isDone || manager.hasGivenUp || watch.timedOut
        }
        session.run(wait: { until in Self.sleep(until: until, unless: stop) }, shouldStop: stop)
        let failed = manager.hasGivenUp || watch.timedOut
        let engines = (manager.currentEngine, manager.currentAudioEngine)
        manager.shutDown()
        let report = session.report(sampleRate: synthesisRate(manager))
        print(report, mode: manager.isTwoDevice ? "two-device" : "one stream", into: &out)
        if watch.outages > 0 {
            // Beats with nothing landed: lost to the outages (never scheduled, or dropped on return).
            let lost = report.rows.filter { $0.haptic == nil && $0.audio == nil }.map(\.beat)
            out.print("  outages: \(watch.outages); beats lost: \(lost.count)" + (lost.isEmpty ? "" : " (\(Self.ranges(lost)))"))
        }
        if live.verbose {
            for engine in [engines.0, engines.1].compactMap({ $0 }) where engines.0 !== engines.1 || engine === engines.0 {
                live.report(EngineReport(engine), into: &out)
            }
            live.reportMemoryLock(into: &out)
        }
        if interrupted.isDone { return signals.interruptedStatus }
        if watch.timedOut {
            out.printError("rhythm: \(hapticDevice ?? audioDevice) did not come back within \(String(format: "%.1f", reconnect.reconnectTimeout ?? 0)) s (--reconnect-timeout)")
            return 1
        }
        if failed {
            out.printError("rhythm: the haptic device failed during the session: \(manager.status)")
            return 1
        }
        return 0
    }

    func synthesisRate(_ manager: HapticManager) -> Int { manager.configuration.engine.sampleRate }

    /// "3–5, 9" for [3, 4, 5, 9].
    static func ranges(_ numbers: [Int]) -> String {
        var parts: [String] = []
        var i = 0
        while i < numbers.count {
            var j = i
            while j + 1 < numbers.count && numbers[j + 1] == numbers[j] + 1 { j += 1 }
            parts.append(i == j ? "\(numbers[i])" : "\(numbers[i])–\(numbers[j])")
            i = j + 1
        }
        return parts.joined(separator: ", ")
    }

    /// Sleeps until monotonic `time` in short steps, returning early when `stop` says so.
    static func sleep(until time: Double, unless stop: () -> Bool) {
        while !stop() {
            let left = time - HapticClock.now()
            if left <= 0 { return }
            usleep(UInt32(min(left, 0.02) * 1e6))
        }
    }

    // MARK: offline

    func offline(map: BeatMap, haptics: String, assets: String, to path: String, into out: inout some CommandOutput) async -> Int32 {
        // Never written over: the beat map, the profile files the layout names.
        var readFiles = CommandInputs([beatmap].compactMap { $0 })
        readFiles.add(channelLayout)
        // The render replaces the output with the file (HapticKit's OfflineRhythmRender).
        let config = managerConfiguration(haptics: haptics, assets: assets, output: .alsa(path), audioOutput: nil,
                                          beats: map.times.count)
        // As render: Ctrl-C, SIGTERM and SIGHUP remove the temporary file; dispositions restored on return.
        let signals = TemporaryFiles.removeOnSignals()
        defer { signals.restore() }
        let result = OfflineRhythmRender.render(
            map: map, cue: cue, lead: lead, configuration: config, to: path,
            sampleFormat: SoundFileWriter.SampleFormat(bits: bits) ?? .int16,
            inputs: readFiles.identities,
            check: { problem(with: $0, assets: assets) })
        switch result {
        case .success(let report):
            print(report, mode: "offline to \(path)", into: &out)
            return 0
        case .failure(.cannotCreate(let message)), .failure(.cannotFinish(let message)):
            out.printError("rhythm: \(message)")
        case .failure(.engineUnavailable(let status)):
            out.printError("rhythm: cannot render: \(status)")
        case .failure(.refused(let line)):
            out.printError(line)
        case .failure(.writeFailed(let message)):
            out.printError(printable("rhythm: \(path): \(message)"))
        }
        return 1
    }

    // MARK: printing

    func print(_ report: RhythmReport, mode: String, into out: inout some CommandOutput) {
        if format.json {
            out.print(jsonText(RhythmDocument(mode: mode, report: report, summary: report.summary)))
            return
        }
        let fs = Double(report.sampleRate)
        let two = report.twoDevice
        func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
        let widths = [5, 16, 9, 12, 12, 12, 10, 9, 10]
        func line(_ fields: [String]) -> String { zip(fields, widths).map { pad($0, $1) }.joined(separator: "  ") }
        func samples(_ value: Double?) -> String { value.map { two ? String(format: "%.2f", $0) : String(Int($0)) } ?? "-" }
        out.print(line(["beat", "scheduled (s)", "offset", "audio frame", "haptic frame", "planned (smp)", "skew (smp)", "skew (ms)", "felt (ms)"]))
        for row in report.rows {
            let a = row.audio.map { String($0.outputFrame) } ?? "-"
            let h = row.haptic.map { String($0.outputFrame) } ?? "-"
            let ms = row.skewMs.map { String(format: "%.3f", $0) } ?? "-"
            let felt = row.feltSkewMs.map { String(format: "%.3f", $0) } ?? "-"
            out.print(line([String(row.beat), String(format: "%.6f", row.scheduled), String(format: "%.3f", row.offset), a, h,
                            samples(row.plannedSkewSamples), samples(row.skewSamples), ms, felt]))
        }
        let s = report.summary
        let devices = Set(report.rows.flatMap { [$0.audio?.device, $0.haptic?.device] }.compactMap { $0 }).sorted()
        let tempo = report.bpm.map { String(format: "%g BPM", $0) } ?? "beat map"
        out.print("summary: \(s.beats) beats (\(tempo)), cue \(report.cue), \(mode) [\(devices.joined(separator: " + "))], \(report.sampleRate) Hz")
        let maxSkew = two ? String(format: "%.2f", s.maxAbsSkewSamples) : String(Int(s.maxAbsSkewSamples))
        out.print("  skew audio - haptic: max |\(maxSkew)| samples (\(String(format: "%.3f", s.maxAbsSkewSamples / fs * 1000)) ms); "
            + "\(s.zeroSkewBeats) of \(s.beats) beats at 0 samples, \(s.plannedSkewBeats) at the planned skew"
            + (s.incomplete > 0 ? "; \(s.incomplete) beats incomplete" : ""))
        out.print("  felt skew audio - haptic (half of each part's Hilbert envelope): "
            + (s.feltBeats > 0 ? "max |\(String(format: "%.3f", s.maxAbsFeltSkewMs))| ms over \(s.feltBeats) beats" : "not measured"))
        out.print("  beat spacing minus round(Δt·fs): haptic \(s.hapticSpacingErrorMin)...\(s.hapticSpacingErrorMax) frames, audio \(s.audioSpacingErrorMin)...\(s.audioSpacingErrorMax) frames; onset minus prediction at scheduling: max |\(s.predictionErrorMaxAbs)| frames")
    }
}

/// `rhythm --json`: the mode, every row, the summary.
struct RhythmDocument: Encodable {
    var mode: String
    var report: RhythmReport
    var summary: RhythmReport.Summary
}

/// Watches the manager's status for `rhythm` (the manager owns the engine's handlers): one line
/// when the device is lost, one when it is back with the gap and the beats that fell in it, and
/// the --reconnect-timeout deadline. Called from the session's thread only.
final class RhythmOutageWatch {
    let device: String
    let limit: Double?
    private(set) var outages = 0
    private(set) var timedOut = false
    private var lostAt: Double? = nil
    private var droppedBefore = 0

    init(device: String, limit: Double?) {
        self.device = device
        self.limit = limit
    }

    func check(_ manager: HapticManager, session: RhythmSession) {
        let now = HapticClock.now()
        switch manager.status {
        case .reconnecting(let why):
            if lostAt == nil {
                lostAt = now
                outages += 1
                droppedBefore = manager.currentEngine?.droppedOnsetCount ?? 0
                OutageReport.printLine("rhythm: \(device) lost (\(why)); reconnecting")
            }
            if let lostAt, let limit, now - lostAt > limit { timedOut = true }
        case .running:
            guard let since = lostAt else { return }
            lostAt = nil
            let dropped = (manager.currentEngine?.droppedOnsetCount ?? 0) - droppedBefore
            // Beats due while away: not scheduled (the manager's calls were no-ops) or dropped on return.
            let missed = session.beats.filter { $0.playback == nil && $0.time >= since - session.lead }.count
            OutageReport.printLine(
                "rhythm: \(device) is back after \(String(format: "%.2f", now - since)) s: beats dropped \(missed + dropped)")
        case .unavailable:
            break
        }
    }
}
