// What the benches that measure through the JACK rig (latency-bench, osc-bench) share: the
// monotonic clock in nanoseconds, the recorder's onset file, and percentile summaries.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CLOCK_MONOTONIC in nanoseconds (the recorder's stamps are on the same clock).
public func nowNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

public func sleepSeconds(_ s: Double) { usleep(UInt32(max(0, s) * 1e6)) }

/// Fixed-point text without Foundation.
public func fmt(_ x: Double, _ digits: Int = 3) -> String {
    guard x.isFinite else { return "n/a" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let v = (abs(x) * scale).rounded()
    let whole = Int(v / scale), frac = Int(v.truncatingRemainder(dividingBy: scale))
    var f = String(frac)
    while f.count < digits { f = "0" + f }
    return (x < 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + f : "")
}

/// Percentile summary of a list of milliseconds.
public func summary(_ values: [Double]) -> String {
    guard !values.isEmpty else { return "n=0" }
    let v = values.sorted()
    func p(_ q: Double) -> Double { v[min(v.count - 1, Int(Double(v.count) * q))] }
    return "n=\(v.count) min \(fmt(v[0])) median \(fmt(p(0.5))) p99 \(fmt(p(0.99))) max \(fmt(v[v.count - 1])) spread(p99-min) \(fmt(p(0.99) - v[0]))"
}

public func median(_ values: [Double]) -> Double { values.isEmpty ? .nan : values.sorted()[values.count / 2] }

/// The JACK recorder's onsets so far, (frame, monotonic ns), from its CSV file.
public func readOnsets(_ path: String) -> [(Int64, Int64)] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").dropFirst().compactMap { line in
        let f = line.split(separator: ",")
        guard f.count >= 3, let frame = Int64(f[1]), let t = Int64(f[2]) else { return nil }
        return (frame, t)
    }
}

/// What scripts/jack-rig.sh exports to the command it runs.
public struct JACKRig: Sendable {
    /// The rig's temporary folder.
    public let directory: String
    /// The recorder program (latency-floor/jack-recorder.c).
    public let recorder: String
    /// The ALSA PCM that plays into the recorder's ports.
    public let pcm: String
    /// The JACK server's period.
    public let period: Int

    /// The rig from the environment; nil outside it.
    public init?(_ environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let directory = environment["HAPTICSYNTH_JACK_RIG_DIR"], let recorder = environment["HAPTICSYNTH_JACK_RECORDER"],
              let pcm = environment["HAPTICSYNTH_JACK_OUT"] else { return nil }
        self.directory = directory
        self.recorder = recorder
        self.pcm = pcm
        period = Int(environment["HAPTICSYNTH_JACK_PERIOD"] ?? "256") ?? 256
    }

    /// Starts the recorder (3 channels, onsets on channel 0 above 0.05 after 50 ms of quiet, into
    /// `onsets`; what the server received into `recording`) and returns once it is READY (its
    /// ports exist: a PCM opened after this connects to them). Exits the program when it dies.
    public func startRecorder(onsets: String, stamps: String, recording: String = "/dev/null") throws -> Process {
        let recorder = Process()
        recorder.executableURL = URL(fileURLWithPath: self.recorder)
        recorder.arguments = ["-n", "hs_rec", "-c", "3", "-o", recording, "-s", stamps, "-O", onsets, "-t", "0.05"]
        let out = Pipe()
        recorder.standardOutput = out
        try recorder.run()
        var ready = ""
        while !ready.contains("READY") {
            let data = out.fileHandleForReading.availableData
            if data.isEmpty { print("recorder died"); exit(3) }
            ready += String(decoding: data, as: UTF8.self)
        }
        return recorder
    }
}

/// The `--name value` integer options of the command line, over `defaults`.
public func integerOptions(_ defaults: [String: Int]) -> [String: Int] {
    var options = defaults
    let args = CommandLine.arguments
    var i = 1
    while i + 1 < args.count {
        if args[i].hasPrefix("--"), let value = Int(args[i + 1]) { options[String(args[i].dropFirst(2))] = value }
        i += 2
    }
    return options
}

/// For each reference time (ns), the first onset (ns) at or after it plus `leadNanos` (the
/// frames from a signal's start to the sample the recorder sees) within `windowSeconds`: the
/// latencies in ms, and how many references had none.
public func latencies(references: [Int64], onsets: [Int64], leadNanos: Double, windowSeconds: Double) -> (values: [Double], missed: Int) {
    var values: [Double] = []
    for r in references {
        if let t = onsets.first(where: { Double($0) - leadNanos >= Double(r) && Double($0 - r) < windowSeconds * 1e9 }) {
            values.append((Double(t) - leadNanos - Double(r)) / 1e6)
        }
    }
    return (values, references.count - values.count)
}

/// One to one, in order: calls made one after another each produce one onset, so the k-th onset
/// of a phase belongs to its k-th call. Unlike ``latencies(references:onsets:leadNanos:windowSeconds:)``,
/// which takes each call's first onset in a window, a late onset cannot be counted twice (once
/// for its own call, once, a few ms after the next call, for that one) and a missing one cannot
/// shift the rest: the phase is paired only if it holds exactly as many onsets as calls.
/// Returns the latencies (ms), or nil when it is not paired. (A value can still be off when the
/// recorder's own time stamp of an onset is: under load one was seen 20 ms early.)
public func pairedLatencies(references: [Int64], onsets: [Int64], leadNanos: Double) -> [Double]? {
    let sorted = onsets.sorted()
    guard sorted.count == references.count else { return nil }
    return zip(references, sorted).map { (Double($1) - leadNanos - Double($0)) / 1e6 }
}
