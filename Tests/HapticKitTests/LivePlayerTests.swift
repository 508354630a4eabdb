import HapticEngine
import HapticEngineTesting
import Synchronization
import Testing

@testable import HapticKit

/// The engine HapticKit assembles for `play`, on a virtual device paced by the monotonic clock.
@Suite("LivePlayer")
struct LivePlayerTests {
    @Test("plays patterns once, one after another, and reports finished; the first round ends where the patterns do")
    func oneShotFinishes() async throws {
        var config = LivePlayer.Configuration(
            output: .device({ VirtualOutputDevice(name: "virtual", clock: .monotonic) }), layout: .hapticMono,
            profile: .bassShaker, sampleRate: 48_000, periodFrames: 256, bufferPeriods: 3)
        config.engine.realtimePriority = nil
        #expect(!config.lockMemory)
        let player = try LivePlayer(configuration: config)
        let tap = try PreparedPattern(
            AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))]),
            profile: .bassShaker, sampleRate: 48_000)
        let events = Mutex<[String]>([])
        let begin = player.currentTime
        let end = try player.play([tap, tap], loop: false) { event in events.withLock { $0.append("\(event)") } }
        #expect(abs(end - (begin + player.outputLatency + 2 * tap.duration)) < 0.05)
        #expect(player.firstRoundEnd == end)
        let deadline = HapticClock.now() + 5
        while events.withLock({ $0.isEmpty }) && HapticClock.now() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(events.withLock { $0 } == ["finished"])
        #expect(HapticClock.now() >= end - 0.05, "finished before the patterns could have played")
        await player.stop()
    }
}
