// The analysis against sounds whose right answer is known.

import Foundation
import HapticAnalysis
import HapticPattern
import HapticTestSupport
import Testing

@Suite("Analysis of synthetic sounds with known answers")
struct SyntheticSoundTests {
    let settings = AnalysisSettings(sampleRate: Synth.rate)

    /// Click positions: irregular, 120–400 ms apart, over `seconds`.
    func clickPositions(seconds: Double, seed: UInt64) -> [Int] {
        var random = SeededRandom(seed: seed)
        var positions: [Int] = []
        var t = 0.15 + Double(random.next() % 1000) / 10000
        while t < seconds - 0.2 {
            positions.append(Int(t * Synth.rate))
            t += 0.12 + Double(random.next() % 2800) / 10000
        }
        return positions
    }

    @Test(arguments: [0, 1, 2])
    func everyClickIsFoundWithinOneMillisecondOfItsSample(shape: Int) throws {
        let positions = clickPositions(seconds: 6, seed: UInt64(11 + shape))
        let sound = Synth.clicks(at: positions, length: Int(6 * Synth.rate), amplitude: 0.7, shape: shape)
        let hits = try analyse(sound, settings: settings, block: 512).hits
        #expect(hits.count == positions.count, "shape \(shape): \(hits.count) hits for \(positions.count) clicks")
        for p in positions {
            let nearest = hits.min { abs($0.sampleIndex - Int64(p)) < abs($1.sampleIndex - Int64(p)) }
            let error = nearest.map { Double(abs($0.sampleIndex - Int64(p))) / Synth.rate } ?? .infinity
            #expect(error <= 0.001, "shape \(shape): click at sample \(p) found \(error * 1000) ms away")
        }
    }

    @Test func clicksOverAQuietToneAreFoundToo() throws {
        let positions = clickPositions(seconds: 4, seed: 5)
        var sound = Synth.tone(80, seconds: 4) { _ in 0.05 }
        let clicks = Synth.clicks(at: positions, length: sound.count, amplitude: 0.6, shape: 1)
        for i in sound.indices { sound[i] += clicks[i] }
        let hits = try analyse(sound, settings: settings, block: 1000).hits
        // The tone starts abruptly from silence at the first sample: that is a hit too (within
        // 10 ms of the start), and the clicks are the others.
        #expect(hits.contains { $0.sampleIndex < Int64(0.01 * Synth.rate) }, "the tone's start: \(hits.map(\.sampleIndex))")
        #expect(hits.filter { $0.sampleIndex >= Int64(0.01 * Synth.rate) }.count == positions.count, "\(hits.map(\.sampleIndex))")
        for p in positions {
            #expect(hits.contains { abs($0.sampleIndex - Int64(p)) <= 48 }, "click at \(p)")
        }
    }

    @Test func silenceGivesNothing() throws {
        let converted = try SoundConverter.convert(Synth.silence(5), analysis: settings)
        #expect(converted.transients.isEmpty)
        #expect(converted.stretches.isEmpty)
        #expect(converted.duration > 4.99)
        let pattern = converted.ahapPattern()
        #expect(pattern.events.isEmpty)
    }

    @Test(arguments: [0.05, 0.3] as [Float])
    func steadyNoiseGivesNoTransient(level: Float) throws {
        // Faded in over 2 s (evenly in decibels: 40 dB/s), then steady for 4 s.
        let sound = Synth.noise(seconds: 6, level: level, fade: 2)
        let converted = try SoundConverter.convert(sound, analysis: settings)
        #expect(converted.transients.isEmpty, "level \(level): \(converted.transients.map(\.time))")
        // ...but it is not silent: one stretch over it.
        #expect(converted.stretches.count == 1)
    }

