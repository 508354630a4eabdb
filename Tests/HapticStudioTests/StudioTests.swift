import Foundation
import HapticCLI
import Testing

@testable import HapticStudioCore

/// A temporary folder holding a mono 16-bit WAV of a low hum with clicks of falling strength.
struct SoundFolder {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("studio-tests.\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Self.wav(clicks: [0.9, 0.5, 0.25, 0.1]).write(to: url.appendingPathComponent("clicks.wav"))
    }

    func remove() { try? FileManager.default.removeItem(at: url) }

    static func wav(clicks: [Double], rate: Int = 48_000) -> Data {
        var samples: [Int16] = []
        let segment = rate * 4 / 10
        for (n, level) in ([0] + clicks).enumerated() {
            for i in 0..<segment {
                var x = 0.15 * sin(2 * Double.pi * 70 * Double(i) / Double(rate))
                if n > 0 && i < rate / 250 { x += (i / 20) % 2 == 0 ? level : -level }
                samples.append(Int16(max(-1, min(1, x)) * 32767))
            }
        }
        var data = Data()
        func u32(_ v: Int) { withUnsafeBytes(of: UInt32(v).littleEndian) { data.append(contentsOf: $0) } }
        func u16(_ v: Int) { withUnsafeBytes(of: UInt16(v).littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); u32(36 + samples.count * 2); data.append(contentsOf: Array("WAVEfmt ".utf8))
        u32(16); u16(1); u16(1); u32(rate); u32(rate * 2); u16(2); u16(16)
        data.append(contentsOf: Array("data".utf8)); u32(samples.count * 2)
        for s in samples { withUnsafeBytes(of: s.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }
}

@Suite("Studio: the folder, edits, saving (in process)")
struct StudioTests {
    @Test("names that leave the folder are refused")
    func names() throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let outside = folder.url.deletingLastPathComponent().appendingPathComponent("outside-\(UUID().uuidString).wav")
        try Data("x".utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/link.wav", withDestinationPath: outside.path)
        let studioFolder = try StudioFolder(path: folder.path)
        for name in ["../x.wav", "/etc/passwd", "a//b.wav", "./clicks.wav", ".hidden", "a\u{1}.wav", "", "a\\b"] {
            #expect(throws: StudioError.self) { try StudioFolder.checkedName(name) }
        }
        #expect(throws: StudioError.self) { try studioFolder.existingFile("link.wav") }
        #expect(throws: StudioError.self) { try studioFolder.writablePath("link.wav") }
        #expect(try studioFolder.existingFile("clicks.wav") == studioFolder.root + "/clicks.wav")
        #expect(studioFolder.entries().map(\.name) == ["clicks.wav"])
    }

    @Test("an unedited sound's pattern is convert's, byte for byte; saving writes it and the --per-sound line")
    func sameAsConvert() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        var settings = StudioSettings()
        settings.sensitivity = 30
        settings.gain = -3
        let view = try await studio.analyse("clicks.wav", settings: settings)
        #expect(view.haptic.transients.count >= 2)
        let output = folder.path + "/cli.ahap"
        let convert = try Convert.parse([folder.path + "/clicks.wav", "-o", output, "--sensitivity", "30", "--gain", "-3"])
        var captured = CapturedOutput()
        #expect(try convert.execute(into: &captured) == 0)
        let cli = try String(contentsOfFile: output, encoding: .utf8)
        #expect(try await studio.pattern("clicks.wav") == cli)

        let saved = try await studio.save("clicks.wav", haptic: true)
        #expect(saved.written == ["clicks.ahap", "clicks.haptic"])
        #expect(try String(contentsOfFile: folder.path + "/clicks.ahap", encoding: .utf8) == cli)
        let perSound = try String(contentsOfFile: folder.path + "/haptics.txt", encoding: .utf8)
        #expect(perSound.contains("\nclicks.wav --sensitivity 30 --min-gap 50 --ducking 50 --breakpoints-per-second 40 --gain -3 --channel mix\n"))
        #expect(await studio.list().first { $0.name == "clicks.wav" }?.state == "converted")


        // The ladder after the slider moved (reused) is the ladder made afresh.
        var others = settings
        others.sensitivity = 80
        _ = try await studio.ladder("clicks.wav")
        let moved = try await studio.analyse("clicks.wav", settings: others).ladder?.map(\.times) ?? []
        let freshStudio = try Studio(folder: try StudioFolder(path: folder.path))
        _ = try await freshStudio.analyse("clicks.wav", settings: others)
        let fresh = try await freshStudio.ladder("clicks.wav").rungs.map(\.times)
        #expect(moved == fresh && Set(moved.map(\.count)).count > 1)

        // A new session opens the sound with the settings the file keeps.
        let reopened = try Studio(folder: try StudioFolder(path: folder.path))
        #expect(try await reopened.open("clicks.wav").settings == settings)

        // The gate: a --per-sound line's --gate opens with the sound, and a saved gate is written.
        try "clicks.wav --gate -30\n".write(toFile: folder.path + "/haptics.txt", atomically: true, encoding: .utf8)
        let gateStudio = try Studio(folder: try StudioFolder(path: folder.path))
        #expect(try await gateStudio.open("clicks.wav").settings.gate == -30)
        var gated = settings
        gated.gate = -40
        _ = try await gateStudio.analyse("clicks.wav", settings: gated)
        _ = try await gateStudio.save("clicks.wav", haptic: false)
        #expect(try String(contentsOfFile: folder.path + "/haptics.txt", encoding: .utf8).contains(" --gate -40"))
    }

    @Test("edits are a layer: kept over re-analysis, undone and redone, saved with a mark, reopened")
    func edits() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        let first = try await studio.open("clicks.wav")
        let count = first.haptic.transients.count
        try #require(count >= 2)
        let deletedTime = first.haptic.transients[0].time
        var view = try await studio.edit("clicks.wav", EditOperation(op: .deleteTransient, index: 0))
        view = try await studio.edit("clicks.wav", EditOperation(op: .addTransient, time: 0.05, intensity: 0.4, sharpness: 0.9))
        #expect(view.haptic.transients.count == count)
        #expect(view.haptic.transients.first?.origin == "added")
        #expect(!view.haptic.transients.contains { $0.time == deletedTime })

        // Another sensitivity that keeps the deleted hit: still deleted, the added one still there.
        var settings = StudioSettings()
        settings.sensitivity = 90
        view = try await studio.analyse("clicks.wav", settings: settings)
        #expect(!view.haptic.transients.contains { $0.time == deletedTime })
        #expect(view.haptic.transients.contains { $0.origin == "added" && $0.time == 0.05 })
        #expect(view.edits.count == 2)

        view = try await studio.undo("clicks.wav")
        #expect(view.edits.count == 1 && view.edits.canRedo)
        view = try await studio.redo("clicks.wav")
        #expect(view.edits.count == 2 && !view.edits.canRedo)
        await #expect(throws: StudioError.self) { try await studio.redo("clicks.wav") }

        // Bad edits change nothing.
        for bad in [
            EditOperation(op: .changeTransient, index: 99, intensity: 0.5), EditOperation(op: .addTransient, time: .nan),
            EditOperation(op: .addTransient, time: 1e308), EditOperation(op: .changeTransient, index: 0, intensity: 2),
            EditOperation(op: .addPoint, curve: .intensity, time: 0.1),
        ] {
            await #expect(throws: StudioError.self) { try await studio.edit("clicks.wav", bad) }
        }
        #expect(try await studio.open("clicks.wav").edits.count == 2)

        _ = try await studio.save("clicks.wav", haptic: false)
        let text = try String(contentsOfFile: folder.path + "/clicks.ahap", encoding: .utf8)
        #expect(text.contains("\"Edited\""))
        #expect(await studio.list().first { $0.name == "clicks.wav" }?.state == "edited")
        let reopened = try Studio(folder: try StudioFolder(path: folder.path))
        let again = try await reopened.open("clicks.wav")
        #expect(again.edits.count == 2 && again.haptic.transients.map(\.time) == view.haptic.transients.map(\.time))
    }

    @Test("curve points: moved, added and deleted within a stretch")
    func curvePoints() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        let view = try await studio.open("clicks.wav")
        let stretch = try #require(view.haptic.stretches.first)
        let points = stretch.intensity.count
        let middle = (stretch.start + stretch.end) / 2
        var edited = try await studio.edit("clicks.wav", EditOperation(op: .addPoint, curve: .intensity, time: middle, value: 0.77))
        #expect(edited.haptic.stretches[0].intensity.count == points + 1)
        #expect(edited.haptic.stretches[0].intensity.contains { $0 == [middle, 0.77] })
        edited = try await studio.edit("clicks.wav", EditOperation(op: .changePoint, index: 1, curve: .intensity, value: 0.1))
        #expect(edited.haptic.stretches[0].intensity[1][1] == 0.1)
        edited = try await studio.edit("clicks.wav", EditOperation(op: .deletePoint, index: 1, curve: .intensity))
        #expect(edited.haptic.stretches[0].intensity.count == points)
    }

    @Test("the --per-sound file: the sound's own line replaced at the end, others kept, glob characters escaped")
    func perSoundFile() throws {
        let existing = "# mine\nsteps_*.wav --sensitivity 20\nboom.wav --sensitivity 10\n"
        let text = try PerSoundFile.updated(existing, name: "boom.wav", arguments: ["--sensitivity", "70"])
        #expect(text == "# mine\nsteps_*.wav --sensitivity 20\nboom.wav --sensitivity 70\n")
        #expect(try PerSoundFile.updated(nil, name: "a [1]*.wav", arguments: ["--gain", "-6"]).hasSuffix("\n\"a \\[1]\\*.wav\" --gain -6\n"))
        let parsed = try PerSoundOptions.parse(try PerSoundFile.updated(nil, name: "a [1]*.wav", arguments: ["--gain", "-6"]), path: "t")
        #expect(parsed.arguments(for: "/x/a [1]*.wav") == ["--gain", "-6"])
        #expect(parsed.arguments(for: "/x/a 1x.wav").isEmpty)
    }
}
