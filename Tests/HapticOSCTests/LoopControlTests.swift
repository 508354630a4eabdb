import Foundation
import HapticEngine
import HapticKit
import Testing

@testable import HapticOSC

/// The loop addresses as `serve` plays them (ManagerCommandTarget on a manager whose engine is
/// pulled, so the rendered peaks are deterministic): a curve's first point applies at its time,
/// and a loop started ahead of now strikes its first hit at the intensity it was started with.
@Suite struct LoopControlTests {
    static let rate = 48_000

    static func heartbeatDuration() throws -> Double {
        let decoded = try AHAPPattern.load(file: oscRepoRoot + "/Haptics/heartbeat.ahap")
        return try PreparedPattern(decoded.pattern, profile: .bassShaker, sampleRate: Double(rate)).duration
    }

    final class Fixture {
        let manager: HapticManager
        let target: ManagerCommandTarget
        let engine: HapticEngine
        init() throws {
            var config = HapticManager.Configuration(
                hapticsFolder: oscRepoRoot + "/Haptics", assetsFolder: "",
                output: .device({ PulledOutput(name: "pulled") }), layout: .hapticMono)
            config.engine = .pulled(config.engine)
            manager = HapticManager(configuration: config)
            manager.preloadPatterns()
            target = ManagerCommandTarget(remote: HapticRemoteControl(manager: manager))
            engine = try #require(manager.currentEngine)
        }
        deinit { manager.shutDown() }

        func perform(_ command: OSCCommand) {
            engine.serviceStep()
            _ = target.perform(command, counters: .init())
        }

        /// The peak of the next `seconds` pulled.
        func peak(_ seconds: Double) -> Float {
            let frames = Int(seconds * Double(LoopControlTests.rate))
            var buffer = [Float](repeating: 0, count: frames)
            var done = 0
            while done < frames {
                let n = min(480, frames - done)
                _ = buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress! + done, frames: n) }
                done += n
            }
            return buffer.map(abs).max() ?? 0
        }
    }

    @Test("/hapticsynth/loop/curve: the value jumps to the first point (0 s → 0.1 … 2 s → 1 starts low)")
    func curveStartsAtItsFirstPoint() throws {
        let f = try Fixture()
        f.perform(.loopStart(id: "a", pattern: "heartbeat", intensity: 1, time: 0))
        let duration = try Self.heartbeatDuration()
        let full = f.peak(0.1)  // the first hit at full intensity
        _ = f.peak(duration - 0.15)
        // For the time the loop comes round: the jump lands on the frame of the next pass's
        // first hit, which takes the new value. (Sent for "now" at the wrap, it would land
        // late: the engine has rendered the output stage's look-ahead past now.)
        f.perform(.loopCurve(id: "a", parameter: .hapticIntensityControl,
                             points: [.init(time: 0, value: 0.1), .init(time: 2, value: 1)], time: duration))
        _ = f.peak(0.05)
        let low = f.peak(0.1)  // the next pass's first hit: from 0.1, rising toward 1 over 2 s
        #expect(full > 0.1, "the loop sounds: \(full)")
        #expect(low < full * 0.6, "the curve starts at 0.1: \(low) vs \(full)")
    }

    @Test("/hapticsynth/loop/start ahead of now at intensity 0.2: the first hit as soft as the later ones")
    func startAheadAppliesItsIntensityToTheFirstHit() throws {
        let f = try Fixture()
        let duration = try Self.heartbeatDuration()
        f.perform(.loopStart(id: "a", pattern: "heartbeat", intensity: 0.2, time: 0.5))
        _ = f.peak(0.5)
        let first = f.peak(0.1)
        _ = f.peak(duration - 0.1)
        let later = f.peak(0.1)
        #expect(later > 0.01, "the loop sounds: \(later)")
        #expect(abs(first - later) < later * 0.1, "first hit \(first), later loops \(later)")
    }
}
