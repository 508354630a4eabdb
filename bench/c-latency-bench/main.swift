// c-latency-bench: latency through the C library (libhapticsynth) next to the Swift API, through
// the JACK rig (scripts/jack-rig.sh), as latency-bench and osc-bench measure it:
//   the call (C: hs_engine_transient(engine, 1, 0.5, 0); Swift: HapticManager.playTransientEvent
//   on an equal manager) -> the first sample over the recorder's threshold at the JACK server.
// Both engines run on the rig's PCM with the same period, buffer, layout and profile, the whole
// time; the measurements alternate in rounds so that a slow moment of the shared machine falls
// on both. The C functions are called through hapticsynth.h (the CHapticSynth module), linked
// from the same objects as libhapticsynth.
// Usage (inside scripts/jack-rig.sh --period P): c-latency-bench [--period P] [--trials N]
import CHapticSynth
import Foundation
import HapticEngine
import HapticKit
import JACKRigSupport
#if canImport(Glibc)
import Glibc
#endif

let arguments = integerOptions(["period": 256, "trials": 200])
let period = arguments["period"]!
var trials = arguments["trials"]!
guard let rig = JACKRig() else {
    print("c-latency-bench: run inside scripts/jack-rig.sh")
    exit(2)
}
let pcm = rig.pcm, jackPeriod = rig.period
let rate = 48_000.0, bufferPeriods = 3
let interval = max(0.15, Double(period * bufferPeriods + jackPeriod) / rate * 1.6)

// The recorder first: the PCMs connect to its ports when they open.
let onsetsPath = rig.directory + "/c-onsets.csv"
let recorder = try rig.startRecorder(onsets: onsetsPath, stamps: rig.directory + "/c-stamps.csv")

// The haptic on channel 0 (the recorder's onset channel) in both.
let layout = "H,0,0"
var config = HapticManager.Configuration(hapticsFolder: "", assetsFolder: "", output: .alsa(pcm), layout: try ChannelLayout.parse(layout))
config.setPeriod(frames: period, bufferPeriods: bufferPeriods)
config.logger.logLevel = .error
config.engine.logger.logLevel = .error
let manager = HapticManager(configuration: config)
guard manager.engineAvailable, let swiftEngine = manager.currentEngine else { print("c-latency-bench: no Swift engine: \(manager.status)"); exit(1) }

var options = hs_engine_options()
hs_engine_options_init(&options)
var engine: OpaquePointer? = nil
let opened = pcm.withCString { device in
    layout.withCString { map in
        options.device = device
        options.layout = map
        options.period_frames = Int32(period)
        options.buffer_periods = Int32(bufferPeriods)
        return hs_engine_open_with(&engine, &options)
    }
}
guard opened == HS_OK else { print("c-latency-bench: hs_engine_open_with: \(String(cString: hs_last_error()))"); exit(1) }

// Frames from a transient's onset to its first sample over the recorder's threshold (the same
// transient both ways: intensity 1 and sharpness 0.5 quantise alike).
let transient = try swiftEngine.prepare(AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))]))
let rendered = OfflineRenderer.render(transient, layout: swiftEngine.configuration.layout)
guard let k0 = (0..<rendered.samples.count / 3).first(where: { rendered.samples[$0 * 3] > 0.05 }) else { print("no onset"); exit(3) }
let k0Nanos = Double(k0) / rate * 1e9

print("== jackd -p \(jackPeriod), ALSA period \(period) x \(bufferPeriods) on \(pcm), \(trials) trials each, \(Int(interval * 1000)) ms apart; release build, shared 2-core machine")
sleepSeconds(1.5)  // past the engines' start and the schedule grids' settling

struct Phase { var label: String; var from: Int64; var to: Int64; var reference: [Int64] }
var phases: [Phase] = []
var failures = 0
@MainActor func measure(_ label: String, _ fire: () -> Bool) {
    let from = nowNanos()
    var reference: [Int64] = []
    for _ in 0..<trials {
        reference.append(nowNanos())
        if !fire() { failures += 1 }
        sleepSeconds(interval)
    }
    sleepSeconds(0.3)
    phases.append(Phase(label: label, from: from, to: nowNanos(), reference: reference))
}
// Four alternating rounds of a quarter of the trials each.
let total = trials
trials = max(1, total / 4)
for round in 0..<2 {
    measure("Swift: HapticManager.playTransientEvent -> first sample, round \(round + 1)") {
        manager.playTransientEvent(intensity: 1, sharpness: 0.5) != nil
    }
    measure("C: hs_engine_transient -> first sample, round \(round + 1)") { hs_engine_transient(engine, 1, 0.5, 0) == HS_OK }
}
recorder.terminate()
recorder.waitUntilExit()
let onsets = readOnsets(onsetsPath)
var swift: [Double] = [], c: [Double] = []
for phase in phases {
    let mine = onsets.map(\.1).filter { $0 >= phase.from && $0 <= phase.to }
    let (values, missed) = latencies(references: phase.reference, onsets: mine, leadNanos: k0Nanos, windowSeconds: interval)
    if missed > 0 { print("\(phase.label): \(missed) of \(phase.reference.count) without an onset") }
    if phase.label.hasPrefix("Swift") { swift += values } else { c += values }
}
print("Swift API call -> first sample, ms: " + summary(swift))
print("C API call -> first sample, ms:     " + summary(c))
let difference = median(c) - median(swift)
print("target C within the Swift API's latency ± 0.5 ms: median \(fmt(median(c))) - \(fmt(median(swift))) = \(fmt(difference)) ms: \(abs(difference) <= 0.5 ? "met" : "MISSED")")
var status = hs_engine_status()
status.struct_size = MemoryLayout<hs_engine_status>.size
hs_engine_get_status(engine, &status)
print("engines: Swift xruns \(swiftEngine.xrunCount), late commands \(swiftEngine.lateCommandCount), realtime \(swiftEngine.isRealtime); C xruns \(status.xruns), late commands \(status.late_commands), realtime \(status.realtime == 1); calls refused \(failures)")
hs_engine_close(engine)
manager.shutDown()
