// c-latency-bench: latency through the C library (libhapticsynth) next to the Swift API, through
// the JACK rig (scripts/jack-rig.sh), as latency-bench and osc-bench measure it:
//   the call (C: hs_engine_transient(engine, 1, 0.5, 0); Swift: HapticManager.playTransientEvent
//   on an equal manager) -> the first sample over the recorder's threshold at the JACK server.
// Both engines run on the rig's PCM with the same period, buffer, layout and profile, the whole
// time; the calls alternate one by one so that a slow moment of the shared machine falls on
// both, and a run whose calls cannot all be paired with their onsets is refused (exit 4). The C functions are called through hapticsynth.h (the CHapticSynth module), linked
// from the same objects as libhapticsynth.
// Usage (inside scripts/jack-rig.sh --period P): c-latency-bench [--period P] [--trials N (per API)]
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
let trials = arguments["trials"]!
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

@MainActor func openSwift() -> HapticManager {
    let manager = HapticManager(configuration: config)
    guard manager.engineAvailable, manager.currentEngine != nil else { print("c-latency-bench: no Swift engine: \(manager.status)"); exit(1) }
    return manager
}

@MainActor func openC() -> OpaquePointer {
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
    guard opened == HS_OK, let engine else { print("c-latency-bench: hs_engine_open_with: \(String(cString: hs_last_error()))"); exit(1) }
    return engine
}

// Frames from a transient's onset to its first sample over the recorder's threshold (the same
// transient both ways: intensity 1 and sharpness 0.5 quantise alike).
let transient = try PreparedPattern(AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))]),
                                    profile: config.engine.profile, sampleRate: rate)
let rendered = OfflineRenderer.render(transient, layout: try ChannelLayout.parse(layout))
guard let k0 = (0..<rendered.samples.count / 3).first(where: { rendered.samples[$0 * 3] > 0.05 }) else { print("no onset"); exit(3) }
let k0Nanos = Double(k0) / rate * 1e9

let blocks = 4
print("== jackd -p \(jackPeriod), ALSA period \(period) x \(bufferPeriods) on \(pcm), \(trials) trials each in \(blocks) blocks, \(Int(interval * 1000)) ms apart; release build, shared 2-core machine")

// Each block opens both engines afresh, in turns first (a JACK client's place in the server's
// graph and its ring's fill are the engine's, not the API's: reopening spreads them over both).
// Within a block the calls alternate one by one (Swift, C, Swift, C, …) so that whatever the
// shared machine does at a moment falls on both APIs alike; each call's onset is its own (calls
// one after another, onsets paired in order, ``pairedLatencies``). The gap between calls has a
// random part of up to one JACK period, so that calls land at every phase of the server's cycle
// rather than at the few a fixed gap steps through.
var generator = SystemRandomNumberGenerator()
struct Block { var from: Int64; var to: Int64; var callTimes: [Int64]; var failures: Int }
var done: [Block] = []
var engineLines: [String] = []
for block in 0..<blocks {
    let manager: HapticManager, engine: OpaquePointer
    if block % 2 == 0 { manager = openSwift(); engine = openC() } else { engine = openC(); manager = openSwift() }
    sleepSeconds(1.5)  // past the engines' start and the schedule grids' settling
    var callTimes: [Int64] = []
    var failures = 0
    let from = nowNanos()
    for trial in 0..<(2 * max(1, trials / blocks)) {
        callTimes.append(nowNanos())
        let started = trial % 2 == 0
            ? manager.playTransientEvent(intensity: 1, sharpness: 0.5, atTime: 0) != nil
            : hs_engine_transient(engine, 1, 0.5, 0) == HS_OK
        if !started { failures += 1 }
        sleepSeconds(interval + Double.random(in: 0..<Double(jackPeriod) / rate, using: &generator))
    }
    sleepSeconds(0.3)
    let to = nowNanos()
    var status = hs_engine_status()
    status.struct_size = MemoryLayout<hs_engine_status>.size
    hs_engine_get_status(engine, &status)
    let swiftEngine = manager.currentEngine
    engineLines.append("block \(block + 1): Swift xruns \(swiftEngine?.xrunCount ?? -1), late commands \(swiftEngine?.lateCommandCount ?? -1), realtime \(swiftEngine?.isRealtime ?? false); C xruns \(status.xruns), late commands \(status.late_commands), realtime \(status.realtime == 1); calls refused \(failures)")
    hs_engine_close(engine)
    manager.shutDown()
    done.append(Block(from: from, to: to, callTimes: callTimes, failures: failures))
}
recorder.terminate()
recorder.waitUntilExit()
for line in engineLines { print("engines, \(line)") }
let onsets = readOnsets(onsetsPath).map(\.1)
var swift: [Double] = [], c: [Double] = []
var refused: [String] = []
for (k, block) in done.enumerated() {
    let mine = onsets.filter { $0 >= block.from && $0 <= block.to }
    guard block.failures == 0, let paired = pairedLatencies(references: block.callTimes, onsets: mine, leadNanos: k0Nanos) else {
        refused.append("block \(k + 1): \(mine.count) onsets for \(block.callTimes.count) calls, \(block.failures) calls refused")
        continue
    }
    swift += stride(from: 0, to: paired.count, by: 2).map { paired[$0] }
    c += stride(from: 1, to: paired.count, by: 2).map { paired[$0] }
}
// A run whose calls cannot all be paired with their onsets (a call refused, an onset lost or
// doubled under load) does not measure the API: its figures are refused, not reported.
guard refused.isEmpty else {
    for line in refused { print("unpaired: \(line)") }
    print("c-latency-bench: run refused: \(refused.count) of \(blocks) blocks unpaired; rerun on a quieter machine")
    exit(4)
}
// The buffers allow no less than the ALSA buffer's frames beyond the period being written; a
// value under one period is the recorder's stamp of that onset off (seen under load), counted.
let implausible = (swift + c).filter { $0 < Double(period) / rate * 1000 }.count
print("paired every call with its onset; values under one period (the recorder's stamp off): \(implausible)")
print("Swift API call -> first sample, ms: " + summary(swift))
print("C API call -> first sample, ms:     " + summary(c))
let difference = median(c) - median(swift)
print("target C within the Swift API's latency ± 0.5 ms: median \(fmt(median(c))) - \(fmt(median(swift))) = \(fmt(difference)) ms: \(abs(difference) <= 0.5 ? "met" : "MISSED")")
