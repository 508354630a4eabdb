import CAllocationCounter
import HapticTestSupport
import Testing
@testable import HapticEngine
import HapticPattern
import HapticRender

/// The pull drive: the caller pulls the samples into its own buffer; the clock is the frames pulled.
@Suite struct PullDriveTests {
    static let pattern = AHAPPattern(elements: [
        .event(.transient(at: 0, intensity: 1, sharpness: 0.3)),
        .event(.transient(at: 0.05, intensity: 0.6, sharpness: 0.8)),
        .event(.continuous(at: 0.1, duration: 0.15, intensity: 0.7, sharpness: 0.2)),
        .curve(ParameterCurve(.hapticIntensityControl, time: 0.1, points: [.init(0, 1), .init(0.1, 0.2)])),
    ])

    func pulledEngine(rate: Int = 48_000, period: Int = 256, layout: ChannelLayout = .hapticMono,
                      profile: ActuatorProfile = .bassShaker) throws -> HapticEngine {
        let engine = HapticEngine(pulling: HapticEngine.Configuration(layout: layout, profile: profile, sampleRate: rate,
                                                                      periodFrames: period))
        try engine.start()
        return engine
    }

    /// Pulls `frames` frames in pulls of the given sizes (cycled), as a caller's audio callback would.
    func pull(_ engine: HapticEngine, frames: Int, sizes: [Int]) -> [Float] {
        let channels = engine.configuration.layout.channels
        var out = [Float](repeating: .nan, count: frames * channels)
        var done = 0, k = 0
        while done < frames {
            let n = min(sizes[k % sizes.count], frames - done)
            k += 1
            let outcome = out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress! + done * channels, frames: n) }
            #expect(outcome == .rendered)
            done += n
        }
        return out
    }

    @Test("a pattern started before the first pull renders bit-identically to the offline render, whatever the pull sizes",
          arguments: [[256], [1, 7, 1000], [4096], [100, 333]])
    func startAtOnceIsTheOfflineRender(sizes: [Int]) throws {
        for (layout, profile) in [(ChannelLayout.hapticMono, ActuatorProfile.bassShaker), (.stereoPlusHaptic, .voiceCoil),
                                  (try ChannelLayout.parse("0,L,H,H*-0.5"), .lra)] {
            let engine = try pulledEngine(period: 256, layout: layout, profile: profile)
            let prepared = try engine.prepare(Self.pattern)
            let reference = OfflineRenderer.render(prepared, profile: profile, layout: layout)
            try engine.makePlayer(with: prepared).start(atTime: 0)
            let pulled = pull(engine, frames: reference.frames, sizes: sizes)
            #expect(pulled.count == reference.samples.count)
            let differing = zip(pulled, reference.samples).filter { $0.0.bitPattern != $0.1.bitPattern }.count
            #expect(differing == 0, "\(layout.mapDescription), \(profile.name): \(differing) samples differ")
            engine.stop()
        }
    }

    @Test("a start at time T is heard from pulled frame round(T·fs), and the clock is the frames pulled")
    func scheduledStartLandsOnItsFrame() throws {
        let engine = try pulledEngine(rate: 44_100, period: 128)
        let prepared = try engine.prepare(Self.pattern)
        #expect(engine.currentTime == 0)
        #expect(engine.outputLatency == 0, "before the first pull, at once is time 0")
        _ = pull(engine, frames: 1000, sizes: [300])
        #expect(engine.framesPulled == 1000)
        #expect(abs(engine.currentTime - 1000 / 44_100.0) < 1e-9)
        #expect(engine.frameMapping.isLocked)
        let t = 0.25
        try engine.makePlayer(with: prepared).start(atTime: t)
        let frame = Int((t * 44_100).rounded())
        let reference = OfflineRenderer.render(prepared, layout: .hapticMono)
        let pulled = pull(engine, frames: frame + reference.frames - 1000, sizes: [512])
        #expect(pulled[..<(frame - 1000)].allSatisfy { $0 == 0 }, "silence before the start")
        let heard = Array(pulled[(frame - 1000)...])
        // The voice starts inside a block here (not at the stage's first frame, as offline), so
        // within float rounding of a differently aligned high-pass, not bit for bit.
        let worst = zip(heard, reference.samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-5, "differs from the offline render by \(worst)")
        #expect(engine.lateCommandCount == 0)
        engine.stop()
    }

    @Test("an immediate start after the first pull comes the output stage's look-ahead later")
    func immediateStartHasTheLookAheadAsLatency() throws {
        let engine = try pulledEngine()
        _ = pull(engine, frames: 480, sizes: [480])
        let latency = engine.outputStageLatencyFrames
        #expect(latency > 0)
        #expect(abs(engine.outputLatency - Double(latency) / 48_000) < 1e-9)
        try engine.makePlayer(with: try engine.prepare(Self.pattern)).start(atTime: 0)
        let pulled = pull(engine, frames: 2000, sizes: [64])
        let first = pulled.firstIndex { $0 != 0 }
        #expect(first == latency, "first sound at frame \(first.map(String.init) ?? "none") of the pull")
        engine.stop()
    }

    @Test("not started, stopped, or another thread pulling: silence and a plain outcome")
    func outcomes() throws {
        let engine = HapticEngine(pulling: HapticEngine.Configuration(layout: .stereoPlusHaptic))
        var buffer = [Float](repeating: 1, count: 64 * 3)
        #expect(buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 64) } == .notRunning)
        #expect(buffer.allSatisfy { $0 == 0 })
        try engine.start()
        #expect(buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 64) } == .rendered)
        // The gate held by a pull in progress: a second puller is refused, not made to wait.
        engine.core.pullGate.store(PullGate.pulling, ordering: .releasing)
        buffer = [Float](repeating: 1, count: 64 * 3)
        #expect(buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 64) } == .busy)
        #expect(buffer.allSatisfy { $0 == 0 })
        #expect(engine.framesPulled == 64)
        engine.core.pullGate.store(PullGate.open, ordering: .releasing)
        engine.stop()
        #expect(buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 64) } == .notRunning)
        // A render-thread engine is not pulled.
        let live = HapticEngine { PulledOutput() }
        #expect(buffer.withUnsafeMutableBufferPointer { live.render(into: $0.baseAddress!, frames: 64) } == .notPulled)
    }

    @Test("a restart after stop continues the timeline and the clock")
    func restartContinuesTheClock() throws {
        let engine = try pulledEngine()
        _ = pull(engine, frames: 1024, sizes: [1024])
        engine.stop()
        try engine.start()
        #expect(engine.framesPulled == 1024)
        _ = pull(engine, frames: 100, sizes: [100])
        #expect(engine.framesPulled == 1124)
        engine.stop()
    }

    @Test("finishPulling fades the output out, then a buffer of silence, then .finished")
    func finishFadesOut() throws {
        let engine = try pulledEngine()
        let continuous = try engine.prepare(AHAPPattern(elements: [.event(.continuous(at: 0, duration: 5, intensity: 1, sharpness: 0.5))]))
        try engine.makePlayer(with: continuous).start(atTime: 0)
        let before = pull(engine, frames: 4800, sizes: [256])
        #expect(before.suffix(480).map(abs).max()! > 0.05)
        engine.finishPulling()
        var out = [Float](repeating: 1, count: 256)
        var outcomes: [PullOutcome] = []
        var samples: [Float] = []
        for _ in 0..<20 {
            let outcome = out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 256) }
            outcomes.append(outcome)
            samples += out
            if outcome != .rendered { break }
        }
        #expect(outcomes.last == .finished)
        #expect(samples[240...].allSatisfy { $0 == 0 }, "silent after the 5 ms fade")
        #expect(out.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 256) } == .notRunning)
        engine.stop()
    }

    @Test("finished voices come back through the service step")
    func serviceStepReturnsVoices() throws {
        let engine = try pulledEngine()
        let prepared = try engine.prepare(AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))]))
        let done = Counter()
        let player = try engine.makeAdvancedPlayer(with: prepared)
        player.completionHandler = { _ in done.bump() }
        try player.start(atTime: 0)
        #expect(engine.activeVoiceCount == 1)
        _ = pull(engine, frames: 48_000, sizes: [1024])
        engine.serviceStep()
        #expect(engine.activeVoiceCount == 0)
        #expect(done.count == 1)
        engine.stop()
    }
}

