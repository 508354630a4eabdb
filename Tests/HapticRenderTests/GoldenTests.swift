import Foundation
import HapticPattern
import Testing
@testable import HapticRender

@Suite("Golden: rendered samples match the semantics")
struct GoldenTests {
    let profile = ActuatorProfile.bassShaker

    @Test func transientStartsOnTheExactSample() throws {
        let t = 0.123457
        let onset = Int((t * fs).rounded())
        let p = try prepare([.event(.transient(at: t, intensity: 1, sharpness: 0.5))])
        let out = renderVoice(p, frames: 12_000)
        #expect(firstNonZero(out.haptic) == onset)
        #expect(out.haptic[..<onset].allSatisfy { $0 == 0 })
        // The burst lasts its profile length (3 cycles at the sharpness frequency) and ends quietly.
        let f = profile.frequency(forSharpness: 0.5)
        let length = Int((profile.transient.cycles! / f * fs).rounded())
        #expect(profile.transient.cycles == 3)
        #expect(lastNonZero(out.haptic) == onset + length - 1)
        #expect(abs(out.haptic[onset]) < 1e-4)
        #expect(abs(out.haptic[onset + length - 1]) < 1e-4)
        // Through the whole chain (high-pass, limiter with its latency compensated) too.
        let rendered = OfflineRenderer.render(p, layout: .hapticMono)
        #expect(firstNonZero(rendered.samples) == onset)
    }

