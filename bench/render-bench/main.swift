// render-bench: render speed as a multiple of real time at 48 kHz, per actuator profile,
// for the heartbeat, the largest corpus file and a 1,000-voice stress pattern; and sox
// rendering a plain sine of the same length to a WAV file, for comparison.
//
//   swift build -c release --product render-bench
//   .build/release/render-bench [--heartbeat PATH] [--corpus DIR] [--runs N] [--only heartbeat,warmth,stress1000]
//                               [--profiles NAMES] [--no-sox] [--wall] [--digest]
// The corpus is ../shared/corpus/ahap, or $HAPTICSYNTH_CORPUS/ahap, or --corpus DIR (read only
// when warmth is measured).

import Foundation
import HapticPattern
import HapticRender

let rate = 48_000.0
var heartbeatPath: String? = nil
var corpusDir = ProcessInfo.processInfo.environment["HAPTICSYNTH_CORPUS"].map { $0 + "/ahap" } ?? "../shared/corpus/ahap"
var runs = 9
var only: Set<String> = []  // --only heartbeat,warmth,stress1000 (default: all)
var skipSox = false  // --no-sox
nonisolated(unsafe) var useWall = false  // --wall (set once while parsing arguments): wall-clock instead of thread CPU time
var printDigest = false  // --digest: an FNV-1a digest of each rendered output's bits (two builds render identically)
var onlyProfiles: Set<String> = []  // --profiles bass-shaker,lra (default: all)
var args = CommandLine.arguments.dropFirst()
while let a = args.popFirst() {
    switch a {
    case "--heartbeat": heartbeatPath = args.popFirst()
    case "--corpus": corpusDir = args.popFirst() ?? corpusDir
    case "--runs": runs = Int(args.popFirst() ?? "") ?? runs
    case "--no-sox": skipSox = true
    case "--wall": useWall = true
    case "--digest": printDigest = true
    case "--only": only = Set((args.popFirst() ?? "").split(separator: ",").map(String.init))
    case "--profiles": onlyProfiles = Set((args.popFirst() ?? "").split(separator: ",").map(String.init))
    default:
        FileHandle.standardError.write("usage: render-bench [--heartbeat PATH] [--corpus DIR] [--runs N] [--only heartbeat,warmth,stress1000] [--profiles NAMES] [--no-sox] [--wall] [--digest]\n".data(using: .utf8)!)
        exit(2)
    }
}

func load(_ path: String) -> AHAPPattern {
    do {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        return try AHAPPattern.decode(from: bytes).pattern
    } catch {
        FileHandle.standardError.write("render-bench: \(path): \(error)\n".data(using: .utf8)!)
        exit(1)
    }
}

/// A lub-dub heartbeat (used when no heartbeat.ahap is given): two beats per second for 2 s.
func builtInHeartbeat() -> AHAPPattern {
    var e: [PatternElement] = []
    for beat in 0..<4 {
        let t = Double(beat) * 0.5
        e.append(.event(.transient(at: t, intensity: 1, sharpness: 0.3)))
        e.append(.event(.continuous(at: t, duration: 0.08, intensity: 0.8, sharpness: 0.2, extra: [EventParameter(.sustained, 0), EventParameter(.decayTime, 0.2)])))
        e.append(.event(.transient(at: t + 0.18, intensity: 0.7, sharpness: 0.25)))
    }
    return AHAPPattern(elements: e)
}

/// 1,000 continuous voices sounding together for 10 s, sharpness spread over the band,
/// with an intensity curve.
func stressPattern() -> AHAPPattern {
    var e: [PatternElement] = []
    for i in 0..<1_000 {
        e.append(.event(.continuous(at: Double(i) * 0.0005, duration: 10, intensity: 0.5, sharpness: Double(i % 100) / 100)))
    }
    e.append(.curve(ParameterCurve(.hapticIntensityControl, time: 0, points: [.init(0, 0.2), .init(5, 1), .init(10, 0.5)])))
    return AHAPPattern(elements: e)
}

func median(_ x: [Double]) -> Double { let s = x.sorted(); return s[s.count / 2] }

