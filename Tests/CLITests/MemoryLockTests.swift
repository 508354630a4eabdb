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
        #expect(serve.managerConfiguration(haptics: "h", assets: "a", profile: .bassShaker).lockMemory)

        let library = HapticManager.Configuration(hapticsFolder: "h", assetsFolder: "a", audioOutput: .alsa("b"))
        #expect(!library.lockMemory && !library.engine.lockMemory && !library.audioEngine.lockMemory)
    }

    @Test("--no-realtime: play, rhythm, serve and follow ask for no SCHED_FIFO render thread and lock no memory; without it they do")
    func noRealtime() throws {
        for realtime in [true, false] {
            let flag = realtime ? [] : ["--no-realtime"]
            let play = try #require(try Hapticsynth.parseAsRoot(["play"] + flag + ["x.ahap"]) as? Play)
            let follow = try #require(try Hapticsynth.parseAsRoot(["follow", "-C", "c"] + flag) as? Follow)
            for live in [play.live, follow.live] {
                let player = live.playerConfiguration(layout: .hapticMono, profile: .bassShaker, rate: 48_000)
                #expect(player.lockMemory == realtime && (player.realtimePriority != nil) == realtime, "\(flag): \(player.realtimePriority as Any)")
            }
            let rhythm = try #require(try Hapticsynth.parseAsRoot(["rhythm", "--haptic-device", "b"] + flag) as? Rhythm)
            let serve = try #require(try Hapticsynth.parseAsRoot(["serve"] + flag) as? Serve)
            for manager in [
                rhythm.managerConfiguration(haptics: "h", assets: "a", output: .alsa("b"), audioOutput: .alsa("default"), beats: 4),
                serve.managerConfiguration(haptics: "h", assets: "a", profile: .bassShaker),
            ] {
                #expect(manager.lockMemory == realtime && manager.engine.lockMemory == realtime && manager.audioEngine.lockMemory == realtime)
                #expect((manager.engine.realtimePriority != nil) == realtime && (manager.audioEngine.realtimePriority != nil) == realtime)
            }
            var output = CapturedOutput()
            play.live.reportMemoryLock(into: &output)
            #expect(output.standardOutput.hasPrefix(realtime ? "memory: locked" : "memory: not locked"), "\(output.standardOutput)")
        }
    }

    @Test("play -D null --no-realtime: the render thread ran at normal scheduling and no memory was locked (the engine's own report)")
    func noRealtimePlays() throws {
        let run = try LiveProcess(["play", "-D", "null", "--no-realtime", "--verbose", heartbeatPath])
        #expect(run.waitForExit(timeout: 120) == 0, "\(run.stderr)")
        #expect(run.stdout.contains("realtime scheduling: no") && run.stdout.contains("memory: not locked"), "\(run.stdout)")
    }

    @Test("--verbose says the memory is locked")
    func verboseSaysSo() throws {
        let play = try #require(try Hapticsynth.parseAsRoot(["play", "--verbose", "x.ahap"]) as? Play)
        var output = CapturedOutput()
        play.live.reportMemoryLock(into: &output)
        #expect(output.standardOutput.hasPrefix("memory: locked while playing live (mlockall"))
    }
}
