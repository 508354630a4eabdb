import Foundation
import HapticPattern
import Testing
@testable import HapticRender

@Suite("Actuator profiles")
struct ProfileTests {
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Assets/actuators")

    @Test(arguments: ActuatorProfile.builtInNames)
    func builtInJSONIsIdenticalToTheShippedFile(name: String) throws {
        let file = try String(contentsOf: Self.assets.appendingPathComponent("\(name).json"), encoding: .utf8)
        #expect(ActuatorProfile.builtInJSON(named: name) == file)
        let profile = try #require(ActuatorProfile.builtIn(named: name))
        #expect(profile.name == name)
        #expect(try ActuatorProfile.decode(from: Array(file.utf8), source: "\(name).json") == profile)
        #expect(profile.ceilingDBFS == -1)
    }

    @Test func shippedBandsMatchTheHardware() {
        #expect(ActuatorProfile.bassShaker.band.low >= 20 && ActuatorProfile.bassShaker.band.high <= 90)
        #expect(ActuatorProfile.voiceCoil.band.low == 50 && ActuatorProfile.voiceCoil.band.high == 300)
        #expect(ActuatorProfile.lra.band.low == 150 && ActuatorProfile.lra.band.high == 175)
        #expect(ActuatorProfile.builtIn(named: "nope") == nil)
        #expect(ActuatorProfile(name: "lra") == ActuatorProfile.lra)
    }

    @Test func readmeNamesASourceForEveryProfile() throws {
        let readme = try String(contentsOf: Self.assets.appendingPathComponent("README.md"), encoding: .utf8)
        for name in ActuatorProfile.builtInNames { #expect(readme.contains("`\(name)`")) }
    }

    func error(_ edit: (inout String) -> Void) -> String? {
        var text = ActuatorProfile.builtInJSON(named: "bass-shaker")!
        edit(&text)
        do {
            _ = try ActuatorProfile.decode(from: Array(text.utf8), source: "bass-shaker.json")
            return nil
        } catch {
            return error.description
        }
    }

    @Test func badProfilesGetAnErrorNamingTheField() {
        #expect(error { $0 = $0.replacingOccurrences(of: #""high": 90"#, with: #""high": 10"#) }
            == "bass-shaker.json: band.high: must be greater than band.low")
        #expect(error { $0 = $0.replacingOccurrences(of: #""high": 90"#, with: #""hihg": 90"#) }
            == "bass-shaker.json: band.hihg: unknown field")
        #expect(error { $0 = $0.replacingOccurrences(of: #""low": 22, "#, with: "") }
            == "bass-shaker.json: band.low: is required")
        #expect(error { $0 = $0.replacingOccurrences(of: #""cycles": 3"#, with: #""cycles": "two""#) }
            == "bass-shaker.json: transient.cycles: expected a number")
        #expect(error { $0 = $0.replacingOccurrences(of: #""law": "linear""#, with: #""law": "power""#) }
            == "bass-shaker.json: intensity.exponent: is required for the power law")
        #expect(error { $0 = $0.replacingOccurrences(of: #""sharpness": 0.5"#, with: #""sharpness": 1.5"#) }
            == "bass-shaker.json: defaults.sharpness: must be between 0 and 1 (got 1.5)")
        #expect(error { $0 = $0.replacingOccurrences(of: #""highPassHz": 16"#, with: #""highPassHz": 30"#) }?
            .hasPrefix("bass-shaker.json: protection.highPassHz: must be below band.low") == true)
        #expect(error { $0 = $0.replacingOccurrences(of: #""decayCycles": 0.75"#, with: #""decayCycles": 0.75, "window": "boxcar""#) }?
            .hasPrefix("bass-shaker.json: transient.window: invalid value") == true)
        #expect(error { $0 = $0.replacingOccurrences(of: #""attackMs": 1"#, with: #""attackMs": 25"#) }?
            .hasPrefix("bass-shaker.json: transient.attackMs: must be at most 20") == true)
        #expect(error { $0 = $0.replacingOccurrences(of: #""decayCycles": 0.75"#, with: #""decayCycles": 0"#) }
            == "bass-shaker.json: transient.decayCycles: must be a positive number (got 0.0)")
        #expect(error { $0 = "{ not json" }?.hasPrefix("bass-shaker.json: not valid JSON: line 1, column 3") == true)
        #expect(error { $0 = $0.replacingOccurrences(of: #""ceilingDBFS": -1"#, with: #""ceilingDBFS": 3"#) }
            == "bass-shaker.json: ceilingDBFS: must be between -60 and 0 (got 3.0)")
    }

    @Test func absentOptionalFieldsTakeTheirDefaults() throws {
        let text = ActuatorProfile.builtInJSON(named: "lra")!
            .replacingOccurrences(of: "  \"ceilingDBFS\": -1,\n", with: "")
            .replacingOccurrences(of: "  \"limiter\": { \"lookaheadMs\": 0.5, \"releaseMs\": 50 }\n", with: "  \"outputGainDB\": 0\n")
            .replacingOccurrences(of: "  \"outputGainDB\": -3,\n", with: "")
        let p = try ActuatorProfile.decode(from: Array(text.utf8), source: "x")
        #expect(p.ceilingDBFS == -1)
        #expect(p.limiter == ActuatorProfile.Limiter())
    }

    @Test func envelopeTimesAreExponentialBetweenMinAndMax() {
        let r = ActuatorProfile.TimeRange(min: 0.01, max: 1)
        #expect(abs(r.seconds(for: 0) - 0.01) < 1e-12)
        #expect(abs(r.seconds(for: 1) - 1) < 1e-12)
        #expect(abs(r.seconds(for: 0.5) - 0.1) < 1e-12)
    }
}

