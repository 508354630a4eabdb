import HapticEngineTesting
import HapticPattern
import HapticRender
import Synchronization
import Testing

@testable import HapticEngine

/// HapticEngineTesting's recording device: any rate and channel count, every frame to the sink,
/// time moving as a device that waits for room would move it.
@Suite struct RecordingOutputDeviceTests {
    final class Sink: @unchecked Sendable {  // used by the one test thread that drives the engine
        var samples: [Float] = []
        var failAfter: Int? = nil
        struct Full: Error, CustomStringConvertible { var description: String { "disk full" } }
        func take(_ chunk: UnsafeBufferPointer<Float>) throws {
            if let limit = failAfter, samples.count >= limit { throw Full() }
            samples += chunk
        }
    }

    @Test(arguments: [(44_100, ChannelLayout([.audioLeft(gain: 1), .haptic(gain: 1)])), (96_000, ChannelLayout.hapticMono),
                      (48_000, ChannelLayout.stereoPlusHaptic)])
    func recordsEveryFrameAtAnyRateAndLayout(rate: Int, layout: ChannelLayout) throws {
        let clock = ManualClock(nanos: 0)
        let sink = Sink()
        let device = RecordingOutputDevice(clock: clock, channels: layout.channels, sampleRate: rate) { try sink.take($0) }
        let configuration = HapticEngine.Configuration.manual(
            clock: clock, base: HapticEngine.Configuration(layout: layout, sampleRate: rate, periodFrames: 128, bufferPeriods: 3))
        let engine = HapticEngine(configuration: configuration) { device }
        try engine.start()
        let player = try engine.makePlayer(with: try preparedTransient(engine))
        try player.start(atTime: 0)
        for _ in 0..<20 { engine.renderOnePeriod() }
        #expect(sink.samples.count == 20 * 128 * layout.channels)
        #expect(sink.samples.contains { $0 != 0 }, "the pattern reached the sink")
        // The 20th write waited for room: the clock is where 17 periods have played.
        #expect(clock.nanos == Int64((Double(17 * 128) * 1e9 / Double(rate)).rounded()))
        engine.stop()
    }

    @Test func refusesAnotherFormatAndReportsASinkFailure() throws {
        let clock = ManualClock(nanos: 0)
        let sink = Sink()
        let stereo = RecordingOutputDevice(name: "offline file", clock: clock, channels: 3, sampleRate: 48_000) { try sink.take($0) }
        let mono = HapticEngine(configuration: .manual(clock: clock)) { stereo }
        #expect(throws: HapticEngineError.deviceUnavailable(DeviceOpenError(
            device: "offline file", message: "the offline file is 3 channels at 48000 Hz"))) { try mono.start() }

        sink.failAfter = 256 * 4
        let device = RecordingOutputDevice(clock: clock) { try sink.take($0) }
        let engine = HapticEngine(configuration: .manual(clock: clock, base: .init(periodFrames: 256))) { device }
        try engine.start()
        var outcomes: [PeriodOutcome] = []
        for _ in 0..<6 { outcomes.append(engine.renderOnePeriod()) }
        #expect(outcomes.prefix(4).allSatisfy { $0 == .rendered })
        #expect(outcomes[4] == .deviceLost(.gone("disk full")))
        #expect(device.error == "disk full")
        #expect(sink.samples.count == 256 * 4)
    }
}
