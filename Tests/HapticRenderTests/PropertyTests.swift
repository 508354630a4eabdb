import HapticTestSupport
import CAllocationCounter
import Foundation
import HapticPattern
import Testing
@testable import HapticRender

@Suite("Properties: ceiling, DC, determinism, block independence, no allocation")
struct PropertyTests {
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func ceilingIsNeverExceededAndThereIsNoDC(seed: UInt64) throws {
        for profile in [ActuatorProfile.bassShaker, .voiceCoil, .lra] {
            let p = try prepare(randomPattern(seed: seed, events: 80), profile: profile)
            let out = OfflineRenderer.render(p, layout: .hapticMono, tail: 0.5)
            let ceiling = Float(pow(10, profile.ceilingDBFS / 20))
            #expect(out.peak <= ceiling, "\(profile.name) seed \(seed): peak \(out.peak) > \(ceiling)")
            let mean = out.samples.reduce(0.0) { $0 + Double($1) } / Double(out.samples.count)
            #expect(abs(mean) < 1e-3, "\(profile.name) seed \(seed): DC \(mean)")
        }
    }

    @Test func aThousandOverlappingFullIntensityTransientsStayUnderTheCeiling() throws {
        let elements = (0..<1_000).map { i in
            PatternElement.event(.transient(at: 0.1 + Double(i) * 0.00001, intensity: 1, sharpness: 0.5))
        }
        let p = try prepare(elements)
        let out = OfflineRenderer.render(p, layout: .stereoPlusHaptic, tail: 0.2)
        let ceiling = Float(pow(10, -1.0 / 20))
        #expect(out.peak <= ceiling)
        #expect(out.peak > ceiling * 0.95)  // the limiter holds the level, it does not collapse it
        #expect(out.eventsRendered == 1_000)
        // Audio channels (silent here) stay silent.
        #expect(stride(from: 0, to: out.samples.count, by: 3).allSatisfy { out.samples[$0] == 0 })
    }

