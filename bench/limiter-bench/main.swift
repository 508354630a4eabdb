// limiter-bench: what the protection limiter adds below the actuator's band on dense, overlapping
// patterns where it works all the time (issue 25): the share of the energy below 1 Hz and 5 Hz and
// the DC offset of the render, next to the same render with the limiter idle (ceiling lifted out of
// reach: the floor, what the pattern itself has there), per built-in profile.
//
//   swift build -c release --product limiter-bench
//   .build/release/limiter-bench [--patterns continuous,transients,…] [--seeds 1,2] [--profiles NAMES]
//                                [--runs N] [--write-ahap DIR] [--write-raw DIR] [FILE.ahap …]
//
// Patterns: DensePattern (Tests/Support/DensePatterns.swift), generated from fixed seeds; AHAP
// files given as arguments are measured instead (any pattern, e.g. one held out from the tests). The
// energy shares come from one FFT of the whole render (`energyShares`). `--write-ahap` writes each
// pattern as an AHAP file (to render it with `hapticsynth render`); `--write-raw` writes the limited
// and the idle render as raw 32-bit float mono files (PATTERN-SEED-PROFILE.{limited,idle}.f32).
//
// Speed: on the first pattern, per profile, `--runs` (default 9) interleaved timings of the haptic
// limiter alone over the render's limiter input (the idle render), as the stage builds it with
// the sub-band servo and without it (the limiter before issue 25), and of the whole offline render
// (with the servo). The servo's cost in render speed is the limiter's difference over the render.

import Foundation
import HapticDSP
import HapticPattern
import HapticRender
import HapticTestSupport

var patternNames = DensePattern.allCases.map(\.rawValue)
var seeds: [UInt64] = [1]
var onlyProfiles: Set<String> = []
var ahapDirectory: String? = nil
var rawDirectory: String? = nil
var runs = 9
var files: [String] = []
var args = CommandLine.arguments.dropFirst()
func usage() -> Never {
    FileHandle.standardError.write("usage: limiter-bench [--patterns NAMES] [--seeds N,N] [--profiles NAMES] [--runs N] [--write-ahap DIR] [--write-raw DIR] [FILE.ahap ...]\n".data(using: .utf8)!)
    exit(2)
}
while let a = args.popFirst() {
    switch a {
    case "--patterns": patternNames = (args.popFirst() ?? "").split(separator: ",").map(String.init)
    case "--seeds": seeds = (args.popFirst() ?? "").split(separator: ",").compactMap { UInt64($0) }
    case "--profiles": onlyProfiles = Set((args.popFirst() ?? "").split(separator: ",").map(String.init))
    case "--runs": runs = Int(args.popFirst() ?? "") ?? 0
    case "--write-ahap": ahapDirectory = args.popFirst() ?? { usage() }()
    case "--write-raw": rawDirectory = args.popFirst() ?? { usage() }()
    default:
        if a.hasPrefix("-") { usage() }
        files.append(a)
    }
}
let kinds = patternNames.map { name in
    DensePattern(rawValue: name) ?? {
        FileHandle.standardError.write("limiter-bench: no pattern \(name) (\(DensePattern.allCases.map(\.rawValue).joined(separator: ", ")))\n".data(using: .utf8)!)
        exit(2)
    }()
}
if seeds.isEmpty || runs < 1 { usage() }

func write(_ samples: [Float], to path: String) {
    let data = samples.withUnsafeBufferPointer { Data(buffer: $0) }
    if !FileManager.default.createFile(atPath: path, contents: data) {
        FileHandle.standardError.write("limiter-bench: cannot write \(path)\n".data(using: .utf8)!)
        exit(1)
    }
}

