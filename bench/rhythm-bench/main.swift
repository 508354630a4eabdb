// rhythm-bench: lockstep figures of the rhythm chapter through the sound-server rig.
//   - single stream (L,R,H on HAPTICSYNTH_RIG_OUT, recorded from HAPTICSYNTH_RIG_IN) and
//     two devices (sound on HAPTICSYNTH_RIG_OUT_B, haptic on HAPTICSYNTH_RIG_OUT_MONO, recorded
//     from both monitors): per beat, the skew between the recorded audio and haptic onsets,
//     and the onset error = recorded onset time (capture's monotonic stamps) − scheduled time;
//     min/median/p99/max over every beat;
//   - HapticManager.preloadPatterns() of Haptics/ on fresh managers (median of many).
//
//   swift build -c release --product rhythm-bench
//   scripts/rig.sh .build/release/rhythm-bench [--beats N] [--bpm B] [--period F] [--loads N]

import Foundation
import HapticALSA
import HapticEngine
import HapticEngineTesting
import HapticALSATesting
import HapticKit
import HapticPattern
import HapticRender
import HapticSoundFile

var beats = 210
var bpm = 150.0
var period = 256
var loads = 101
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--beats": beats = Int(args.popFirst() ?? "") ?? beats
    case "--bpm": bpm = Double(args.popFirst() ?? "") ?? bpm
    case "--period": period = Int(args.popFirst() ?? "") ?? period
    case "--loads": loads = Int(args.popFirst() ?? "") ?? loads
    default:
        FileHandle.standardError.write("usage: rhythm-bench [--beats N] [--bpm B] [--period F] [--loads N]\n".data(using: .utf8)!)
        exit(2)
    }
}

let root = FileManager.default.currentDirectoryPath
let haptics = root + "/Haptics", assets = root + "/Assets"
let env = ProcessInfo.processInfo.environment
let fs = 48_000

@MainActor func stats(_ values: [Double]) -> String {
    guard !values.isEmpty else { return "no data" }
    let s = values.sorted()
    func q(_ p: Double) -> Double { s[min(s.count - 1, Int((Double(s.count - 1) * p).rounded()))] }
    return String(format: "min %.3f  median %.3f  p99 %.3f  max %.3f  (n=%d)", s.first!, q(0.5), q(0.99), s.last!, s.count)
}

// MARK: preload

@MainActor func preloadFigures() {
    var parse: [Double] = [], full: [Double] = []
    for _ in 0..<loads {
        let t0 = MonotonicClock.now()
        let library = PatternLibrary(folder: haptics, strict: true)
        _ = library.preloadPatterns()
        parse.append((MonotonicClock.now() - t0) * 1000)
    }
    for _ in 0..<max(5, loads / 4) {
        // A manager on a virtual device: preload parses Haptics/ and prepares patterns, cues and SFX.
        let clock = ManualClock()
        var config = HapticManager.Configuration(hapticsFolder: haptics, assetsFolder: assets,
                                                 output: .device({ VirtualOutputDevice(clock: .manual(clock)) }))
        config.engine = .manual(clock: clock, base: config.engine)
        config.logger.logLevel = .error
        let m = HapticManager(configuration: config)
        let t0 = MonotonicClock.now()
        m.preloadPatterns()
        full.append((MonotonicClock.now() - t0) * 1000)
        m.shutDown()
    }
    print("preload (ms): PatternLibrary.preloadPatterns() of Haptics/ (parse, strict): \(stats(parse))")
    print("preload (ms): HapticManager.preloadPatterns() (parse + prepare patterns, cues, SFX):  \(stats(full))")
}

// MARK: sessions

@MainActor func references() -> (haptic: [Float], audio: [Float]) {
    let library = PatternLibrary(folder: haptics, strict: true)
    _ = library.preloadPatterns()
    let sounds = SoundLibrary(assetsFolder: assets)
    let hb = try! PreparedPattern(library.pattern(named: "heartbeat")!, profile: .bassShaker, sampleRate: Double(fs))
    let sfx = try! PreparedPattern(
        AHAPPattern(elements: [.event(Event(time: 0, type: .audioCustom, parameters: [EventParameter(.audioVolume, 1)],
                                             waveformPath: "sfx/sfx_shield_impact.wav", useVolumeEnvelope: false))]),
        profile: .bassShaker, sampleRate: Double(fs), sounds: sounds, strict: true)
    let h = OfflineRenderer.render(hb, layout: .stereoPlusHaptic), a = OfflineRenderer.render(sfx, layout: .stereoPlusHaptic)
    return (RecordingAlignment.s16(RecordingAlignment.channel(h.samples, channels: 3, 2)),
            RecordingAlignment.s16(RecordingAlignment.channel(a.samples, channels: 3, 0)))
}

