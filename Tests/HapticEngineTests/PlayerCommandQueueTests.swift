import HapticEngineTesting
import HapticPattern
import Testing

@testable import HapticEngine

/// A player setting that cannot reach the render thread is an error the caller sees, not a
/// silent drop (the setters used `try?`).
@Suite struct PlayerCommandQueueTests {
    /// A playing advanced player on an engine whose command queue (64, the smallest) is full:
    /// nothing is rendered, so nothing drains it.
    static func playerWithFullQueue() throws -> (HapticEngine, AdvancedPatternPlayer) {
        let (engine, _, clock) = makeManualEngine { $0.commandCapacity = 1 }
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: try preparedTransient(engine))
        try player.start(atTime: clock.seconds + 10)
        let one = DynamicParameter(.hapticIntensityControl, time: 0, value: 0.5)
        var sent = 0
        while sent < 10_000 {
            do { try player.sendParameters([one], atTime: 0) } catch { break }
            sent += 1
        }
        #expect(sent > 0 && sent < 10_000, "the queue filled after \(sent) commands")
        #expect(throws: HapticEngineError.commandQueueFull) { try player.sendParameters([one], atTime: 0) }
        return (engine, player)
    }

    @Test func settersThrowCommandQueueFullWhenTheQueueIsFull() throws {
        let (engine, player) = try Self.playerWithFullQueue()
        #expect(throws: HapticEngineError.commandQueueFull) { try player.setMuted(true) }
        #expect(throws: HapticEngineError.commandQueueFull) { try player.setPlaybackRate(1.5) }
        #expect(throws: HapticEngineError.commandQueueFull) { try player.setLoopEnabled(true) }
        #expect(throws: HapticEngineError.commandQueueFull) { try player.setLoopEnd(0.2) }
        // The settings are kept for later starts all the same.
        #expect(player.isMuted && player.playbackRate == 1.5 && player.loopEnabled && player.loopEnd == 0.2)
        // Once the render side drains the queue, the same calls go through.
        engine.renderOnePeriod()
        try player.setMuted(false)
        try player.setPlaybackRate(1)
    }

    @Test func settersWithoutAPlaybackKeepTheSettingForTheNextStart() throws {
        let (engine, _, _) = makeManualEngine()
        try engine.start()
        let player = try engine.makeAdvancedPlayer(with: try preparedTransient(engine))
        try player.setMuted(true)
        try player.setPlaybackRate(0)  // clamped
        #expect(player.isMuted && player.playbackRate == 0.01)
        try player.start(atTime: 0)
        engine.renderOnePeriod()
        #expect(engine.core.appliedCommands().map(\.kind) == [.start], "the settings travel with the start, not as commands")
    }
}