let rate = 48_000.0
print("limiter-bench: \(DensePattern.seconds) s dense patterns (fixed seeds), haptic mono at 48 kHz, release build")
print("share < 1 / < 5 Hz: of the render's energy, one FFT of the whole render; idle: the same render with the limiter idle")
print("drive: the idle render's peak over the ceiling; busy: share of 10 ms stretches in which the limiter changed a sample")
print("")
print("pattern     seed profile       drive   busy   <1 Hz %  <5 Hz %  DC           | idle <1 Hz %  <5 Hz %  DC         | peak/ceiling")
/// What is measured: the generated patterns, or the files given.
var inputs: [(name: String, seed: UInt64, pattern: AHAPPattern)] = []
if files.isEmpty {
    for kind in kinds {
        for seed in seeds { inputs.append((kind.rawValue, seed, kind.pattern(seed: seed))) }
    }
} else {
    for path in files {
        do {
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            inputs.append(((path as NSString).lastPathComponent, 0, try AHAPPattern.decode(from: bytes).pattern))
        } catch {
            FileHandle.standardError.write("limiter-bench: \(path): \(error)\n".data(using: .utf8)!)
            exit(1)
        }
    }
}
var worst = (below1: 0.0, below5: 0.0, dc: 0.0)
for (name, seed, pattern) in inputs {
        if let dir = ahapDirectory {
            do {
                try pattern.encoded().write(toFile: "\(dir)/dense-\(name)-\(seed).ahap", atomically: true, encoding: .utf8)
            } catch {
                FileHandle.standardError.write("limiter-bench: \(dir): \(error)\n".data(using: .utf8)!)
                exit(1)
            }
        }
        for profile in [ActuatorProfile.bassShaker, .voiceCoil, .lra] where onlyProfiles.isEmpty || onlyProfiles.contains(profile.name) {
            let prepared = try! PreparedPattern(pattern, profile: profile, sampleRate: rate)
            let limited = OfflineRenderer.render(prepared, layout: .hapticMono)
            // The limiter idle: the ceiling out of reach (the chain is otherwise the same).
            var open = profile
            open.ceilingDBFS = 300
            let idle = OfflineRenderer.render(prepared, profile: open, layout: .hapticMono)
            let ceiling = Float(pow(10, profile.ceilingDBFS / 20))
            let n = min(limited.samples.count, idle.samples.count)
            var changed = 0, stretches = 0
            for start in stride(from: 0, to: n, by: 480) {
                stretches += 1
                let end = min(n, start + 480)
                if (start..<end).contains(where: { limited.samples[$0] != idle.samples[$0] }) { changed += 1 }
            }
            let s = energyShares(limited.samples, sampleRate: rate, below: [1, 5])
            let f = energyShares(idle.samples, sampleRate: rate, below: [1, 5])
            let dc = meanValue(limited.samples), idleDC = meanValue(idle.samples)
            worst = (max(worst.below1, s[0]), max(worst.below5, s[1]), max(worst.dc, abs(dc)))
            print(String(format: "%-11@ %4d %-12@ %6.1f× %5.1f%%  %7.4f  %7.4f  %+.3e | %12.4f  %7.4f  %+.3e | %.6f",
                         name as NSString, seed, profile.name as NSString, Double(idle.peak / ceiling),
                         Double(changed) / Double(max(1, stretches)) * 100, s[0] * 100, s[1] * 100, dc,
                         f[0] * 100, f[1] * 100, idleDC, Double(limited.peak / ceiling)))
            if let dir = rawDirectory {
                let base = "\(dir)/\(name)-\(seed)-\(profile.name)"
                write(limited.samples, to: base + ".limited.f32")
                write(idle.samples, to: base + ".idle.f32")
            }
        }
}
print("")
print(String(format: "worst: %.4f %% below 1 Hz, %.4f %% below 5 Hz, |DC| %.3e (targets: < 0.1 %% below 5 Hz, |DC| < 1e-5)",
             worst.below1 * 100, worst.below5 * 100, worst.dc))

// MARK: speed

/// Seconds of CPU-independent wall time for `body` (monotonic clock).
func seconds(_ body: () -> Void) -> Double {
    var a = timespec(), b = timespec()
    clock_gettime(CLOCK_MONOTONIC, &a)
    body()
    clock_gettime(CLOCK_MONOTONIC, &b)
    return Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) / 1e9
}

/// Runs `input` through a fresh protection limiter in 512-frame blocks, in place in `buffer`.
func limitOnce(_ input: [Float], _ buffer: UnsafeMutablePointer<Float>, profile: ActuatorProfile, servo: Bool) {
    var limiter = LookAheadLimiter.protection(profile: profile, sampleRate: rate, channels: 1, subBandServo: servo)
    defer { limiter.deallocate() }
    buffer.update(from: input, count: input.count)
    var done = 0
    while done < input.count {
        let n = min(512, input.count - done)
        limiter.process(buffer + done, buffer + done, n)
        done += n
    }
}

func median(_ x: [Double]) -> Double {
    let s = x.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

if let (name, seed, pattern) = inputs.first {
    print("")
    print("speed: \(name) seed \(seed), \(runs) runs interleaved (limiter without servo, with servo, whole render); median (min..max)")
    print("profile       limiter before ns/sample     limiter now ns/sample        now/before  render ×RT (now)          servo's share of the render")
    for profile in [ActuatorProfile.bassShaker, .voiceCoil, .lra] where onlyProfiles.isEmpty || onlyProfiles.contains(profile.name) {
        let prepared = try! PreparedPattern(pattern, profile: profile, sampleRate: rate)
        var open = profile
        open.ceilingDBFS = 300
        let input = OfflineRenderer.render(prepared, profile: open, layout: .hapticMono).samples
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: input.count)
        defer { buffer.deallocate() }
        var before: [Double] = [], now: [Double] = [], render: [Double] = []
        var frames = 0
        for _ in 0..<runs {
            before.append(seconds { limitOnce(input, buffer, profile: profile, servo: false) })
            now.append(seconds { limitOnce(input, buffer, profile: profile, servo: true) })
            render.append(seconds { frames = OfflineRenderer.render(prepared, layout: .hapticMono).frames })
        }
        let perSample = 1e9 / Double(input.count)
        let audio = Double(frames) / rate
        func span(_ x: [Double], _ scale: Double) -> String {
            String(format: "%7.2f (%.2f..%.2f)", median(x) * scale, x.min()! * scale, x.max()! * scale)
        }
        let share = (median(now) - median(before)) / median(render)
        print(String(format: "%-12@  %@  %@  %6.3f      %@  %+.2f %%",
                     profile.name as NSString, span(before, perSample), span(now, perSample), median(now) / median(before),
                     String(format: "%6.0f (%.0f..%.0f)", audio / median(render), audio / render.max()!, audio / render.min()!),
                     share * 100))
    }
}
