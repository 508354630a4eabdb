// parse-bench: AHAP parse throughput (release build).
//
//   swift build -c release --product parse-bench
//   .build/release/parse-bench [FOLDER] [--corpus DIR] [--runs N]
//
// Measures, each over repeated runs (median and spread):
//   1. the largest corpus file (warmth.ahap, 569 KB): MB/s and events/s;
//   2. a generated pattern of 1,000,000 events (canonical encoding): MB/s and events/s;
//   3. loading every *.ahap in FOLDER (read + decode), total milliseconds.
// The corpus is ../shared/corpus/ahap, or $HAPTICSYNTH_CORPUS/ahap, or --corpus DIR.

import Foundation
import HapticPattern

struct Stats {
    var samples: [Double]
    var sorted: [Double] { samples.sorted() }
    func quantile(_ q: Double) -> Double {
        let s = sorted
        let position = q * Double(s.count - 1)
        let lo = Int(position.rounded(.down)), hi = Int(position.rounded(.up))
        return s[lo] + (s[hi] - s[lo]) * (position - Double(lo))
    }
    var median: Double { quantile(0.5) }
    var min: Double { sorted.first! }
    var max: Double { sorted.last! }
}

func seconds(_ duration: Duration) -> Double {
    let c = duration.components
    return Double(c.seconds) + Double(c.attoseconds) * 1e-18
}

func time(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return seconds(clock.now - start)
}

func fmt(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

// MARK: arguments

var arguments = Array(CommandLine.arguments.dropFirst())
var runs = 0
var corpusOverride: String?
var folder: String?
while !arguments.isEmpty {
    let arg = arguments.removeFirst()
    switch arg {
    case "--runs": runs = Int(arguments.removeFirst()) ?? 0
    case "--corpus": corpusOverride = arguments.removeFirst()
    default: folder = arg
    }
}

let corpus: String = {
    if let corpusOverride { return corpusOverride }
    if let env = ProcessInfo.processInfo.environment["HAPTICSYNTH_CORPUS"] { return env + "/ahap" }
    return "../shared/corpus/ahap"
}()

func ahapFiles(in directory: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return names.filter { $0.hasSuffix(".ahap") }.sorted().map { directory + "/" + $0 }
}

func load(_ path: String) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
        FileHandle.standardError.write(Data("parse-bench: cannot read \(path)\n".utf8))
        exit(1)
    }
    return [UInt8](data)
}

/// Decodes `bytes` `count` times; returns per-run seconds.
func measure(_ bytes: [UInt8], runs count: Int) -> (Stats, DecodedAHAP) {
    var last: DecodedAHAP?
    // One warm-up run (page faults, first allocations).
    last = try? AHAPPattern.decode(from: bytes)
    var samples: [Double] = []
    for _ in 0..<count {
        samples.append(time { last = try? AHAPPattern.decode(from: bytes) })
    }
    guard let decoded = last else {
        print("parse-bench: input does not decode")
        exit(1)
    }
    return (Stats(samples: samples), decoded)
}

func report(_ name: String, bytes: Int, events: Int, _ stats: Stats) {
    let mb = Double(bytes) / 1e6
    print("\(name): \(fmt(mb, 2)) MB, \(events) events, \(stats.samples.count) runs")
    print("  time      median \(fmt(stats.median * 1e3, 2)) ms  (min \(fmt(stats.min * 1e3, 2)), p10 \(fmt(stats.quantile(0.1) * 1e3, 2)), p90 \(fmt(stats.quantile(0.9) * 1e3, 2)), max \(fmt(stats.max * 1e3, 2)))")
    print("  MB/s      median \(fmt(mb / stats.median))  (p90-time \(fmt(mb / stats.quantile(0.9))), best \(fmt(mb / stats.min)))")
    print("  events/s  median \(fmt(Double(events) / stats.median / 1e6, 2)) M  (p90-time \(fmt(Double(events) / stats.quantile(0.9) / 1e6, 2)) M)")
}

// MARK: 1. largest corpus file

let corpusFiles = ahapFiles(in: corpus)
if corpusFiles.isEmpty {
    print("corpus: no .ahap files in \(corpus) (skipping the corpus measurement)")
} else {
    let preferred = corpusFiles.first { $0.hasSuffix("__warmth.ahap") }
    let largest = preferred ?? corpusFiles.max { load($0).count < load($1).count }!
    let bytes = load(largest)
    let (stats, decoded) = measure(bytes, runs: runs > 0 ? runs : 50)
    report("largest corpus file \((largest as NSString).lastPathComponent)", bytes: bytes.count, events: decoded.pattern.events.count, stats)
}

// MARK: 2. generated 1,000,000-event pattern

do {
    var rng = SystemRandomNumberGenerator()
    var elements: [PatternElement] = []
    elements.reserveCapacity(1_000_000)
    // Typical authoring precision: times in ms, values in thousandths.
    func r3(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
    for i in 0..<1_000_000 {
        let t = Double(i) * 0.01
        if i % 10 == 9 {
            elements.append(.event(.continuous(
                at: t, duration: r3(Double.random(in: 0.01...0.5, using: &rng)),
                intensity: r3(Double.random(in: 0...1, using: &rng)), sharpness: r3(Double.random(in: 0...1, using: &rng)))))
        } else {
            elements.append(.event(.transient(
                at: t, intensity: r3(Double.random(in: 0...1, using: &rng)), sharpness: r3(Double.random(in: 0...1, using: &rng)))))
        }
    }
    let text = AHAPPattern(elements: elements).encoded()
    let bytes = Array(text.utf8)
    let (stats, decoded) = measure(bytes, runs: runs > 0 ? min(runs, 7) : 7)
    report("generated pattern", bytes: bytes.count, events: decoded.pattern.elements.count, stats)
}

// MARK: 3. loading a folder

let folderPath = folder ?? corpus
let files = ahapFiles(in: folderPath)
if files.isEmpty {
    print("folder \(folderPath): no .ahap files")
} else {
    var failures: [String] = []
    var totalBytes = 0
    var samples: [Double] = []
    for run in 0..<(runs > 0 ? runs : 30) {
        var bytesThisRun = 0
        let t = time {
            for file in files {
                let bytes = load(file)
                bytesThisRun += bytes.count
                do { _ = try AHAPPattern.decode(from: bytes) } catch {
                    if run == 0 { failures.append("\((file as NSString).lastPathComponent): \(error)") }
                }
            }
        }
        totalBytes = bytesThisRun
        samples.append(t)
    }
    let stats = Stats(samples: samples)
    print("folder \(folderPath): \(files.count) files, \(fmt(Double(totalBytes) / 1e6, 2)) MB, read + decode, \(samples.count) runs")
    print("  total     median \(fmt(stats.median * 1e3, 2)) ms  (min \(fmt(stats.min * 1e3, 2)), p90 \(fmt(stats.quantile(0.9) * 1e3, 2)), max \(fmt(stats.max * 1e3, 2)))")
    for failure in failures { print("  did not load: \(failure)") }
}