    @Test func aToneBurstsEnvelopeIsFollowed() throws {
        // 150 Hz, linear attack 60 ms, sustain at 0.6, then an exponential decay (τ 150 ms).
        func envelope(_ t: Double) -> Double {
            if t < 0.2 { return 0 }
            if t < 0.26 { return 0.6 * (t - 0.2) / 0.06 }
            if t < 0.9 { return 0.6 }
            return 0.6 * exp(-(t - 0.9) / 0.15)
        }
        let sound = Synth.tone(150, seconds: 2, envelope: envelope)
        let converted = try SoundConverter.convert(sound, analysis: settings)
        #expect(converted.stretches.count == 1)
        let points = converted.stretches.flatMap(\.intensity)
        let grid = stride(from: 0.0, to: 2.0, by: 0.005).map { $0 }
        let expected = grid.map(envelope)
        let followed = grid.map { t -> Double in
            let i = points.value(at: t)
            return converted.stretches.contains { $0.start <= t && t <= $0.end } ? HapticClipMapping.amplitude(intensity: i) : 0
        }
        let r = try #require(pearsonCorrelation(expected, followed))
        #expect(r >= 0.95, "correlation \(r)")
        // And the level: the sustain reads as the tone's amplitude.
        #expect(abs(followed[Int(0.6 / 0.005)] - 0.6) < 0.08)
    }

    @Test func aSweepsSharpnessRisesMonotonically() throws {
        let sound = Synth.sweep(from: 30, to: 600, seconds: 4)
        let frames = try analyse(sound, settings: settings, block: 256).frames
        let hop = Double(frames[1].end - frames[0].end) / Synth.rate
        // Skip the first 100 ms (the centroid window filling) and the end.
        let inner = frames.filter { Double($0.end) / Synth.rate > 0.1 && Double($0.end) / Synth.rate < 3.95 }
        var previous: Float = -1
        var drops = 0
        for f in inner {
            if f.sharpness < previous - 0.01 { drops += 1 }
            previous = max(previous, f.sharpness)
        }
        #expect(drops == 0, "sharpness fell \(drops) times (hop \(hop) s)")
        #expect((inner.last?.sharpness ?? 0) - (inner.first?.sharpness ?? 1) > 0.6)
        // Smoothed over 100 ms, it rises strictly from hop to hop group.
        let groups = stride(from: 0, to: inner.count - 37, by: 37).map { inner[$0..<$0 + 37].map(\.sharpness).reduce(0, +) }
        #expect(zip(groups, groups.dropFirst()).allSatisfy { $1 > $0 })
    }

    @Test(arguments: [1, 7, 128, 1000, 4096, 0])
    func theFeaturesDoNotDependOnTheBlockSize(block: Int) throws {
        var sound = Synth.clicks(at: clickPositions(seconds: 3, seed: 2), length: Int(3 * Synth.rate), shape: 2)
        let tone = Synth.sweep(from: 40, to: 400, seconds: 3, amplitude: 0.2)
        for i in sound.indices { sound[i] += tone[i] }
        let reference = try analyse(sound, settings: settings, block: 333)
        let other = try analyse(sound, settings: settings, block: block)
        #expect(other.frames == reference.frames)
        #expect(other.hits == reference.hits)
        #expect(!reference.hits.isEmpty)
    }

    @Test func nonFiniteSamplesAreSilence() throws {
        var sound = Synth.tone(100, seconds: 1) { _ in 0.5 }
        sound[1000] = .nan
        sound[2000] = .infinity
        sound[3000] = -.infinity
        let analyzer = try StreamingAnalyzer(settings: settings)
        var done = 0
        var peak: Float = 0
        try sound.withUnsafeBufferPointer { b in
            while done < b.count {
                done += analyzer.process(b.baseAddress! + done, count: b.count - done)
                for f in analyzer.frames {
                    #expect(f.amplitude.isFinite && f.intensity.isFinite && f.sharpness.isFinite)
                    peak = max(peak, f.amplitude)
                }
            }
            _ = try #require(b.baseAddress)
        }
        #expect(analyzer.nonFiniteSamples == 3)
        #expect(peak < 0.6)
    }

    @Test func settingsOutsideTheirRangesAreRefused() {
        for rate in [1.0, 10_000_000, .nan, -48000] {
            #expect(throws: AnalysisSettings.Invalid.self) { try StreamingAnalyzer(settings: AnalysisSettings(sampleRate: rate)) }
        }
        var s = settings
        s.sensitivity = 2
        #expect(throws: AnalysisSettings.Invalid.self) { try StreamingAnalyzer(settings: s) }
        var c = ConversionSettings()
        c.breakpointsPerSecond = .infinity
        #expect(throws: AnalysisSettings.Invalid.self) { try SoundConverter(analysis: settings, conversion: c) }
    }
}
