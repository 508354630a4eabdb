// follow-bench: `hapticsynth follow` end to end through the PulseAudio rig (issue 21), next to a
// plain ALSA low-pass loop (bench/latency-floor/passthrough.c) in the same run.
//
// A click track (ClickTrack: kicks at irregular 250–450 ms gaps over a steady 800 Hz tone) is
// played into the rig's mono sink; the subject captures that sink's monitor and plays on sink B;
// both monitors are recorded. Per subject: hits followed, missed and invented; latency from each
// hit's onset to the drive's half Hilbert envelope (felt) and to its first sample, median, p99
// and max, against the issue's bounds (2 periods + 3 ms median, + 6 ms p99); for follow also
// its render time per period (its --verbose report) as a share of one core.
//
// --minutes M: the long run instead: follow alone for M minutes, a click track every round;
// per round the median latency, follow's RSS and thread count (/proc), and at the end the
// drift correction, queue trims, underruns and xruns it reports, and the latency by quarter of
// the run with its trend (ms per hour).
//
// --two-clocks: the track is played into a bus of the JACK rig instead (its own clock; see
// TwoClocks.swift) and follow captures that, still playing on sink B; both clocks' rates are
// measured (30 s) before and after, and the JACK server's over the whole run from its cycles.
//
//   scripts/rig.sh .build/release/follow-bench [--period 256] [--hits 120] [--mode MODE] [--timing TIMING] [--no-compare] [--hapticsynth PATH]
//   scripts/rig.sh .build/release/follow-bench --minutes 60 [--period 256]
//   scripts/rig.sh scripts/jack-rig.sh .build/release/follow-bench --two-clocks --minutes 60 [...]
//
// --cpu: the follower's render cost alone, with no sound server: the click track fed to a
// follower in a pulled engine (the bass-shaker profile and its protection chain, as `follow`),
// period by period, each period timed on CLOCK_THREAD_CPUTIME_ID and on CLOCK_MONOTONIC.
//
//   .build/release/follow-bench --cpu [--period 256] [--mode MODE] [--seconds 120]
import Foundation
import HapticALSATesting

let env = ProcessInfo.processInfo.environment
if CommandLine.arguments.contains("--cpu") {
    exit(runCPUBench(CommandLine.arguments))
}
guard env["HAPTICSYNTH_RIG_DIR"] != nil else {
    print("follow-bench: run inside scripts/rig.sh")
    exit(2)
}
var period = 256, hitCount = 120, minutes = 0.0, compare = true, twoClocks = false
var mode: String? = nil, timing: String? = nil
/// The `hapticsynth` to measure (default: the one built beside this bench), for comparing builds.
var subjectBinary: URL? = nil
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--period": period = Int(args.popFirst() ?? "").flatMap { (16...8192).contains($0) ? $0 : nil } ?? -1
    case "--hits": hitCount = Int(args.popFirst() ?? "").flatMap { (1...10_000).contains($0) ? $0 : nil } ?? -1
    case "--minutes": minutes = Double(args.popFirst() ?? "").flatMap { $0.isFinite && $0 > 0 && $0 <= 24 * 60 ? $0 : nil } ?? -1
    case "--mode": mode = args.popFirst()
    case "--timing": timing = args.popFirst()
    case "--no-compare": compare = false
    case "--two-clocks": twoClocks = true
    case "--hapticsynth": subjectBinary = args.popFirst().map { URL(fileURLWithPath: $0) }
    default: period = -1
    }
    if period < 0 || hitCount < 0 || minutes < 0 {
        print("usage: follow-bench [--period 16...8192] [--hits 1...10000] [--mode MODE] [--timing TIMING] [--no-compare] [--hapticsynth PATH] [--two-clocks] | --minutes M")
        exit(2)
    }
}
let player = twoClocks ? env["HAPTICSYNTH_JACK_BUS_OUT"] ?? "hs_jack_bus_out" : env["HAPTICSYNTH_RIG_OUT_MONO"] ?? "hs_out_mono"
let sourceMonitor = twoClocks ? env["HAPTICSYNTH_JACK_BUS_IN"] ?? "hs_jack_bus_in" : env["HAPTICSYNTH_RIG_IN_MONO"] ?? "hs_in_mono"
let output = env["HAPTICSYNTH_RIG_OUT_B"] ?? "hs_out_b", hapticMonitor = env["HAPTICSYNTH_RIG_IN_B"] ?? "hs_in_b"
let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
let periodMs = Double(period) * 1000 / Double(ClickTrack.sampleRate)

