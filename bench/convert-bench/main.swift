// convert-bench: the conversion's quality against professional tools' and designers' clips,
// its speed, and its memory on an hour of sound. Release build:
//
//   swift run -c release convert-bench quality [--set DIR] [--split dev|test|all] [--per-file]
//                                              [--family F] [--sensitivity %] [--min-gap ms] [--ducking %]
//   swift run -c release convert-bench quality --sweep [--set DIR]   (ours at each sensitivity 0…100 %)
//   swift run -c release convert-bench quality --against-studio [--set DIR]   (the Studio's own clips at its defaults as the references)
//   swift run -c release convert-bench quality --plateau [--set DIR]   (each clip's sensitivity where its ladder holds still)
//   swift run -c release convert-bench speed [--set DIR] [--runs N] [SOUND]
//   swift run -c release convert-bench long [--minutes M] [--file PATH]
//   swift run -c release convert-bench check [--set DIR]     (every output strict-valid, round trips)
//   swift run -c release convert-bench replica [--set DIR] [--per-file | --sweep]   (Meta Studio's analysis on its own clips)
//
// The set is built by bench/convert-eval/make-set.sh (default: $HAPTICSYNTH_EVAL, else
// ../convert-eval). Quality compares ours and the trivial converter (TrivialConverter.swift)
// with every reference, per file and per family, and beside them Meta Haptics Studio's own
// analysis at its defaults (StudioReplica.swift). `--split dev|test` keeps half of each family
// (by a hash of the file name): tune on dev, judge on test.

import Foundation
import HapticKit

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let setFolder = option("--set") ?? ProcessInfo.processInfo.environment["HAPTICSYNTH_EVAL"].flatMap { $0.isEmpty ? nil : $0 } ?? "../convert-eval"

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("convert-bench: \(message)\n".utf8))
    exit(1)
}

struct Pair {
    var reference: String
    var sound: String
    var family: String
    var kind: String
}

func loadSet() -> [Pair] {
    let tsv = setFolder + "/SOURCES.tsv"
    guard let text = try? String(contentsOfFile: tsv, encoding: .utf8) else {
        fail("no evaluation set at \(setFolder) (run bench/convert-eval/make-set.sh, or set HAPTICSYNTH_EVAL)")
    }
    let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    guard let header = lines.first else { return [] }
    func column(_ name: String) -> Int {
        guard let index = header.firstIndex(of: name) else { fail("SOURCES.tsv has no \(name) column") }
        return index
    }
    let file = column("file"), sound = column("sound"), family = column("family"), kind = column("kind")
    return lines.dropFirst().map { Pair(reference: $0[file], sound: $0[sound], family: $0[family], kind: $0[kind]) }
}

/// Dev or test half of the set: FNV-1a of the name, even or odd.
func isDev(_ name: String) -> Bool {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in name.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h % 2 == 0
}

func reference(_ path: String) throws -> Haptics {
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    if path.hasSuffix(".haptic") {
        return Haptics(clip: try HapticClip.decode(from: bytes).clip)
    }
    let pattern = try AHAPPattern.decode(from: bytes).pattern
    return Haptics(clip: HapticClip(pattern: pattern))
}

func mono(_ path: String) throws -> (samples: [Float], rate: Double) {
    let buffer = try SoundFileReader.read(path)
    let c = buffer.channels
    let frames = buffer.samples.count / c
    var out = [Float](repeating: 0, count: frames)
    for i in 0..<frames {
        var sum: Float = 0
        for k in 0..<c { sum += buffer.samples[i * c + k] }
        out[i] = sum / Float(c)
    }
    return (out, buffer.sampleRate)
}

func format(_ x: Double?, _ digits: Int = 2) -> String { x.map { String(format: "%.\(digits)f", $0) } ?? "—" }

// MARK: quality

/// The conversion options `quality` uses: the CLI's defaults, or `--sensitivity PERCENT`,
/// `--min-gap MS`, `--ducking PERCENT` as `hapticsynth convert` takes them.
func conversionOptions() -> SoundConversionOptions {
    var o = SoundConversionOptions()
    if let v = option("--sensitivity").flatMap(Double.init) { o.sensitivity = v / 100 }
    if let v = option("--min-gap").flatMap(Double.init) { o.minimumGap = v / 1000 }
    if let v = option("--ducking").flatMap(Double.init) { o.ducking = v / 100 }
    return o
}

