// `convert-bench check`: every output the set can give is held to the rules. For each
// sound: its AHAP is strict-valid after encoding and decoding again, and renders (non-silent
// where the conversion is not empty) and plays as analysed (HapticKit's ConversionPlayback: each
// transient within 0.02 of its analysed values, the continuous layer within 0.005 of its envelope);
// its .haptic reads back strictly, and .haptic → AHAP →
// .haptic keeps both envelopes within 1e-3 (away from 1 ms either side of an emphasis, where
// the curves are raised so that it plays at its values). For each reference: a .haptic goes to a strict-valid
// AHAP and back within 1e-3; an AHAP goes to a .haptic and back to a strict-valid AHAP.

import Foundation
import HapticKit

/// The largest difference between two breakpoint envelopes (linear between breakpoints, the
/// last breakpoint's value at a jump), probed at every breakpoint of either, halfway between,
/// and on a 1 ms grid; probes within 2 µs of a breakpoint are left out (the writer rounds times
/// to the microsecond), and so are probes within 1 ms of a time in `raises` (an emphasis: the
/// AHAP's curves are raised there so that it plays at its values, and the clip read back keeps
/// the raise; HapticClip+AHAP.swift).
func envelopeDifference(
    _ a: [(time: Double, value: Double)], _ b: [(time: Double, value: Double)], neutral: Double, raises: [Double] = []
) -> Double {
    func value(_ points: [(time: Double, value: Double)], _ t: Double) -> Double {
        guard let first = points.first else { return neutral }
        if t < first.time { return first.value }
        var lo = 0, hi = points.count - 1
        while lo < hi {  // the last breakpoint at or before t
            let mid = (lo + hi + 1) / 2
            if points[mid].time <= t { lo = mid } else { hi = mid - 1 }
        }
        guard lo + 1 < points.count else { return points[lo].value }
        let p = points[lo], q = points[lo + 1]
        return q.time > p.time ? p.value + (q.value - p.value) * (t - p.time) / (q.time - p.time) : q.value
    }
    let breakpoints = (a.map(\.time) + b.map(\.time)).sorted()
    guard let start = breakpoints.first, let end = breakpoints.last else { return 0 }
    var probes = breakpoints + zip(breakpoints, breakpoints.dropFirst()).map { ($0 + $1) / 2 }
    var t = start
    while t <= end { probes.append(t); t += 0.001 }
    var worst = 0.0
    for t in probes {
        // (Near a breakpoint but not on it: skipped, see above.)
        var lo = 0, hi = breakpoints.count
        while lo < hi { let mid = (lo + hi) / 2; if breakpoints[mid] < t - 2e-6 { lo = mid + 1 } else { hi = mid } }
        if lo < breakpoints.count && abs(breakpoints[lo] - t) < 2e-6 && breakpoints[lo] != t { continue }
        if raises.contains(where: { abs($0 - t) <= TransientCompensation.raiseHalfWidth + 2e-6 }) { continue }
        worst = max(worst, abs(value(a, t) - value(b, t)))
    }
    return worst
}

/// Both envelopes' largest difference, and whether the emphasis count agrees.
func clipDifference(_ a: HapticClip, _ b: HapticClip) -> (amplitude: Double, frequency: Double, emphasisAgrees: Bool) {
    func emphasisCount(_ c: HapticClip) -> Int {
        var n = 0, last: (Double, HapticClip.Emphasis)? = nil
        for p in c.amplitude {
            guard let e = p.emphasis else { continue }
            if let l = last, l.0 == p.time, l.1 == e { continue }
            n += 1
            last = (p.time, e)
        }
        return n
    }
    let raises = (a.amplitude + b.amplitude).filter { $0.emphasis != nil }.map(\.time)
    return (
        envelopeDifference(a.amplitude.map { ($0.time, $0.amplitude) }, b.amplitude.map { ($0.time, $0.amplitude) }, neutral: 0, raises: raises),
        envelopeDifference(
            a.frequency.map { ($0.time, $0.frequency) }, b.frequency.map { ($0.time, $0.frequency) }, neutral: HapticClip.defaultFrequency, raises: raises),
        emphasisCount(a) == emphasisCount(b)
    )
}

/// .haptic → AHAP (strict-valid, through its text) → .haptic (through its text).
func roundTrip(_ clip: HapticClip) throws -> HapticClip {
    let pattern = try AHAPPattern.decode(text: clip.ahapPattern().encoded(), options: .init(strict: true)).pattern
    _ = try pattern.validate(options: .init(strict: true))
    return try HapticClip.decode(text: HapticClip(pattern: pattern).encoded(), options: .init(strict: true)).clip
}

