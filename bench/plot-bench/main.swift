// plot-bench: how long `hapticsynth plot` takes on the longest corpus pattern (warmth.ahap,
// 103 s), end to end as a user runs it (the release binary as a process: read, prepare, trace,
// render the drive, draw, encode, write), and in-process by stage.
//
//   swift build -c release --product hapticsynth --product plot-bench
//   .build/release/plot-bench [--bin .build/release/hapticsynth] [--corpus DIR] [--runs N]
// The corpus is ../shared/corpus/ahap, or $HAPTICSYNTH_CORPUS/ahap, or --corpus DIR.

import Foundation
import HapticPattern
import HapticPlot
import HapticRender

var binary = ".build/release/hapticsynth"
var corpusDir = ProcessInfo.processInfo.environment["HAPTICSYNTH_CORPUS"].map { $0 + "/ahap" } ?? "../shared/corpus/ahap"
var runs = 21
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--bin": binary = args.popFirst() ?? binary
    case "--corpus": corpusDir = args.popFirst() ?? corpusDir
    case "--runs": runs = max(1, Int(args.popFirst() ?? "") ?? runs)
    default:
        FileHandle.standardError.write(Data("usage: plot-bench [--bin PATH] [--corpus DIR] [--runs N]\n".utf8))
        exit(2)
    }
}

let warmth = corpusDir + "/imedboumalek__haptify__example_app__assets__haptics__ahap__warmth.ahap"
guard FileManager.default.fileExists(atPath: warmth) else {
    FileHandle.standardError.write(Data("plot-bench: \(warmth) not found (the corpus: ../shared/corpus or $HAPTICSYNTH_CORPUS)\n".utf8))
    exit(1)
}
let output = FileManager.default.temporaryDirectory.appendingPathComponent("plot-bench-\(getpid())")
try? FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: output) }

func wallNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// "median X ms (min …, p10 …, p90 …, max …)".
func summary(_ seconds: [Double]) -> String {
    let s = seconds.sorted().map { $0 * 1000 }
    func at(_ q: Double) -> Double { s[min(s.count - 1, Int((Double(s.count - 1) * q).rounded()))] }
    return String(format: "median %.1f ms (min %.1f, p10 %.1f, p90 %.1f, max %.1f; %d runs)", at(0.5), s[0], at(0.1), at(0.9), s[s.count - 1], s.count)
}

/// CPU time (user + system) of the children waited for so far.
func childrenCPU() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// Runs `binary` with `arguments`; returns its wall time and CPU time (exits on failure).
func timeProcess(_ binary: String, _ arguments: [String]) -> (wall: Double, cpu: Double) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let start = wallNow(), cpuStart = childrenCPU()
    do { try process.run() } catch {
        FileHandle.standardError.write(Data("plot-bench: cannot run \(binary): \(error)\n".utf8))
        exit(1)
    }
    process.waitUntilExit()
    let elapsed = (wall: wallNow() - start, cpu: childrenCPU() - cpuStart)
    guard process.terminationStatus == 0 else {
        FileHandle.standardError.write(Data("plot-bench: \(binary) \(arguments.joined(separator: " ")) exited \(process.terminationStatus)\n".utf8))
        exit(1)
    }
    return elapsed
}

print("plot-bench: \(warmth)")
print("end to end (\(binary) as a process; wall time, and CPU time (user + system), which the load of a shared machine does not inflate):")
let cases: [(String, [String])] = [
    ("warmth, pattern + drive (the default), PNG", [warmth, "-o", output.appendingPathComponent("w.png").path]),
    ("warmth, pattern only, PNG", [warmth, "-o", output.appendingPathComponent("p.png").path, "--panels", "pattern"]),
    ("warmth, pattern + drive, SVG", [warmth, "-o", output.appendingPathComponent("w.svg").path]),
    ("warmth, pattern + drive, PDF", [warmth, "-o", output.appendingPathComponent("w.pdf").path]),
]
for (name, arguments) in cases {
    _ = timeProcess(binary, ["plot"] + arguments)  // warm the file cache
    let times = (0..<runs).map { _ in timeProcess(binary, ["plot"] + arguments) }
    print("  \(name):\n    wall \(summary(times.map(\.wall)))\n    CPU  \(summary(times.map(\.cpu)))")
}

// In-process, by stage (the default picture: 1600 wide, pattern + drive, PNG).
print("in process, by stage:")
var stages: [String: [Double]] = [:]
for _ in 0..<runs {
    var t = wallNow()
    func lap(_ name: String) {
        let now = wallNow()
        stages[name, default: []].append(now - t)
        t = now
    }
    let bytes = (try? [UInt8](Data(contentsOf: URL(fileURLWithPath: warmth)))) ?? []
    guard let pattern = try? AHAPPattern.decode(from: bytes).pattern,
        let prepared = try? PreparedPattern(pattern, profile: .bassShaker, sampleRate: 48_000)
    else { exit(1) }
    lap("1 read, decode, prepare")
    let trace = PatternTrace(prepared)
    var document = PlotDocument(
        title: "warmth", panels: [PatternPanel(trace: trace, elements: pattern.elements), DrivePanel(pattern: prepared, trace: trace)])
    let frames = document.layout()
    lap("2 pattern trace")
    document.panels[1] = document.panels[1].prepared(for: frames[1].scale)
    lap("3 drive trace (render, meters, felt onsets)")
    _ = try? document.render(.png)
    lap("4 draw and encode the PNG")
}
for name in stages.keys.sorted() { print("  \(name): \(summary(stages[name]!))") }
