import Foundation
import HapticPattern
import HapticTestSupport
import Testing
@testable import HapticRender

/// Felt timing (issue 13): a transient is felt on its beat (its Hilbert envelope reaches half its
/// peak within 3 ms of the event time), nothing sounds before it, its first sample is on the
/// event's sample, sharpness still orders frequency; continuous attacks follow AttackTime;
/// renders end in silence; an event at an absurd time cannot stall the render thread.
@Suite("Felt timing: transients felt on their beat, renders that end in silence")
struct FeltTimingTests {
    static let profiles: [ActuatorProfile] = [.bassShaker, .voiceCoil, .lra]

    @Test("the Hilbert envelope of an AM tone is its modulation")
    func hilbertEnvelopeOfAnAMTone() {
        let n = 9_600
        let x = (0..<n).map { i -> Float in
            let t = Double(i) / fs
            return Float((1 + 0.5 * cos(2 * .pi * 5 * t)) * sin(2 * .pi * 400 * t))
        }
        let envelope = hilbertEnvelope(x)
        #expect(envelope.count == n)
        // Away from the ends (where the finite signal's edges show), within 2 %.
        for i in stride(from: 1_000, to: n - 1_000, by: 97) {
            let t = Double(i) / fs
            let want = 1 + 0.5 * cos(2 * .pi * 5 * t)
            #expect(abs(envelope[i] - want) < 0.02 * want, "sample \(i): \(envelope[i]) vs \(want)")
        }
        let onsets = envelopeOnsets([0, 0.2, 0.6, 1, 0.7])
        #expect(onsets.half == 2 && onsets.peak == 3)
    }

    @Test("golden: every profile at sharpness 0, 0.5 and 1: exactly 0 before the event, first sample on it, half-envelope within 0...3 ms",
          arguments: [0.0, 0.5, 1.0])
    func transientIsFeltOnItsBeat(_ sharpness: Double) throws {
        for profile in Self.profiles {
            let t = 0.1
            let onset = Int((t * fs).rounded())
            let p = try prepare([.event(.transient(at: t, intensity: 1, sharpness: sharpness))], profile: profile)
            let out = OfflineRenderer.render(p, layout: .hapticMono)
            let place = "\(profile.name) sharpness \(sharpness)"
            #expect(out.samples[..<onset].allSatisfy { $0 == 0 }, "\(place): something before the event")
            #expect(firstNonZero(out.samples) == onset, "\(place): first sample not on the event's sample")
            let envelope = hilbertEnvelope(out.samples)
            let (half, peak) = envelopeOnsets(envelope)
            let halfMs = Double(half - onset) / fs * 1000
            #expect(halfMs >= 0 && halfMs <= 3, "\(place): half-envelope at \(halfMs) ms")
            #expect(peak >= half)
            // The renderer's own report says the same.
            let felt = try profile.feltOnset(sharpness: sharpness)
            #expect(abs(felt.halfEnvelopeMs - halfMs) < 0.05, "\(place): feltOnset \(felt.halfEnvelopeMs) vs \(halfMs)")
            #expect(felt.firstSampleMs == 0)
            #expect(felt.halfEnvelopeMs >= 0 && felt.halfEnvelopeMs <= 3)
        }
    }

    @Test("sharpness still orders frequency: the burst's spectral peak rises with sharpness on every profile")
    func sharpnessOrdersFrequency() throws {
        for profile in Self.profiles {
            var previous = 0.0
            for s in [0.0, 0.5, 1.0] {
                let p = try prepare([.event(.transient(at: 0, intensity: 1, sharpness: s))], profile: profile)
                let out = renderVoice(p, frames: 24_000)
                let f = spectralPeak(out.haptic)
                let want = profile.frequency(forSharpness: s)
                // The burst is short, so its peak is broad: within 10 % of the mapped frequency.
                #expect(abs(f - want) < 0.1 * want, "\(profile.name) sharpness \(s): peak at \(f) Hz, mapped \(want) Hz")
                #expect(f > previous, "\(profile.name) sharpness \(s): \(f) Hz is not above \(previous) Hz")
                previous = f
            }
        }
    }

