// PatternTrace reads a pattern back through its voice: the values a picture draws are the
// renderer's (controls at the onset, envelopes through the profile, control rows).

import HapticPattern
import Testing

@testable import HapticRender

@Suite("Pattern trace")
struct PatternTraceTests {
    func trace(_ elements: [PatternElement], profile: ActuatorProfile = .bassShaker) throws -> PatternTrace {
        PatternTrace(try PreparedPattern(AHAPPattern(elements: elements), profile: profile, sampleRate: 48_000))
    }

    @Test("a transient's intensity and sharpness include the controls at its onset; its burst is the profile's")
    func transients() throws {
        let t = try trace([
            .parameter(DynamicParameter(.hapticIntensityControl, time: 0.2, value: 0.5)),
            .parameter(DynamicParameter(.hapticSharpnessControl, time: 0.2, value: 0.25)),
            .event(.transient(at: 0.1, intensity: 0.8, sharpness: 0.5)),
            .event(.transient(at: 0.2, intensity: 0.8, sharpness: 0.5)),
            .event(.transient(at: 0.3, intensity: 0, sharpness: 0.5)),
        ])
        #expect(t.transients.count == 2, "a transient at intensity 0 plays nothing, and is not drawn")
        #expect(t.transients[0].element == 2 && t.transients[1].element == 3)
        #expect(abs(t.transients[0].intensity - 0.8) < 1e-12 && abs(t.transients[0].sharpness - 0.5) < 1e-12)
        // A Parameter at the same time as a transient applies to it (the raw control at its onset).
        #expect(abs(t.transients[1].intensity - 0.4) < 1e-12 && abs(t.transients[1].sharpness - 0.75) < 1e-12)
        let f = t.pattern.renderedFrequency(forSharpness: 0.75)
        #expect(abs(t.transients[1].frequency - f) < 1e-9)
        #expect(abs(t.transients[1].duration - (3 / f)) < 1.0 / 48_000, "bass-shaker bursts last 3 periods")
    }

    @Test("a continuous event's level: its envelope through the profile, times the intensity curve")
    func continuousLevel() throws {
        let t = try trace([
            .event(.continuous(at: 0.5, duration: 1, intensity: 0.8, sharpness: 0.4)),
            .curve(ParameterCurve(.hapticIntensityControl, time: 0.5, points: [.init(0, 1), .init(1, 0)])),
        ])
        #expect(t.continuous.count == 1)
        let event = t.continuous[0]
        #expect(event.start == 0.5)
        // Default release on the bass shaker (ReleaseTime 0 → 20 ms).
        #expect(abs(event.end - 1.52) < 1e-9)
        #expect(t.level(ofContinuous: 0, at: 0.4).intensity == 0, "nothing before the onset")
        #expect(t.level(ofContinuous: 0, at: 1.6).intensity == 0, "nothing after the release")
        // Half way, past the 4 ms attack: 0.8 × the curve's 0.5.
        let middle = t.level(ofContinuous: 0, at: 1.0)
        #expect(abs(middle.intensity - 0.4) < 1e-3)
        #expect(abs(middle.sharpness - 0.4) < 1e-6)
        // Inside the attack the envelope rises linearly from 0.
        let early = t.level(ofContinuous: 0, at: 0.502)
        #expect(early.intensity > 0.1 && early.intensity < 0.5)
        let corners = t.breakpoints(ofContinuous: 0)
        #expect(corners.first == 0.5 && abs(corners.last! - 1.52) < 1e-9)
        #expect(corners.contains { abs($0 - 0.504) < 1e-9 }, "the attack's end (4 ms on the bass shaker)")
    }

    @Test("audio events are listed with their span, playable or not")
    func audio() throws {
        let t = try trace([.event(Event(time: 0.25, type: .audioCustom, duration: 0.5, waveformPath: "missing.wav"))])
        #expect(t.audio.count == 1)
        #expect(t.audio[0].start == 0.25 && t.audio[0].end == 0.75)
        #expect(!t.audio[0].playable, "no sound source: the voice plays nothing")
    }
}