/// A program with its output lines collected as they come (stdout and stderr together).
final class Subject: @unchecked Sendable {  // `lines` is guarded by `lock`
    let process = Process()
    private let lock = NSLock()
    private var lines: [String] = []
    private var partial = ""

    init(_ executable: URL, _ arguments: [String]) throws {
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [weak self] handle in
            let data = handle.availableData
            guard let self, !data.isEmpty else { return }
            self.lock.withLock {
                self.partial += String(decoding: data, as: UTF8.self)
                while let newline = self.partial.firstIndex(of: "\n") {
                    self.lines.append(String(self.partial[..<newline]))
                    self.partial = String(self.partial[self.partial.index(after: newline)...])
                }
            }
        }
        try process.run()
    }

    var output: [String] { lock.withLock { lines } }

    /// Waits up to `timeout` s for a line containing `text`.
    func waitFor(_ text: String, timeout: Double = 30) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if output.contains(where: { $0.contains(text) }) { return true }
            if !process.isRunning { return false }
            usleep(20_000)
        }
        return false
    }

    /// SIGTERM, then waits up to 10 s for the end (SIGKILL after that).
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        usleep(100_000)  // the pipe's last bytes
    }

    /// CPU time the process has used so far (user + system, s), from /proc/PID/stat.
    var cpuSeconds: Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return .nan }
        // Fields after the command's closing parenthesis, from field 3 (state): utime is 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS (MiB) and Threads from /proc.
    var residentAndThreads: (Double, Int) {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Double {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return -1 }
            return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
        }
        return (field("VmRSS") / 1024, Int(field("Threads")))
    }
}

func quantile(_ values: [Double], _ q: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))]
}

/// The least-squares slope of y against x (nil for fewer than two distinct x). Centred sums: the
/// values may be large (nanoseconds, frame counts).
func leastSquaresSlope(_ points: [(x: Double, y: Double)]) -> Double? {
    guard points.count >= 2 else { return nil }
    let n = Double(points.count)
    let meanX = points.reduce(0) { $0 + $1.x } / n, meanY = points.reduce(0) { $0 + $1.y } / n
    var sxy = 0.0, sxx = 0.0
    for p in points {
        sxy += (p.x - meanX) * (p.y - meanY)
        sxx += (p.x - meanX) * (p.x - meanX)
    }
    return sxx > 0 ? sxy / sxx : nil
}

func f(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

/// `follow` from the mono sink's monitor to sink B, with --verbose for its render report.
@MainActor func startFollow() throws -> Subject {
    var arguments = ["follow", "-C", sourceMonitor, "-D", output, "--period", "\(period)", "--verbose"]
    if let mode { arguments += ["--mode", mode] }
    if let timing { arguments += ["--timing", timing] }
    let follow = try Subject(subjectBinary ?? binaries.appendingPathComponent("hapticsynth"), arguments)
    guard follow.waitFor("follow: ready") else {
        follow.stop()
        print("follow-bench: follow did not get ready:\n" + follow.output.joined(separator: "\n"))
        exit(1)
    }
    return follow
}

/// The plain loop, built from its C source into a temporary folder.
@MainActor func startPassthrough(in folder: URL) throws -> Subject? {
    let candidates = [URL(fileURLWithPath: "bench/latency-floor/passthrough.c"),
                      binaries.appendingPathComponent("../../bench/latency-floor/passthrough.c").standardized]
    guard let source = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
        print("follow-bench: bench/latency-floor/passthrough.c not found (run from the repository's root)")
        return nil
    }
    let program = folder.appendingPathComponent("passthrough")
    let cc = Process()
    cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    cc.arguments = ["cc", "-O2", "-o", program.path, source.path, "-lasound", "-lm"]
    try cc.run()
    cc.waitUntilExit()
    guard cc.terminationStatus == 0 else { print("follow-bench: building the pass-through failed"); return nil }
    // The bass shaker's band top (follow's default profile) as its low-pass.
    let loop = try Subject(program, ["-C", sourceMonitor, "-c", "1", "-D", output, "-o", "2", "-p", "\(period)", "-l", "90"])
    guard loop.waitFor("passthrough: ready") else {
        loop.stop()
        print("follow-bench: the pass-through did not get ready:\n" + loop.output.joined(separator: "\n"))
        return nil
    }
    return loop
}