/// One sound as ours, the trivial converter and the Studio's defaults convert it.
typealias Converted = (pair: Pair, ours: Haptics, trivial: Haptics, studio: Haptics, seconds: Double)

func quality() {
    let split = option("--split") ?? "all"
    let perFile = arguments.contains("--per-file")
    let only = option("--family")
    var ours: [FileScore] = [], floor: [FileScore] = [], studio: [FileScore] = []
    var made: [Converted] = []
    var failures: [String] = []
    for pair in loadSet() where (only == nil || pair.family == only) {
        if split == "dev" && !isDev(pair.reference) || split == "test" && isDev(pair.reference) { continue }
        let soundPath = setFolder + "/" + pair.sound
        do {
            let ref = try reference(setFolder + "/" + pair.reference)
            let converted = try SoundConversion.convert(soundAt: soundPath, options: conversionOptions())
            let seconds = converted.haptics.duration
            let mine = Haptics(clip: converted.haptics.hapticClip())
            let sound = try mono(soundPath)
            let trivial = TrivialConverter.convert(sound.samples, sampleRate: sound.rate)
            ours.append(FileScore(name: pair.reference, family: pair.family, kind: pair.kind, ours: mine, reference: ref, soundSeconds: seconds))
            floor.append(FileScore(name: pair.reference, family: pair.family, kind: pair.kind, ours: trivial, reference: ref, soundSeconds: seconds))
            let tool = StudioReplica.analyse(sound.samples, sampleRate: sound.rate, settings: .studioDefaults)
            studio.append(FileScore(name: pair.reference, family: pair.family, kind: pair.kind, ours: tool, reference: ref, soundSeconds: seconds))
            made.append((pair, mine, trivial, tool, seconds))
        } catch {
            failures.append("\(pair.reference): \(error)")
        }
    }
    if perFile {
        print("file\tkind\tseconds\tcorr\tcorr(trivial)\tF50\tF50(trivial)\tF50(studio)\tF20\tP50\tR50\tfound/ref\tmedian |err| ms\tbps\tref bps")
        for ((a, b), c) in zip(zip(ours, floor), studio) {
            let err = median(a.f50.errors.map { abs($0) * 1000 })
            print("\(a.name)\t\(a.kind)\t\(format(a.seconds))\t\(format(a.correlation))\t\(format(b.correlation))\t\(format(a.f50.f))\t\(format(b.f50.f))\t\(format(c.f50.f))\t\(format(a.f20.f))\t\(format(a.f50.precision))\t\(format(a.f50.recall))\t\(a.f50.found)/\(a.f50.reference)\t\(format(err, 1))\t\(format(a.breakpointsPerSecond, 1))\t\(format(a.referenceBreakpointsPerSecond, 1))")
        }
        print("")
    }
    print("family\tkind\tfiles\tmedian corr (ours / trivial)\tmedian F50 (ours / trivial)\tpooled F50 (ours / trivial)\tmedian F20 (ours / trivial)\tP50/R50 pooled (ours)\ttiming error ms (median |e|, mean e)\tbps (ours / reference)\tbeats trivial\tMeta Studio at its defaults: median corr / median F50 / pooled F50\tmean F50 (ours / trivial)\tfiles with F50 ≥ 0.7 (ours / trivial)")
    var groups: [(String, [Int])] = []
    for family in Array(Set(ours.map(\.family))).sorted() {
        groups.append((family, ours.indices.filter { ours[$0].family == family }))
    }
    groups.append(("all tool-made", ours.indices.filter { ours[$0].kind == "tool" }))
    groups.append(("all designer-made", ours.indices.filter { ours[$0].kind == "designer" }))
    for (name, indices) in groups where !indices.isEmpty {
        let a = indices.map { ours[$0] }, b = indices.map { floor[$0] }, c = indices.map { studio[$0] }
        let tool = "\(format(median(c.compactMap(\.correlation)))) / \(format(median(c.map(\.f50.f)))) / \(format(pooledF(c.map(\.f50))))"
        let corrA = median(a.compactMap(\.correlation)), corrB = median(b.compactMap(\.correlation))
        let fA = median(a.map(\.f50.f)), fB = median(b.map(\.f50.f))
        let pooledA = pooledF(a.map(\.f50)), pooledB = pooledF(b.map(\.f50))
        let f20A = median(a.map(\.f20.f)), f20B = median(b.map(\.f20.f))
        let matched = a.reduce(0) { $0 + $1.f50.matched }, found = a.reduce(0) { $0 + $1.f50.found }, refs = a.reduce(0) { $0 + $1.f50.reference }
        let errors = a.flatMap(\.f50.errors)
        let meanError = errors.isEmpty ? nil : errors.reduce(0, +) / Double(errors.count) * 1000
        let beats = (corrA ?? -1) > (corrB ?? -1) && (fA ?? 0) >= (fB ?? 0) && pooledA > pooledB
        print("\(name)\t\(a[0].kind)\t\(a.count)\t\(format(corrA)) / \(format(corrB))\t\(format(fA)) / \(format(fB))\t\(format(pooledA)) / \(format(pooledB))\t\(format(f20A)) / \(format(f20B))\t\(format(found > 0 ? Double(matched) / Double(found) : nil)) / \(format(refs > 0 ? Double(matched) / Double(refs) : nil))\t\(format(median(errors.map { abs($0) * 1000 }), 1)), \(format(meanError, 1))\t\(format(median(a.map(\.breakpointsPerSecond)), 1)) / \(format(median(a.map(\.referenceBreakpointsPerSecond)), 1))\t\(beats ? "yes" : "NO")\t\(tool)\t\(format(mean(a.map(\.f50.f)), 3)) / \(format(mean(b.map(\.f50.f)), 3))\t\(a.filter { $0.f50.f >= 0.7 }.count) / \(b.filter { $0.f50.f >= 0.7 }.count)")
    }
    for f in failures { print("failed: \(f)") }
    if arguments.contains("--against-studio") { againstStudio(made) }
}

