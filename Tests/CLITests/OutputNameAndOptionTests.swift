import Foundation
import HapticSoundFile
import Testing

/// A bad option is one line (the README's promise), and a legal output name of up to 255
/// bytes is written (its temporary `.NAME.partial-XXXXXX` is shortened to fit NAME_MAX).
@Suite("option errors in one line; long output names")
struct OutputNameAndOptionTests {
    @Test("a bad option: one line on stderr naming it, exit 64 (no usage block)", arguments: [
        ("render ring.ahap -o x.wav --layout 0,Q", "--layout"),
        ("render ring.ahap -o x.wav --rate 5", "--rate 5"),
        ("rhythm --bpm 0", "--bpm 0.0"),
        ("render ring.ahap -o x.wav --frobnicate", "--frobnicate"),
        ("render ring.ahap -o x.wav --layout $(printf '0,\\033[31mQ')", "\\x1B[31mQ"),
    ])
    func badOptionOneLine(_ arguments: String, _ named: String) throws {
        let temp = try TempFolder()
        try temp.file("ring.ahap", RenderLengthTests.ringing)
        let run = try runShell("'\(hapticsynthBinary)' \(arguments)", in: temp.url)
        print("hapticsynth \(arguments): exit \(run.status): \(run.stderr)")
        #expect(run.status == 64)
        #expect(run.stderr.split(separator: "\n").count == 1 && run.stderr.contains(named), "\(run.stderr)")
        #expect(!run.stderr.contains("\u{1B}"), "no raw escape")
    }

    @Test("output names of 240 to 255 bytes are written; no temporary file is left", arguments: [240, 241, 250, 255])
    func longNames(_ length: Int) throws {
        let temp = try TempFolder()
        try temp.file("ring.ahap", RenderLengthTests.ringing)
        let name = String(repeating: "é", count: (length - 4) / 2) + String(repeating: "a", count: (length - 4) % 2) + ".wav"
        #expect(name.utf8.count == length)
        let run = try runShell("'\(hapticsynthBinary)' render ring.ahap -o '\(name)'", in: temp.url)
        print("render -o <\(length)-byte name>: exit \(run.status)\(run.status == 0 ? "" : ": " + run.stderr)")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try SoundFileReader.info(temp.url.appendingPathComponent(name).path).frames > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.url.path).sorted() == [name, "ring.ahap"].sorted())
    }
}
