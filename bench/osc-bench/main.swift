// osc-bench: `hapticsynth serve`'s path measured through the JACK rig (scripts/jack-rig.sh):
//   1. message arrival to first sample: a client sends /hapticsynth/transient (immediate) to an
//      OSC server driving a HapticManager; the JACK recorder stamps the first sample above 0.05;
//      next to `play`'s immediate start (player.start(atTime: 0) on the same engine, same run);
//   2. the most messages per second held without a drop (socket, queue, engine all counted).
// Usage (inside scripts/jack-rig.sh --period P): osc-bench [--period P] [--trials N]
import Foundation
import HapticEngine
import HapticKit
import HapticOSC
import HapticPattern
import HapticRender
import JACKRigSupport
#if canImport(Glibc)
import Glibc
#endif

let options = integerOptions(["period": 256, "trials": 200])
let period = options["period"]!
var trials = options["trials"]!
guard let rig = JACKRig() else {
    print("osc-bench: run inside scripts/jack-rig.sh")
    exit(2)
}
let pcm = rig.pcm, jackPeriod = rig.period
let rate = 48_000.0, bufferPeriods = 3
let interval = max(0.1, Double(period * bufferPeriods + jackPeriod) / rate * 1.6)
let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

// The recorder first: the PCM connects to its ports when it opens.
let onsetsPath = rig.directory + "/osc-onsets.csv"
let recorder = try rig.startRecorder(onsets: onsetsPath, stamps: rig.directory + "/osc-stamps.csv")

// The manager as `serve` makes it, on the rig's PCM, haptic on channel 0 (the recorder's onset channel).
var config = HapticManager.Configuration(
    hapticsFolder: repo + "/Haptics", assetsFolder: repo + "/Assets", output: .alsa(pcm),
    layout: ChannelLayout([.haptic(gain: 1), .silence, .silence]))
config.engine.periodFrames = period
config.engine.bufferPeriods = bufferPeriods
config.logger.logLevel = .error
config.engine.logger.logLevel = .error
let manager = HapticManager(configuration: config)
guard manager.engineAvailable, let engine = manager.currentEngine else { print("osc-bench: no engine: \(manager.status)"); exit(1) }
manager.preloadPatterns()
var oscConfig = OSCServer.Configuration()
oscConfig.port = 0
oscConfig.logger.logLevel = .error
let server = try OSCServer(configuration: oscConfig, target: ManagerCommandTarget(remote: HapticRemoteControl(manager: manager)))
let client = try OSCClient(port: server.port)
let message = OSCClient.datagram("/hapticsynth/transient", [.float(1), .float(0.5)])

// Frames from a transient's onset to its first sample over the recorder's threshold.
let transient = try engine.prepare(AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))]))
let rendered = OfflineRenderer.render(transient, layout: engine.configuration.layout)
guard let k0 = (0..<rendered.samples.count / 3).first(where: { rendered.samples[$0 * 3] > 0.05 }) else { print("no onset"); exit(3) }
let k0Nanos = Double(k0) / rate * 1e9

print("== jackd -p \(jackPeriod), ALSA period \(period) x \(bufferPeriods) on \(pcm), \(trials) trials each, \(Int(interval * 1000)) ms apart; release build, shared 2-core machine")
sleepSeconds(1.5)  // past the engine's start and the schedule grid's settling

struct Phase { var label: String; var from: Int64; var to: Int64; var reference: [Int64] }
var phases: [Phase] = []
@MainActor func measure(_ label: String, _ fire: () -> Void) {
    let from = nowNanos()
    var reference: [Int64] = []
    for _ in 0..<trials {
        reference.append(nowNanos())
        fire()
        sleepSeconds(interval)
    }
    sleepSeconds(0.3)
    phases.append(Phase(label: label, from: from, to: nowNanos(), reference: reference))
}
// Interleaved halves, so that a slow moment of the shared machine falls on both.
let half = trials
trials = half / 2
for round in 0..<2 {
    measure("play's immediate start (player.start(atTime: 0)) -> first sample, round \(round + 1)") {
        _ = try? engine.makePlayer(with: transient).start(atTime: 0)
    }
    measure("OSC /hapticsynth/transient sent -> first sample, round \(round + 1)") { client.sendRaw(message) }
}
recorder.terminate()
recorder.waitUntilExit()
let onsets = readOnsets(onsetsPath)
var play: [Double] = [], osc: [Double] = []
for phase in phases {
    // Each start with the first onset after it, within one interval (a missed onset costs one trial, not the phase).
    let mine = onsets.map(\.1).filter { $0 >= phase.from && $0 <= phase.to }
    let (values, missed) = latencies(references: phase.reference, onsets: mine, leadNanos: k0Nanos, windowSeconds: interval)
    if missed > 0 { print("\(phase.label): \(missed) of \(phase.reference.count) without an onset") }
    if phase.label.hasPrefix("play") { play += values } else { osc += values }
}
print("play immediate start -> first sample, ms: " + summary(play))
print("OSC message sent -> first sample, ms:     " + summary(osc))
let extra = median(osc) - median(play)
print("target OSC within play's immediate start + 1 ms: median \(fmt(median(osc))) - \(fmt(median(play))) = \(fmt(extra)) ms: \(extra <= 1 ? "met" : "MISSED")")
print("engine: xruns \(engine.xrunCount), late commands \(engine.lateCommandCount), realtime \(engine.isRealtime)")

// Throughput: each rate for 1 s; held = every datagram read, none dropped, every voice started.
print("== messages per second (transients, 1 s per rate)")
var held = 0
for perSecond in [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000] {
    sleepSeconds(0.5)
    let before = server.counters.snapshot, stats0 = manager.statistics
    let start = MonotonicClock.now()
    var sent = 0
    while sent < perSecond {
        let due = start + Double(sent) / Double(perSecond)
        while MonotonicClock.now() < due {}
        if client.sendRaw(message) { sent += 1 }
    }
    let took = MonotonicClock.now() - start
    let end = MonotonicClock.now() + 3
    while server.queuedCommands > 0 && MonotonicClock.now() < end { usleep(1_000) }
    sleepSeconds(0.2)
    let after = server.counters.snapshot, stats1 = manager.statistics
    let read = after.datagrams - before.datagrams, dropped = after.dropped - before.dropped
    let failed = stats1.startsFailed - stats0.startsFailed, played = after.executed - before.executed
    // A rate counts only when the client really offered it (it may not keep up on a busy machine).
    let offered = took <= 1.05
    let ok = read == sent && dropped == 0 && failed == 0
    print("\(perSecond)/s (sent in \(fmt(took)) s: \(Int(Double(sent) / took))/s offered): read \(read), queue drops \(dropped), played \(played), engine refusals \(failed): \(ok ? (offered ? "held" : "held, but the client could not offer the rate") : "DROPS")")
    if ok && offered { held = perSecond }
    if !ok || !offered { break }
}
print("most messages per second held without a drop: \(held)")
server.stop()
manager.shutDown()
