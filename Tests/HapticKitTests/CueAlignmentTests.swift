import Foundation
import HapticPattern
import HapticRender
import HapticSoundFile
import Testing

@testable import HapticKit

/// A cue sheet of one cue `a` (a transient and the sound `s`) with `extra` JSON members.
private func sheet(_ extra: String) -> [UInt8] {
    Array(("{\"schema\": \"hapticsynth-cues\", \"version\": 1, \"cues\": {\"a\": {\"haptic\": {\"transient\": "
        + "{\"intensity\": 1, \"sharpness\": 0.5}}, \"sfx\": {\"name\": \"s\"}\(extra)}}}").utf8)
}

/// A slow-swell sound effect, mono at 48 kHz: 220 Hz under a quadratic rise over 300 ms (its
/// Hilbert envelope reaches half its peak 300·√0.5 ≈ 212 ms in), then a 150 ms fall.
let slowSwell: [Float] = (0..<21_600).map { i -> Float in
    let t = Double(i) / 48_000
    let envelope = t < 0.3 ? (t / 0.3) * (t / 0.3) : max(0, 1 - (t - 0.3) / 0.15)
    return Float(0.8 * envelope * sin(2 * Double.pi * 220 * t))
}

/// Supplies one 48 kHz sound for any path (the swell).
private struct OneSound: SoundSource {
    let buffer: SoundBuffer
    func sound(path: String, sampleRate: Double, transposition: Double) throws(SoundSourceError) -> SoundBuffer { buffer }
}

@Suite("Cue alignment: the cue sheet's align / hapticOffsetMs, and where a cue's parts start")
struct CueAlignmentTests {
    @Test("align and hapticOffsetMs are read; felt is the default; -0 is 0")
    func alignmentIsRead() throws {
        #expect(try CueSheet.decode(from: sheet(""))["a"]?.alignment == .felt)
        #expect(try CueSheet.decode(from: sheet(", \"align\": \"felt\""))["a"]?.alignment == .felt)
        #expect(try CueSheet.decode(from: sheet(", \"align\": \"sample\""))["a"]?.alignment == .sample)
        #expect(try CueSheet.decode(from: sheet(", \"hapticOffsetMs\": 12.5"))["a"]?.alignment == .hapticOffsetMs(12.5))
        #expect(try CueSheet.decode(from: sheet(", \"hapticOffsetMs\": -2000"))["a"]?.alignment == .hapticOffsetMs(-2000))
        guard case .hapticOffsetMs(let zero)? = try CueSheet.decode(from: sheet(", \"hapticOffsetMs\": -0.0"))["a"]?.alignment else {
            Issue.record("-0 not read as an offset")
            return
        }
        #expect(zero == 0 && zero.sign == .plus)
        // The bundled cue sheet uses the default.
        let bundled = try CueSheet.load(path: kitAssets + "/cues.json")
        #expect(bundled.cues.values.allSatisfy { $0.alignment == .felt })
    }

    @Test("hostile align / hapticOffsetMs: one line naming the file and the field", arguments: [
        (", \"hapticOffsetMs\": 1e308", "cues.a.hapticOffsetMs", "outside -2000…2000 ms"),
        (", \"hapticOffsetMs\": -1e308", "cues.a.hapticOffsetMs", "outside"),
        (", \"hapticOffsetMs\": 2000.001", "cues.a.hapticOffsetMs", "outside"),
        (", \"hapticOffsetMs\": \"3\"", "cues.a.hapticOffsetMs", "not a finite number"),
        (", \"hapticOffsetMs\": false", "cues.a.hapticOffsetMs", "not a finite number"),
        (", \"hapticOffsetMs\": null", "cues.a.hapticOffsetMs", "not a finite number"),
        (", \"hapticOffsetMs\": [1]", "cues.a.hapticOffsetMs", "not a finite number"),
        (", \"hapticOffsetMs\": 1e400", "", "line 1, column"),
        (", \"hapticOffsetMs\": NaN", "", "not valid JSON"),
        (", \"hapticOffsetMs\": -Infinity", "", "not valid JSON"),
        (", \"align\": \"early\"", "cues.a.align", "expected \"felt\" or \"sample\""),
        (", \"align\": 1", "cues.a.align", "expected \"felt\" or \"sample\""),
        (", \"align\": \"sample\", \"hapticOffsetMs\": 3", "cues.a", "not both"),
        // The sound's sheet offset: huge values are refused (the alignment measures the haptic from there).
        (", \"x\": 0}, \"b\": {\"sfx\": {\"name\": \"s\", \"offset\": 1e300}", "cues.b.sfx.offset", "outside 0…3600 seconds"),
    ])
    func hostileAlignment(extra: String, path: String, message: String) {
        do {
            _ = try CueSheet.decode(from: sheet(extra), source: "t.json")
            Issue.record("accepted: \(extra)")
        } catch {
            #expect(error.path == path, "\(error)")
            #expect(error.message.contains(message), "\(error)")
            #expect(error.description.hasPrefix("t.json: ") && !error.description.contains("\n"))
        }
    }

