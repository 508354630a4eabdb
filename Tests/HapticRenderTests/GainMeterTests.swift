// The limiter's gain meter (for `plot`'s gain-reduction trace): exact, free of side effects
// on the output, independent of the block split, and allocation-free on the render path.

import CAllocationCounter
import Foundation
import HapticDSP
import HapticPattern
import Testing

@testable import HapticRender

@Suite("Limiter gain meter")
struct GainMeterTests {
    /// A burst of `level` (over a ceiling of 0.5) between silences.
    func burst(level: Float, count: Int = 4_000) -> [Float] {
        (0..<count).map { i in (1_000..<1_400).contains(i) ? (i % 2 == 0 ? level : -level) : 0 }
    }

    func limit(_ input: [Float], metering: Bool, splits: [Int]) -> (output: [Float], lowest: [Float]) {
        var limiter = LookAheadLimiter(lookahead: 24, ceiling: 0.5, releaseSamples: 400, holdSamples: 64, channels: 1)
        defer { limiter.deallocate() }
        limiter.metering = metering
        var samples = input
        var lowest: [Float] = []
        var start = 0
        samples.withUnsafeMutableBufferPointer { buffer in
            for length in splits + [input.count] where start < input.count {
                let n = min(length, input.count - start)
                limiter.process(buffer.baseAddress! + start, buffer.baseAddress! + start, n)
                lowest.append(limiter.lowestGain)
                limiter.lowestGain = 1
                start += n
            }
        }
        return (samples, lowest)
    }

    @Test("the meter reads the limiter's own gain: c/|x| at the held peak of a burst twice over the ceiling")
    func exactGain() {
        let input = burst(level: 1)
        let metered = limit(input, metering: true, splits: [])
        // The gain that brings 1.0 down to the ceiling 0.5 is applied in full across the burst.
        #expect(abs(metered.lowest[0] - 0.5) < 1e-3, "lowest gain \(metered.lowest[0])")
        #expect(metered.output.allSatisfy { abs($0) <= 0.5 })
        // Where nothing is over the ceiling, the gain stays 1.
        let quiet = limit(burst(level: 0.4), metering: true, splits: [])
        #expect(quiet.lowest == [1])
    }

    @Test("metering changes no sample, and any split gives the same minimum")
    func noSideEffects() {
        let input = burst(level: 0.9)
        let plain = limit(input, metering: false, splits: [])
        let metered = limit(input, metering: true, splits: [])
        #expect(plain.output == metered.output)
        #expect(plain.lowest == [1], "off, the meter does not move")
        let split = limit(input, metering: true, splits: [3, 997, 5, 11, 600, 1])
        #expect(split.output == plain.output)
        #expect(split.lowest.min() == metered.lowest[0])
        // Stretches before the burst reach the limiter's look-ahead see no reduction.
        #expect(split.lowest[0] == 1 && split.lowest[1] == 1)
    }

    @Test("a render stream's meters: 1 before the first sound, below 1 where the chain limits, same samples")
    func streamMeters() throws {
        let pattern = try PreparedPattern(
            // Three equal continuous events from 0.3 s add up in phase: three times what one gives.
            AHAPPattern(elements: (0..<3).map { _ in .event(.continuous(at: 0.3, duration: 0.2, intensity: 1, sharpness: 0.3)) }),
            profile: .bassShaker, sampleRate: 48_000)
        var metered = OfflineRenderStream(pattern: pattern)
        metered.metersGain = true
        var block = [Float](repeating: 0, count: 4_800)
        var lowest: [Float] = []
        var samples: [Float] = []
        while true {
            let n = block.withUnsafeMutableBufferPointer { metered.render(into: $0.baseAddress!, maxFrames: 4_800) }
            if n == 0 { break }
            samples += block[0..<n]
            lowest.append(metered.takeLowestGains().haptic)
        }
        #expect(samples == OfflineRenderer.render(pattern).samples, "metering leaves the render unchanged")
        #expect(lowest[0] == 1 && lowest[1] == 1, "0-0.2 s: silence, no reduction (\(lowest))")
        // About 2.1 times the ceiling's 0.89: a gain near 0.42.
        #expect(lowest[3] < 0.5 && lowest[3] > 0.35, "0.3-0.4 s: the sum is limited (\(lowest))")
    }

    @Test("metering allocates nothing on the render path (the output stage, as the render thread runs it)")
    func noAllocation() {
        let result = AllocationProbe()
        let tally = allocation_tally_open()
        let thread = Thread {
            var stage = OutputStage(profile: .bassShaker, sampleRate: 48_000, layout: .stereoPlusHaptic)
            stage.metersGain = true
            let frames = 1_000
            let h = UnsafeMutablePointer<Float>.allocate(capacity: frames), l = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            let r = UnsafeMutablePointer<Float>.allocate(capacity: frames), out = UnsafeMutablePointer<Float>.allocate(capacity: frames * 3)
            var lowest: (haptic: Float, audio: Float) = (1, 1)
            allocation_tally_track_current_thread(tally)
            for block in 0..<20 {
                for i in 0..<frames {
                    // Loud square waves on every bus: both limiters work.
                    let v: Float = (block * frames + i) / 300 % 2 == 0 ? 3 : -3
                    h[i] = v
                    l[i] = v
                    r[i] = -v
                }
                stage.process(MixBus(haptic: h, audioLeft: l, audioRight: r, frames: frames - block), into: out)
                let gains = stage.takeLowestGains()
                lowest = (min(lowest.haptic, gains.haptic), min(lowest.audio, gains.audio))
            }
            allocation_tally_track_current_thread(0)
            result.count = allocation_tally_count(tally)
            result.events = lowest.haptic < 0.5 && lowest.audio < 0.5 ? 1 : 0
            h.deallocate(); l.deallocate(); r.deallocate(); out.deallocate()
            result.done.signal()
        }
        thread.start()
        result.done.wait()
        #expect(result.events == 1, "both meters saw the reduction")
        #expect(result.count == 0, "allocations with the meters on: \(result.count)")
    }
}