/// This thread's CPU time: the machine is shared (other builds run), and CPU time measures
/// what one core spends on the render whatever else is runnable. (`--wall` for wall time.)
struct ThreadCPUClock {
    var wall = false
    var now: Double {
        var ts = timespec()
        clock_gettime(wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
    }
}

func seconds(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
}

struct Figure {
    var name: String
    var profile: String
    var audioSeconds: Double
    var chain: [Double]  // seconds per run, whole chain (voice + protection + interleave), streamed as the CLI does
    var memory: [Double]  // OfflineRenderer.render into a fresh array (page faults included)
    var prepare: [Double]  // PreparedPattern (compiling the pattern, precomputing transient grains)
    var voiceOnly: [Double]
    var stageOnly: [Double]  // OutputStage.process alone, on the voice's output
    var setup: [Double]  // creating an OfflineRenderStream (voice + output stage + buffers)
    var digest: UInt64  // FNV-1a over the in-memory render's sample bits
}

/// FNV-1a over the bit patterns of `samples` (equal digests: bit-identical renders).
func digest(_ samples: [Float]) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for x in samples {
        var b = x.bitPattern
        for _ in 0..<4 {
            h = (h ^ UInt64(b & 0xff)) &* 0x100_0000_01b3
            b >>= 8
        }
    }
    return h
}

/// Times the preparation, the stream set-up, the streamed chain, the in-memory render, and
/// the voice and the output stage alone (see `Figure`).
func measure(_ name: String, _ pattern: AHAPPattern, _ profile: ActuatorProfile, runs: Int) -> Figure {
    let p = try! PreparedPattern(pattern, profile: profile, sampleRate: rate)
    let clock = ThreadCPUClock(wall: useWall)
    var chain: [Double] = []
    var voiceOnly: [Double] = []
    let frames = p.frameCount
    let block = 512
    let h = UnsafeMutablePointer<Float>.allocate(capacity: block)
    let l = UnsafeMutablePointer<Float>.allocate(capacity: block)
    let r = UnsafeMutablePointer<Float>.allocate(capacity: block)
    var sink: Float = 0
    // The voice's output once, for timing the output stage alone.
    let voiceOutput = UnsafeMutablePointer<Float>.allocate(capacity: max(1, frames))
    voiceOutput.initialize(repeating: 0, count: max(1, frames))
    do {
        var voice = PatternVoice(pattern: p)
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            voice.render(into: MixBus(haptic: voiceOutput + done, audioLeft: l, audioRight: r, frames: n))
            done += n
        }
    }
    let stageOut = UnsafeMutablePointer<Float>.allocate(capacity: block)
    var stageOnly: [Double] = []
    var setup: [Double] = []
    var memory: [Double] = []
    var prepare: [Double] = []
    var outputDigest: UInt64 = 0
    // What `hapticsynth render` does: the stream (default block) into a reused 4096-frame buffer.
    let cliFrames = 4096
    let cliBuffer = UnsafeMutablePointer<Float>.allocate(capacity: cliFrames)
    for run in 0..<(runs + 1) {
        let tp0 = clock.now
        let again = try! PreparedPattern(pattern, profile: profile, sampleRate: rate)
        let tp1 = clock.now
        sink += Float(again.eventCount)
        if run > 0 { prepare.append(tp1 - tp0) }
        let ts0 = clock.now
        let probe = OfflineRenderStream(pattern: p, layout: .hapticMono, blockSize: block)
        let ts1 = clock.now
        sink += Float(probe.totalFrames)
        if run > 0 { setup.append(ts1 - ts0) }
        let t0 = clock.now
        var stream = OfflineRenderStream(pattern: p, layout: .hapticMono)
        while !stream.isFinished {
            let n = stream.render(into: cliBuffer, maxFrames: cliFrames)
            if n == 0 { break }
            sink += cliBuffer[n - 1]
        }
        let t1 = clock.now
        sink += stream.peak
        let tm0 = clock.now
        let out = OfflineRenderer.render(p, layout: .hapticMono, blockSize: block)
        let tm1 = clock.now
        sink += out.peak
        if run == 0 { outputDigest = digest(out.samples) }
        if run > 0 { memory.append(tm1 - tm0) }
        var voice = PatternVoice(pattern: p)
        let t2 = clock.now
        var done = 0
        while done < frames {
            let n = min(block, frames - done)
            h.update(repeating: 0, count: n)
            voice.render(into: MixBus(haptic: h, audioLeft: l, audioRight: r, frames: n))
            sink += h[0]
            done += n
        }
        let t3 = clock.now
        var stage = OutputStage(profile: profile, sampleRate: rate, layout: .hapticMono)
        let t4 = clock.now
        done = 0
        while done < frames {
            let n = min(block, frames - done)
            h.update(from: voiceOutput + done, count: n)
            stage.process(MixBus(haptic: h, audioLeft: l, audioRight: r, frames: n), into: stageOut)
            sink += stageOut[0]
            done += n
        }
        let t5 = clock.now
        if run > 0 {  // the first run warms caches
            chain.append(t1 - t0)
            voiceOnly.append(t3 - t2)
            stageOnly.append(t5 - t4)
        }
    }
    if sink.isNaN { print("") }
    cliBuffer.deallocate()
    return Figure(name: name, profile: profile.name, audioSeconds: Double(frames) / rate, chain: chain, memory: memory, prepare: prepare, voiceOnly: voiceOnly, stageOnly: stageOnly, setup: setup, digest: outputDigest)
}

