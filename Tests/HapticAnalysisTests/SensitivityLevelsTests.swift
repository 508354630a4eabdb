// One analysis deciding the hits of several sensitivities (the designer's ladder): each level's
// hits must be exactly those of an analyser made with that sensitivity alone, whatever the
// blocks, in both decision modes; the converter's results likewise.

import HapticAnalysis
import HapticTestSupport
import Testing

@Suite("Streaming analysis: several sensitivities from one analysis")
struct SensitivityLevelsTests {
    /// Clicks from faint to loud (every sensitivity keeps a different share of them), some
    /// closer together than the minimum gap, over a sweep and fading-in noise.
    static func busySound() -> [Float] {
        let length = Int(8 * Synth.rate)
        var sound = [Float](repeating: 0, count: length)
        var at = 2_400
        var k = 0
        while at < length - 2_000 {
            let level = Float(0.01 + 0.8 * Double(k % 9) / 8)
            let click = Synth.clicks(at: [at], length: length, amplitude: level, shape: k % 3, seed: UInt64(k + 1))
            for i in at..<min(length, at + 100) { sound[i] += click[i] }
            at += k % 4 == 0 ? 1_200 : 7_300  // 25 ms (inside the 50 ms gap) or 152 ms
            k += 1
        }
        let sweep = Synth.sweep(from: 40, to: 800, seconds: 8, amplitude: 0.05)
        let noise = Synth.noise(seconds: 8, level: 0.03, fade: 3)
        for i in sound.indices { sound[i] += sweep[i] + noise[i] }
        return sound
    }

    static let sensitivities = [0.5, 0.1, 0.3, 0.7, 0.9, 1, 0, 0.5]

    @Test(arguments: [HitDecision.afterPeak, .onRise])
    func eachLevelsHitsAreThoseOfItsOwnAnalyser(decision: HitDecision) throws {
        let sound = Self.busySound()
        var settings = AnalysisSettings(sampleRate: Synth.rate)
        settings.hitDecision = decision
        let analyzer = try StreamingAnalyzer(settings: settings, sensitivities: Self.sensitivities)
        #expect(analyzer.sensitivities == Self.sensitivities)
        #expect(analyzer.settings.sensitivity == 0.5)
        var frames: [FeatureFrame] = []
        var hits = [[Hit]](repeating: [], count: Self.sensitivities.count)
        var random = SeededRandom(seed: 11)
        sound.withUnsafeBufferPointer { buffer in
            var done = 0
            while done < buffer.count {
                let want = Int(random.next() % 5000) + 1
                done += analyzer.process(buffer.baseAddress! + done, count: min(want, buffer.count - done))
                frames += analyzer.frames
                for k in hits.indices { hits[k] += analyzer.hits(at: k) }
            }
        }
        #expect(Array(analyzer.hits) == Array(analyzer.hits(at: 0)))
        var counts: [Int] = []
        for (k, sensitivity) in Self.sensitivities.enumerated() {
            var alone = settings
            alone.sensitivity = sensitivity
            let single = try analyse(sound, settings: alone, block: 333)
            // (Compared first, so that a failure prints counts rather than two long lists.)
            let same = hits[k] == single.hits
            #expect(same, "sensitivity \(sensitivity): \(hits[k].count) hits, alone \(single.hits.count)")
            if k == 0 {
                let sameFrames = frames == single.frames
                #expect(sameFrames)
            }
            counts.append(hits[k].count)
        }
        // The levels differ (else this would prove nothing): none at 0, more as it rises.
        #expect(counts[6] == 0)
        #expect(counts[1] < counts[0] && counts[0] < counts[5], "hits per sensitivity: \(counts)")
    }

    @Test func theConvertersResultsAreThoseOfItsOwnConverters() throws {
        let sound = Self.busySound()
        let settings = AnalysisSettings(sampleRate: Synth.rate)
        let levels = [0.2, 0.5, 0.95]
        let converter = try SoundConverter(analysis: settings, sensitivities: levels)
        converter.feed(sound)
        let results = converter.finishEach()
        #expect(results.count == levels.count)
        for (k, sensitivity) in levels.enumerated() {
            var alone = settings
            alone.sensitivity = sensitivity
            let single = try SoundConverter.convert(sound, analysis: alone)
            let same = results[k] == single
            #expect(same, "sensitivity \(sensitivity): \(results[k].transients.count) transients, alone \(single.transients.count)")
        }
        #expect(results[0].transients.count < results[2].transients.count)
    }

    @Test func badSensitivitiesAreRefused() {
        let settings = AnalysisSettings(sampleRate: Synth.rate)
        for bad in [[], [0.5, .nan], [0.5, 1.5], [-0.1], [0.5, .infinity]] as [[Double]] {
            #expect(throws: AnalysisSettings.Invalid.self, "\(bad)") {
                try StreamingAnalyzer(settings: settings, sensitivities: bad)
            }
            do {
                _ = try StreamingAnalyzer(settings: settings, sensitivities: bad)
            } catch {
                #expect(error.setting == "sensitivity")
            }
        }
    }
}
