// The studio without its web server: the folder's sounds, each selected sound's settings,
// analysis and edit history, and saving. Every action of the page is a method here; the server
// only turns requests into calls and answers into JSON. The conversion is `convert`'s (its
// command parsed from the settings, its writer), so what the studio shows and saves for an
// unedited sound is byte for byte what `hapticsynth convert` writes with the same options.

import Foundation
import HapticCLI
import HapticKit
import Synchronization

public actor Studio {
    public let folder: StudioFolder
    /// The --per-sound file's name in the folder.
    public let perSoundName: String

    /// A sound being worked on.
    struct Session {
        var name: String
        var path: String
        var settings: StudioSettings
        var command: Convert
        var result: SoundConversionResult
        /// Made when the page asks for it (`ladder(_:)`), after the first view: opening a sound
        /// does not wait for the eleven rungs.
        var ladder: SensitivityLadder?
        var history: EditHistory
        var unsaved = false
        /// The file as analysed: a request finding it changed on disk analyses it again.
        var stamp: FileStamp
    }

    var sessions: [String: Session] = [:]
    /// Pattern files opened on their own (Studio+Pattern.swift).
    var patterns: [String: PatternSession] = [:]
    /// Analyses and ladders by file and settings (AnalysisCache.swift): returning to settings
    /// already analysed, or to a sound, does not analyse again.
    struct AnalysisKey: Hashable {
        var stamp: FileStamp
        var settings: StudioSettings
    }
    var analyses = ByteBoundedCache<AnalysisKey, SoundConversionResult>(capacity: 32 << 20)
    var ladders = ByteBoundedCache<AnalysisKey, SensitivityLadder>(capacity: 8 << 20)
    /// How many times a sound was read and analysed (a conversion or a ladder): what the cache saves.
    public private(set) var analysesRun = 0
    /// Read outside the actor (under this lock), so that the page's waveform request runs beside
    /// the sound's analysis on another core instead of waiting for it.
    nonisolated let waveforms = Mutex<[String: (stamp: FileStamp, view: WaveformView, json: Data)]>([:])
    /// Each open sound's haptic as the designer has it now (Studio+Audition.swift): read by the
    /// audition's own thread without waiting for this actor, which may be analysing.
    nonisolated let current = Mutex<[String: CurrentHaptic]>([:])

    /// The ladder's sensitivities (0…1): 0, 10 … 100 %.
    static let ladderSensitivities = (0...10).map { Double($0) / 10 }

    public init(folder: StudioFolder, perSoundName: String = "haptics.txt") throws(StudioError) {
        self.folder = folder
        self.perSoundName = try StudioFolder.checkedName(perSoundName)
    }

    // MARK: the list

    public func list() -> [ListedFile] {
        let entries = folder.entries()
        let soundStems = Set(entries.filter { $0.kind == .sound }.map { ($0.name as NSString).deletingPathExtension })
        return entries.map { entry in
            guard entry.kind == .sound else {
                // A pattern of no sound's stem is the designer's own file: it opens (an .ahap).
                let own = !soundStems.contains((entry.name as NSString).deletingPathExtension) && Self.isPatternName(entry.name)
                return ListedFile(name: entry.name, kind: "pattern", state: "pattern", unsaved: patterns[entry.name]?.unsaved ?? false, openable: own)
            }
            return ListedFile(
                name: entry.name, kind: "sound", state: savedState(entry.name).rawValue, unsaved: sessions[entry.name]?.unsaved ?? false, openable: true)
        }
    }

    enum SavedState: String { case none, converted, edited }

    /// Whether a pattern lies beside the sound, and whether it holds edits (its metadata).
    func savedState(_ name: String) -> SavedState {
        guard let metadata = savedMetadata(name) else { return .none }
        if case .object(let pairs) = metadata, pairs.contains(where: { $0.key == Self.editedKey }) { return .edited }
        return .converted
    }

    func savedMetadata(_ name: String) -> JSONValue? {
        let output = StudioFolder.outputName(name, fileExtension: "ahap")
        guard let path = try? folder.existingFile(output), let bytes = FileManager.default.contents(atPath: path),
            bytes.count <= 64 << 20, let decoded = try? AHAPPattern.decode(from: [UInt8](bytes))
        else { return nil }
        return decoded.pattern.metadata ?? .object([])
    }

    /// The metadata keys a pattern with edits carries: a mark, and the layer (so that a later
    /// session opens the sound with its edits).
    static let editedKey = "Edited"
    static let layerKey = "StudioEdits"

    // MARK: a sound

    /// The sound's view, analysing it first when it is not open yet (with its line of the
    /// --per-sound file, and the edits its saved pattern holds).
    public func open(_ name: String) throws(StudioError) -> SoundView {
        if Self.isPatternName(name) { return try patternView(openedPattern(name)) }
        _ = try opened(name)
        return try view(name)
    }

    /// The sound's session: made on the first request, analysed again (its settings and edits
    /// kept) when the file changed on disk since.
    @discardableResult
    func opened(_ name: String) throws(StudioError) -> Session {
        let path = try soundPath(name)
        let stamp = try Self.stamp(path, name)
        if var session = sessions[name] {
            guard session.stamp != stamp else { return session }
            forget(path: path, keeping: stamp)
            let (history, unsaved) = (session.history, session.unsaved)
            session = try analysed(name, path: path, stamp: stamp, settings: session.settings)
            (session.history, session.unsaved) = (history, unsaved)
            sessions[name] = session
            return session
        }
        let settings = try perSoundSettings(name, path: path)
        var session = try analysed(name, path: path, stamp: stamp, settings: settings)
        session.history = EditHistory(layer: savedLayer(name) ?? EditLayer())
        sessions[name] = session
        return session
    }

    /// The hits each sensitivity keeps (0, 10 … 100 %), the other settings as they are: asked
    /// for by the page after its first draw of the sound.
    public func ladder(_ name: String) throws(StudioError) -> LadderView {
        try refusePattern(name, "has no sensitivity ladder")
        var session = try opened(name)
        if session.ladder == nil {
            let key = AnalysisKey(stamp: session.stamp, settings: Self.ladderSettings(session.settings))
            if let cached = ladders.value(key) {
                session.ladder = cached
            } else {
                do {
                    session.ladder = try SoundConversion.sensitivityLadder(
                        soundAt: session.path, options: session.command.soundOptions, sensitivities: Self.ladderSensitivities)
                } catch {
                    throw .bad(error.description)
                }
                analysesRun += 1
                ladders.insert(session.ladder!, bytes: session.ladder!.estimatedBytes, for: key)
            }
            sessions[name]?.ladder = session.ladder
        }
        return LadderView(name: name, settings: session.settings, rungs: Self.rungs(session.ladder) ?? [])
    }

    /// Re-analyses the sound with `settings`; the edits are laid over the new analysis.
    public func analyse(_ name: String, settings: StudioSettings) throws(StudioError) -> SoundView {
        try refusePattern(name, "has no conversion settings")
        var session = try opened(name)
        if settings != session.settings {
            let history = session.history
            // The ladder depends on every setting but the sensitivity (and --audio, which only
            // adds the sound to the pattern): the slider's moves reuse it.
            let ladder = Self.ladderSettings(settings) == Self.ladderSettings(session.settings) ? session.ladder : nil
            session = try analysed(name, path: session.path, stamp: session.stamp, settings: settings)
            session.ladder = ladder ?? ladders.value(AnalysisKey(stamp: session.stamp, settings: Self.ladderSettings(session.settings)))
            session.history = history
            session.unsaved = true
            sessions[name] = session
        }
        return try view(name)
    }

    public func edit(_ name: String, _ operation: EditOperation) throws(StudioError) -> SoundView {
        if Self.isPatternName(name) { return try editPattern(name) { history, shown, duration throws(StudioError) in history.record(try operation.applied(to: history.layer, shown: shown, duration: duration)) } }
        var session = try opened(name)
        let shown = session.history.layer.applied(to: session.result.haptics)
        let next = try operation.applied(to: session.history.layer, shown: shown, duration: session.result.haptics.duration)
        session.history.record(next)
        session.unsaved = true
        sessions[name] = session
        return try view(name)
    }

    public func undo(_ name: String) throws(StudioError) -> SoundView {
        if Self.isPatternName(name) { return try editPattern(name) { history, _, _ throws(StudioError) in try history.undo() } }
        try opened(name)
        try sessions[name]?.history.undo()
        sessions[name]?.unsaved = true
        return try view(name)
    }

    public func redo(_ name: String) throws(StudioError) -> SoundView {
        if Self.isPatternName(name) { return try editPattern(name) { history, _, _ throws(StudioError) in try history.redo() } }
        try opened(name)
        try sessions[name]?.history.redo()
        sessions[name]?.unsaved = true
        return try view(name)
    }

    /// The pattern as it would be saved (AHAP text, or `.haptic` with `format` "haptic").
    public func pattern(_ name: String, format: String = "ahap") throws(StudioError) -> String {
        if Self.isPatternName(name) { return try patternText(openedPattern(name), format: format) }
        let session = try opened(name)
        guard let chosen = Convert.OutputFormat(name: format) else { throw .bad("format \(format): expected ahap or haptic") }
        return try output(session, format: chosen).text
    }

    /// Writes the pattern beside the sound (and the `.haptic` with `haptic`), through `convert`'s
    /// writer (a temporary file renamed; never over the sound nor through a symbolic link), and
    /// the sound's line of the --per-sound file.
    public func save(_ name: String, haptic: Bool) throws(StudioError) -> SaveResult {
        if Self.isPatternName(name) { return try savePattern(name, haptic: haptic) }
        let session = try opened(name)
        let formats: [Convert.OutputFormat] = haptic ? [.ahap, .haptic] : [.ahap]
        // Everything made and checked before anything is written.
        var files: [(name: String, path: String, text: String)] = []
        for format in formats {
            let outputName = StudioFolder.outputName(name, fileExtension: format.fileExtension)
            files.append((outputName, try folder.writablePath(outputName), try output(session, format: format).text))
        }
        let perSoundPath = try folder.writablePath(perSoundName)
        let existing = try? folder.existingFile(perSoundName)
        let existingText = existing.flatMap { FileManager.default.contents(atPath: $0) }.map { String(decoding: $0, as: UTF8.self) }
        let perSoundText = try PerSoundFile.updated(existingText, name: name, arguments: session.command.soundArguments.flatMap { $0 })
        let inputs = [session.path].compactMap(FileIdentity.init(path:))
        do {
            for file in files { try TextFileWriter.write(file.text, to: file.path, inputs: inputs) }
            try TextFileWriter.write(perSoundText, to: perSoundPath, inputs: inputs)
        } catch {
            throw StudioError(500, error.description)
        }
        sessions[name]?.unsaved = false
        return SaveResult(written: files.map(\.name), perSound: perSoundName, edited: session.history.layer.count > 0)
    }

    public nonisolated func waveform(_ name: String) throws(StudioError) -> WaveformView { try readWaveform(name).view }

    /// The waveform as the API's JSON, kept with it (a re-open sends the same bytes).
    public nonisolated func waveformJSON(_ name: String) throws(StudioError) -> Data { try readWaveform(name).json }

    nonisolated func readWaveform(_ name: String) throws(StudioError) -> (view: WaveformView, json: Data) {
        let path = try soundPath(name)
        let stamp = try Self.stamp(path, name)
        if let cached = waveforms.withLock({ $0[name] }), cached.stamp == stamp { return (cached.view, cached.json) }
        let view: WaveformView
        do { view = try Waveform.read(path) } catch { throw .bad(error.description) }
        let json = Waveform.json(view)
        waveforms.withLock { $0[name] = (stamp, view, json) }
        return (view, json)
    }

    // MARK: parts

    nonisolated func soundPath(_ name: String) throws(StudioError) -> String {
        let path = try folder.existingFile(name)
        let ext = (name as NSString).pathExtension.lowercased()
        guard StudioFolder.soundExtensions.contains(ext) else { throw .bad("\(StudioFolder.quoted(name)): not a sound (a pattern is shown, not converted)") }
        return path
    }

    /// The settings the --per-sound file gives the sound (convert's defaults where it says nothing).
    func perSoundSettings(_ name: String, path: String) throws(StudioError) -> StudioSettings {
        guard let file = try? folder.existingFile(perSoundName) else { return StudioSettings() }
        do {
            let lines = try PerSoundOptions.read(file)
            let base = try StudioSettings().command(input: path, output: outputPath(name))
            return StudioSettings(try base.applying(lines.arguments(for: path)))
        } catch {
            throw .bad("\(perSoundName): \(error)")
        }
    }

    func savedLayer(_ name: String) -> EditLayer? {
        guard case .object(let pairs)? = savedMetadata(name),
            case .string(let text)? = pairs.first(where: { $0.key == Self.layerKey })?.value
        else { return nil }
        return try? JSONDecoder().decode(EditLayer.self, from: Data(text.utf8))
    }

    func outputPath(_ name: String) -> String { folder.root + "/" + StudioFolder.outputName(name, fileExtension: "ahap") }

    /// The sound analysed with `settings` (from the cache when this file was analysed with them),
    /// without its ladder.
    func analysed(_ name: String, path: String, stamp: FileStamp, settings: StudioSettings) throws(StudioError) -> Session {
        let command = try settings.command(input: path, output: outputPath(name))
        let checked = StudioSettings(command)
        var analysisSettings = checked
        analysisSettings.audio = false  // (only adds the sound to the written pattern)
        let key = AnalysisKey(stamp: stamp, settings: analysisSettings)
        let result: SoundConversionResult
        if let cached = analyses.value(key) {
            result = cached
        } else {
            do { result = try SoundConversion.convert(soundAt: path, options: command.soundOptions) } catch { throw .bad(error.description) }
            analysesRun += 1
            analyses.insert(result, bytes: result.estimatedBytes, for: key)
        }
        return Session(
            name: name, path: path, settings: checked, command: command, result: result, ladder: nil, history: EditHistory(), stamp: stamp)
    }

    /// The settings a ladder depends on: all but the sensitivity and --audio.
    static func ladderSettings(_ settings: StudioSettings) -> StudioSettings {
        var others = settings
        (others.sensitivity, others.audio) = (0, false)
        return others
    }

    static func rungs(_ ladder: SensitivityLadder?) -> [SoundView.LadderRung]? {
        ladder?.rungs.map { .init(sensitivity: ($0.sensitivity * 100).rounded(), times: $0.times) }
    }

    nonisolated static func stamp(_ path: String, _ name: String) throws(StudioError) -> FileStamp {
        guard let stamp = FileStamp(path: path) else { throw .notFound("\(StudioFolder.quoted(name)): no such file in the folder") }
        return stamp
    }

    /// Drops the cached analyses and ladders of an earlier state of the file at `path`.
    func forget(path: String, keeping stamp: FileStamp) {
        analyses.removeAll { $0.stamp.path == path && $0.stamp != stamp }
        ladders.removeAll { $0.stamp.path == path && $0.stamp != stamp }
    }

    /// The pattern's text through `convert`'s writer: the analysis with the edits laid over it.
    func output(_ session: Session, format: Convert.OutputFormat) throws(StudioError) -> Convert.Converted {
        let layer = session.history.layer
        var result = session.result
        result.haptics = layer.applied(to: session.result.haptics).haptics
        var marks: [(String, JSONValue)] = []
        if layer.count > 0 {
            let encoded = (try? JSONEncoder().encode(layer)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            marks = [(Self.editedKey, .bool(true)), (Self.layerKey, .string(encoded))]
        }
        let path = folder.root + "/" + StudioFolder.outputName(session.name, fileExtension: format.fileExtension)
        do {
            return try session.command.converted(result, input: session.path, to: path, format: format, edits: marks)
        } catch {
            throw StudioError(500, error.description)
        }
    }

    func view(_ name: String) throws(StudioError) -> SoundView {
        guard let session = sessions[name] else { throw .notFound("\(name): not open") }
        let (haptic, orphans) = publishedView(name, base: session.result.haptics, layer: session.history.layer, offset: session.settings.from)
        let info = session.result.info
        let layer = session.history.layer
        return SoundView(
            name: name, kind: "sound", output: StudioFolder.outputName(name, fileExtension: "ahap"), settings: session.settings,
            sound: .init(duration: info.duration, sampleRate: info.sampleRate, channels: info.channels), haptic: haptic,
            ladder: Self.rungs(session.ladder),
            edits: .init(count: layer.count, orphans: orphans, canUndo: session.history.canUndo, canRedo: session.history.canRedo, layer: layer),
            notes: session.result.notes, unsaved: session.unsaved)
    }

    /// The haptic as drawn (`base` with the edits laid over it), published for the audition.
    func publishedView(_ name: String, base: ConvertedHaptics, layer: EditLayer, offset: Double) -> (HapticView, orphans: Int) {
        let edited = layer.applied(to: base)
        current.withLock { $0[name] = CurrentHaptic(haptics: edited.haptics, offset: offset) }
        let transients = zip(edited.haptics.transients, edited.transientOrigins).map { hit, origin in
            let kind: String
            switch origin {
            case .added: kind = "added"
            case .analysed(let t): kind = layer.changedTransients.contains { abs($0.original - t) <= EditLayer.matchTolerance } ? "edited" : "analysed"
            }
            return HapticView.Transient(time: hit.time, intensity: hit.intensity, sharpness: hit.sharpness, origin: kind)
        }
        let haptic = HapticView(
            offset: offset, duration: edited.haptics.duration, transients: transients,
            stretches: edited.haptics.stretches.map {
                .init(start: $0.start, end: $0.end, intensity: $0.intensity.map { [$0.time, $0.value] }, sharpness: $0.sharpness.map { [$0.time, $0.value] })
            })
        return (haptic, edited.orphans)
    }
}
