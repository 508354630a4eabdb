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
        var ladder: SensitivityLadder
        var history: EditHistory
        var unsaved = false
    }

    var sessions: [String: Session] = [:]
    /// Read outside the actor (under this lock), so that the page's waveform request runs beside
    /// the sound's analysis on another core instead of waiting for it.
    nonisolated let waveforms = Mutex<[String: WaveformView]>([:])
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
        folder.entries().map { entry in
            guard entry.kind == .sound else { return ListedFile(name: entry.name, kind: "pattern", state: "pattern", unsaved: false) }
            return ListedFile(name: entry.name, kind: "sound", state: savedState(entry.name).rawValue, unsaved: sessions[entry.name]?.unsaved ?? false)
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
        if sessions[name] == nil {
            let path = try soundPath(name)
            let settings = try perSoundSettings(name, path: path)
            var session = try analysed(name, path: path, settings: settings)
            session.history = EditHistory(layer: savedLayer(name) ?? EditLayer())
            sessions[name] = session
        }
        return try view(name)
    }

    /// Re-analyses the sound with `settings`; the edits are laid over the new analysis.
    public func analyse(_ name: String, settings: StudioSettings) throws(StudioError) -> SoundView {
        _ = try open(name)
        guard var session = sessions[name] else { throw .notFound("\(name): not open") }
        if settings != session.settings {
            let history = session.history
            // The ladder depends on every setting but the sensitivity (and --audio, which only
            // adds the sound to the pattern): the slider's moves reuse it.
            var others = settings
            (others.sensitivity, others.audio) = (session.settings.sensitivity, session.settings.audio)
            let ladder = others == session.settings ? session.ladder : nil
            session = try analysed(name, path: session.path, settings: settings, reusing: ladder)
            session.history = history
            session.unsaved = true
            sessions[name] = session
        }
        return try view(name)
    }

    public func edit(_ name: String, _ operation: EditOperation) throws(StudioError) -> SoundView {
        _ = try open(name)
        guard var session = sessions[name] else { throw .notFound("\(name): not open") }
        let shown = session.history.layer.applied(to: session.result.haptics)
        let next = try operation.applied(to: session.history.layer, shown: shown, duration: session.result.haptics.duration)
        session.history.record(next)
        session.unsaved = true
        sessions[name] = session
        return try view(name)
    }

    public func undo(_ name: String) throws(StudioError) -> SoundView {
        _ = try open(name)
        try sessions[name]?.history.undo()
        sessions[name]?.unsaved = true
        return try view(name)
    }

    public func redo(_ name: String) throws(StudioError) -> SoundView {
        _ = try open(name)
        try sessions[name]?.history.redo()
        sessions[name]?.unsaved = true
        return try view(name)
    }

    /// The pattern as it would be saved (AHAP text, or `.haptic` with `format` "haptic").
    public func pattern(_ name: String, format: String = "ahap") throws(StudioError) -> String {
        _ = try open(name)
        guard let session = sessions[name] else { throw .notFound("\(name): not open") }
        guard let chosen = Convert.OutputFormat(name: format) else { throw .bad("format \(format): expected ahap or haptic") }
        return try output(session, format: chosen).text
    }

    /// Writes the pattern beside the sound (and the `.haptic` with `haptic`), through `convert`'s
    /// writer (a temporary file renamed; never over the sound nor through a symbolic link), and
    /// the sound's line of the --per-sound file.
    public func save(_ name: String, haptic: Bool) throws(StudioError) -> SaveResult {
        _ = try open(name)
        guard let session = sessions[name] else { throw .notFound("\(name): not open") }
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

    public nonisolated func waveform(_ name: String) throws(StudioError) -> WaveformView {
        if let cached = waveforms.withLock({ $0[name] }) { return cached }
        let path = try soundPath(name)
        let view: WaveformView
        do { view = try Waveform.read(path) } catch { throw .bad(error.description) }
        waveforms.withLock { $0[name] = view }
        return view
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

    /// The sound analysed with `settings`, and its ladder (made from the same analysis, unless
    /// `reusing` one that still holds).
    func analysed(_ name: String, path: String, settings: StudioSettings, reusing ladder: SensitivityLadder? = nil) throws(StudioError) -> Session {
        let command = try settings.command(input: path, output: outputPath(name))
        do {
            let (result, made) = try SoundConversion.convert(
                soundAt: path, options: command.soundOptions, ladder: ladder == nil ? Self.ladderSensitivities : [])
            return Session(
                name: name, path: path, settings: StudioSettings(command), command: command, result: result, ladder: ladder ?? made,
                history: EditHistory())
        } catch {
            throw .bad(error.description)
        }
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
        let edited = session.history.layer.applied(to: session.result.haptics)
        current.withLock { $0[name] = CurrentHaptic(haptics: edited.haptics, offset: session.settings.from) }
        let layer = session.history.layer
        let transients = zip(edited.haptics.transients, edited.transientOrigins).map { hit, origin in
            let kind: String
            switch origin {
            case .added: kind = "added"
            case .analysed(let t): kind = layer.changedTransients.contains { abs($0.original - t) <= EditLayer.matchTolerance } ? "edited" : "analysed"
            }
            return HapticView.Transient(time: hit.time, intensity: hit.intensity, sharpness: hit.sharpness, origin: kind)
        }
        let haptic = HapticView(
            offset: session.settings.from, duration: edited.haptics.duration, transients: transients,
            stretches: edited.haptics.stretches.map {
                .init(start: $0.start, end: $0.end, intensity: $0.intensity.map { [$0.time, $0.value] }, sharpness: $0.sharpness.map { [$0.time, $0.value] })
            })
        let info = session.result.info
        return SoundView(
            name: name, output: StudioFolder.outputName(name, fileExtension: "ahap"), settings: session.settings,
            sound: .init(duration: info.duration, sampleRate: info.sampleRate, channels: info.channels), haptic: haptic,
            ladder: session.ladder.rungs.map { .init(sensitivity: ($0.sensitivity * 100).rounded(), times: $0.times) },
            edits: .init(count: layer.count, orphans: edited.orphans, canUndo: session.history.canUndo, canRedo: session.history.canRedo, layer: layer),
            notes: session.result.notes, unsaved: session.unsaved)
    }
}
