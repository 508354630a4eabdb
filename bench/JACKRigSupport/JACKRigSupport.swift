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
