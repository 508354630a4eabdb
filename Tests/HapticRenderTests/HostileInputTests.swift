import HapticTestSupport
import Foundation
import HapticPattern
import Testing
@testable import HapticRender

/// Hostile numbers in patterns and profiles: each case prints its one-line outcome and
/// checks there is no trap (reaching the assertions proves it), a refusal or a warning
/// saying what happens, and nothing unbounded.
@Suite("Hostile input: limits and checked arithmetic")
struct HostileInputTests {
    @Test(
        "an event past the time limit is skipped with a warning (lenient) or refused (strict)",
        arguments: [1e15, 1e5, 3600.5, Double.greatestFiniteMagnitude])
    func eventPastTimeLimit(time: Double) throws {
        let elements: [PatternElement] = [.event(.transient(at: 0.1, intensity: 1, sharpness: 0.5)), .event(.transient(at: time))]
        let p = try prepare(elements)
        print("time \(time): \(p.warnings.joined(separator: " | "))")
        #expect(p.eventCount == 1)
        #expect(p.warnings.contains { $0.contains("past the 3600.0 s limit") && $0.contains("skipped") })
        #expect(p.duration < 1, "the skipped event does not lengthen the output")
        #expect(p.frameCount < 48_000)
        #expect(throws: RenderError.self) { try prepare(elements, strict: true) }
    }

    @Test("parameters and curves past the time limit are skipped; frameCount never traps")
    func controlsPastTimeLimit() throws {
        let p = try prepare([
            .event(.transient(at: 0)),
            .parameter(DynamicParameter(.hapticIntensityControl, time: 1e300, value: 0.5)),
            .curve(ParameterCurve(.hapticSharpnessControl, time: 10, points: [.init(0, 0), .init(1e20, 1)])),
        ])
        print("controls: \(p.warnings.joined(separator: " | "))")
        #expect(p.warnings.count == 2)
        #expect(p.duration < 1)
    }

    @Test("durations from code are capped at the time limit (files: at 30 s by the reader)")
    func durationCapped() throws {
        let p = try prepare([.event(.continuous(at: 0, duration: 1e12, intensity: 1, sharpness: 0.5))])
        print("duration 1e12: prepared duration \(p.duration) s")
        #expect(p.duration <= Limits.maxTime + ActuatorProfile.bassShaker.envelope.release.max + 0.01)
        #expect(p.frameCount <= Int((Limits.maxTime + 3) * fs))
    }

    @Test("more events at once than the voice limit: the excess is skipped (lenient) or refused (strict)")
    func voiceLimit() throws {
        let elements = (0..<(Limits.maxVoices + 10)).map { i in
            PatternElement.event(.continuous(at: Double(i) * 0.0001, duration: 1, intensity: 0.1, sharpness: 0.5))
        }
        let p = try prepare(elements)
        print("voices: \(p.warnings.joined(separator: " | "))")
        #expect(p.eventCount == Limits.maxVoices)
        #expect(p.eventsSkippedForVoices == 10)
        #expect(throws: RenderError.self) { try prepare(elements, strict: true) }
    }

    @Test("more elements than the limit: the rest are skipped with one warning")
    func elementLimit() throws {
        let elements = (0..<(Limits.maxElements + 5)).map { i in
            PatternElement.parameter(DynamicParameter(.hapticIntensityControl, time: Double(i % 100) * 0.01, value: 1))
        }
        let p = try prepare(elements)
        print("elements: \(p.warnings.first ?? "none")")
        #expect(p.warnings.count == 1)
        #expect(p.warnings[0].contains("more than the limit of \(Limits.maxElements)"))
    }