/// Recording index of every onset, starting from the engine's output frames.
@MainActor func locate(_ recording: [Float], _ reference: [Float], frames: [Int64?]) -> [Int?] {
    RecordingAlignment.track(recording, reference: reference, frames: frames)
}

@MainActor func engineConfig(_ c: inout HapticEngine.Configuration) {
    c.periodFrames = period
    c.bufferPeriods = 3
    c.appliedCommandTraceCapacity = 4 * beats + 256
}

/// Runs the session; the device's measured rate is sampled at every beat (for the drift figures).
@MainActor func runSession(_ m: HapticManager, rates: inout [(time: Double, ratio: Double)]) -> RhythmSession {
    let session = RhythmSession(manager: m, cue: "beat_hit", map: BeatMap(bpm: bpm, beats: beats), lead: 0.2)
    var sampled: [(time: Double, ratio: Double)] = []
    session.run(wait: { t in
        while MonotonicClock.now() < t { usleep(UInt32(max(1_000, min(20_000, (t - MonotonicClock.now()) * 1e6)))) }
        if let e = m.currentEngine, e.frameMapping.isLocked { sampled.append((MonotonicClock.now(), e.measuredRateRatio)) }
    })
    rates = sampled
    return session
}

let seconds = Double(beats) * 60 / bpm + 5

@MainActor func singleStream(_ refs: (haptic: [Float], audio: [Float])) throws {
    let out = env["HAPTICSYNTH_RIG_OUT"]!, input = env["HAPTICSYNTH_RIG_IN"]!
    var config = HapticManager.Configuration(hapticsFolder: haptics, assetsFolder: assets, output: .alsa(out))
    engineConfig(&config.engine)
    config.logger.logLevel = .error
    let m = HapticManager(configuration: config)
    guard m.engineAvailable else { print("single stream: \(m.status)"); return }
    m.preloadPatterns()
    let capture = ALSACaptureDevice(name: input, channels: 3, sampleRate: fs, periodFrames: 256, bufferFrames: 8192, seconds: seconds + 3)
    try capture.start()
    var rates: [(time: Double, ratio: Double)] = []
    let session = runSession(m, rates: &rates)
    let engine = m.currentEngine!
    let xruns = engine.xrunCount
    m.shutDown()
    usleep(200_000)
    let rec = capture.stop()
    let report = session.report(sampleRate: fs)
    let h = RecordingAlignment.channel(rec.floatSamples, channels: 3, 2), l = RecordingAlignment.channel(rec.floatSamples, channels: 3, 0)
    let rh = locate(h, refs.haptic, frames: report.rows.map { $0.haptic?.outputFrame })
    let ra = locate(l, refs.audio, frames: report.rows.map { $0.audio?.outputFrame })
    var skew: [Double] = [], onsetH: [Double] = [], onsetA: [Double] = []
    var series: [(t: Double, error: Double)] = []
    for (k, row) in report.rows.enumerated() {
        guard let ih = rh[k], let ia = ra[k] else { continue }
        skew.append(Double(ia - ih))
        if let t = rec.monotonicNanos(ofFrame: ih) {
            onsetH.append((Double(t) / 1e9 - row.scheduled) * 1000)
            series.append((row.scheduled - report.rows[0].scheduled, Double(t) / 1e9 - row.scheduled))
        }
        if let t = rec.monotonicNanos(ofFrame: ia) { onsetA.append((Double(t) / 1e9 - row.scheduled) * 1000) }
    }
    print("single stream (\(out), period \(period), \(beats) beats at \(bpm) BPM; engine xruns \(xruns), capture overruns \(rec.overruns), found \(skew.count)):")
    print("  recorded skew audio − haptic (samples): \(stats(skew))")
    print("  engine-reported skew (samples):         \(stats(report.rows.compactMap(\.skewSamples)))")
    print("  haptic onset − schedule (ms):           \(stats(onsetH))")
    print("  audio onset − schedule (ms):            \(stats(onsetA))")
    // The beat grid is on the device's clock: after the drift its rate predicts, what is left is the
    // recorder's constant bias and its stamps' jitter (RhythmRigTests printed this; it asserted the
    // 1 ms figure until the suite had to hold on loaded machines).
    if let origin = report.rows.first?.scheduled {
        print("  haptic onset after the device's drift:  \(OnsetDrift(onsets: series, rates: rates, origin: origin).summary(count: series.count))")
    }
    let s = report.summary
    print("  engine frames: spacing − round(Δt·48000) \(s.hapticSpacingErrorMin)...\(s.hapticSpacingErrorMax) frames; measured server rate \(String(format: "%+.1f", (engine.measuredRateRatio - 1) * 1e6)) ppm")
}

