// reconnect-bench: how fast live playback comes back after the sound server restarts.
//
// Runs `hapticsynth play --loop` (the release binary next to this one) on a continuous pattern
// through the PulseAudio rig, kills the server, restarts it 1 s later, and records the sink's
// monitor from the moment the server accepts connections again: the time to the first recorded
// sample above the noise floor, per restart. Prints median, p99 and max, and what the verb
// reported lost (its "is back" lines: gap, onsets dropped, loop cycles skipped).
//
//   scripts/rig.sh .build/release/reconnect-bench [--restarts 20] [--period 1024]
import Foundation
import HapticALSATesting
import HapticALSA

let env = ProcessInfo.processInfo.environment
guard let rigControl = env["HAPTICSYNTH_RIG_CTL"] else {
    print("reconnect-bench: run inside scripts/rig.sh")
    exit(2)
}
var restarts = 20, period = 1024
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--restarts": restarts = Int(args.popFirst() ?? "") ?? restarts
    case "--period": period = Int(args.popFirst() ?? "") ?? period
    default: print("usage: reconnect-bench [--restarts N] [--period FRAMES]"); exit(2)
    }
}
let out = env["HAPTICSYNTH_RIG_OUT_MONO"] ?? "hs_out_mono", monitor = env["HAPTICSYNTH_RIG_IN_MONO"] ?? "hs_in_mono"

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
func rig(_ command: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/bash")
    p.arguments = [rigControl, command]
    p.standardError = FileHandle.nullDevice
    try? p.run()
    p.waitUntilExit()
}

let pattern = FileManager.default.temporaryDirectory.appendingPathComponent("reconnect-bench-\(getpid()).ahap").path
try! """
    {"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticContinuous", "EventDuration": 1.0,
     "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}]}
    """.write(toFile: pattern, atomically: true, encoding: .utf8)
defer { try? FileManager.default.removeItem(atPath: pattern) }

let player = Process()
player.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("hapticsynth")
player.arguments = ["play", "--loop", "-D", out, "--period", "\(period)", pattern]
let errors = Pipe()
player.standardError = errors
try player.run()
usleep(1_500_000)

var delays: [Double] = []
var silent = 0
for _ in 0..<restarts {
    rig("stop-server")
    usleep(1_000_000)
    rig("start-server")
    let back = now()
    let capture = ALSACaptureDevice(name: monitor, channels: 1, sampleRate: 48_000, periodFrames: 1024, bufferFrames: 8192, seconds: 1.5)
    do { try capture.start() } catch { print("capture: \(error)"); silent += 1; continue }
    while now() < back + 1.5 { usleep(10_000) }
    let rec = capture.stop()
    let s = rec.int16Samples
    if let f = (0..<rec.frames).first(where: { abs(Int(s[$0])) > 300 }), let t = rec.monotonicNanos(ofFrame: f) {
        delays.append(Double(t) / 1e9 - back)
    } else {
        silent += 1
    }
}
kill(player.processIdentifier, SIGINT)
player.waitUntilExit()
let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
let back = text.split(separator: "\n").filter { $0.contains(" is back after ") }
func number(_ line: Substring, after key: String) -> Double? {
    guard let r = line.range(of: key) else { return nil }
    return Double(line[r.upperBound...].prefix { $0.isNumber || $0 == "." })
}
let gaps = back.compactMap { number($0, after: "gap ") }
let dropped = back.compactMap { number($0, after: "onsets dropped ") }.reduce(0, +)
let cycles = back.compactMap { number($0, after: "loop cycles skipped ") }
let sorted = delays.sorted()
func pct(_ p: Double) -> Double { sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded(.up)))] }
print(String(format: "server accepting again -> first recorded sample, %d restarts: median %.0f ms, p99 %.0f ms, max %.0f ms, min %.0f ms; silent %d",
             delays.count, pct(0.5) * 1000, pct(0.99) * 1000, (sorted.last ?? .nan) * 1000, (sorted.first ?? .nan) * 1000, silent))
print(String(format: "lost per restart (the verb's report, %d lines): gap median %.2f s (min %.2f, max %.2f), loop cycles skipped median %.1f, onsets dropped total %.0f; play exit status %d",
             back.count, gaps.sorted().dropFirst(gaps.count / 2).first ?? .nan, gaps.min() ?? .nan, gaps.max() ?? .nan,
             cycles.sorted().dropFirst(cycles.count / 2).first ?? .nan, dropped, player.terminationStatus))