/// The pull path on the caller's thread: no allocation (counted per thread), busy or not.
@Suite(.serialized) struct PullDriveAllocationTests {
    @Test func pullingNeverAllocates() throws {
        let engine = HapticEngine(pulling: HapticEngine.Configuration(layout: .stereoPlusHaptic, profile: .bassShaker,
                                                                      periodFrames: 128))
        try engine.start()
        let prepared = try engine.prepare(PullDriveTests.pattern)
        var buffer = [Float](repeating: 0, count: 4096 * 3)
        let tally = allocation_tally_open()
        #expect(tally > 0)
        for i in 0..<300 {
            let player = try engine.makeAdvancedPlayer(with: prepared)
            try player.start(atTime: i % 3 == 0 ? 0 : engine.currentTime + 0.01)
            try player.sendParameters([DynamicParameter(.hapticIntensityControl, time: 0, value: 0.5)], atTime: 0)
            if i % 7 == 0 { player.playbackRate = 1.5 }
            if i % 11 == 0 { try player.cancel() }
            let frames = [1, 64, 500, 4096][i % 4]
            allocation_tally_track_current_thread(tally)
            let outcome = buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: frames) }
            allocation_tally_track_current_thread(0)
            #expect(outcome == .rendered)
            if i % 10 == 0 { engine.serviceStep() }
        }
        engine.finishPulling()
        allocation_tally_track_current_thread(tally)
        var outcome = PullOutcome.rendered
        var rounds = 0
        while outcome == .rendered && rounds < 1000 {
            outcome = buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 256) }
            rounds += 1
        }
        _ = buffer.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: 256) }  // not running
        allocation_tally_track_current_thread(0)
        #expect(outcome == .finished)
        #expect(allocation_tally_count(tally) == 0, "allocations while pulling: \(allocation_tally_count(tally))")
        engine.stop()
    }
}