    @Test("sample rates outside the limits are refused", arguments: [0.0, -48000, 7999, 384_001, .nan, .infinity, 1e300])
    func sampleRate(rate: Double) {
        #expect(throws: RenderError.self) {
            try PreparedPattern(AHAPPattern(elements: [.event(.transient(at: 0))]), profile: .bassShaker, sampleRate: rate)
        }
    }

    @Test("the offline stream's tail and the live ramp never trap on huge values")
    func tailAndRamp() throws {
        let p = try prepare([.event(.transient(at: 0))])
        let stream = OfflineRenderStream(pattern: p, tail: 1e300)
        print("tail 1e300: \(stream.totalFrames) frames")
        #expect(stream.totalFrames <= Int(Limits.maxOutputSeconds * fs) + p.frameCount)
        let buses = renderVoice(p, frames: 64) { voice in
            voice.setControl(.hapticIntensityControl, value: 0.5, ramp: 1e300)
            voice.seek(to: 1e300)
        }
        #expect(buses.haptic.allSatisfy { $0.isFinite })
    }

    @Test("regression (property test): curve points a denormal apart gave an infinite slope and NaN samples")
    func denormalPointSpacing() throws {
        for spacing in [Double.leastNonzeroMagnitude, 1e-300, 1e-12] {
            let p = try prepare([
                .event(.continuous(at: 0, duration: 0.05, intensity: 1, sharpness: 0.5)),
                .curve(ParameterCurve(.hapticIntensityControl, time: 0, points: [.init(0, 0), .init(spacing, 1), .init(0.02, 1), .init(0.02 + spacing, 0)])),
            ])
            let out = OfflineRenderer.render(p, layout: .stereoPlusHaptic, tail: 0.02)
            let bad = out.samples.filter { !$0.isFinite }.count
            print("curve points \(spacing) s apart: \(bad) non-finite samples of \(out.samples.count), peak \(out.peak)")
            #expect(bad == 0)
            #expect(out.peak > 0.1, "the event still sounds")
        }
    }

    // MARK: profiles

    nonisolated(unsafe) static let profileCases: [(edit: (String) -> String, field: String)] = [
        ({ $0.replacingOccurrences(of: "\"order\": 2", with: "\"order\": 2.5") }, "protection.order: must be 2 or 4 (got 2.5)"),
        ({ $0.replacingOccurrences(of: "\"order\": 2", with: "\"order\": 1e300") }, "protection.order: must be 2 or 4"),
        ({ $0.replacingOccurrences(of: "\"order\": 2", with: "\"order\": -0") }, "protection.order: must be 2 or 4"),
        ({ $0.replacingOccurrences(of: "\"low\": 22", with: "\"low\": 1e-300").replacingOccurrences(of: "\"highPassHz\": 16", with: "\"highPassHz\": 1e-301") }, "band.low: must be between 1.0 and 20000.0 Hz (got 1e-300)"),
        ({ $0.replacingOccurrences(of: "\"highPassHz\": 16", with: "\"highPassHz\": 1e-300") }, "protection.highPassHz: must be between 0.5"),
        ({ $0.replacingOccurrences(of: "\"highPassHz\": 16", with: "\"highPassHz\": 16, \"highPassHz\": 12") }, "protection.highPassHz: given twice"),
        ({ $0.replacingOccurrences(of: "\"name\": \"bass-shaker\"", with: "\"name\": \"a\", \"name\": \"b\"") }, "name: given twice"),
        ({ $0.replacingOccurrences(of: "\"min\": 0.004", with: "\"min\": 1e-300") }, "envelope.attack.min: must be between 0.0001 and 60.0 s"),
        ({ $0.replacingOccurrences(of: "\"max\": 1.0", with: "\"max\": 1e300") }, "envelope.attack.max: must be between"),
        ({ $0.replacingOccurrences(of: "\"cycles\": 3", with: "\"cycles\": 1000").replacingOccurrences(of: "\"low\": 22", with: "\"low\": 1.5").replacingOccurrences(of: "\"highPassHz\": 16", with: "\"highPassHz\": 1") }, "transient.cycles: 1000.0 cycles at band.low"),
        ({ $0.replacingOccurrences(of: "\"outputGainDB\": -3", with: "\"outputGainDB\": 1e309") }, "not valid JSON"),
        ({ _ in "{\"name\": 1" }, "not valid JSON: line 1, column"),
    ]

    @Test("profile values are checked by field with their allowed range", arguments: 0..<12)
    func profileField(index: Int) throws {
        let base = try #require(ActuatorProfile.builtInJSON(named: "bass-shaker"))
        let (edit, expected) = Self.profileCases[index]
        let text = edit(base)
        #expect(text != base)
        do {
            _ = try ActuatorProfile.decode(from: Array(text.utf8), source: "p.json")
            Issue.record("accepted: \(expected)")
        } catch {
            print("profile case \(index): \(error)")
            #expect(error.description.contains(expected), "\(error)")
            #expect(!error.description.contains("\n"))
        }
    }

    @Test("the smallest and largest valid profile values render without trapping")
    func extremeValidProfile() throws {
        var profile = ActuatorProfile.bassShaker
        profile.band = .init(low: Limits.bandHz.lowerBound + 0.5, high: Limits.bandHz.upperBound - 1)
        profile.protection.highPassHz = Limits.minHighPassHz
        profile.transient = .init(cycles: Limits.maxTransientSeconds * profile.band.low)
        profile.envelope = .init(
            attack: .init(min: Limits.envelopeSeconds.lowerBound, max: Limits.envelopeSeconds.lowerBound),
            decay: .init(min: Limits.envelopeSeconds.lowerBound, max: Limits.envelopeSeconds.upperBound),
            release: .init(min: Limits.envelopeSeconds.lowerBound, max: Limits.envelopeSeconds.lowerBound))
        try profile.validate(source: "extreme")
        for rate in [Limits.sampleRates.lowerBound, Limits.sampleRates.upperBound] {
            let p = try PreparedPattern(
                AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0)), .event(.transient(at: 0, intensity: 1, sharpness: 1)),
                                       .event(.continuous(at: 0, duration: 0.01, intensity: 1, sharpness: 1))]),
                profile: profile, sampleRate: Double(rate))
            var stream = OfflineRenderStream(pattern: p)
            var block = [Float](repeating: 0, count: 4096)
            let n = block.withUnsafeMutableBufferPointer { stream.render(into: $0.baseAddress!, maxFrames: 4096) }
            print("extreme profile at \(rate) Hz: \(p.frameCount) frames, first block \(n)")
            #expect(block.allSatisfy { $0.isFinite })
        }
    }

    @Test("no corpus file comes near the voice limit")
    func corpusWithinVoiceLimit() throws {
        guard let folder = Corpus.folder else { return }
        for name in try Corpus.files() {
            let bytes = try [UInt8](Data(contentsOf: folder.appendingPathComponent(name)))
            guard let decoded = try? AHAPPattern.decode(from: bytes) else { continue }
            let p = try PreparedPattern(decoded.pattern, profile: .bassShaker, sampleRate: fs)
            #expect(p.eventsSkippedForVoices == 0, "\(name)")
        }
    }
}
