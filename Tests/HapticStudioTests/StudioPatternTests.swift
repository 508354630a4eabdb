import Foundation
import HapticKit
import Testing

@testable import HapticStudioCore

@Suite("Studio: a pattern file of no sound, opened, edited and saved in place")
struct StudioPatternTests {
    @Test("listed openable, drawn as its conversion was, edited, saved over itself; a sound's own pattern opens with its sound")
    func ownPattern() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        let converted = try await studio.open("clicks.wav")
        try await studio.pattern("clicks.wav").write(toFile: folder.path + "/own.ahap", atomically: true, encoding: .utf8)
        _ = try await studio.save("clicks.wav", haptic: false)

        let listed = Dictionary(uniqueKeysWithValues: await studio.list().map { ($0.name, $0.openable) })
        #expect(listed == ["clicks.wav": true, "clicks.ahap": false, "own.ahap": true])
        await #expect(throws: StudioError.self) { try await studio.open("clicks.ahap") }

        let opened = try await studio.open("own.ahap")
        #expect(opened.kind == "pattern" && opened.ladder?.isEmpty == true && opened.sound.channels == 0)
        let hits = opened.haptic.transients, analysed = converted.haptic.transients
        #expect(hits.count == analysed.count && hits.count >= 2)
        for (hit, original) in zip(hits, analysed) {
            #expect(abs(hit.time - original.time) < 1e-3 && abs(hit.intensity - original.intensity) < 0.01 && abs(hit.sharpness - original.sharpness) < 0.01)
        }
        #expect(opened.haptic.stretches.count == converted.haptic.stretches.count)
        // No conversion: settings and the ladder are refused, and nothing changes.
        await #expect(throws: StudioError.self) { try await studio.analyse("own.ahap", settings: StudioSettings()) }
        await #expect(throws: StudioError.self) { try await studio.ladder("own.ahap") }

        let edited = try await studio.edit("own.ahap", EditOperation(op: .deleteTransient, index: 0))
        #expect(edited.haptic.transients.count == hits.count - 1 && edited.unsaved && edited.edits.canUndo)
        let saved = try await studio.save("own.ahap", haptic: false)
        #expect(saved.written == ["own.ahap"] && saved.perSound == nil && saved.edited)
        let text = try String(contentsOfFile: folder.path + "/own.ahap", encoding: .utf8)
        let decoded = try AHAPPattern.decode(text: text, options: .init(strict: true))
        guard case .object(let metadata)? = decoded.pattern.metadata else { Issue.record("no metadata"); return }
        #expect(metadata.contains { $0.key == "Edited" && $0.value == .bool(true) })
        #expect(!metadata.contains { $0.key == "StudioEdits" })
        // The session goes on from what it saved (no reload of its own write); a new one opens the saved file.
        #expect(try await studio.undo("own.ahap").haptic.transients.count == hits.count)
        let reopened = try await Studio(folder: try StudioFolder(path: folder.path)).open("own.ahap")
        #expect(reopened.haptic.transients.map(\.time) == Array(hits.dropFirst()).map(\.time))
        #expect(reopened.edits.count == 0)
        // The sound was never written.
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("clicks.wav")) == SoundFolder.wav(clicks: [0.9, 0.5, 0.25, 0.1]))
    }

    @Test("a hit's values are its event's with the controls at its time; curves as they play")
    func controls() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let text = """
            {"Version": 1, "Pattern": [
              {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1,
                "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.3}]}},
              {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0,
                "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 1, "ParameterValue": 0.5}]}},
              {"Event": {"Time": 0.5, "EventType": "HapticTransient",
                "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.6}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.9}]}}
            ]}
            """
        try text.write(toFile: folder.path + "/designed.ahap", atomically: true, encoding: .utf8)
        let view = try await Studio(folder: try StudioFolder(path: folder.path)).open("designed.ahap")
        #expect(view.haptic.transients.count == 1)
        #expect(abs(view.haptic.transients[0].intensity - 0.6 * 0.75) < 1e-6 && abs(view.haptic.transients[0].sharpness - 0.9) < 1e-6)
        #expect(view.haptic.stretches.count == 1)
        let intensity = view.haptic.stretches.first?.intensity ?? []
        #expect(intensity.contains { abs($0[0]) < 1e-9 && abs($0[1] - 0.8) < 1e-6 })
        #expect(intensity.contains { abs($0[0] - 1) < 1e-9 && abs($0[1] - 0.4) < 1e-6 })
        #expect((view.haptic.stretches.first?.sharpness ?? []).allSatisfy { abs($0[1] - 0.3) < 1e-6 })
    }

    @Test("a file that is not a pattern: one line naming it, nothing changes")
    func badPattern() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let bad = "{\"Version\": 1, \"Pattern\": [{\"Event\": {\"Time\": \"soon\"}}"
        try bad.write(toFile: folder.path + "/bad.ahap", atomically: true, encoding: .utf8)
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        #expect(await studio.list().contains { $0.name == "bad.ahap" && $0.openable })
        for attempt in 0..<2 {
            do {
                _ = attempt == 0 ? try await studio.open("bad.ahap") : try await studio.edit("bad.ahap", EditOperation(op: .deleteTransient, index: 0))
                Issue.record("bad.ahap opened")
            } catch {
                #expect(error.status == 400 && error.description.contains("\"bad.ahap\"") && !error.description.contains("\n"), "\(error)")
            }
        }
        await #expect(throws: StudioError.self) { try await studio.save("bad.ahap", haptic: true) }
        #expect(try String(contentsOfFile: folder.path + "/bad.ahap", encoding: .utf8) == bad)
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/bad.haptic"))
        #expect(await studio.patterns.isEmpty)
    }
}