@Suite("Channel layouts")
struct ChannelLayoutTests {
    @Test func parsesMapsWithGains() throws {
        #expect(try ChannelLayout.parse("L,R,H") == .stereoPlusHaptic)
        #expect(try ChannelLayout.parse("mono") == .hapticMono)
        #expect(try ChannelLayout.parse(" 0, 0 ,H, h*0.5") == ChannelLayout([.silence, .silence, .haptic(gain: 1), .haptic(gain: 0.5)]))
        let db = try ChannelLayout.parse("H*-6dB,R*-1")
        guard case .haptic(let g) = db.sources[0] else { Issue.record("not haptic"); return }
        #expect(abs(g - 0.501187) < 1e-5)
        #expect(db.sources[1] == .audioRight(gain: -1))
        #expect(db.mapDescription == "H*\(g),R*-1.0")
    }

    @Test func badMapsGetOneClearLine() {
        func message(_ text: String) -> String? {
            do { _ = try ChannelLayout.parse(text); return nil } catch { return error.description }
        }
        #expect(message("L,X") == #"layout "L,X": channel 2: unknown source "X" (expected H, L, R or 0, optionally *GAIN)"#)
        #expect(message("H*2") == #"layout "H*2": channel 1: gain 2 is outside -1...1"#)
        #expect(message("H*loud") == #"layout "H*loud": channel 1: gain "loud" is not a number (e.g. 0.5 or -6dB)"#)
        #expect(message("H,,L") == #"layout "H,,L": channel 2: empty entry"#)
        #expect(message("") == #"layout is empty (expected e.g. "L,R,H")"#)
        #expect(message("H*3dB") == #"layout "H*3dB": channel 1: gain 3dB is above 0 dB"#)
    }

    @Test func outputStageWritesEachChannelFromItsSource() throws {
        let p = try prepare([.event(.continuous(at: 0, duration: 0.5, intensity: 1, sharpness: 0.5))])
        let mono = OfflineRenderer.render(p, layout: .hapticMono)
        let quad = OfflineRenderer.render(p, layout: try ChannelLayout.parse("0,L,H,H*-0.5"))
        #expect(quad.channels == 4 && quad.frames == mono.frames)
        for i in 0..<mono.frames {
            #expect(quad.samples[i * 4] == 0 && quad.samples[i * 4 + 1] == 0)
            #expect(quad.samples[i * 4 + 2] == mono.samples[i])
            #expect(quad.samples[i * 4 + 3] == mono.samples[i] * -0.5)
        }
    }
}