    /// A slow swell (quadratic rise over 300 ms: half its envelope ~212 ms in) and one transient, prepared.
    static func swellParts() throws -> (haptic: PreparedPattern, sound: PreparedPattern) {
        let fs = 48_000.0
        let sounds = OneSound(buffer: SoundBuffer(channels: 1, sampleRate: fs, samples: slowSwell))
        let sound = try PreparedPattern(HapticManager.soundEffectPattern("swell"), profile: .bassShaker, sampleRate: fs, sounds: sounds)
        let haptic = try PreparedPattern(AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))]),
                                         profile: .bassShaker, sampleRate: fs)
        return (haptic, sound)
    }

    @Test("felt: a slow swell delays the haptic by the difference of the felt onsets; sample and offsets as the sheet says")
    func placement() throws {
        let (haptic, sound) = try Self.swellParts()
        func place(_ alignment: CueSheet.Alignment, offset: Double = 0) -> CueAlignment {
            let cue = CueSheet.Cue(name: "a", haptic: .transient(.init(intensity: 1, sharpness: 0.5)),
                                   sfx: .init(name: "swell", offset: offset), alignment: alignment)
            return CueAlignment.place(cue, haptic: haptic, sound: sound, sampleRate: 48_000)
        }
        let felt = place(.felt)
        let audioFelt = try #require(felt.audioFeltFrames), hapticFelt = try #require(felt.hapticFeltFrames)
        #expect(abs(Double(audioFelt) / 48 - 300 * 0.5.squareRoot()) < 1, "the swell's half-envelope: \(Double(audioFelt) / 48) ms")
        #expect(hapticFelt >= 0 && hapticFelt <= 3 * 48, "the transient's half-envelope: \(Double(hapticFelt) / 48) ms")
        #expect(felt.audioDelayFrames == 0 && felt.hapticDelayFrames == audioFelt - hapticFelt, "the haptic waits; the sound is not moved")
        #expect(felt.feltSkewFrames(sampleSkew: Double(felt.plannedSkewFrames)) == 0)
        #expect(place(.sample) == CueAlignment(sampleRate: 48_000, hapticDelayFrames: 0, audioDelayFrames: 0,
                                               audioFeltFrames: audioFelt, hapticFeltFrames: hapticFelt))
        #expect(place(.hapticOffsetMs(20)).hapticDelayFrames == 960 && place(.hapticOffsetMs(20)).audioDelayFrames == 0)
        #expect(place(.hapticOffsetMs(-20)).hapticDelayFrames == 0 && place(.hapticOffsetMs(-20)).audioDelayFrames == 960)
        // A sheet offset: the sound at 0.1 s, the haptic measured from there (a transient at 0 is
        // silent by then: no felt onset, so the first samples are kept as the sheet says).
        let late = place(.felt, offset: 0.1)
        #expect(late.audioDelayFrames == 4_800 && late.hapticDelayFrames == 0 && late.hapticFeltFrames == nil)
        #expect(place(.hapticOffsetMs(-20), offset: 0.1).audioDelayFrames == 4_800 + 960)
        #expect(place(.hapticOffsetMs(150), offset: 0.1).hapticDelayFrames == 7_200)
        #expect(place(.hapticOffsetMs(150), offset: 0.1).audioDelayFrames == 4_800)
    }
}

@Suite("Cue alignment of the bundled cue sheet")
struct BundledCueAlignmentTests {
    @Test("every bundled cue with a sound and a haptic: felt together as planned, and no part moved by more than 50 ms")
    func bundledCues() throws {
        let rig = VirtualRig()
        let m = rig.manager
        m.preloadPatterns()
        defer { m.shutDown() }
        var lines: [String] = []
        for (name, cue) in m.cueSheet.cues.sorted(by: { $0.key < $1.key }) where cue.sfx != nil && cue.haptic != nil {
            let a = try #require(m.cueAlignment(name), "\(name) has an alignment")
            let sheetOffset = Int64(((cue.sfx?.offset ?? 0) * 48_000).rounded())
            lines.append("\(name): haptic +\(a.hapticDelayFrames), sound +\(a.audioDelayFrames) frames (sheet offset \(sheetOffset)); "
                         + "felt onsets: sound \(a.audioFeltFrames.map(String.init) ?? "-"), haptic \(a.hapticFeltFrames.map(String.init) ?? "-")")
            // Nothing earlier than the sheet says, and the felt alignment moves a part by little.
            #expect(a.hapticDelayFrames >= 0 && a.audioDelayFrames >= sheetOffset, "\(name)")
            #expect(a.hapticDelayFrames <= 2_400 && a.audioDelayFrames - sheetOffset <= 2_400, "\(name): \(a)")
            // Where both parts have a felt onset, they coincide at the planned skew.
            if a.audioFeltFrames != nil && a.hapticFeltFrames != nil {
                #expect(a.feltSkewFrames(sampleSkew: Double(a.plannedSkewFrames)) == 0, "\(name)")
            }
        }
        #expect(lines.count == 7, "\(lines)")
        print("bundled cue alignment (bass-shaker, 48 kHz):\n  " + lines.joined(separator: "\n  "))
    }
}
