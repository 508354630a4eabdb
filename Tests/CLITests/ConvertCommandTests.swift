// `hapticsynth convert`: sounds to AHAP and .haptic (strict-valid, renderable), .haptic ↔
// AHAP, `.haptic` accepted by render, play's loader, info and validate, and bad input: one
// line naming what and where, exit 1, nothing left behind.

import Foundation
import HapticCLI
import HapticKit
import Testing

/// Writes a sound file: `seconds` of clicks every 0.25 s over a 60 Hz tone (or `samples`).
func writeSound(
    _ path: String, seconds: Double = 2, rate: Int = 48000, channels: Int = 1, format: SoundFileWriter.FileFormat? = nil,
    bits: SoundFileWriter.SampleFormat = .int16, samples: [Float]? = nil
) throws {
    let frames = Int(seconds * Double(rate))
    let mono = samples ?? (0..<frames).map { i -> Float in
        let t = Double(i) / Double(rate)
        let beat = t.truncatingRemainder(dividingBy: 0.25)
        return Float(0.3 * sin(2 * Double.pi * 60 * t) + (beat < 0.002 ? 0.6 * exp(-beat / 0.0005) : 0))
    }
    var interleaved: [Float] = []
    interleaved.reserveCapacity(mono.count * channels)
    for (i, x) in mono.enumerated() {
        for c in 0..<channels { interleaved.append(c == 0 ? x : x * 0.5 + (i % 2 == 0 ? 0.01 : -0.01)) }
    }
    try SoundFileWriter.write(interleaved, channels: channels, sampleRate: rate, to: path, format: format, sampleFormat: bits)
}

/// Two seconds at 48 kHz: a loud click at 0.2 s, a quieter one at 0.7 s and a faint one at
/// 1.2 s, over faint noise (some sensitivities find the faint one, some do not).
func gradedClicks() -> [Float] {
    let rate = 48000
    var seed: UInt32 = 12345
    return (0..<2 * rate).map { i -> Float in
        seed = seed &* 1_664_525 &+ 1_013_904_223
        let noise = 0.003 * (Float(seed >> 8) / Float(1 << 24) - 0.5)
        let t = Double(i) / Double(rate)
        var click: Float = 0
        for (at, level) in [(0.2, 0.8), (0.7, 0.1), (1.2, 0.03)] where t >= at && t < at + 0.01 {
            click = Float(level * exp(-(t - at) / 0.001) * sin(2 * Double.pi * 150 * (t - at)))
        }
        return noise + click
    }
}

