import HapticEngine
import HapticEngineTesting
import HapticPattern
import HapticRender
import Synchronization
import Testing

@testable import HapticKit

/// `play --loop` of several files: the playlist's rounds on an engine that refuses them.
@Suite("Looped playlist scheduling")
struct PlaylistTests {
    @Test("a round the engine refuses (command queue full) ends the playlist with the error, not silently")
    func refusedRoundIsReported() async throws {
        let clock = ManualClock()
        // Driven by hand and never driven: nothing renders, the commands stay queued.
        var config = HapticEngine.Configuration.manual(clock: clock, base: HapticEngine.Configuration(layout: .hapticMono))
        config.commandCapacity = 16
        let engine = HapticEngine(configuration: config) { VirtualOutputDevice(name: "virtual", clock: .manual(clock)) }
        try engine.start()
        defer { engine.stop() }
        let tap = try PreparedPattern(
            AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))]),
            profile: config.profile, sampleRate: Double(config.sampleRate))
        // Rounds due long ago: scheduled one after another with no wait in between.
        let playlist = Playlist(patterns: [tap, tap], firstRound: engine.currentTime - 3600)
        let rounds = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        // Bounded: a playlist that swallowed the error would go on until this stops it.
        await playlist.run(
            on: engine,
            while: { rounds.add(1, ordering: .relaxed).newValue <= 200 },
            failed: { why in failures.withLock { $0.append(why) } })
        let reported = failures.withLock { $0 }
        #expect(reported == ["\(HapticEngineError.commandQueueFull)"], "rounds tried: \(rounds.load(ordering: .relaxed))")
        #expect(rounds.load(ordering: .relaxed) < 200)
    }
}

@Suite("Process-wide effects: library defaults")
struct LibraryDefaultsTests {
    @Test("a HapticManager configuration does not lock memory unless asked; asking sets both engines")
    func memoryLockIsOffByDefault() {
        var config = HapticManager.Configuration(hapticsFolder: "h", assetsFolder: "a", audioOutput: .alsa("b"))
        #expect(!config.lockMemory && !config.engine.lockMemory && !config.audioEngine.lockMemory)
        config.lockMemory = true
        #expect(config.engine.lockMemory && config.audioEngine.lockMemory)
        #expect(!LivePlayer.Configuration(
            output: .alsa("default"), layout: .hapticMono, profile: .bassShaker, sampleRate: 48_000, periodFrames: 256,
            bufferPeriods: 3).lockMemory)
    }
}
