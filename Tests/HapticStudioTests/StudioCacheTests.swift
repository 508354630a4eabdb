import Foundation
import HapticKit
import Testing

@testable import HapticStudioCore

@Suite("Studio: the first view without the ladder; analyses cached by file and settings")
struct StudioCacheTests {
    @Test("opening a sound analyses it once, without the ladder; the ladder is its own request, sensitivityLadder's rungs")
    func ladderApart() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        let opened = try await studio.open("clicks.wav")
        #expect(opened.ladder == nil)
        #expect(await studio.analysesRun == 1)
        let ladder = try await studio.ladder("clicks.wav")
        #expect(await studio.analysesRun == 2)
        let expected = try SoundConversion.sensitivityLadder(
            soundAt: folder.path + "/clicks.wav", options: SoundConversionOptions(), sensitivities: Studio.ladderSensitivities)
        #expect(ladder.rungs.map(\.times) == expected.rungs.map(\.times))
        #expect(ladder.rungs.map(\.sensitivity) == (0...10).map { Double($0 * 10) })
        #expect(Set(ladder.rungs.map(\.times.count)).count > 1)
        // Once made, the view carries it; a slider move keeps it without making it again.
        var moved = StudioSettings()
        moved.sensitivity = 80
        #expect(try await studio.analyse("clicks.wav", settings: moved).ladder?.map(\.times) == expected.rungs.map(\.times))
        _ = try await studio.ladder("clicks.wav")
        #expect(await studio.analysesRun == 3)
        // Another setting: the ladder is made again when asked for.
        moved.minGap = 200
        #expect(try await studio.analyse("clicks.wav", settings: moved).ladder == nil)
    }

    @Test("settings already analysed come from the cache; a file changed on disk is analysed again")
    func cache() async throws {
        let folder = try SoundFolder()
        defer { folder.remove() }
        let studio = try Studio(folder: try StudioFolder(path: folder.path))
        let first = try await studio.open("clicks.wav")
        var other = StudioSettings()
        other.sensitivity = 90
        _ = try await studio.analyse("clicks.wav", settings: other)
        #expect(await studio.analysesRun == 2)
        let back = try await studio.analyse("clicks.wav", settings: StudioSettings())
        #expect(await studio.analysesRun == 2)
        #expect(back.haptic.transients.map(\.time) == first.haptic.transients.map(\.time))
        _ = try await studio.analyse("clicks.wav", settings: other)
        _ = try await studio.open("clicks.wav")
        #expect(await studio.analysesRun == 2)
        let pattern = try await studio.pattern("clicks.wav")

        // The same bytes, a new modification time: analysed again (and only once).
        let path = folder.path + "/clicks.wav"
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: path)
        #expect(try await studio.pattern("clicks.wav") == pattern)
        #expect(await studio.analysesRun == 3)
        _ = try await studio.open("clicks.wav")
        #expect(await studio.analysesRun == 3)

        // Other contents: the view and the waveform are the new file's.
        let waveform = try studio.waveform("clicks.wav")
        try SoundFolder.wav(clicks: [0.9]).write(to: folder.url.appendingPathComponent("clicks.wav"))
        let changed = try await studio.open("clicks.wav")
        #expect(await studio.analysesRun == 4)
        #expect(changed.haptic.transients.count < first.haptic.transients.count)
        #expect(try studio.waveform("clicks.wav").rms.count < waveform.rms.count)
    }

    @Test("the cache keeps to its bound in bytes, dropping the least recently used")
    func bound() {
        var cache = ByteBoundedCache<String, Int>(capacity: 100)
        cache.insert(1, bytes: 40, for: "a")
        cache.insert(2, bytes: 40, for: "b")
        #expect(cache.value("a") == 1)
        cache.insert(3, bytes: 40, for: "c")
        #expect(cache.value("b") == nil && cache.value("a") == 1 && cache.value("c") == 3)
        #expect(cache.bytes == 80)
        cache.insert(4, bytes: 101, for: "d")
        #expect(cache.value("d") == nil && cache.bytes <= 100)
        cache.insert(5, bytes: 100, for: "e")
        #expect(cache.count == 1 && cache.bytes == 100)
    }
}