@Suite("hapticsynth convert")
struct ConvertCommandTests {
    @Test("a sound becomes a strict-valid AHAP that renders, with its transients and curves")
    func soundToAHAP() throws {
        let temp = try TempFolder()
        let sound = temp.url.appendingPathComponent("beat.wav").path
        try writeSound(sound)
        let out = temp.url.appendingPathComponent("beat.ahap").path
        let run = try CLIRun(["convert", sound, "-o", out])
        print("convert: \(run.stdout)\(run.stderr)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("beat.ahap: 2.000 s of beat.wav (1 ch, 48000 Hz, mono)"))
        let validate = try CLIRun(["validate", "--strict", out])
        #expect(validate.status == 0 && validate.stdout.contains("0 warnings (strict)"), "\(validate.stdout)")
        let pattern = try AHAPPattern.decode(text: String(contentsOfFile: out, encoding: .utf8)).pattern
        let transients = pattern.events.filter { $0.type == .hapticTransient }.map(\.time)
        #expect(transients.count == 8, "a click every 0.25 s: \(transients)")
        for (k, t) in transients.enumerated() { #expect(abs(t - 0.25 * Double(k)) < 0.003) }
        let wav = temp.url.appendingPathComponent("beat-render.wav").path
        let render = try CLIRun(["render", out, "-o", wav])
        #expect(render.status == 0, "\(render.stderr)")
        #expect(try SoundFileReader.read(wav).samples.contains { abs($0) > 0.1 })
    }

    @Test("a sound becomes a .haptic; .haptic → AHAP → .haptic keeps the envelopes within 1e-3 (outside ±1 ms of an emphasis) and every emphasis")
    func soundToHapticAndRoundTrip() throws {
        let temp = try TempFolder()
        let sound = temp.url.appendingPathComponent("beat.flac").path
        try writeSound(sound, seconds: 3, rate: 44100, channels: 2, format: .flac)
        let clipPath = temp.url.appendingPathComponent("beat.haptic").path
        let run = try CLIRun(["convert", sound, "-o", clipPath, "--channel", "2", "--from", "0.5", "--to", "2.5"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("2.000 s of beat.flac (2 ch, 44100 Hz, channel 2)"))
        let clip = try HapticClip.decode(text: String(contentsOfFile: clipPath, encoding: .utf8), options: .init(strict: true)).clip
        #expect(clip.metadata.source == "beat.flac" && clip.metadata.editor?.hasPrefix("hapticsynth") == true)
        #expect(clip.amplitude.filter { $0.emphasis != nil }.count == 8)
        let ahap = temp.url.appendingPathComponent("clip.ahap").path
        let back = temp.url.appendingPathComponent("back.haptic").path
        #expect(try CLIRun(["convert", clipPath, "-o", ahap]).status == 0)
        #expect(try CLIRun(["validate", "--strict", ahap]).status == 0)
        #expect(try CLIRun(["convert", ahap, "-o", back]).status == 0)
        let again = try HapticClip.decode(text: String(contentsOfFile: back, encoding: .utf8), options: .init(strict: true)).clip
        #expect(abs(again.duration - clip.duration) < 1e-3)
        // The envelope comes back outside ±1 ms of an emphasis, and each emphasis as it was; under
        // an emphasis the AHAP's intensity curve is raised to it (TransientCompensation), and the
        // breakpoint there reads back at the raise.
        let emphasisTimes = clip.amplitude.filter { $0.emphasis != nil }.map(\.time)
        func nearRaise(_ t: Double) -> Bool { emphasisTimes.contains { abs($0 - t) <= TransientCompensation.raiseHalfWidth + 1e-6 } }
        for point in clip.amplitude {
            let nearest = again.amplitude.min { abs($0.time - point.time) < abs($1.time - point.time) }!
            #expect(abs(nearest.time - point.time) < 1e-3, "\(point) vs \(nearest)")
            if let emphasis = point.emphasis {
                #expect(abs((nearest.emphasis?.amplitude ?? -1) - emphasis.amplitude) < 1e-3, "\(point) vs \(nearest)")
                #expect(abs((nearest.emphasis?.frequency ?? -1) - emphasis.frequency) < 1e-3, "\(point) vs \(nearest)")
            } else if !nearRaise(point.time) {
                #expect(abs(nearest.amplitude - point.amplitude) < 1e-3, "\(point) vs \(nearest)")
            }
        }
        #expect(again.amplitude.filter { $0.emphasis != nil }.count == 8)
        // The frequency envelope too, from 0 (the converter starts it there, as Studio does).
        #expect(clip.frequency.first?.time == 0)
        func frequency(_ c: HapticClip, at t: Double) -> Double {
            let points = c.frequency
            guard let k = points.lastIndex(where: { $0.time <= t }) else { return points.first?.frequency ?? HapticClip.defaultFrequency }
            guard k + 1 < points.count else { return points[k].frequency }
            let a = points[k], b = points[k + 1]
            return a.frequency + (b.frequency - a.frequency) * (t - a.time) / (b.time - a.time)
        }
        // Exact outside the raises: within ±1 ms of an emphasis the AHAP's sharpness curve may be
        // raised so that the transient plays at the emphasis' frequency (TransientCompensation).
        var compared = 0
        for t in stride(from: 0.0005, to: clip.duration, by: 0.001) where !nearRaise(t) {
            #expect(abs(frequency(clip, at: t) - frequency(again, at: t)) < 1e-3, "frequency at \(t) s")
            compared += 1
        }
        #expect(compared > Int(clip.duration * 1000) / 2, "most of the clip compared (\(compared) points)")
    }

    @Test("render, info and validate take .haptic files directly")
    func hapticAccepted() throws {
        let temp = try TempFolder()
        let clip = try temp.file("gear.haptic", gearClipText)
        let info = try CLIRun(["info", clip])
        #expect(info.status == 0 && info.stdout.contains("format: .haptic 1.0.0 (Meta/Lofelt), 5 amplitude and 4 frequency breakpoints, 1 emphasis"))
        #expect(info.stdout.contains("HapticTransient 1"))
        #expect(try CLIRun(["validate", "--strict", clip]).status == 0)
        let wav = temp.url.appendingPathComponent("gear.wav").path
        let render = try CLIRun(["render", clip, "-o", wav])
        #expect(render.status == 0 && render.stdout.contains("gear.wav: "), "\(render.stderr)")
        // Named .json, it is still recognised by its content.
        let renamed = try temp.file("gear.json", gearClipText)
        #expect(try CLIRun(["info", renamed]).stdout.contains("format: .haptic"))
        // And a broken one is one line naming the file and where.
        let broken = try temp.file("broken.haptic", #"{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0}]}}}}"#)
        let bad = try CLIRun(["render", broken, "-o", temp.url.appendingPathComponent("x.wav").path])
        #expect(bad.status == 1 && bad.stderr == "\(broken): signals.continuous.envelopes.amplitude: the amplitude envelope needs at least two breakpoints (found 1)\n")
    }

    @Test("several inputs convert into a folder; --audio keeps the sound, its path relative to the output")
    func folderAndAudio() throws {
        let temp = try TempFolder()
        try FileManager.default.createDirectory(at: temp.url.appendingPathComponent("sfx"), withIntermediateDirectories: true)
        let a = temp.url.appendingPathComponent("sfx/a.wav").path, b = temp.url.appendingPathComponent("sfx/b.wav").path
        try writeSound(a, seconds: 1)
        try writeSound(b, seconds: 1, rate: 22050)
        let run = try CLIRun(["convert", a, b, "-o", temp.url.appendingPathComponent("out").path + "/", "--audio"])
        #expect(run.status == 0, "\(run.stderr)")
        let pattern = try AHAPPattern.decode(text: String(contentsOfFile: temp.url.appendingPathComponent("out/a.ahap").path, encoding: .utf8)).pattern
        let audio = try #require(pattern.events.first { $0.type == .audioCustom })
        #expect(audio.waveformPath == "../sfx/a.wav" && audio.time == 0)
        #expect(FileManager.default.fileExists(atPath: temp.url.appendingPathComponent("out/b.ahap").path))
        // The pattern plays its sound: prepared with the pattern's folder as the sound root.
        let loaded = try PatternFile.load(temp.url.appendingPathComponent("out/a.ahap").path)
        #expect(loaded.locateAudio("../sfx/a.wav") != nil)
    }

    @Test("the output's metadata says how it was made: its description's options make the same file again")
    func descriptionReproduces() throws {
        let temp = try TempFolder()
        let sound = temp.url.appendingPathComponent("beat.wav").path
        try writeSound(sound, seconds: 3, channels: 2)
        for (name, options) in [
            ("a.ahap", ["--sensitivity", "70", "--min-gap", "62.5", "--from", "0.5", "--to", "2.25", "--audio"]),
            ("b.haptic", ["--normalize", "-3", "--channel", "2", "--ducking", "20", "--breakpoints-per-second", "25"]),
        ] {
            let first = temp.url.appendingPathComponent(name).path
            #expect(try CLIRun(["convert", sound, "-o", first] + options).status == 0)
            let text = try String(contentsOfFile: first, encoding: .utf8)
            let description = name.hasSuffix(".ahap")
                ? try AHAPPattern.decode(text: text).pattern.metadata.flatMap { metadata -> String? in
                    if case .object(let members) = metadata, case .string(let s)? = members.first(where: { $0.0 == "Description" })?.1 { return s }
                    return nil
                }
                : try HapticClip.decode(text: text).clip.metadata.description
            let words = try #require(description?.split(separator: " ").map(String.init), "no description in \(name)")
            #expect(Array(words.prefix(2)) == ["hapticsynth", "convert"], "\(words)")
            for option in options where option.hasPrefix("--") { #expect(words.contains(option), "\(option) in \(words)") }
            let again = temp.url.appendingPathComponent("again-" + name).path
            let run = try CLIRun(["convert", sound, "-o", again] + words.dropFirst(2))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try String(contentsOfFile: again, encoding: .utf8) == text, "\(name) made again from \(words)")
        }
    }

    @Test("--list-sensitivities: what each sensitivity gives, as convert --sensitivity writes it; on stderr with -o -")
    func listSensitivities() throws {
        let temp = try TempFolder()
        let sound = temp.url.appendingPathComponent("clicks.wav").path
        try writeSound(sound, samples: gradedClicks())
        let out = temp.url.appendingPathComponent("clicks.ahap").path
        let run = try CLIRun(["convert", sound, "-o", out, "--list-sensitivities"])
        print("convert --list-sensitivities:\n\(run.stdout)\(run.stderr)")
        #expect(run.status == 0 && run.stderr.isEmpty, "\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 12, "the summary, a heading and ten rows")
        #expect(lines[1] == "\(sound): transients at each --sensitivity (this conversion: 50 %):")
        // Each row: "  P %: N at t1 t2 ... s" (or "  P %: 0").
        var rows: [Int: [Double]] = [:]
        for line in lines[2...] {
            let parts = line.split(separator: ":", maxSplits: 1)
            let percent = try #require(Int(parts[0].dropLast(2).trimmingCharacters(in: .whitespaces)), "\(line)")
            let fields = parts[1].split(separator: " ")
            let count = try #require(Int(fields[0]), "\(line)")
            let times = fields.dropFirst(2).prefix { $0 != "s" }.compactMap { Double($0) }
            #expect(times.count == count, "\(line)")
            rows[percent] = times
        }
        #expect(rows.keys.sorted() == Array(stride(from: 10, through: 100, by: 10)))
        // The row for the conversion's own sensitivity is the file it wrote.
        let written = try AHAPPattern.decode(text: String(contentsOfFile: out, encoding: .utf8)).pattern
            .events.filter { $0.type == .hapticTransient }.map(\.time)
        #expect(rows[50]?.map { String(format: "%.3f", $0) } == written.map { String(format: "%.3f", $0) })
        // The loud click is there at every sensitivity; the faint one only at the most sensitive.
        for (percent, times) in rows { #expect(times.contains { abs($0 - 0.2) < 0.003 }, "\(percent) %: \(times)") }
        #expect(rows[10]?.contains { abs($0 - 1.2) < 0.003 } == false)
        #expect(rows[100]?.contains { abs($0 - 1.2) < 0.003 } == true)
        // A value taken from the table gives what the table said.
        let chosen = temp.url.appendingPathComponent("chosen.ahap").path
        #expect(try CLIRun(["convert", sound, "-o", chosen, "--sensitivity", "100"]).status == 0)
        let atHundred = try AHAPPattern.decode(text: String(contentsOfFile: chosen, encoding: .utf8)).pattern
            .events.filter { $0.type == .hapticTransient }.count
        #expect(atHundred == rows[100]?.count)
        // With -o -, standard output holds the pattern alone (the process, its real standard output).
        let piped = try runShell("'\(hapticsynthBinary)' convert clicks.wav -o - --list-sensitivities --sensitivity 30", in: temp.url)
        #expect(piped.status == 0)
        #expect((try? AHAPPattern.decode(from: Array(piped.stdout))) != nil, "\(piped.stdout.count) bytes on standard output")
        #expect(piped.stderr.contains("(this conversion: 30 %)") && piped.stderr.contains(" 100 %: "), "\(piped.stderr)")
        // A long list shows its first 16 times and says how many more.
        let beat = temp.url.appendingPathComponent("beat.wav").path
        try writeSound(beat, seconds: 5)
        let long = try CLIRun(["convert", beat, "-o", temp.url.appendingPathComponent("beat.ahap").path, "--list-sensitivities"])
        let row = try #require(long.stdout.split(separator: "\n").first { $0.hasPrefix("  50 %: ") }, "\(long.stdout)")
        #expect(row.hasPrefix("  50 %: 20 at 0.000 0.250 0.500") && row.hasSuffix(" 3.750 s, and 4 more"), "\(row)")
        // A pattern input has no sensitivities: said, not failed.
        let back = temp.url.appendingPathComponent("back.haptic").path
        let pattern = try CLIRun(["convert", out, "-o", back, "--list-sensitivities"])
        #expect(pattern.status == 0 && pattern.stderr.contains("--list-sensitivities applies to sound inputs; ignored"), "\(pattern.stderr)")
    }

    @Test("SIGINT, SIGTERM and SIGHUP during a batch end it at once: the finished output stays, no temporary file, inputs unchanged",
          arguments: [SIGINT, SIGTERM, SIGHUP])
    func signals(signal: Int32) throws {
        let temp = try TempFolder()
        try writeSound(temp.url.appendingPathComponent("short.wav").path, seconds: 0.5)
        // Ten minutes at 8 kHz: seconds of analysis in a debug build, so the signal finds it under way.
        try writeSound(temp.url.appendingPathComponent("long.wav").path, seconds: 600, rate: 8000)
        let before = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
        let long = try Data(contentsOf: temp.url.appendingPathComponent("long.wav"))
        let finished = temp.url.appendingPathComponent("out/short.ahap").path
        var sawFirst = false
        let run = try runShell("exec '\(hapticsynthBinary)' convert short.wav long.wav -o out/", in: temp.url) { process in
            // Wait (at most 60 s) for the first output, then signal during the second.
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, process.isRunning, !FileManager.default.fileExists(atPath: finished) { usleep(20_000) }
            sawFirst = FileManager.default.fileExists(atPath: finished)
            kill(process.processIdentifier, signal)
        }
        print("convert killed by signal \(signal): \(run.signalled ? "ended by signal \(run.status)" : "exit \(run.status)")")
        #expect(sawFirst, "the first output was written before the signal")
        #expect(run.signalled && run.status == signal, "ended by the signal, not run to the end")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted() == (before + ["out"]).sorted())
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.appendingPathComponent("out").path) == ["short.ahap"],
                "the finished output, no temporary file, no half of the second")
        #expect(try Data(contentsOf: temp.url.appendingPathComponent("long.wav")) == long)
    }

    @Test("options past their ranges are refused by the parser", arguments: [
        ["--breakpoints-per-second", "0"], ["--sensitivity", "101"], ["--min-gap", "1"], ["--ducking", "-5"],
        ["--gain", "1e308"], ["--normalize", "3"], ["--channel", "0"], ["--channel", "left"], ["--from", "-1"],
        ["--from", "5", "--to", "2"], ["--format", "mp3"], ["--gain", "3", "--normalize", "-1"],
    ])
    func optionErrors(_ extra: [String]) throws {
        #expect(throws: (any Error).self) { try Hapticsynth.parseAsRoot(["convert", "x.wav", "-o", "y.ahap"] + extra) }
    }
}

/// The `.haptic` text the CLI tests read (the spec's shape, our numbers).
let gearClipText = """
    {"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {"editor": "Meta Haptics Studio 2.1", "source": "gear.wav"},
     "signals": {"continuous": {"envelopes": {
       "amplitude": [{"time": 0.0, "amplitude": 0.0}, {"time": 0.2, "amplitude": 0.12},
                     {"time": 0.5, "amplitude": 0.7, "emphasis": {"amplitude": 0.9, "frequency": 0.6}},
                     {"time": 0.62, "amplitude": 0.08}, {"time": 0.9, "amplitude": 0.0}],
       "frequency": [{"time": 0.0, "frequency": 0.1}, {"time": 0.15, "frequency": 0.48}, {"time": 0.5, "frequency": 0.95}, {"time": 0.9, "frequency": 0.2}]}}}}
    """

@Suite("convert: hostile input and file safety")
struct HostileConvertTests {
    /// Runs `convert` on `input` (written by `setUp` into a fresh folder) and checks a one-line
    /// refusal containing `expected`, exit 1, and the folder unchanged.
    func refuses(_ expected: String, extra: [String] = [], output: String = "out.ahap", setUp: (TempFolder) throws -> String) throws {
        let temp = try TempFolder()
        let input = try setUp(temp)
        let before = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
        let run = try CLIRun(["convert", input, "-o", output.hasPrefix("/") ? output : temp.url.appendingPathComponent(output).path] + extra)
        print("convert \(URL(fileURLWithPath: input).lastPathComponent) \(extra.joined(separator: " ")): exit \(run.status): \(run.stderr.trimmingCharacters(in: .newlines))")
        #expect(run.status == 1)
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted() == before, "nothing written, nothing left")
    }

    /// A WAV header (PCM) with the given fields, and `dataBytes` of zeros (or a claimed size).
    func wavHeader(channels: UInt16, rate: UInt32, bits: UInt16 = 16, claimedDataBytes: UInt32, actualDataBytes: Int, float: Bool = false) -> Data {
        var d = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { d.append(contentsOf: $0) } }
        d.append(contentsOf: Array("RIFF".utf8)); u32(36 &+ claimedDataBytes); d.append(contentsOf: Array("WAVE".utf8))
        d.append(contentsOf: Array("fmt ".utf8)); u32(16); u16(float ? 3 : 1); u16(channels); u32(rate)
        u32(rate &* UInt32(channels) &* UInt32(bits / 8)); u16(channels &* bits / 8); u16(bits)
        d.append(contentsOf: Array("data".utf8)); u32(claimedDataBytes)
        d.append(Data(count: actualDataBytes))
        return d
    }

    @Test func unreadableAndBrokenSounds() throws {
        try refuses("cannot read as a sound file") { temp in try temp.file("noise.wav", "this is not a sound") }
        try refuses("missing.wav: no such file") { temp in temp.url.appendingPathComponent("missing.wav").path }
        try refuses("cannot read as a sound file") { temp in
            let path = temp.url.appendingPathComponent("zero-channels.wav").path
            try wavHeader(channels: 0, rate: 48000, claimedDataBytes: 960, actualDataBytes: 960).write(to: URL(fileURLWithPath: path))
            return path
        }
        // A FIFO nobody writes to: refused at once (opening it would wait for good, and a pipe
        // cannot be read twice for --normalize nor seeked to --from).
        try refuses("is not a regular file") { temp in
            let path = temp.url.appendingPathComponent("live.wav").path
            #expect(mkfifo(path, 0o600) == 0)
            return path
        }
        try refuses("no audio: the file has 0 frames") { temp in
            let path = temp.url.appendingPathComponent("empty.wav").path
            try writeSound(path, samples: [])
            return path
        }
    }

    @Test("render and convert into a folder they make: a run that writes nothing leaves no folder behind; one output keeps it")
    func aFailedRunLeavesNoOutputFolder() throws {
        let temp = try TempFolder()
        let a = try temp.file("a.wav", "not a sound"), b = try temp.file("b.wav", "not a sound either")
        let brokenA = try temp.file("a.ahap", "{"), brokenB = try temp.file("b.ahap", "[]")
        let before = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
        for (verb, inputs) in [("convert", [a, b]), ("render", [brokenA, brokenB])] {
            // Every input fails; a name twice is refused before anything is made.
            for (arguments, lines) in [(inputs, 2), ([inputs[0], inputs[0]], 1)] {
                let run = try CLIRun([verb] + arguments + ["-o", temp.url.appendingPathComponent("new/deeper").path + "/"])
                print("\(verb) into new/deeper/: exit \(run.status): \(run.stderr)")
                #expect(run.status == 1)
                #expect(run.stderr.split(separator: "\n").count == lines, "\(run.stderr)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted() == before, "no folder left")
            }
        }
        // One output written: the folder stays, with it.
        try writeSound(temp.url.appendingPathComponent("good.wav").path, seconds: 0.5)
        let run = try CLIRun(["convert", a, temp.url.appendingPathComponent("good.wav").path, "-o", temp.url.appendingPathComponent("made").path + "/"])
        #expect(run.status == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.appendingPathComponent("made").path) == ["good.ahap"])
    }

    @Test("several inputs and -o NAME.ahap (convert) or NAME.wav (render): refused in one line, no folder of that name made")
    func severalInputsIntoAFileName() throws {
        let temp = try TempFolder()
        let a = temp.url.appendingPathComponent("a.wav").path, b = temp.url.appendingPathComponent("b.wav").path
        try writeSound(a, seconds: 0.3)
        try writeSound(b, seconds: 0.3)
        let p = try temp.file("p.ahap", cleanPatternWithoutAudio), q = try temp.file("q.ahap", cleanPatternWithoutAudio)
        let before = try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted()
        for (verb, inputs, name) in [("convert", [a, b], "NAME.ahap"), ("convert", [a, b], "NAME"), ("render", [p, q], "NAME.wav")] {
            let output = temp.url.appendingPathComponent(name).path
            let run = try CLIRun([verb] + inputs + ["-o", output])
            print("\(verb) a b -o \(name): exit \(run.status): \(run.stderr)")
            #expect(run.status == 1)
            #expect(run.stderr == "\(output): several inputs need an output folder; end the name with / to make one (\(output)/)\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted() == before, "no folder made")
        }
        // An existing folder of that name is one.
        try FileManager.default.createDirectory(atPath: temp.url.appendingPathComponent("made.ahap").path, withIntermediateDirectories: false)
        let run = try CLIRun(["convert", a, b, "-o", temp.url.appendingPathComponent("made.ahap").path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.appendingPathComponent("made.ahap").path).sorted() == ["a.ahap", "b.ahap"])
    }

    @Test func aTruncatedSoundIsRefused() throws {
        try refuses("truncated") { temp in
            // The header promises 2 s, the file holds 0.1 s (cut off in the middle of the data).
            let path = temp.url.appendingPathComponent("cut.wav").path
            try wavHeader(channels: 1, rate: 48000, claimedDataBytes: 192_000, actualDataBytes: 9_600).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test("sample rates the analysis does not take", arguments: [1, 4000, 10_000_000] as [UInt32])
    func sampleRates(rate: UInt32) throws {
        try refuses("Hz") { temp in
            let path = temp.url.appendingPathComponent("rate.wav").path
            try wavHeader(channels: 1, rate: rate, claimedDataBytes: 2000, actualDataBytes: 2000).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test func nonFiniteSamplesAreRefusedNamingWhere() throws {
        for bad in [Float.nan, .infinity, -.infinity] {
            try refuses(bad.isNaN ? "is NaN" : "is infinite") { temp in
                let path = temp.url.appendingPathComponent("bad.wav").path
                var samples = [Float](repeating: 0.1, count: 48000)
                samples[24000] = bad
                try writeSound(path, format: .wav, bits: .float32, samples: samples)
                return path
            }
        }
        try refuses("sample 24000 (0.500000 s) of channel 1 is NaN") { temp in
            let path = temp.url.appendingPathComponent("bad.wav").path
            var samples = [Float](repeating: 0.1, count: 48000)
            samples[24000] = .nan
            try writeSound(path, format: .wav, bits: .float32, samples: samples)
            return path
        }
    }

    @Test("a 10-hour file is refused from its header in bounded time; a part of it converts")
    func tenHours() throws {
        let temp = try TempFolder()
        // 10 h of 8-bit mono at 8 kHz: a sparse file of 288 MB (no disk used for the zeros).
        let path = temp.url.appendingPathComponent("ten-hours.wav").path
        let bytes = 10 * 3600 * 8000
        try wavHeader(channels: 1, rate: 8000, bits: 8, claimedDataBytes: UInt32(bytes), actualDataBytes: 0).write(to: URL(fileURLWithPath: path))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(44 + bytes))
        try handle.close()
        let start = Date()
        let run = try CLIRun(["convert", path, "-o", temp.url.appendingPathComponent("out.ahap").path])
        #expect(run.status == 1 && run.stderr.contains("36000.0 s of sound is past the 3600 s a pattern can hold; convert a part of it with --from and --to"), "\(run.stderr)")
        #expect(Date().timeIntervalSince(start) < 10, "refused from the header, not after reading")
        let part = try CLIRun(["convert", path, "-o", temp.url.appendingPathComponent("part.ahap").path, "--from", "18000", "--to", "18060"])
        #expect(part.status == 0, "\(part.stderr)")
        #expect(part.stdout.contains("60.000 s of ten-hours.wav"))
    }

    @Test func outputSafety() throws {
        // Never over an input (however spelt), never over a symbolic link or a folder.
        try refuses("is one of the inputs", extra: ["--format", "ahap"], output: "in.wav") { temp in
            let path = temp.url.appendingPathComponent("in.wav").path
            try writeSound(path, seconds: 0.5)
            return path
        }
        try refuses("is one of the inputs", output: "clip.haptic") { temp in try temp.file("clip.haptic", gearClipText) }
        try refuses("is a symbolic link", output: "link.ahap") { temp in
            let path = temp.url.appendingPathComponent("in.wav").path
            try writeSound(path, seconds: 0.5)
            try FileManager.default.createSymbolicLink(atPath: temp.url.appendingPathComponent("link.ahap").path, withDestinationPath: "/etc/hostname")
            return path
        }
        // Nor over a sound the pattern input plays.
        try refuses("is one of the inputs", extra: ["--format", "haptic"], output: "boom.wav") { temp in
            try writeSound(temp.url.appendingPathComponent("boom.wav").path, seconds: 0.2)
            return try temp.file("p.ahap", #"{"Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "boom.wav"}}]}"#)
        }
        try refuses("cannot tell the format", output: "out.txt") { temp in try temp.file("clip.haptic", gearClipText) }
        // A hostile .haptic: one line, nothing written.
        try refuses("past the 3600 s limit") { temp in
            try temp.file("hostile.haptic", #"{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0}, {"time": 1e308, "amplitude": 1}]}}}}"#)
        }
    }
}