/// Plays the track and prints what came out; returns the felt latencies. With `subject`, also
/// the share of a core its whole process used meanwhile (capture, render, the sound server's
/// client library and all its threads).
@MainActor @discardableResult
func measure(_ label: String, _ track: ClickTrack, subject: Subject? = nil) -> ClickTrack.Outcome? {
    do {
        let cpuBefore = subject?.cpuSeconds, started = Date()
        let outcome = try track.measure(player: player, sourceMonitor: sourceMonitor, hapticMonitor: hapticMonitor)
        if let subject, let cpuBefore {
            let used = subject.cpuSeconds - cpuBefore, elapsed = Date().timeIntervalSince(started)
            print("\(label): the process used \(f(used, 2)) s of CPU in \(f(elapsed, 1)) s: \(f(used / elapsed * 100, 2)) % of a core")
        }
        let matched = outcome.latencies.count
        print("\(label): \(outcome.heard) hits heard of \(track.hits.count), \(outcome.missed.count) missed, "
              + "\(max(0, outcome.bursts - matched)) invented; felt latency median \(f(quantile(outcome.latencies, 0.5))) ms, "
              + "p99 \(f(quantile(outcome.latencies, 0.99))) ms, max \(f(outcome.latencies.max() ?? .nan)) ms; "
              + "first sample median \(f(quantile(outcome.firstSampleLatencies, 0.5))) ms"
              + (outcome.overruns > 0 ? "; \(outcome.overruns) recording overruns (timing void)" : "")
              + (outcome.playerUnderruns > 0 ? "; the track's player underran \(outcome.playerUnderruns) times" : "")
              + (outcome.serverUnderruns.map { "; the server logged \($0) stream underruns" } ?? ""))
        print("\(label): felt latency with each frame dated by its first stamp alone (the recordings' read lateness left in): "
              + "median \(f(quantile(outcome.firstStampLatencies, 0.5))) ms, p99 \(f(quantile(outcome.firstStampLatencies, 0.99))) ms")
        for note in outcome.notes where note.contains("stamps") { print("\(label): \(note)") }
        // Where the tail is: the slowest hits (their order among those matched, from 0).
        let slowest = outcome.latencies.enumerated().sorted { $0.element > $1.element }.prefix(4)
        print("\(label): slowest hits " + slowest.map { "#\($0.offset) \(f($0.element)) ms" }.joined(separator: ", "))
        return outcome
    } catch {
        print("\(label): \(error)")
        return nil
    }
}

/// follow's render report (its --verbose line): median and p99 render time per period, of the
/// period the device granted.
@MainActor func renderShare(_ lines: [String]) -> String {
    guard let line = lines.last(where: { $0.contains("render per period:") }),
          let range = line.range(of: #"median [0-9.]+ ms, p99 [0-9.]+ ms, max [0-9.]+ ms of [0-9.]+ ms"#, options: .regularExpression)
    else { return "render time: not reported" }
    let numbers = line[range].split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .punctuationCharacters)) }
    guard numbers.count == 4, numbers[3] > 0 else { return "render time: not reported" }
    let granted = numbers[3]
    return "render per period median \(f(numbers[0], 3)) ms, p99 \(f(numbers[1], 3)) ms of \(f(granted, 3)) ms (the granted period): "
        + "\(f(numbers[0] / granted * 100, 2)) % of a core (median), \(f(numbers[1] / granted * 100, 2)) % (p99)"
}

