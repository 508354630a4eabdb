import Foundation
import HapticKit
import Testing

/// Names and values from files (file names, JSON keys and strings, cue names, sound paths)
/// reach messages escaped: a newline in one cannot forge a line, an escape sequence cannot
/// colour or rewrite the terminal (`printable`, used by every message that includes them).
@Suite("control characters from files are escaped in every message")
struct ControlCharacterTests {
    /// No raw control character but the line ends.
    func clean(_ text: String) -> Bool {
        !text.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || (0x7F...0x9F).contains($0.value) }
    }

    @Test("validate: a file name, an unknown key and an EventType holding newlines and escapes stay on their lines")
    func validateLines() throws {
        let temp = try TempFolder()
        let warned = try temp.file("evil\nfake.ahap: ok\u{1B}[2J.ahap", #"{"Bo\ngus\u001b[32m: warning: fine": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 1}]}}]}"#)
        let failed = try temp.file("bad.ahap", #"{"Pattern": [{"Event": {"Time": 0, "EventType": "X\u001b]0;pwned\u0007\nbad.ahap: all good"}}]}"#)
        let run = try CLIRun(["validate", warned, failed])
        print("validate:\n\(run.stdout)")
        #expect(clean(run.stdout) && clean(run.stderr), "a raw control character: \(run.stdout.debugDescription)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 3, "one warning, one error, the summary: \(lines)")
        #expect(lines[0].hasPrefix(printable(warned) + ": ") && lines[0].contains("Bo\\ngus\\x1B[32m"), "\(lines[0])")
        #expect(lines[1].hasPrefix(failed + ": ") && lines[1].contains("X\\x1B]0;pwned\\x07\\nbad.ahap"), "\(lines[1])")
    }

    @Test("info and render: a sound path holding an escape sequence is shown escaped")
    func soundPath() throws {
        let temp = try TempFolder()
        let p = try temp.file("p.ahap", #"{"Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "\u001b[31mred\nfake: line.wav"}}]}"#)
        let info = try CLIRun(["info", p])
        #expect(clean(info.stdout) && info.stdout.contains("\\x1B[31mred\\nfake: line.wav: MISSING"), "\(info.stdout)")
        let render = try CLIRun(["render", p, "-o", temp.url.appendingPathComponent("out.wav").path])
        print("render warnings: \(render.stderr)")
        #expect(clean(render.stderr) && render.stderr.contains("\\x1B[31mred\\nfake"), "\(render.stderr)")
        #expect(render.stderr.split(separator: "\n").count == 1, "one warning line: \(render.stderr)")
    }

    @Test("rhythm: cue names from the sheet in its refusal are escaped")
    func cueNames() async throws {
        let temp = try TempFolder()
        let assets = temp.url.appendingPathComponent("assets").path
        try FileManager.default.createDirectory(atPath: assets, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: assets + "/sfx", withDestinationPath: rhythmAssets + "/sfx")
        try temp.file("assets/cues.json", #"{"schema": "hapticsynth-cues", "version": 1, "cues": {"hit\nrhythm: all fine\u001b[0m": {"haptic": {"transient": {"intensity": 1, "sharpness": 1}}}}}"#)
        let run = try await RhythmRun(["rhythm", "--beats", "1", "--cue", "missing", "-o", temp.url.appendingPathComponent("s.wav").path,
                                       "--haptics", rhythmHaptics, "--assets", assets])
        print("rhythm: \(run.stderr)")
        #expect(run.status == 1)
        #expect(clean(run.stderr) && run.stderr.split(separator: "\n").count == 1, "\(run.stderr.debugDescription)")
        #expect(run.stderr.contains("hit\\nrhythm: all fine\\x1B[0m"))
    }

    @Test("printable: controls, DEL, C1 and bidirectional overrides escaped; other text kept")
    func printableFunction() {
        #expect(printable("a\tb\r\n\u{7F}\u{85}\u{202E}x") == "a\\tb\\r\\n\\x7F\\u{85}\\u{202E}x")
        #expect(printable("café 💥 Pattern[0].Event") == "café 💥 Pattern[0].Event")
        #expect(printable("\u{0}") == "\\x00")
    }
}