@MainActor func twoDevice(_ refs: (haptic: [Float], audio: [Float])) throws {
    let outB = env["HAPTICSYNTH_RIG_OUT_B"]!, inB = env["HAPTICSYNTH_RIG_IN_B"]!
    let outM = env["HAPTICSYNTH_RIG_OUT_MONO"]!, inM = env["HAPTICSYNTH_RIG_IN_MONO"]!
    var config = HapticManager.Configuration(hapticsFolder: haptics, assetsFolder: assets, output: .alsa(outM), audioOutput: .alsa(outB))
    engineConfig(&config.engine)
    engineConfig(&config.audioEngine)
    config.logger.logLevel = .error
    let m = HapticManager(configuration: config)
    guard m.engineAvailable, m.audioAvailable else { print("two devices: \(m.status), audio \(String(describing: m.audioStatus))"); return }
    m.preloadPatterns()
    let capA = ALSACaptureDevice(name: inB, channels: 2, sampleRate: fs, periodFrames: 256, bufferFrames: 8192, seconds: seconds + 3)
    let capH = ALSACaptureDevice(name: inM, channels: 1, sampleRate: fs, periodFrames: 256, bufferFrames: 8192, seconds: seconds + 3)
    try capA.start()
    try capH.start()
    var rates: [(time: Double, ratio: Double)] = []
    let session = runSession(m, rates: &rates)
    let he = m.currentEngine!, ae = m.currentAudioEngine!
    let xruns = he.xrunCount + ae.xrunCount
    m.shutDown()
    usleep(200_000)
    let recA = capA.stop(), recH = capH.stop()
    let report = session.report(sampleRate: fs)
    let ra = locate(RecordingAlignment.channel(recA.floatSamples, channels: 2, 0), refs.audio, frames: report.rows.map { $0.audio?.outputFrame })
    let rh = locate(recH.floatSamples, refs.haptic, frames: report.rows.map { $0.haptic?.outputFrame })
    var skew: [Double] = [], onsetH: [Double] = [], onsetA: [Double] = []
    for (k, row) in report.rows.enumerated() {
        guard let ih = rh[k], let ia = ra[k], let th = recH.monotonicNanos(ofFrame: ih), let ta = recA.monotonicNanos(ofFrame: ia) else { continue }
        skew.append(Double(ta - th) / 1e6)
        onsetH.append((Double(th) / 1e9 - row.scheduled) * 1000)
        onsetA.append((Double(ta) / 1e9 - row.scheduled) * 1000)
    }
    print("two devices (sound \(outB), haptic \(outM), period \(period), \(beats) beats at \(bpm) BPM; engine xruns \(xruns), capture overruns \(recA.overruns + recH.overruns), found \(skew.count)):")
    print("  recorded skew audio − haptic (ms, two captures' stamps): \(stats(skew))")
    print("  engine-reported skew (ms):                               \(stats(report.rows.compactMap(\.skewMs)))")
    print("  haptic onset − schedule (ms):                            \(stats(onsetH))")
    print("  audio onset − schedule (ms):                             \(stats(onsetA))")
}

print("rhythm-bench: \(haptics)")
preloadFigures()
if env["HAPTICSYNTH_RIG_OUT"] == nil {
    print("no rig (HAPTICSYNTH_RIG_OUT unset): run it as scripts/rig.sh .build/release/rhythm-bench for the lockstep figures")
    exit(0)
}
let refs = references()
try singleStream(refs)
try twoDevice(refs)
