import HapticTestSupport
import Foundation
import HapticPattern
import Testing
@testable import HapticRender

/// Thousands of random patterns built from extreme but valid numbers (denormals, -0, times
/// at the limit, durations of 1e300, values far out of range, curves with equal point
/// times...) go through the whole chain: AHAP text → reader → prepared pattern (a random
/// profile and rate) → offline stream with its output stage. Each must load, render finite
/// samples under the ceiling, and take less than a generous time budget (no hang).
@Suite("Property: extreme but valid patterns through the whole chain")
struct ExtremePatternPropertyTests {
    static let patternsPerSeed = 250
    /// Per pattern, debug build, shared 2-core machine: a hang guard, not a speed measure.
    static let budgetSeconds = 10.0

    static let times: [Double] = [0, .leastNonzeroMagnitude, 1e-300, 1e-9, 0.001, 0.5, 1, Limits.maxTime - 0.001, Limits.maxTime]
    static let durations: [Double] = [.leastNonzeroMagnitude, 1e-300, 1e-9, 0.01, 0.3, 30, 1e300]
    static let values: [Double] = [-0.0, 0, .leastNonzeroMagnitude, 1e-300, 0.5, 1 - 1e-16, 1, -1, 1e300, -1e300, 2]

    func number(_ x: Double) -> String { x == 0 && x.sign == .minus ? "-0.0" : "\(x)" }

    func randomAHAP(_ g: inout SeededRandom) -> String {
        func pick<T>(_ list: [T]) -> T { list[Int.random(in: 0..<list.count, using: &g)] }
        func time() -> Double { Bool.random(using: &g) ? pick(Self.times) : .random(in: 0...0.3, using: &g) }
        var elements: [String] = []
        for _ in 0..<Int.random(in: 0...30, using: &g) {
            let type = pick(["HapticTransient", "HapticContinuous", "AudioContinuous", "AudioCustom"])
            let params = (0..<Int.random(in: 0...4, using: &g)).map { _ in
                #"{"ParameterID": "\#(pick(EventParameterID.allCases).rawValue)", "ParameterValue": \#(number(pick(Self.values)))}"#
            }.joined(separator: ",")
            var event = #""Time": \#(number(time())), "EventType": "\#(type)", "EventParameters": [\#(params)]"#
            if type.hasSuffix("Continuous") || Bool.random(using: &g) { event += #", "EventDuration": \#(number(pick(Self.durations)))"# }
            if type == "AudioCustom" { event += #", "EventWaveformPath": "missing.wav", "EventWaveformLoopEnabled": \#(Bool.random(using: &g))"# }
            elements.append(#"{"Event": {\#(event)}}"#)
        }
        for _ in 0..<Int.random(in: 0...6, using: &g) {
            let id = pick(DynamicParameterID.allCases).rawValue
            if Bool.random(using: &g) {
                elements.append(#"{"Parameter": {"ParameterID": "\#(id)", "Time": \#(number(time())), "ParameterValue": \#(number(pick(Self.values)))}}"#)
            } else {
                let points = (0..<Int.random(in: 0...20, using: &g)).map { _ in
                    #"{"Time": \#(number(Bool.random(using: &g) ? pick([0, .leastNonzeroMagnitude, 0.1, 0.1, 1]) : .random(in: 0...0.5, using: &g))), "ParameterValue": \#(number(pick(Self.values)))}"#
                }.joined(separator: ",")
                elements.append(#"{"ParameterCurve": {"ParameterID": "\#(id)", "Time": \#(number(time())), "ParameterCurveControlPoints": [\#(points)]}}"#)
            }
        }
        return #"{"Version": 1, "Pattern": [\#(elements.joined(separator: ","))]}"#
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func extremePatterns(seed: UInt64) throws {
        var g = SeededRandom(seed: seed &* 7919)
        let profiles = [ActuatorProfile.bassShaker, .voiceCoil, .lra]
        let rates = [8000.0, 44100, 48000, 48000, 384_000]
        let clock = ContinuousClock()
        var worst = Duration.zero
        var frames = 0
        var block = [Float](repeating: 0, count: 1024 * 4)
        for index in 0..<Self.patternsPerSeed {
            let text = randomAHAP(&g)
            let profile = profiles[Int.random(in: 0..<3, using: &g)]
            let rate = rates[Int.random(in: 0..<rates.count, using: &g)]
            let start = clock.now
            let decoded = try AHAPPattern.decode(text: text)
            let prepared = try PreparedPattern(decoded.pattern, profile: profile, sampleRate: rate)
            // An AudioCustom event may last as long as its sound (or its EventDuration, capped alike).
            #expect(prepared.duration <= Limits.maxTime + Limits.maxSoundSeconds)
            var stream = OfflineRenderStream(pattern: prepared, layout: Bool.random(using: &g) ? .stereoPlusHaptic : nil)
            // The first 50 ms through the output stage...
            let ceiling = Float(pow(10, profile.ceilingDBFS / 20)) * 1.0001
            var left = Int(0.05 * rate)
            while left > 0 && !stream.isFinished {
                let n = block.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: min(1024, left)) }
                if n == 0 { break }
                left -= n
                frames += n
                let samples = block[0..<(n * stream.channels)]
                let bad = samples.first { !($0.isFinite && abs($0) <= ceiling) }
                #expect(bad == nil, "seed \(seed) #\(index) \(profile.name) \(rate) Hz: sample \(bad ?? 0) (ceiling \(ceiling)): \(text)")
            }
            // ...and the voice around the pattern's end, however late that is.
            let end = renderVoice(prepared, frames: 256) { $0.seek(to: max(0, prepared.duration - 0.002)) }
            #expect(end.haptic.allSatisfy(\.isFinite) && end.left.allSatisfy(\.isFinite) && end.right.allSatisfy(\.isFinite))
            let took = clock.now - start
            worst = max(worst, took)
            #expect(took < .seconds(Self.budgetSeconds), "seed \(seed) #\(index) took \(took): \(text)")
        }
        print("extreme patterns, seed \(seed): \(Self.patternsPerSeed) patterns, \(frames) frames rendered, slowest \(worst)")
    }
}