@Suite("Live control of a voice")
struct VoiceControlTests {
    @Test func setControlLayersOnThePatternAndRamps() throws {
        let p = try prepare([.event(.continuous(at: 0, duration: 2, intensity: 1, sharpness: 1)),
                             .parameter(DynamicParameter(.hapticIntensityControl, time: 0, value: 0.8))])
        var voice = PatternVoice(pattern: p)
        var h = [Float](repeating: 0, count: 96_000), l = h, r = h
        voice.render(into: MixBus(haptic: &h, audioLeft: &l, audioRight: &r, frames: 24_000))
        voice.setControl(.hapticIntensityControl, value: 0.5, ramp: 0.25)
        h.withUnsafeMutableBufferPointer { hb in
            voice.render(into: MixBus(haptic: hb.baseAddress! + 24_000, audioLeft: &l, audioRight: &r, frames: 72_000))
        }
        let period = Int(fs / ActuatorProfile.bassShaker.frequency(forSharpness: 1))
        #expect(abs(Double(peak(h, around: 20_000, width: period)) - 0.8) < 0.01)
        #expect(abs(Double(peak(h, around: 24_000 + 6_000, width: period)) - 0.6) < 0.02)  // halfway down the ramp
        #expect(abs(Double(peak(h, around: 60_000, width: period)) - 0.4) < 0.01)  // 0.8 × 0.5
    }

    @Test func playbackRateScalesTimesNotFrequencies() throws {
        let p = try prepare([.event(.transient(at: 1, intensity: 1, sharpness: 0.5)),
                             .event(.continuous(at: 1.2, duration: 0.5, intensity: 1, sharpness: 0.5))])
        let out = renderVoice(p, frames: 48_000) { $0.playbackRate = 2 }
        #expect(firstNonZero(out.haptic) == 24_000)
        let f = measuredFrequency(out.haptic, 30_000..<40_000)
        let expected = p.renderedFrequency(forSharpness: 0.5)
        #expect(abs(f - expected) / expected < 0.002)
        // The continuous event's 0.5 s (+ release) lasts half as long in output time.
        let end = lastNonZero(out.haptic)!
        let release = ActuatorProfile.bassShaker.envelope.release.seconds(for: 0)
        #expect(abs(end - Int((1.2 + 0.5 + release) * fs / 2)) <= 2)
    }

    @Test func seekLoopStopAndFinish() throws {
        let p = try prepare([.event(.transient(at: 0.1, intensity: 1, sharpness: 0.5)),
                             .event(.transient(at: 0.6, intensity: 1, sharpness: 0.5))])
        // Seek before starting: the first transient is skipped, the second comes at 0.6 - 0.5.
        let sought = renderVoice(p, frames: 24_000) { $0.seek(to: 0.5) }
        #expect(firstNonZero(sought.haptic) == 4_800)
        // Loop at 0.3 s: the first transient repeats every 0.3 s, the second never plays.
        var looped = PatternVoice(pattern: p)
        looped.loopEnd = 0.3
        var h = [Float](repeating: 0, count: 48_000), l = h, r = h
        looped.render(into: MixBus(haptic: &h, audioLeft: &l, audioRight: &r, frames: 48_000))
        let onsets = (1..<h.count).filter { h[$0] != 0 && h[$0 - 1] == 0 }
        #expect(onsets == [4_800, 19_200, 33_600])
        #expect(!looped.isFinished)
        // Stop: a short fade, then finished and silent.
        var voice = PatternVoice(pattern: p)
        var x = [Float](repeating: 0, count: 9_600)
        voice.render(into: MixBus(haptic: &x, audioLeft: &l, audioRight: &r, frames: 5_000))
        voice.stop()
        x.withUnsafeMutableBufferPointer { b in
            voice.render(into: MixBus(haptic: b.baseAddress! + 5_000, audioLeft: &l, audioRight: &r, frames: 4_600))
        }
        #expect(voice.isFinished)
        #expect(x[(5_000 + 240)...].allSatisfy { $0 == 0 })
        #expect(x[4_999] != 0)
        // Without a stop, a voice finishes when its last event has rung out.
        var natural = PatternVoice(pattern: p)
        var y = [Float](repeating: 0, count: 48_000)
        natural.render(into: MixBus(haptic: &y, audioLeft: &l, audioRight: &r, frames: 48_000))
        #expect(natural.isFinished)
        #expect(abs(natural.position - 1) < 1e-9)
    }
}