/// follow's own lines about the run (what it followed, its summary, its render and capture-read
/// times) and the render's share of a core.
@MainActor func printReport(of follow: Subject) {
    for line in follow.output
    where line.hasPrefix("following ") || line.contains("stopped;") || line.contains("render per period:")
        || line.contains("capture reads per period:") {
        print("follow: \(line)")
    }
    print(renderShare(follow.output))
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("follow-bench-\(getpid())")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
print("follow-bench: period \(period) (\(f(periodMs, 2)) ms); bounds: median ≤ \(f(2 * periodMs + 3)) ms, p99 ≤ \(f(2 * periodMs + 6)) ms")
var bus: JACKBus? = nil
if twoClocks {
    guard let started = try JACKBus.start(in: folder) else { exit(1) }
    bus = started
    printClocks("before")
}

/// Both clocks' rates (30 s side by side) and how far apart they are.
@MainActor func printClocks(_ when: String) {
    let (jack, pulse) = measureClocks(jackBus: sourceMonitor, pulseMonitor: hapticMonitor, seconds: 30)
    let apart = jack.flatMap { j in pulse.map { $0 - j } }
    print("clocks \(when) (30 s against CLOCK_MONOTONIC): JACK bus \(jack.map { f($0) } ?? "n/a") ppm, "
          + "PulseAudio sink B \(pulse.map { f($0) } ?? "n/a") ppm; the output runs \(apart.map { f($0) } ?? "n/a") ppm faster "
          + "than the capture (uncorrected: \(apart.map { f(abs($0) * 60 / 1000, 2) } ?? "n/a") ms of latency change per minute)")
}

/// After a two-clock run: the clocks again, and the JACK server's rate over the whole run.
@MainActor func finishTwoClocks() {
    guard let bus else { return }
    printClocks("after")
    print("JACK server over the whole run (its cycle stamps): \(bus.stop().map { f($0, 2) } ?? "n/a") ppm against CLOCK_MONOTONIC")
}

if minutes > 0 {
    // The long run: rounds of 30 hits (about 11 s each) until the time is up.
    let follow = try startFollow()
    let end = Date().addingTimeInterval(minutes * 60)
    let start = Date()
    var rounds: [(minute: Double, median: Double, rss: Double, threads: Int, missed: Int, invented: Int)] = []
    var round = 0
    while Date() < end {
        round += 1
        guard let outcome = measure("round \(round)", ClickTrack.irregular(count: 30, seed: UInt32(round))) else { continue }
        let (rss, threads) = follow.residentAndThreads
        rounds.append((Date().timeIntervalSince(start) / 60, quantile(outcome.latencies, 0.5), rss, threads,
                       outcome.missed.count, max(0, outcome.bursts - outcome.latencies.count)))
        print("  at \(f(rounds.last!.minute)) min: RSS \(f(rss)) MiB, \(threads) threads")
    }
    follow.stop()
    let first = rounds.prefix(3), last = rounds.suffix(3)
    // The latency by quarter of the run (the median of its rounds' medians), and its trend: the
    // least-squares slope of the rounds' medians against time.
    let quarters = (0..<4).map { q in
        quantile(rounds.filter { Int($0.minute / minutes * 4) == q || (q == 3 && $0.minute >= minutes) }.map(\.median), 0.5)
    }
    let slope = leastSquaresSlope(rounds.filter { $0.median.isFinite }.map { (x: $0.minute, y: $0.median) })
    print("latency by quarter (median of the rounds' medians): \(quarters.map { f($0) }.joined(separator: ", ")) ms; "
          + "last − first quarter \(f(quarters[3] - quarters[0], 2)) ms; trend \(slope.map { f($0 * 60, 2) } ?? "n/a") ms per hour")
    print("follow-bench long run: \(rounds.count) rounds over \(f(minutes)) min; median latency first 3 rounds "
          + "\(first.map { f($0.median) }.joined(separator: " ")) ms, last 3 \(last.map { f($0.median) }.joined(separator: " ")) ms; "
          + "per-round medians \(f(rounds.map(\.median).min() ?? .nan))…\(f(rounds.map(\.median).max() ?? .nan)) ms; "
          + "RSS \(f(rounds.first?.rss ?? .nan))→\(f(rounds.last?.rss ?? .nan)) MiB (max \(f(rounds.map(\.rss).max() ?? .nan))); "
          + "threads \(rounds.first?.threads ?? -1)→\(rounds.last?.threads ?? -1); missed \(rounds.map(\.missed).reduce(0, +)), "
          + "invented \(rounds.map(\.invented).reduce(0, +))")
    printReport(of: follow)
    finishTwoClocks()
    exit(0)
}

let track = ClickTrack.irregular(count: hitCount)
let follow = try startFollow()
let followed = measure("follow", track, subject: follow)
follow.stop()
printReport(of: follow)
var looped: ClickTrack.Outcome? = nil
if compare, let loop = try startPassthrough(in: folder) {
    looped = measure("pass-through (ALSA, 4th-order low-pass at 90 Hz)", track, subject: loop)
    loop.stop()
    if let last = loop.output.last(where: { $0.contains("stopped") }) { print(last) }
}
if let a = followed, let b = looped {
    let ratio = quantile(a.latencies, 0.5) / quantile(b.latencies, 0.5)
    print("follow / pass-through felt latency (medians): \(f(ratio, 2))")
}
if let a = followed {
    let median = quantile(a.latencies, 0.5), p99 = quantile(a.latencies, 0.99)
    print("against the bounds: median \(f(median)) ≤ \(f(2 * periodMs + 3)) ms: \(median <= 2 * periodMs + 3 ? "met" : "missed"); "
          + "p99 \(f(p99)) ≤ \(f(2 * periodMs + 6)) ms: \(p99 <= 2 * periodMs + 6 ? "met" : "missed")")
}
finishTwoClocks()