/// `quality --against-studio`: every sound's clip from Meta Haptics Studio's analysis at its
/// defaults taken as the reference, for ours and the trivial converter: what a set made in the
/// Studio without changing its settings would say (the tool the Meta clips come from, and the
/// one a designer can still download).
func againstStudio(_ made: [Converted]) {
    print("")
    print("family\tfiles\tagainst the Studio at its defaults: median corr (ours / trivial)\tmedian F50 (ours / trivial)\tfiles with F50 ≥ 0.7 (ours / trivial)")
    var rows: [(String, [Int])] = Array(Set(made.map(\.pair.family))).sorted().map { family in (family, made.indices.filter { made[$0].pair.family == family }) }
    rows.append(("all", Array(made.indices)))
    func score(_ m: Converted, _ converted: Haptics) -> FileScore {
        FileScore(name: m.pair.reference, family: m.pair.family, kind: m.pair.kind, ours: converted, reference: m.studio, soundSeconds: m.seconds)
    }
    for (name, indices) in rows {
        let a = indices.map { score(made[$0], made[$0].ours) }, b = indices.map { score(made[$0], made[$0].trivial) }
        print("\(name)\t\(indices.count)\t\(format(median(a.compactMap(\.correlation)))) / \(format(median(b.compactMap(\.correlation))))\t\(format(median(a.map(\.f50.f)))) / \(format(median(b.map(\.f50.f))))\t\(a.filter { $0.f50.f >= 0.7 }.count) / \(b.filter { $0.f50.f >= 0.7 }.count)")
    }
}

// MARK: speed