/// CPU time (user + system) of waited-for child processes so far.
func childrenCPU() -> Double {
    var u = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &u)
    return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) * 1e-6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) * 1e-6
}

func soxTime(seconds length: Double) -> [Double] {
    let clock = ContinuousClock()
    var times: [Double] = []
    let out = FileManager.default.temporaryDirectory.appendingPathComponent("render-bench-sox.wav").path
    for run in 0..<6 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        p.arguments = ["-n", "-r", "48000", "-c", "1", out, "synth", String(format: "%.3f", length), "sine", "40"]
        let t0 = clock.now, c0 = childrenCPU()
        do { try p.run() } catch { return [] }
        p.waitUntilExit()
        let t1 = clock.now, c1 = childrenCPU()
        if run > 0 { times.append(useWall ? seconds(t1 - t0) : c1 - c0) }
    }
    try? FileManager.default.removeItem(atPath: out)
    return times
}

let patterns: [(name: String, make: () -> AHAPPattern)] = [
    ("heartbeat", { heartbeatPath.map(load) ?? builtInHeartbeat() }),
    ("warmth", { load(corpusDir + "/imedboumalek__haptify__example_app__assets__haptics__ahap__warmth.ahap") }),
    ("stress1000", stressPattern),
]

print("render-bench: \(runs) runs each (after one warm-up), 48 kHz, haptic mono, release build, \(useWall ? "wall-clock time" : "thread CPU time (sox: its CPU time)")")
print("heartbeat: \(heartbeatPath ?? "built-in lub-dub (4 beats, 2 s)"); largest corpus file: warmth.ahap; stress: 1,000 overlapping continuous voices, 10 s")
print("chain: OfflineRenderStream as `hapticsynth render` drives it (4096 frames a call into one buffer); +prep: with PreparedPattern too;")
print("memory: OfflineRenderer.render into a fresh array (block 512); voice, stage: the two halves alone (block 512)")
print("")
print(String(format: "%-10@ %-12@ %7@  %9@ %-15@ %8@ %8@ %9@ %-15@ %9@ %-15@", "pattern" as NSString, "profile" as NSString, "audio s" as NSString,
             "chain ×RT" as NSString, " (min..max)" as NSString, "+prep" as NSString, "memory" as NSString, "voice ×RT" as NSString, " (min..max)" as NSString,
             "stage ×RT" as NSString, " (min..max)" as NSString) + "  prepare µs  setup µs")