    @Test func frequencyFollowsSharpnessWithinTheBand() throws {
        var previous = 0.0
        for s in [0.0, 0.25, 0.5, 0.75, 1.0] {
            let p = try prepare([.event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: s))])
            let out = renderVoice(p, frames: 48_000)
            let f = measuredFrequency(out.haptic, 2_000..<46_000)
            let expected = profile.band.low * pow(profile.band.high / profile.band.low, s)
            #expect(abs(f - expected) / expected < 0.002, "sharpness \(s): \(f) Hz, expected \(expected)")
            #expect(f >= profile.band.low * 0.998 && f <= profile.band.high * 1.002)
            #expect(f > previous)
            previous = f
        }
    }

    @Test func amplitudeFollowsIntensityByTheProfileLaw() throws {
        func level(_ i: Double, _ profile: ActuatorProfile) throws -> Double {
            let p = try prepare([.event(.continuous(at: 0, duration: 1, intensity: i, sharpness: 0.5))], profile: profile)
            let out = renderVoice(p, frames: 48_000)
            let period = Int((fs / profile.frequency(forSharpness: 0.5)).rounded())
            return rms(out.haptic[10_000..<(10_000 + 20 * period)])
        }
        let full = try level(1, .bassShaker)
        #expect(abs(full - 0.5.squareRoot()) < 0.005)  // a full-scale sine
        #expect(abs(try level(0.5, .bassShaker) / full - 0.5) < 0.002)
        #expect(abs(try level(0.25, .bassShaker) / full - 0.25) < 0.002)
        // voice-coil uses a power law with exponent 1.5.
        let vc = try level(1, .voiceCoil)
        #expect(abs(try level(0.5, .voiceCoil) / vc - pow(0.5, 1.5)) < 0.003)
    }

    @Test func intensityCurveGivesALinearRMSRamp() throws {
        let p = try prepare([
            .event(.continuous(at: 0, duration: 2, intensity: 1, sharpness: 1)),
            .curve(ParameterCurve(.hapticIntensityControl, time: 0.5, points: [.init(0, 0), .init(1, 1)])),
        ])
        let out = renderVoice(p, frames: 96_000)
        let period = fs / profile.frequency(forSharpness: 1)
        // RMS over whole periods centred on points of the ramp follows t linearly.
        for k in 1...9 {
            let centre = 24_000 + k * 4_800
            let half = Int((period * 2).rounded())
            let measured = rms(out.haptic[(centre - half)..<(centre + half)]) * 2.squareRoot()
            let expected = Double(k) / 10
            #expect(abs(measured - expected) < 0.01, "at \(Double(centre) / fs) s: \(measured), expected \(expected)")
        }
    }

    @Test func attackAndReleaseHaveTheirShapesAndLengths() throws {
        // Sustained: attack (linear) → hold → release (linear) after the event's end.
        let attack = profile.envelope.attack.seconds(for: 0.8)
        let release = profile.envelope.release.seconds(for: 0.6)
        let p = try prepare([.event(.continuous(
            at: 0, duration: 1, intensity: 1, sharpness: 1,
            extra: [EventParameter(.attackTime, 0.8), EventParameter(.releaseTime, 0.6)]))])
        let out = renderVoice(p, frames: 120_000)
        let period = Int(fs / profile.frequency(forSharpness: 1))
        let a = Int(attack * fs), r = Int(release * fs)
        #expect(abs(Double(peak(out.haptic, around: a / 2, width: period)) - 0.5) < 0.03)
        #expect(abs(Double(peak(out.haptic, around: a / 4, width: period)) - 0.25) < 0.03)
        #expect(abs(Double(peak(out.haptic, around: 30_000, width: period)) - 1) < 0.01)
        #expect(abs(Double(peak(out.haptic, around: 48_000 + r / 2, width: period)) - 0.5) < 0.03)
        let last = try #require(lastNonZero(out.haptic))
        #expect(abs(last - (48_000 + r)) <= 2, "release ends at \(last), expected \(48_000 + r)")
        #expect(p.duration == 1 + release)
    }

    @Test("a pattern lasts until its last parameter or curve point too (a trailing rest)")
    func durationIncludesParametersAndCurves() throws {
        let withParameter = try prepare([
            .event(.transient(at: 0, intensity: 1, sharpness: 0.5)),
            .parameter(DynamicParameter(.hapticSharpnessControl, time: 0.9, value: 0)),
        ])
        #expect(withParameter.duration == 0.9)
        #expect(withParameter.frameCount == 43_200)
        let withCurve = try prepare([
            .event(.transient(at: 0, intensity: 1, sharpness: 0.5)),
            .curve(ParameterCurve(.hapticIntensityControl, time: 0.5, points: [.init(0, 1), .init(0.7, 0.2)])),
        ])
        #expect(abs(withCurve.duration - 1.2) < 1e-12)
        let eventsOnly = try prepare([.event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0.5))])
        #expect(eventsOnly.duration >= 1, "events still set the length when they end last")
    }

    @Test func sustainedZeroDecaysOnItsOwnSustainedOneHolds() throws {
        let decay = profile.envelope.decay.seconds(for: 0.5)
        let attack = profile.envelope.attack.seconds(for: 0)
        func render(_ sustained: Double) throws -> [Float] {
            let p = try prepare([.event(.continuous(
                at: 0, duration: 2, intensity: 1, sharpness: 1,
                extra: [EventParameter(.sustained, sustained), EventParameter(.decayTime, 0.5)]))])
            return renderVoice(p, frames: 110_000).haptic
        }
        let decaying = try render(0)
        let holding = try render(1)
        let end = try #require(lastNonZero(decaying))
        #expect(abs(end - Int((attack + decay) * fs)) <= 2)
        let period = Int(fs / profile.frequency(forSharpness: 1))
        let mid = Int((attack + decay / 2) * fs)
        #expect(abs(Double(peak(decaying, around: mid, width: period)) - 0.5) < 0.03)
        #expect(abs(Double(peak(holding, around: mid, width: period)) - 1) < 0.01)
        #expect(abs(Double(peak(holding, around: 90_000, width: period)) - 1) < 0.01)
    }

    @Test func parameterStepsDoNotClick() throws {
        // An intensity step and a sharpness step: the largest sample-to-sample change
        // stays at the size a steady sine of that level and frequency has.
        let p = try prepare([
            .event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0.2)),
            .parameter(DynamicParameter(.hapticIntensityControl, time: 0.3, value: 0.1)),
            .parameter(DynamicParameter(.hapticIntensityControl, time: 0.5, value: 1)),
            .parameter(DynamicParameter(.hapticSharpnessControl, time: 0.7, value: 0.8)),
        ])
        let x = renderVoice(p, frames: 47_000).haptic
        let fMax = profile.frequency(forSharpness: 1)
        // A ramp over ~1.5 ms adds its own slope (0.9 / 72 samples here) to the sine's; an
        // unsmoothed step of 0.9 would jump by up to 0.9 in one sample (70 times more).
        let steadyBound = Float(2 * Double.pi * fMax / fs) * 1.5
        var largest: Float = 0
        for i in 1_000..<x.count { largest = max(largest, abs(x[i] - x[i - 1])) }
        #expect(largest <= steadyBound, "largest step \(largest), bound \(steadyBound)")
        // The step did happen: level 0.1 between 0.32 and 0.5 s.
        #expect(abs(Double(peak(x, around: 20_000, width: 1_200)) - 0.1) < 0.005)
    }

    @Test func curvePointTimesAreRelativeToTheCurveStart() throws {
        let p = try prepare([
            .event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 1)),
            .curve(ParameterCurve(.hapticIntensityControl, time: 0.5, points: [.init(0.1, 0.2), .init(0.3, 0.6)])),
        ])
        let x = renderVoice(p, frames: 48_000).haptic
        let period = Int(fs / profile.frequency(forSharpness: 1))
        // Before the curve starts: neutral (1). From 0.5 s to its first point (0.6 s): default (1).
        #expect(abs(Double(peak(x, around: Int(0.45 * fs), width: period)) - 1) < 0.01)
        #expect(abs(Double(peak(x, around: Int(0.55 * fs), width: period)) - 1) < 0.01)
        // Between points (0.6 → 0.8 s): 0.2 → 0.6; after the last: held at 0.6.
        #expect(abs(Double(peak(x, around: Int(0.7 * fs), width: period)) - 0.4) < 0.02)
        #expect(abs(Double(peak(x, around: Int(0.9 * fs), width: period)) - 0.6) < 0.01)
    }

    @Test func intensityControlMultipliesSharpnessControlAdds() throws {
        let p = try prepare([
            .event(.continuous(at: 0, duration: 1, intensity: 0.8, sharpness: 0.5)),
            .parameter(DynamicParameter(.hapticIntensityControl, time: 0, value: 0.5)),
            .parameter(DynamicParameter(.hapticSharpnessControl, time: 0, value: 0.25)),
        ])
        let x = renderVoice(p, frames: 48_000).haptic
        let f = measuredFrequency(x, 5_000..<45_000)
        let expected = profile.frequency(forSharpness: 0.75)
        #expect(abs(f - expected) / expected < 0.002)
        #expect(abs(rms(x[5_000..<45_000]) * 2.squareRoot() - 0.4) < 0.005)
        // Adding past the range clamps: sharpness 0.9 + 0.5 → 1.
        let q = try prepare([
            .event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 0.9)),
            .parameter(DynamicParameter(.hapticSharpnessControl, time: 0, value: 0.5)),
        ])
        let y = renderVoice(q, frames: 48_000).haptic
        #expect(abs(measuredFrequency(y, 5_000..<45_000) / profile.band.high - 1) < 0.002)
    }

    @Test func transientsTakeTheControlValueAtTheirOnset() throws {
        let plain = try prepare([.event(.transient(at: 0.1, intensity: 1, sharpness: 0.5))])
        let controlled = try prepare([
            .event(.transient(at: 0.1, intensity: 1, sharpness: 0.5)),
            .parameter(DynamicParameter(.hapticIntensityControl, time: 0.1, value: 0.5)),
            .parameter(DynamicParameter(.hapticIntensityControl, time: 0.11, value: 1)),
        ])
        let a = renderVoice(plain, frames: 12_000).haptic
        let b = renderVoice(controlled, frames: 12_000).haptic
        let ratio = b.map(abs).max()! / a.map(abs).max()!
        #expect(abs(ratio - 0.5) < 1e-5)
    }

    @Test func audioCustomStartsOnTheSameSampleAsATransient() throws {
        let t = 0.2501
        let sounds = MemorySounds(sounds: ["click.wav": SoundBuffer(channels: 1, sampleRate: fs, samples: [Float](repeating: 0.5, count: 4_800))])
        let p = try prepare([
            .event(.transient(at: t, intensity: 1, sharpness: 0.5)),
            .event(Event(time: t, type: .audioCustom, waveformPath: "click.wav", useVolumeEnvelope: false)),
        ], sounds: sounds)
        #expect(p.hasAudio)
        let out = renderVoice(p, frames: 24_000)
        let onset = Int((t * fs).rounded())
        #expect(firstNonZero(out.haptic) == onset)
        #expect(firstNonZero(out.left) == onset)
        #expect(firstNonZero(out.right) == onset)
        // Through the whole chain, in the default 3-channel layout (L, R, H).
        let rendered = OfflineRenderer.render(p)
        #expect(rendered.channels == 3)
        let firstFrames = (0..<3).map { c in (0..<rendered.frames).first { rendered.samples[$0 * 3 + c] != 0 } }
        #expect(firstFrames == [onset, onset, onset])
    }

    @Test func audioPanAndVolume() throws {
        let sine = (0..<4_800).map { Float(sin(2 * Double.pi * 440 * Double($0) / fs)) }
        let sounds = MemorySounds(sounds: ["tone.wav": SoundBuffer(channels: 1, sampleRate: fs, samples: sine)])
        func render(pan: Double, volume: Double) throws -> Buses {
            let p = try prepare([.event(Event(
                time: 0, type: .audioCustom,
                parameters: [EventParameter(.audioPan, pan), EventParameter(.audioVolume, volume)],
                waveformPath: "tone.wav", useVolumeEnvelope: false))], sounds: sounds)
            return renderVoice(p, frames: 4_800)
        }
        let left = try render(pan: -1, volume: 1)
        #expect(left.right.allSatisfy { abs($0) < 1e-6 })
        #expect(zip(left.left, sine).allSatisfy { abs($0 - $1) < 1e-5 })
        let centre = try render(pan: 0, volume: 0.5)
        let g = Float(0.5 * 0.5.squareRoot())
        #expect(zip(centre.left, sine).allSatisfy { abs($0 - $1 * g) < 1e-5 })
        #expect(zip(centre.right, sine).allSatisfy { abs($0 - $1 * g) < 1e-5 })
        // A volume control multiplies.
        let p = try prepare([
            .event(Event(time: 0, type: .audioCustom, parameters: [EventParameter(.audioPan, 1)], waveformPath: "tone.wav", useVolumeEnvelope: false)),
            .parameter(DynamicParameter(.audioVolumeControl, time: 0, value: 0.25)),
        ], sounds: sounds)
        let quiet = renderVoice(p, frames: 4_800)
        #expect(zip(quiet.right[200...], sine[200...]).allSatisfy { abs($0 - $1 * 0.25) < 1e-5 })
    }

    @Test func audioCustomDurationTruncatesWithAFadeAndLoops() throws {
        let sounds = MemorySounds(sounds: ["s.wav": SoundBuffer(channels: 1, sampleRate: fs, samples: [Float](repeating: 0.5, count: 4_800))])
        let truncated = try prepare([.event(Event(time: 0, type: .audioCustom, duration: 0.05, waveformPath: "s.wav", useVolumeEnvelope: false))], sounds: sounds)
        let a = renderVoice(truncated, frames: 9_600).left
        #expect(lastNonZero(a)! < 2_400)
        #expect(a[2_399] < 0.01 && a[1_000] > 0.3)  // faded to ~0 at its end
        let looped = try prepare([.event(Event(time: 0, type: .audioCustom, duration: 0.25, waveformPath: "s.wav", useVolumeEnvelope: false, loopEnabled: true))], sounds: sounds)
        let b = renderVoice(looped, frames: 14_400).left
        #expect(b[7_000] > 0.3 && b[10_000] > 0.3)  // past the sound's own 0.1 s
        #expect(lastNonZero(b)! < 12_000)
        let padded = try prepare([.event(Event(time: 0, type: .audioCustom, duration: 0.25, waveformPath: "s.wav", useVolumeEnvelope: false))], sounds: sounds)
        #expect(lastNonZero(renderVoice(padded, frames: 14_400).left)! == 4_799)
        #expect(padded.duration == 0.25)
    }

    @Test func missingSoundIsAWarningWhenLenientAndAnErrorWhenStrict() throws {
        let elements: [PatternElement] = [.event(Event(time: 0, type: .audioCustom, waveformPath: "nope.wav"))]
        let p = try prepare(elements, sounds: MemorySounds(sounds: [:]))
        #expect(p.warnings.count == 1 && p.warnings[0].contains("nope.wav"))
        #expect(renderVoice(p, frames: 1_000).left.allSatisfy { $0 == 0 })
        #expect(throws: RenderError.self) { try prepare(elements, sounds: MemorySounds(sounds: [:]), strict: true) }
    }

    @Test func audioContinuousPitchAndBrightness() throws {
        func tone(pitch: Double, brightness: Double) throws -> [Float] {
            let p = try prepare([.event(Event(
                time: 0, type: .audioContinuous, duration: 0.5,
                parameters: [EventParameter(.audioPitch, pitch), EventParameter(.audioBrightness, brightness)]))])
            return renderVoice(p, frames: 24_000).left
        }
        #expect(abs(measuredFrequency(try tone(pitch: 0, brightness: 0), 2_000..<20_000) - 440) < 0.5)
        #expect(abs(measuredFrequency(try tone(pitch: 1, brightness: 0), 2_000..<20_000) - 880) < 1)
        // Brightness adds harmonics: a steeper waveform (larger sample-to-sample steps).
        func steepness(_ x: [Float]) -> Float { (5_001..<20_000).map { abs(x[$0] - x[$0 - 1]) }.max()! / x[5_000..<20_000].map(abs).max()! }
        #expect(steepness(try tone(pitch: 0, brightness: 1)) > 1.3 * steepness(try tone(pitch: 0, brightness: 0)))
    }

    @Test func phaseDoesNotDriftOver100Seconds() throws {
        let p = try prepare([.event(.continuous(at: 0, duration: 101, intensity: 1, sharpness: 0.37))])
        var voice = PatternVoice(pattern: p)
        let f = p.renderedFrequency(forSharpness: 0.37)
        var buffer = [Float](repeating: 0, count: 4_800)
        var l = buffer, r = buffer
        var worst: Double = 0
        for block in 0..<1_000 {  // 100 s
            buffer.withUnsafeMutableBufferPointer { b in
                b.update(repeating: 0)
                voice.render(into: MixBus(haptic: b.baseAddress!, audioLeft: &l, audioRight: &r, frames: 4_800))
            }
            if block % 100 == 99 {
                for i in stride(from: 0, to: 4_800, by: 7) {
                    let n = Double(block * 4_800 + i)
                    let ideal = sin(2 * Double.pi * (n * (f / fs) - (n * (f / fs)).rounded(.down)))
                    worst = max(worst, abs(Double(buffer[i]) - ideal))
                }
            }
        }
        #expect(worst < 1e-5, "largest deviation from the ideal sine: \(worst)")
    }
}