func speed() {
    let runs = Int(option("--runs") ?? "11") ?? 11
    var path = arguments.dropFirst().first { !$0.hasPrefix("--") && !arguments.contains("--" + $0) && $0 != option("--runs") && $0 != option("--set") }
    if path == nil {
        // The longest sound of the set.
        var longest = 0.0
        for pair in loadSet() {
            let p = setFolder + "/" + pair.sound
            if let info = try? SoundFileReader.info(p), info.duration > longest {
                longest = info.duration
                path = p
            }
        }
    }
    guard let path else { fail("no sound to convert") }
    guard let info = try? SoundFileReader.info(path) else { fail("\(path): cannot read") }
    var times: [Double] = []
    var cpuTimes: [Double] = []
    for _ in 0..<runs {
        let start = now(), cpuStart = processCPUTime()
        do { _ = try SoundConversion.convert(soundAt: path) } catch { fail("\(error)") }
        times.append(now() - start)
        cpuTimes.append(processCPUTime() - cpuStart)
    }
    times.sort()
    cpuTimes.sort()
    let ratios = times.map { info.duration / $0 }.sorted()
    let cpuRatios = cpuTimes.map { info.duration / $0 }.sorted()
    print("\(path): \(format(info.duration, 1)) s, \(info.channels) ch, \(info.sampleRate) Hz; \(runs) runs")
    print("time per conversion: median \(format(median(times)! * 1000, 1)) ms, min \(format(times.first! * 1000, 1)), max \(format(times.last! * 1000, 1))")
    print("× real time: median \(format(median(ratios)!, 0)), min \(format(ratios.first!, 0)), max \(format(ratios.last!, 0)) (target ≥ 500)")
    // The CPU time of all threads (decoding runs on its own): what one free core would take,
    // a figure the machine's load does not depress.
    print("CPU time per conversion: median \(format(median(cpuTimes)! * 1000, 1)) ms, min \(format(cpuTimes.first! * 1000, 1)), max \(format(cpuTimes.last! * 1000, 1))")
    print("× real time by CPU time: median \(format(median(cpuRatios)!, 0)), min \(format(cpuRatios.first!, 0)), max \(format(cpuRatios.last!, 0))")
}

func processCPUTime() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

// MARK: an hour of sound in bounded memory

func peakRSSKiB() -> Int {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Int(usage.ru_maxrss)
}

func long() {
    let minutes = Double(option("--minutes") ?? "60") ?? 60
    let path = option("--file") ?? NSTemporaryDirectory() + "/convert-bench-long.wav"
    let rate = 48_000
    let frames = Int(minutes * 60) * rate
    if (try? SoundFileReader.info(path))?.frames != frames {
        // Streamed to disk: kicks every 0.5 s over a slowly swelling 50 Hz tone and noise.
        do {
            let writer = try SoundFileWriter(path: path, channels: 1, sampleRate: rate, sampleFormat: .int16)
            var block = [Float](repeating: 0, count: rate)
            var seed: UInt64 = 1
            for second in 0..<frames / rate {
                for i in 0..<rate {
                    let t = Double(second * rate + i) / Double(rate)
                    let beat = t.truncatingRemainder(dividingBy: 0.5)
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1
                    let noise = Double(Int64(bitPattern: seed) >> 40) / Double(1 << 23)
                    let tone = (0.2 + 0.1 * sin(t / 7)) * sin(2 * Double.pi * 50 * t)
                    block[i] = Float(tone + 0.6 * exp(-beat / 0.06) * sin(2 * Double.pi * 60 * beat) + 0.02 * noise)
                }
                try writer.write(block)
            }
            try writer.finish()
        } catch { fail("\(error)") }
    }
    let before = peakRSSKiB()
    let start = now()
    let result: SoundConversionResult
    do { result = try SoundConversion.convert(soundAt: path) } catch { fail("\(error)") }
    let seconds = now() - start
    let after = peakRSSKiB()
    let pattern = result.haptics.ahapPattern()
    let text = pattern.encoded()
    print("\(path): \(format(Double(frames) / Double(rate), 0)) s of sound converted in \(format(seconds, 1)) s (× \(format(Double(frames) / Double(rate) / seconds, 0)) real time)")
    print("peak RSS: \(before / 1024) MiB before, \(after / 1024) MiB after (the sound file is \(frames * 2 / 1_048_576) MiB)")
    print("result: \(result.haptics.stretches.count) stretches, \(result.haptics.transients.count) transients, \(format(result.haptics.breakpointsPerSecond, 1)) points/s, AHAP \(text.utf8.count / 1024) KiB")
    do { _ = try pattern.validate(options: .init(strict: true)); print("strict validation: clean") } catch { print("strict validation: \(error)") }
}

