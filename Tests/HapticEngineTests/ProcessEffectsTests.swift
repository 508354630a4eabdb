import Foundation
import HapticEngineTesting
import HapticTestSupport
import Testing

@testable import HapticEngine

/// An engine changes nothing process-wide unless its configuration asks for it.
@Suite struct ProcessEffectsTests {
    /// VmLck of this process (kB), from /proc/self/status.
    static func lockedKilobytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmLck:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    @Test func memoryLockingIsOffByDefault() throws {
        #expect(HapticEngine.Configuration().lockMemory == false)
        #expect(HapticEngine.Configuration(layout: .stereoPlusHaptic).lockMemory == false)
        // A render-thread engine started with the default configuration locks nothing (as root,
        // mlockall would succeed: VmLck would be the whole process).
        let factory = DeviceFactory(clock: .monotonic)
        var configuration = HapticEngine.Configuration(periodFrames: 256, bufferPeriods: 3)
        configuration.realtimePriority = nil
        let engine = HapticEngine(configuration: configuration) { factory.make() }
        try engine.start()
        #expect(waitUntil(seconds: 10) { engine.renderStatistics.periods > 0 }, "the render thread runs")
        #expect(engine.isMemoryLocked == false)
        let locked = try Self.lockedKilobytes()
        #expect(locked == 0, "VmLck \(locked) kB")
        engine.stop()
    }
}
