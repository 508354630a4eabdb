import ArgumentParser
import HapticKit
import Testing

@testable import HapticCLI

/// Locking memory is a process-wide effect: off in the library, asked for by the CLI's live
/// verbs (play, rhythm, serve), and said in --verbose.
@Suite("Memory locking")
struct MemoryLockTests {
    @Test("play, rhythm and serve ask for their memory to be locked; the library's default is off")
    func liveVerbsAskForIt() throws {
        let play = try #require(try Hapticsynth.parseAsRoot(["play", "x.ahap"]) as? Play)
        #expect(play.live.playerConfiguration(layout: .hapticMono, profile: .bassShaker, rate: 48_000).lockMemory)
        #expect(!LivePlayer.Configuration(
            output: .alsa("default"), layout: .hapticMono, profile: .bassShaker, sampleRate: 48_000, periodFrames: 256,
            bufferPeriods: 3).lockMemory)

        let rhythm = try #require(try Hapticsynth.parseAsRoot(["rhythm", "--haptic-device", "b"]) as? Rhythm)
        let rhythmConfig = rhythm.managerConfiguration(
            haptics: "h", assets: "a", output: .alsa("b"), audioOutput: .alsa("default"), beats: 4)
        #expect(rhythmConfig.lockMemory && rhythmConfig.engine.lockMemory && rhythmConfig.audioEngine.lockMemory)

        let serve = try #require(try Hapticsynth.parseAsRoot(["serve"]) as? Serve)
        #expect(serve.managerConfiguration(haptics: "h", assets: "a").lockMemory)

        let library = HapticManager.Configuration(hapticsFolder: "h", assetsFolder: "a", audioOutput: .alsa("b"))
        #expect(!library.lockMemory && !library.engine.lockMemory && !library.audioEngine.lockMemory)
    }

    @Test("--verbose says the memory is locked")
    func verboseSaysSo() throws {
        let play = try #require(try Hapticsynth.parseAsRoot(["play", "--verbose", "x.ahap"]) as? Play)
        var output = CapturedOutput()
        play.live.reportMemoryLock(into: &output)
        #expect(output.standardOutput.hasPrefix("memory: locked while playing live (mlockall"))
    }
}