// MARK: the tool against its own clips

/// Meta Haptics Studio's analysis (StudioReplica.swift) on the Meta clips, with the settings each
/// clip records (SETTINGS.tsv) and with the Studio's defaults: how much of a tool-made clip the
/// tool at its defaults gives, and how much the designer's settings for that clip.
func replica() {
    let perFile = arguments.contains("--per-file")
    guard let text = try? String(contentsOfFile: setFolder + "/SETTINGS.tsv", encoding: .utf8) else {
        fail("no SETTINGS.tsv in \(setFolder) (rebuild the set with bench/convert-eval/make-set.sh)")
    }
    let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
    guard let header = lines.first else { return }
    var recorded: [String: StudioSettings] = [:]
    for row in lines.dropFirst() where row.count == header.count {
        let v = Dictionary(uniqueKeysWithValues: zip(header, row))
        func number(_ key: String) -> Double { Double(v[key] ?? "") ?? 0 }
        recorded[v["file"]!] = StudioSettings(
            gainDB: number("gain_db"), normalize: number("normalize_audio") != 0, normalizeLevelDB: number("normalize_level_db"),
            emphasisEnabled: number("emphasis_enabled") != 0, breakpointsPerSecond: Int(number("amplitude_breakpoints_per_second")),
            sensitivity: number("sensitivity_percent"), peakWindow: number("peak_window_ms") / 1000, minimumRise: number("minimum_rise"),
            plateauFactor: number("plateau_factor_percent") / 100, ducking: number("ducking_percent") / 100)
    }
    struct Row { var family: String; var own: FileScore; var defaults: FileScore; var changed: Bool }
    var rows: [Row] = []
    if perFile { print("file\tsettings changed\treference\tfound (own settings)\tF50 (own settings)\tfound (defaults)\tF50 (defaults)\tcorr (own / defaults)") }
    for pair in loadSet() {
        guard let settings = recorded[pair.reference] else { continue }
        do {
            let ref = try reference(setFolder + "/" + pair.reference)
            let sound = try mono(setFolder + "/" + pair.sound)
            let seconds = Double(sound.samples.count) / sound.rate
            let own = FileScore(name: pair.reference, family: pair.family, kind: pair.kind,
                ours: StudioReplica.analyse(sound.samples, sampleRate: sound.rate, settings: settings), reference: ref, soundSeconds: seconds)
            let defaults = FileScore(name: pair.reference, family: pair.family, kind: pair.kind,
                ours: StudioReplica.analyse(sound.samples, sampleRate: sound.rate, settings: .studioDefaults), reference: ref, soundSeconds: seconds)
            let changed = settings != .studioDefaults
            rows.append(Row(family: pair.family, own: own, defaults: defaults, changed: changed))
            if perFile {
                print("\(pair.reference)\t\(changed ? "yes" : "no")\t\(own.f50.reference)\t\(own.f50.found)\t\(format(own.f50.f))\t\(defaults.f50.found)\t\(format(defaults.f50.f))\t\(format(own.correlation)) / \(format(defaults.correlation))")
            }
        } catch {
            print("failed: \(pair.reference): \(error)")
        }
    }
    if perFile { print("") }
    print("clips\tfiles\tF50 median (own settings / Studio defaults)\tpooled F50 (own / defaults)\texact transients (own / defaults)\tmedian corr (own / defaults)")
    let groups: [(String, [Row])] = Array(Set(rows.map(\.family))).sorted().map { f in (f, rows.filter { $0.family == f }) }
        + [("all Meta clips", rows), ("settings as the Studio's defaults", rows.filter { !$0.changed }),
           ("settings changed by the designer", rows.filter(\.changed))]
    for (name, group) in groups where !group.isEmpty {
        let exact = { (s: [FileScore]) in s.filter { $0.f50.f == 1 }.count }
        let own = group.map(\.own), defaults = group.map(\.defaults)
        print("\(name)\t\(group.count)\t\(format(median(own.map(\.f50.f)))) / \(format(median(defaults.map(\.f50.f))))\t\(format(pooledF(own.map(\.f50)))) / \(format(pooledF(defaults.map(\.f50))))\t\(exact(own)) / \(exact(defaults))\t\(format(median(own.compactMap(\.correlation)))) / \(format(median(defaults.compactMap(\.correlation))))")
    }
}