var figures: [Figure] = []
for (name, make) in patterns where only.isEmpty || only.contains(name) {
    let pattern = make()
    for profile in [ActuatorProfile.bassShaker, .voiceCoil, .lra] where onlyProfiles.isEmpty || onlyProfiles.contains(profile.name) {
        let f = measure(name, pattern, profile, runs: runs)
        figures.append(f)
        let c = f.chain.map { f.audioSeconds / $0 }, v = f.voiceOnly.map { f.audioSeconds / $0 }
        let st = f.stageOnly.map { f.audioSeconds / $0 }
        let withPrepare = f.audioSeconds / (median(f.chain) + median(f.prepare))
        print(String(format: "%-10@ %-12@ %7.2f  %9.0f %6.0f..%-6.0f %8.0f %8.0f %9.0f %6.0f..%-6.0f %9.0f %6.0f..%-6.0f",
                     name as NSString, profile.name as NSString, f.audioSeconds,
                     median(c), c.min()!, c.max()!, withPrepare, f.audioSeconds / median(f.memory),
                     median(v), v.min()!, v.max()!, median(st), st.min()!, st.max()!)
              + String(format: "  %10.1f  %8.1f", median(f.prepare) * 1e6, median(f.setup) * 1e6)
              + (printDigest ? "  digest " + String(f.digest, radix: 16) : ""))
    }
}
print("")
let warmthSeconds = figures.first { $0.name == "warmth" }?.audioSeconds ?? 0
let sox = warmthSeconds > 0 && !skipSox ? soxTime(seconds: warmthSeconds) : []
if warmthSeconds == 0 || skipSox {
    print("sox: skipped")
} else if sox.isEmpty {
    print("sox: not found at /usr/bin/sox")
} else {
    let soxMedian = median(sox)
    print(String(format: "sox -n -r 48000 -c 1 out.wav synth %.3f sine 40: median %.2f ms (min %.2f, max %.2f) = %.0f× real time",
                 warmthSeconds, soxMedian * 1e3, sox.min()! * 1e3, sox.max()! * 1e3, warmthSeconds / soxMedian))
    for f in figures where f.name == "warmth" {
        print(String(format: "  warmth/%@: hapticsynth chain median %.2f ms → %.1f× faster than sox (sox also writes the file)",
                     f.profile as NSString, median(f.chain) * 1e3, soxMedian / median(f.chain)))
    }
}

// End to end: the CLI rendering the heartbeat to a WAV file (process start, parse, prepare,
// render, write), wall-clock time. Target: under 100 ms.
let cliPath = ".build/release/hapticsynth"
let cliHeartbeat = heartbeatPath ?? "Haptics/heartbeat.ahap"
if !FileManager.default.isExecutableFile(atPath: cliPath) {
    print("hapticsynth render: skipped (\(cliPath) does not exist: swift build -c release --product hapticsynth)")
} else if !FileManager.default.fileExists(atPath: cliHeartbeat) {
    print("hapticsynth render: skipped (\(cliHeartbeat) does not exist)")
} else {
    let wall = ContinuousClock()
    var times: [Double] = []
    var failed = false
    // posix_spawn + waitpid: Foundation's Process.waitUntilExit polls a run loop and adds
    // tens of milliseconds that are not the CLI's.
    let argv = [cliPath, "render", cliHeartbeat, "-o", "/tmp/hb.wav"]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    for run in 0..<12 {
        var cargs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var pid: pid_t = 0
        let t0 = wall.now
        let rc = posix_spawn(&pid, cliPath, &actions, nil, &cargs, environ)
        var status: Int32 = 0
        if rc == 0 { waitpid(pid, &status, 0) }
        let t1 = wall.now
        for a in cargs { free(a) }
        if rc != 0 || status != 0 {
            failed = true
            break
        }
        if run > 1 { times.append(seconds(t1 - t0)) }  // two warm-up runs (page cache)
    }
    posix_spawn_file_actions_destroy(&actions)
    if failed || times.isEmpty {
        print("hapticsynth render \(cliHeartbeat) -o /tmp/hb.wav: FAILED to run")
    } else {
        print(String(format: "hapticsynth render %@ -o /tmp/hb.wav (wall, %d runs): median %.1f ms (min %.1f, max %.1f); target < 100 ms",
                     cliHeartbeat as NSString, times.count, median(times) * 1e3, times.min()! * 1e3, times.max()! * 1e3))
    }
}