func check() {
    var problems: [String] = []
    var sounds = 0, references = 0, worstAmplitude = 0.0, worstFrequency = 0.0, rendered = 0
    var worstTransient = 0.0, worstLevel = 0.0, tracedTransients = 0, probedLevels = 0
    func note(_ name: String, _ what: String) { problems.append("\(name): \(what)") }
    for pair in loadSet() {
        let soundPath = setFolder + "/" + pair.sound
        do {
            let haptics = try SoundConversion.convert(soundAt: soundPath).haptics
            // AHAP: strict-valid as written, and as read back.
            let pattern = haptics.ahapPattern(audio: pair.sound)
            _ = try pattern.validate(options: .init(strict: true))
            let reread = try AHAPPattern.decode(text: pattern.encoded(), options: .init(strict: true)).pattern
            _ = try reread.validate(options: .init(strict: true))
            let prepared = try PreparedPattern(haptics.ahapPattern(), profile: .bassShaker, sampleRate: 48000, sounds: nil)
            let audio = OfflineRenderer.render(prepared, ending: .exactLength)
            if !haptics.stretches.isEmpty || !haptics.transients.isEmpty {
                if audio.samples.contains(where: { abs($0) > 1e-4 }) { rendered += 1 } else { note(pair.sound, "renders silent") }
            } else {
                rendered += 1
            }
            // It plays as analysed (transients through the curves, the layer at its envelope).
            let played = try ConversionPlayback(haptics)
            worstTransient = max(worstTransient, played.transientIntensity, played.transientSharpness)
            worstLevel = max(worstLevel, played.levelIntensity, played.levelSharpness)
            tracedTransients += played.transientsPlayed
            probedLevels += played.levelsProbed
            if played.transientsPlayed != played.transientsMeant || played.transientIntensity > 0.02 || played.transientSharpness > 0.02
                || played.levelIntensity > 0.005 || played.levelSharpness > 0.005 || played.raisedAwayFromTransients > 0
            {
                note(pair.sound, "plays off its analysis: \(played.transientsPlayed) of \(played.transientsMeant) transients, off by "
                     + "\(played.transientIntensity) / \(played.transientSharpness); layer off by \(played.levelIntensity) / \(played.levelSharpness); "
                     + "\(played.raisedAwayFromTransients) knots raised away from transients")
            }
            // .haptic: reads back strictly, and round-trips through AHAP within 1e-3.
            let clip = try HapticClip.decode(text: haptics.hapticClip().encoded(), options: .init(strict: true)).clip
            let d = clipDifference(clip, try roundTrip(clip))
            worstAmplitude = max(worstAmplitude, d.amplitude)
            worstFrequency = max(worstFrequency, d.frequency)
            if d.amplitude > 1e-3 || d.frequency > 1e-3 || !d.emphasisAgrees { note(pair.sound, "round trip differs: \(d)") }
            sounds += 1
        } catch {
            note(pair.sound, "\(error)")
        }
        let referencePath = setFolder + "/" + pair.reference
        do {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: referencePath)))
            if pair.reference.hasSuffix(".haptic") {
                let clip = try HapticClip.decode(from: bytes).clip
                let d = clipDifference(clip, try roundTrip(clip))
                worstAmplitude = max(worstAmplitude, d.amplitude)
                worstFrequency = max(worstFrequency, d.frequency)
                if d.amplitude > 1e-3 || d.frequency > 1e-3 || !d.emphasisAgrees { note(pair.reference, "round trip differs: \(d)") }
            } else {
                let pattern = try AHAPPattern.decode(from: bytes).pattern
                let clip = try HapticClip.decode(text: HapticClip(pattern: pattern).encoded(), options: .init(strict: true)).clip
                _ = try roundTrip(clip)
            }
            references += 1
        } catch {
            note(pair.reference, "\(error)")
        }
    }
    print("sounds: \(sounds) converted to strict-valid AHAP (as written and read back) and strict-readable .haptic; \(rendered) render as expected")
    print("played (traced): \(tracedTransients) transients, off their analysis by at most \(format(worstTransient, 6)) (target ≤ 0.02); "
          + "the continuous layer at \(probedLevels) levels (1 ms grid), off its envelope by at most \(format(worstLevel, 6)) (target ≤ 0.005)")
    print("references: \(references) converted (.haptic → AHAP → .haptic, AHAP → .haptic → AHAP), every AHAP strict-valid")
    print("round trips .haptic → AHAP → .haptic: largest difference amplitude \(format(worstAmplitude, 6)), frequency \(format(worstFrequency, 6)) (target ≤ 0.001)")
    print(problems.isEmpty ? "problems: none" : "problems: \(problems.count)")
    for p in problems { print("  \(p)") }
    if !problems.isEmpty { exit(1) }
}