/// The sensitivities the sweeps try: 0, 10, … 100 %.
let sweptSensitivities = stride(from: 0.0, through: 100, by: 10).map { $0 }

/// `replica --sweep`: the tool on every tool-made clip at each emphasis sensitivity 0…100 %
/// (its other defaults kept): the best one setting can do against clips whose designers set the
/// sensitivity per clip, and what knowing each clip's best sensitivity would give.
func replicaSweep() {
    var scores: [(family: String, f: [Double])] = []
    for pair in loadSet() where pair.kind == "tool" {
        do {
            let ref = try reference(setFolder + "/" + pair.reference)
            let sound = try mono(setFolder + "/" + pair.sound)
            let prepared = StudioReplica.prepare(sound.samples, sampleRate: sound.rate, settings: .studioDefaults)
            let f = sweptSensitivities.map { s -> Double in
                var settings = StudioSettings.studioDefaults
                settings.sensitivity = s
                return TransientScore(found: StudioReplica.clip(prepared, settings: settings).transients, reference: ref.transients, tolerance: 0.05).f
            }
            scores.append((pair.family, f))
        } catch {
            print("failed: \(pair.reference): \(error)")
        }
    }
    printSweep(scores)
}

/// `quality --sweep`: our converter on every tool-made clip at each `--sensitivity` 0…100 %
/// (its other defaults kept), the same table as `replica --sweep`: how close our hits come when
/// the sensitivity is chosen per clip, as the references' designers chose theirs.
func qualitySweep() {
    var scores: [(family: String, f: [Double])] = []
    for pair in loadSet() where pair.kind == "tool" {
        do {
            let ref = try reference(setFolder + "/" + pair.reference)
            // (The ladder's rungs are the conversions at each sensitivity, from one analysis.)
            let ladder = try SoundConversion.sensitivityLadder(
                soundAt: setFolder + "/" + pair.sound, sensitivities: sweptSensitivities.map { $0 / 100 })
            let f = ladder.rungs.map { TransientScore(found: $0.times, reference: ref.transients, tolerance: 0.05).f }
            scores.append((pair.family, f))
        } catch {
            print("failed: \(pair.reference): \(error)")
        }
    }
    printSweep(scores)
}

/// One row per family (and all): the median F50 at the default 50 %, at the best single
/// sensitivity, and with each clip's own best.
func printSweep(_ scores: [(family: String, f: [Double])]) {
    print("family\tfiles\tmedian F50 at 50 % (the default)\tbest single sensitivity: % and median F50\tmedian F50 with each clip's best sensitivity\tclips reproduced exactly at some sensitivity")
    let groups = Array(Set(scores.map(\.family))).sorted().map { f in (f, scores.filter { $0.family == f }) } + [("all tool-made", scores)]
    for (name, group) in groups {
        let medians = sweptSensitivities.indices.map { k in median(group.map { $0.f[k] })! }
        let best = medians.indices.max { medians[$0] < medians[$1] }!
        let oracle = median(group.map { $0.f.max()! })!
        let exact = group.filter { $0.f.contains(1) }.count
        print("\(name)\t\(group.count)\t\(format(medians[5]))\t\(Int(sweptSensitivities[best])) %: \(format(medians[best]))\t\(format(oracle))\t\(exact)")
    }
}

switch arguments.first {
case "replica": if arguments.contains("--sweep") { replicaSweep() } else { replica() }
case "quality": if arguments.contains("--plateau") { plateauRule() } else if arguments.contains("--sweep") { qualitySweep() } else { quality() }
case "speed": speed()
case "long": long()
case "check": check()
default: fail("usage: convert-bench quality|speed|long|check|replica [options] (see bench/convert-bench/main.swift)")
}