    @Test("continuous: with no AttackTime the default attack is felt on time; with one, the rise follows it")
    func continuousAttack() throws {
        for profile in Self.profiles {
            let t = 0.1
            let onset = Int((t * fs).rounded())
            let quick = try prepare([.event(.continuous(at: t, duration: 0.5, intensity: 1, sharpness: 0.5))], profile: profile)
            let a = renderVoice(quick, frames: 48_000).haptic
            let halfDefault = Double(envelopeOnsets(hilbertEnvelope(a)).half - onset) / fs * 1000
            #expect(halfDefault >= 0 && halfDefault <= 3, "\(profile.name): default attack half-envelope at \(halfDefault) ms")
            // AttackTime 0.5 maps to min·(max/min)^0.5; a linear rise is at half its level at half that.
            var event = Event.continuous(at: t, duration: 0.5, intensity: 1, sharpness: 0.5)
            event.parameters.append(EventParameter(.attackTime, 0.5))
            let slow = try prepare([.event(event)], profile: profile)
            let b = renderVoice(slow, frames: 48_000).haptic
            let attack = profile.envelope.attack.min * pow(profile.envelope.attack.max / profile.envelope.attack.min, 0.5)
            let halfSlow = Double(envelopeOnsets(hilbertEnvelope(b)).half - onset) / fs
            #expect(abs(halfSlow - attack / 2) < 0.002, "\(profile.name): half at \(halfSlow) s, attack \(attack) s")
        }
    }

    @Test("renders end in silence by default; --exact-length keeps the length and fades the end")
    func rendersEndInSilence() throws {
        // A transient cut at the pattern's nominal end used to end the file loud.
        let elements: [PatternElement] = [
            .event(.continuous(at: 0, duration: 0.3, intensity: 1, sharpness: 0.2)),
            .event(.transient(at: 0.29, intensity: 1, sharpness: 0)),
        ]
        for profile in Self.profiles {
            let p = try prepare(elements, profile: profile)
            let out = OfflineRenderer.render(p, layout: .hapticMono)
            #expect(out.frames > p.frameCount)
            #expect(out.samples.suffix(480).allSatisfy { abs($0) < 0.001 }, "\(profile.name): last 10 ms not below -60 dBFS")
            #expect(abs(out.samples.last!) < OfflineRenderStream.silenceLevel)
            #expect(Double(out.frames) <= Double(p.frameCount) + OfflineRenderStream.maximumExtraSeconds * fs)
            let exact = OfflineRenderer.render(p, layout: .hapticMono, ending: .exactLength)
            #expect(exact.frames == p.frameCount)
            #expect(exact.samples.last == 0)
            #expect(exact.samples.suffix(48).allSatisfy { abs($0) < 0.2 }, "\(profile.name): the fade's last ms is quiet")
            // Up to the fade, the exact-length render is the same signal.
            let fadeStart = p.frameCount - Int(OfflineRenderStream.endFadeSeconds * fs)
            #expect(Array(exact.samples[..<fadeStart]) == Array(out.samples[..<fadeStart]))
        }
    }

    @Test("an event at 3e10 s or 1e308 s renders a block promptly (no loop a pattern's values choose)",
          arguments: [3e10, 1e308])
    func absurdEventTimes(_ time: Double) throws {
        let p = try prepare([
            .event(.transient(at: 0.01, intensity: 1, sharpness: 0.5)),
            .event(.transient(at: time, intensity: 1, sharpness: 0.5)),
            .event(.continuous(at: time, duration: 1, intensity: 1, sharpness: 0.5)),
        ])
        let results = Recorder<(earlyTransientPlays: Bool, eventsStarted: Int, framesRendered: Int64)>()
        // Milliseconds of work; 60 s from its start is a hang, not a slow machine.
        let finished = finishes(within: 60) {
            let out = renderVoice(p, frames: 4_096, blocks: [512, 1, 100])
            var voice = PatternVoice(pattern: p)
            var block = [Float](repeating: 0, count: 3 * 1_024)
            block.withUnsafeMutableBufferPointer { b in
                let base = b.baseAddress!
                voice.render(into: MixBus(haptic: base, audioLeft: base + 1_024, audioRight: base + 2_048, frames: 1_024))
                // Seeking that far, and a loop end beyond any render, stay bounded too.
                voice.seek(to: time)
                voice.loopEnd = time
                voice.playbackRate = 1000
                voice.render(into: MixBus(haptic: base, audioLeft: base + 1_024, audioRight: base + 2_048, frames: 1_024))
            }
            results.append((out.haptic.contains { $0 != 0 }, voice.eventsStarted, voice.framesRendered))
        }
        try #require(finished, "rendering with an event at \(time) s finished within 60 s")
        let result = try #require(results.all.first)
        #expect(result.earlyTransientPlays, "the early transient plays")
        #expect(result.eventsStarted >= 1)
        #expect(result.framesRendered == 2_048)
    }

