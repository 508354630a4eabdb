// A pattern file opened on its own: an .ahap with no sound of its stem beside it, the designer's
// own file. It is drawn and edited as a conversion is, the edit layer laid over the pattern as
// loaded (PatternImport) instead of over an analysis; it has no settings, ladder or sound.
// Saving writes the edited pattern over the file it was opened from (an editor saves the file it
// opened; a temporary file renamed when complete, never through a symbolic link), keeping its
// metadata and marking it "Edited". The layer itself is not stored: the saved file is the next
// session's starting point. A sound's own pattern opens with its sound, not here.

import Foundation
import HapticCLI
import HapticKit

/// A pattern file being edited.
struct PatternSession {
    var name: String
    var path: String
    /// The file as loaded (or as last saved): a request finding it changed on disk loads it again.
    var stamp: FileStamp
    var base: ConvertedHaptics
    var metadata: JSONValue?
    var notes: [String]
    var history = EditHistory()
    var unsaved = false
}

extension Studio {
    /// The files opened as patterns (.haptic files are listed only).
    nonisolated static func isPatternName(_ name: String) -> Bool { (name as NSString).pathExtension.lowercased() == "ahap" }

    func refusePattern(_ name: String, _ what: String) throws(StudioError) {
        if Self.isPatternName(name) { throw .bad("\(StudioFolder.quoted(name)): a pattern \(what) (it is edited as it is)") }
    }

    /// The pattern's session, loaded on the first request and again when the file changed on disk
    /// (its edits kept, laid over the file as it is now). A file that is not a readable pattern
    /// is refused with one line; nothing is kept of it.
    func openedPattern(_ name: String) throws(StudioError) -> PatternSession {
        let path = try folder.existingFile(name)
        let stamp = try Self.stamp(path, name)
        if let session = patterns[name], session.stamp == stamp { return session }
        let stem = (name as NSString).deletingPathExtension
        for ext in StudioFolder.soundExtensions.sorted() {
            for candidate in [stem + "." + ext, stem + "." + ext.uppercased()] where (try? folder.existingFile(candidate)) != nil {
                throw .bad("\(StudioFolder.quoted(name)): the pattern of \(StudioFolder.quoted(candidate)); open the sound to edit it")
            }
        }
        guard stamp.size <= PatternImport.maxBytes, let bytes = FileManager.default.contents(atPath: path) else {
            throw .bad("\(StudioFolder.quoted(name)): not readable, or larger than \(PatternImport.maxBytes >> 20) MiB")
        }
        let decoded: DecodedAHAP
        do { decoded = try AHAPPattern.decode(from: [UInt8](bytes)) } catch {
            throw .bad("\(StudioFolder.quoted(name)): not a pattern the studio can open (\(error))")
        }
        let (base, notes) = PatternImport.haptics(of: decoded.pattern)
        var session = PatternSession(name: name, path: path, stamp: stamp, base: base, metadata: decoded.pattern.metadata, notes: notes)
        if let old = patterns[name] { (session.history, session.unsaved) = (old.history, old.unsaved) }
        patterns[name] = session
        return session
    }

    func patternView(_ session: PatternSession) -> SoundView {
        let layer = session.history.layer
        let (haptic, orphans) = publishedView(session.name, base: session.base, layer: layer, offset: 0)
        return SoundView(
            name: session.name, kind: "pattern", output: session.name, settings: StudioSettings(),
            sound: .init(duration: session.base.duration, sampleRate: 0, channels: 0), haptic: haptic, ladder: [],
            edits: .init(count: layer.count, orphans: orphans, canUndo: session.history.canUndo, canRedo: session.history.canRedo, layer: layer),
            notes: session.notes, unsaved: session.unsaved)
    }

    /// An edit, undo or redo of the pattern's history.
    func editPattern(
        _ name: String, _ change: (inout EditHistory, EditedHaptics, Double) throws(StudioError) -> Void
    ) throws(StudioError) -> SoundView {
        var session = try openedPattern(name)
        try change(&session.history, session.history.layer.applied(to: session.base), session.base.duration)
        session.unsaved = true
        patterns[name] = session
        return patternView(session)
    }

    /// The pattern as it would be saved: its metadata kept, "Edited" set once it has edits.
    func patternText(_ session: PatternSession, format: String) throws(StudioError) -> String {
        guard let chosen = Convert.OutputFormat(name: format) else { throw .bad("format \(format): expected ahap or haptic") }
        let layer = session.history.layer
        let edited = layer.applied(to: session.base).haptics
        switch chosen {
        case .ahap:
            var members: [(key: String, value: JSONValue)] = []
            if case .object(let pairs)? = session.metadata { members = pairs.filter { $0.key != Self.editedKey } }
            if layer.count > 0 { members.append((Self.editedKey, .bool(true))) }
            let pattern = edited.ahapPattern(metadata: members.isEmpty && session.metadata == nil ? nil : .object(members))
            do { _ = try pattern.validate(options: .init(strict: true)) } catch {
                throw StudioError(500, "\(StudioFolder.quoted(session.name)): the edited pattern does not pass strict validation (\(error))")
            }
            return pattern.encoded()
        case .haptic:
            let description = "\(session.name)" + (layer.count > 0 ? " (edited in hapticsynth studio)" : "")
            return edited.hapticClip(metadata: .init(editor: ConversionRequest.editor, source: session.name, description: description)).encoded()
        }
    }

    /// Writes the edited pattern over the file it was opened from (and NAME.haptic beside it with
    /// `haptic`), each through a temporary file renamed when complete.
    func savePattern(_ name: String, haptic: Bool) throws(StudioError) -> SaveResult {
        let session = try openedPattern(name)
        var files = [(name: name, path: try folder.writablePath(name), text: try patternText(session, format: "ahap"))]
        if haptic {
            let clipName = StudioFolder.outputName(name, fileExtension: "haptic")
            files.append((clipName, try folder.writablePath(clipName), try patternText(session, format: "haptic")))
        }
        do {
            for file in files { try TextFileWriter.write(file.text, to: file.path, inputs: []) }
        } catch {
            throw StudioError(500, error.description)
        }
        // The file now holds what the session shows: its new stamp is not a change from outside.
        patterns[name]?.stamp = FileStamp(path: session.path) ?? session.stamp
        patterns[name]?.unsaved = false
        return SaveResult(written: files.map(\.name), perSound: nil, edited: session.history.layer.count > 0)
    }
}