    @Test func aSingleEventBelowTheCeilingIsNotTouchedByTheLimiter() throws {
        // Full-intensity continuous: gain -3 dB gives 0.708, under the -1 dBFS ceiling:
        // the steady part is a clean sine of that level (no pumping).
        let p = try prepare([.event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0.5))])
        let out = OfflineRenderer.render(p, layout: .hapticMono)
        let steady = out.samples[12_000..<44_000]
        // -3 dB, times the 16 Hz 2nd-order Butterworth high-pass's gain at 44.5 Hz.
        let f = p.renderedFrequency(forSharpness: 0.5)
        let level = pow(10, -3.0 / 20) / (1 + pow(16 / f, 4)).squareRoot()
        #expect(abs(Double(steady.map(abs).max()!) - level) < 0.0005)
        // Per-period peaks do not move (no gain modulation).
        let period = Int(fs / f)
        let peaks = stride(from: 12_000, to: 44_000 - period, by: period).map { out.samples[$0..<($0 + period)].map(abs).max()! }
        #expect(peaks.max()! - peaks.min()! < 0.0005)
    }

    @Test func renderingIsDeterministic() throws {
        let p = try prepare(randomPattern(seed: 42))
        let a = OfflineRenderer.render(p, layout: .stereoPlusHaptic)
        let b = OfflineRenderer.render(try prepare(randomPattern(seed: 42)), layout: .stereoPlusHaptic)
        #expect(a == b)
        #expect(a.peak > 0)
    }

    @Test func precomputedTransientGrainsGiveTheSamplesComputedAsTheyPlay() throws {
        var elements = randomPattern(seed: 21, events: 60, length: 2)
        // A sharpness control at some onsets: the grain must follow it too.
        elements.append(.parameter(DynamicParameter(.hapticSharpnessControl, time: 0.8, value: 0.3)))
        for profile in [ActuatorProfile.bassShaker, .voiceCoil, .lra] {
            let pattern = AHAPPattern(elements: elements)
            let withGrains = try PreparedPattern(pattern, profile: profile, sampleRate: fs)
            let without = try PreparedPattern(pattern, profile: profile, sampleRate: fs, sounds: nil, strict: false, grainBudget: 0)
            #expect(withGrains.flat.grains.count > 5 && without.flat.grains.count == 0)
            let a = OfflineRenderer.render(withGrains, layout: .hapticMono, blockSize: 333)
            let b = OfflineRenderer.render(without, layout: .hapticMono, blockSize: 333)
            #expect(a.peak > 0.1)
            #expect(a.samples == b.samples, "\(profile.name)")
            // A live sharpness control changes the bursts: no grain matches, they are computed.
            var voice = PatternVoice(pattern: withGrains)
            voice.setControl(.hapticSharpnessControl, value: 0.2)
            var h = [Float](repeating: 0, count: 48_000), l = h, r = h
            h.withUnsafeMutableBufferPointer { hb in
                voice.render(into: MixBus(haptic: hb.baseAddress!, audioLeft: &l, audioRight: &r, frames: 48_000))
            }
            var reference = PatternVoice(pattern: without)
            reference.setControl(.hapticSharpnessControl, value: 0.2)
            var h2 = [Float](repeating: 0, count: 48_000)
            h2.withUnsafeMutableBufferPointer { hb in
                reference.render(into: MixBus(haptic: hb.baseAddress!, audioLeft: &l, audioRight: &r, frames: 48_000))
            }
            #expect(h == h2 && h.contains { $0 != 0 })
        }
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func anyBlockSplitGivesIdenticalSamples(seed: UInt64) throws {
        var g = SeededRandom(seed: seed)
        let sounds = MemorySounds(sounds: ["s.wav": SoundBuffer(channels: 2, sampleRate: fs, samples: (0..<9_600).map { Float(sin(Double($0) * 0.01)) * 0.6 })])
        var elements = randomPattern(seed: seed, events: 50, length: 2)
        elements.append(.event(Event(time: 0.3, type: .audioCustom, duration: 0.4, parameters: [EventParameter(.audioPan, 0.3)], waveformPath: "s.wav", loopEnabled: true)))
        elements.append(.event(Event(time: 0.7, type: .audioContinuous, duration: 0.5, parameters: [EventParameter(.audioPitch, -0.4)])))
        elements.append(.curve(ParameterCurve(.audioPanControl, time: 0.2, points: [.init(0, -1), .init(1, 1)])))
        let p = try prepare(elements, sounds: sounds)
        let frames = p.frameCount + 4_800
        let reference = renderVoice(p, frames: frames, blocks: [frames])
        #expect(reference.haptic.contains { $0 != 0 } && reference.left.contains { $0 != 0 })
        for _ in 0..<12 {
            let blocks = (0..<8).map { _ in Int.random(in: 1...3_000, using: &g) }
            let split = renderVoice(p, frames: frames, blocks: blocks)
            #expect(split.haptic == reference.haptic, "blocks \(blocks)")
            #expect(split.left == reference.left && split.right == reference.right, "blocks \(blocks)")
        }
        // The whole chain (output stage included) through the streaming API.
        let whole = OfflineRenderer.render(p, tail: 0.1, blockSize: 100_000)
        for blockSize in [1, 7, 64, 333, 4_096] {
            var stream = OfflineRenderStream(pattern: p, tail: 0.1, blockSize: blockSize)
            // The stream's length is only known at its end (it renders on until silent).
            var out: [Float] = []
            var done = 0
            var block = [Float](repeating: 0, count: 5_000 * stream.channels)
            while !stream.isFinished {
                let want = Int.random(in: 1...5_000, using: &g)
                let n = block.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: want) }
                if n == 0 { break }
                out += block[0..<(n * stream.channels)]
                done += n
            }
            #expect(stream.render(into: &block, maxFrames: 10) == 0)
            #expect(done == whole.frames)
            #expect(out == whole.samples, "block size \(blockSize)")
        }
    }

    @Test func liveControlsAndRateChangesAreBlockIndependentToo() throws {
        // Calls between blocks happen at the same frame positions in both renders.
        let p = try prepare(randomPattern(seed: 5, events: 40, length: 2))
        func run(_ blocks: [Int]) -> [Float] {
            var voice = PatternVoice(pattern: p)
            var h = [Float](repeating: 0, count: 96_000), l = h, r = h
            var done = 0, k = 0
            let events: [Int: (inout PatternVoice) -> Void] = [
                24_000: { $0.setControl(.hapticIntensityControl, value: 0.3, ramp: 0.05) },
                48_000: { $0.playbackRate = 1.7 },
                60_000: { $0.setControl(.hapticSharpnessControl, value: 0.4) },
            ]
            while done < 96_000 {
                if let e = events[done] { e(&voice) }
                let next = events.keys.filter { $0 > done }.min() ?? 96_000
                let n = min(blocks[k % blocks.count], next - done)
                k += 1
                h.withUnsafeMutableBufferPointer { hb in
                    voice.render(into: MixBus(haptic: hb.baseAddress! + done, audioLeft: &l[done], audioRight: &r[done], frames: n))
                }
                done += n
            }
            return h
        }
        let reference = run([96_000])
        #expect(run([1, 999, 4_000]) == reference)
        #expect(run([256]) == reference)
    }

    @Test func renderingAllocatesNothingOnceThePatternIsPrepared() throws {
        #expect(allocation_counter_is_active() == 1)
        // A long, busy pattern: many overlapping transients, continuous events, curves, audio.
        var elements = randomPattern(seed: 99, events: 2_000, length: 20)
        let sounds = MemorySounds(sounds: ["s.wav": SoundBuffer(channels: 1, sampleRate: fs, samples: [Float](repeating: 0.1, count: 4_800))])
        for i in 0..<40 {
            elements.append(.event(Event(time: Double(i) * 0.5, type: .audioCustom, duration: 0.3, waveformPath: "s.wav", loopEnabled: true)))
            elements.append(.event(Event(time: Double(i) * 0.5 + 0.1, type: .audioContinuous, duration: 0.2)))
        }
        let p = try prepare(elements, sounds: sounds)
        let frames = 256
        let result = AllocationProbe()
        let tally = allocation_tally_open()
        let thread = Thread {
            var voice = PatternVoice(pattern: p)
            var stage = OutputStage(profile: p.profile, sampleRate: fs, layout: .stereoPlusHaptic)
            let h = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            let l = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            let r = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            let out = UnsafeMutablePointer<Float>.allocate(capacity: frames * 3)
            allocation_tally_track_current_thread(tally)
            var rendered = 0
            while rendered < 21 * 48_000 {
                h.update(repeating: 0, count: frames)
                l.update(repeating: 0, count: frames)
                r.update(repeating: 0, count: frames)
                let bus = MixBus(haptic: h, audioLeft: l, audioRight: r, frames: frames)
                voice.render(into: bus)
                stage.process(bus, into: out)
                if rendered == 5 * 48_000 { voice.setControl(.hapticIntensityControl, value: 0.5, ramp: 0.1) }
                if rendered == 8 * 48_000 { voice.playbackRate = 1.25 }
                if rendered == 10 * 48_000 { voice.seek(to: 2) }
                rendered += frames
            }
            allocation_tally_track_current_thread(0)
            result.count = allocation_tally_count(tally)
            result.events = voice.eventsStarted
            h.deallocate(); l.deallocate(); r.deallocate(); out.deallocate()
            result.done.signal()
        }
        thread.start()
        result.done.wait()
        #expect(result.events > 1_000)
        #expect(result.count == 0, "allocations on the render thread: \(result.count)")
    }
}

final class AllocationProbe: @unchecked Sendable {
    // Written by the render thread before `done` is signalled, read after waiting.
    var count: Int64 = -1
    var events = 0
    let done = DispatchSemaphore(value: 0)
}
