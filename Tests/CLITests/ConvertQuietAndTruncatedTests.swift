// `convert` at the edges of what a sound holds: one too quiet to give any event, one whose
// length the file does not say (a truncated Ogg), a damaged MP3 (whose decoder talks).

import Foundation
import HapticCLI
import HapticKit
import HapticTestSupport
import Testing

@Suite("convert: quiet and truncated sounds")
struct ConvertQuietAndTruncatedTests {
    @Test("a very quiet or silent sound: one note with its level and what to change; the pattern keeps the sound's length")
    func quietSound() throws {
        let temp = try TempFolder()
        let quiet = temp.url.appendingPathComponent("quiet.wav").path, silent = temp.url.appendingPathComponent("silent.wav").path
        let amplitude = Float(pow(10, -65.0 / 20))
        try writeSound(quiet, bits: .float32, samples: (0..<96_000).map { amplitude * Float(sin(2 * Double.pi * 60 * Double($0) / 48_000)) })
        try writeSound(silent, samples: [Float](repeating: 0, count: 72_000))
        for (input, expected, seconds) in [
            (quiet, "the sound peaks at -65.0 dBFS, nothing above the -60 dBFS gate: the pattern is empty (its length kept); try --normalize -1 to raise it or a --gate below its level", 2.0),
            (silent, "the sound is silent (every sample 0): the pattern is empty (its length kept)", 1.5),
        ] {
            let out = temp.url.appendingPathComponent("out.ahap").path
            let run = try CLIRun(["convert", input, "-o", out])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr == "\(input): note: \(expected)\n", "\(run.stderr)")
            let pattern = try AHAPPattern.decode(text: String(contentsOfFile: out, encoding: .utf8), options: .init(strict: true)).pattern
            #expect(abs(pattern.duration - seconds) < 0.001, "the pattern lasts \(pattern.duration) s")
            #expect(pattern.events.allSatisfy { $0.type == .hapticContinuous }, "silent continuous events only")
            let info = try CLIRun(["info", out, "--json"])
            let reported = (try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])?["duration"] as? Double
            #expect(reported.map { abs($0 - seconds) < 0.001 } == true, "info: \(String(describing: reported))")
            let clip = temp.url.appendingPathComponent("out.haptic").path
            #expect(try CLIRun(["convert", input, "-o", clip]).status == 0)
            #expect(abs(try HapticClip.decode(text: String(contentsOfFile: clip, encoding: .utf8)).clip.duration - seconds) < 0.001)
        }
        // --gate below the sound's level: it converts (as follow's --gate: dBFS, -120...0).
        let gated = try CLIRun(["convert", quiet, "-o", temp.url.appendingPathComponent("gated.ahap").path, "--gate", "-80"])
        #expect(gated.status == 0 && gated.stderr.isEmpty, "\(gated.stderr)")
        #expect(gated.stdout.contains("1 stretch,"), "\(gated.stdout)")
        let description = try String(contentsOfFile: temp.url.appendingPathComponent("gated.ahap").path, encoding: .utf8)
        #expect(description.contains("--gate -80"), "the description says how it was made")
        for bad in ["-121", "1", "nan"] {
            #expect(throws: (any Error).self) { try Convert.parse([quiet, "-o", "x.ahap", "--gate", bad]) }
        }
    }

    @Test("a truncated Ogg (libsndfile: length SF_COUNT_MAX) converts the part that decodes, with one note")
    func aTruncatedOggConverts() throws {
        let temp = try TempFolder()
        let whole = temp.url.appendingPathComponent("whole.ogg").path
        // 20 s of a tone with clicks and noise (so the bytes spread over the length), cut in half.
        let samples = (0..<(20 * 48_000)).map { i -> Float in
            let t = Double(i) / 48_000
            return Float(0.3 * sin(2 * Double.pi * 60 * t) + 0.05 * sin(Double(i) * 12.9898).truncatingRemainder(dividingBy: 1))
        }
        try writeSound(whole, format: SoundFileWriter.FileFormat.all.first { $0.fileExtension == "oga" }, samples: samples)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        let cut = temp.url.appendingPathComponent("cut.ogg").path
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
        let info = try SoundFileReader.info(cut)
        #expect(!info.framesKnown && info.frames == 0, "libsndfile's unknown length is unknown: \(info)")
        let out = temp.url.appendingPathComponent("cut.ahap").path
        let run = try CLIRun(["convert", cut, "-o", out])
        #expect(run.status == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("\(cut): note: the file does not say how long it is (truncated or damaged?): converted the "), "\(run.stderr)")
        let pattern = try AHAPPattern.decode(text: String(contentsOfFile: out, encoding: .utf8)).pattern
        #expect(pattern.duration > 4 && pattern.duration < 16, "about half of 20 s: \(pattern.duration)")
        // Nothing that decodes: one line, nothing written.
        let stub = temp.url.appendingPathComponent("stub.ogg").path
        try bytes.prefix(min(bytes.count, 5000)).write(to: URL(fileURLWithPath: stub))
        let stubOut = temp.url.appendingPathComponent("stub.ahap").path
        let refused = try CLIRun(["convert", stub, "-o", stubOut])
        #expect(refused.status == 1 && refused.stderr == "\(stub): no audio decodes (the file is truncated or damaged)\n", "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stubOut))
    }

    @Test("a damaged MP3: one line of ours on standard error, nothing of libmpg123's (the tool)")
    func damagedMP3IsOneLine() throws {
        let temp = try TempFolder()
        let path = temp.url.appendingPathComponent("damaged.mp3").path
        try writeDamagedMP3(path)
        let run = try runShell("'\(hapticsynthBinary)' convert damaged.mp3 -o out.ahap", in: temp.url)
        print("convert damaged.mp3: exit \(run.status): \(run.stderr)")
        #expect(!run.stderr.contains("libmpg123") && !run.stderr.contains("Note:"), "\(run.stderr)")
        #expect(run.status == 1 && run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
        #expect(run.stderr.hasPrefix("damaged.mp3: "), "\(run.stderr)")
    }
}
