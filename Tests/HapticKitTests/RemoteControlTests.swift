import Foundation
import HapticEngine
import HapticEngineTesting
import HapticPattern
import HapticTestSupport
import Testing

@testable import HapticKit

/// HapticRemoteControl (loops under client ids) and `reloadLibrary()` on a virtual device
/// driven by hand. The same through a real server: HapticOSCTests' ServeRigTests.
@Suite("Remote control and library reload (virtual device)")
struct RemoteControlTests {
    /// A copy of Haptics/ and Assets/cues.json in a temporary folder, and a manager on them.
    final class Fixture {
        let folder: String
        let rig: ManualClock = ManualClock()
        let manager: HapticManager
        init() throws {
            folder = NSTemporaryDirectory() + "hapticsynth-remote-\(UUID().uuidString)"
            let fm = FileManager.default
            try fm.createDirectory(atPath: folder + "/Haptics", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: folder + "/Assets", withIntermediateDirectories: true)
            for file in try fm.contentsOfDirectory(atPath: kitHaptics) where file.hasSuffix(".ahap") {
                try fm.copyItem(atPath: kitHaptics + "/" + file, toPath: folder + "/Haptics/" + file)
            }
            try fm.copyItem(atPath: kitAssets + "/cues.json", toPath: folder + "/Assets/cues.json")
            try fm.createSymbolicLink(atPath: folder + "/Assets/sfx", withDestinationPath: kitAssets + "/sfx")
            let clock = rig
            var config = HapticManager.Configuration(
                hapticsFolder: folder + "/Haptics", assetsFolder: folder + "/Assets",
                output: .device({ VirtualOutputDevice(name: "virtual", clock: .manual(clock)) }))
            config.engine = .manual(clock: clock, base: config.engine)
            manager = HapticManager(configuration: config)
            manager.preloadPatterns()
        }
        deinit {
            manager.shutDown()
            try? FileManager.default.removeItem(atPath: folder)
        }
        func render(_ periods: Int) { for _ in 0..<periods { manager.currentEngine?.renderOnePeriod() } }
    }

    @Test("loops live under client ids: control by id, unknown ids counted, a second start replaces, stopAll ends everything")
    func loopsByID() throws {
        let f = try Fixture()
        let remote = HapticRemoteControl(manager: f.manager, maxLoops: 2)
        remote.startLoop(id: "a", pattern: "heartbeat", intensity: 0.5)
        remote.startLoop(id: "b", pattern: "thud")
        f.render(4)
        #expect(remote.loopIDs == ["a", "b"])
        remote.setIntensity(id: "a", 0.25)
        remote.sendCurve(id: "a", parameter: .hapticIntensityControl, points: [(0, 1), (0.5, 0)], atTime: 0)
        #expect(remote.loopRequests.first { $0.id == "a" }?.intensity == 0.25)
        remote.setIntensity(id: "zz", 1)
        remote.stopLoop(id: "zz")
        #expect(remote.statistics.unknownLoopIDs == 2)
        remote.startLoop(id: "c", pattern: "heartbeat")
        #expect(remote.statistics.loopsRefused == 1, "at most 2 loops")
        remote.startLoop(id: "a", pattern: "thud")  // replaces a
        #expect(remote.loopRequests.map(\.pattern) == ["thud", "thud"])
        remote.play("heartbeat", atTime: 0)
        remote.play(cue: "beat_hit", atTime: 0)
        f.render(4)
        #expect((f.manager.currentEngine?.activeVoiceCount ?? 0) >= 4)
        remote.stopAll()
        f.render(40)
        #expect(remote.loopIDs.isEmpty)
        #expect(f.manager.currentEngine?.activeVoiceCount == 0)
    }

    @Test("reloadLibrary: a new pattern plays, a removed one is unknown, a broken cue sheet is reported and the old one kept")
    func reload() throws {
        let f = try Fixture()
        let engine = try #require(f.manager.currentEngine)
        let started0 = f.manager.statistics.voicesStarted
        f.manager.play("fresh")
        #expect(f.manager.statistics.unknownNames == 1)
        try FileManager.default.copyItem(atPath: f.folder + "/Haptics/thud.ahap", toPath: f.folder + "/Haptics/fresh.ahap")
        try FileManager.default.removeItem(atPath: f.folder + "/Haptics/heartbeat.ahap")
        let report = f.manager.reloadLibrary()
        #expect(report.engineUpdated && report.cueSheetProblem == nil)
        f.manager.play("fresh")
        f.manager.play("heartbeat")
        #expect(f.manager.statistics.voicesStarted == started0 + 1)
        #expect(f.manager.statistics.unknownNames == 2)
        #expect(f.manager.currentEngine === engine, "the same engine: the stream was not dropped")
        // beat_hit names heartbeat, now gone: the cue is skipped; a broken sheet keeps the old one.
        try "{ not json".write(toFile: f.folder + "/Assets/cues.json", atomically: true, encoding: .utf8)
        let broken = f.manager.reloadLibrary()
        #expect(broken.cueSheetProblem != nil)
        #expect(f.manager.cueSheet["segment_lock"] != nil, "the previous cue sheet is kept")
        f.manager.play(cue: "segment_lock")
        #expect(f.manager.statistics.voicesStarted == started0 + 2)
    }
}