    /// Dense random patterns over 10 s at full intensity: the summed drive is far over the ceiling.
    /// (LimiterSubbandTests has more and denser ones: HapticTestSupport's `DensePattern`.)
    enum RandomDensePattern: String, CaseIterable, CustomTestStringConvertible {
        case mixed = "600 transients and 40 continuous events, random sharpness"
        case transients = "2,000 transients, random sharpness"
        case lowTransients = "2,000 transients at sharpness 0 (next to the high-pass)"
        case continuous = "80 continuous events of 0.5-2 s, random sharpness"
        var testDescription: String { rawValue }

        var elements: [PatternElement] {
            var g = SeededRandom(seed: 7)
            func transient(_ sharpness: Double?) -> PatternElement {
                .event(.transient(at: Double.random(in: 0..<10, using: &g), intensity: 1,
                                  sharpness: sharpness ?? Double.random(in: 0...1, using: &g)))
            }
            func continuous(_ durations: ClosedRange<Double>) -> PatternElement {
                .event(.continuous(
                    at: Double.random(in: 0..<9.5, using: &g), duration: Double.random(in: durations, using: &g), intensity: 1,
                    sharpness: Double.random(in: 0...1, using: &g)))
            }
            switch self {
            case .mixed: return (0..<600).map { _ in transient(nil) } + (0..<40).map { _ in continuous(0.1...0.5) }
            case .transients: return (0..<2_000).map { _ in transient(nil) }
            case .lowTransients: return (0..<2_000).map { _ in transient(0) }
            case .continuous: return (0..<80).map { _ in continuous(0.5...2) }
            }
        }
    }

    @Test("the limiter adds almost nothing below the band: dense random patterns on bass-shaker, under 0.1 % of the energy below 5 Hz",
          arguments: RandomDensePattern.allCases)
    func limiterSubsonicEnergy(_ pattern: RandomDensePattern) throws {
        let p = try prepare(pattern.elements, profile: .bassShaker)
        let out = OfflineRenderer.render(p, layout: .hapticMono)
        let ceiling = Float(pow(10, ActuatorProfile.bassShaker.ceilingDBFS / 20))
        #expect(out.peak <= ceiling)
        // Working hard: the summed drive before the limiter is far over the ceiling.
        let dry = renderVoice(p, frames: out.frames).haptic.map { abs($0) * Float(pow(10, -3.0 / 20)) }.max()!
        #expect(dry > 2 * ceiling, "the limiter is not working hard (drive peak \(dry))")
        let share = energyShares(out.samples, sampleRate: fs, below: [5])[0]
        print("limiter sub-band: \(pattern.rawValue): \(String(format: "%.4f", share * 100)) % of the energy below 5 Hz")
        #expect(share < 0.001, "\(share * 100) % of the energy below 5 Hz")
    }

    /// The frequency of the largest bin of the zero-padded spectrum (parabolic interpolation).
    func spectralPeak(_ x: [Float]) -> Double {
        var n = 1
        while n < 8 * x.count { n <<= 1 }
        var re = [Double](repeating: 0, count: n), im = [Double](repeating: 0, count: n)
        for i in x.indices { re[i] = Double(x[i]) }
        fourierTransform(&re, &im, inverse: false)
        var best = 1
        for k in 1..<(n / 2) where re[k] * re[k] + im[k] * im[k] > re[best] * re[best] + im[best] * im[best] { best = k }
        return Double(best) * fs / Double(n)
    }
}
