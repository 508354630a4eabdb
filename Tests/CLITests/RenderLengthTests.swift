import Foundation
import HapticSoundFile
import Testing

/// A render's length includes its ring-out (past the pattern's end until the output is silent):
/// the WAV header `render -o -` writes to a pipe holds the length that follows (it held the
/// nominal one, and `| aplay` ended on a click), and the choice of RF64 counts the longest
/// ring-out before anything is written (a render pushed past the plain-WAV limit by its tail
/// failed after writing it all).
@Suite("render: the length with the ring-out")
struct RenderLengthTests {
    /// A held continuous event and a transient at its end: the protection chain rings on
    /// about 0.1 s past the pattern's nominal 0.44 s.
    static let ringing = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.3, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}}, {"Event": {"Time": 0.3, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0}]}}]}"#

    /// The RIFF size + 8 and the data size + 44 of a canonical WAV header (both must be the file's length).
    func headerLengths(_ data: Data) -> (riff: Int, data: Int) {
        let bytes = [UInt8](data.prefix(44))
        func u32(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
        return (u32(4) + 8, u32(40) + 44)
    }

    @Test("WAV to a pipe: the header holds the length that follows, ring-out included; the bytes are the file's", arguments: [[], ["--exact-length"], ["--bits", "24", "--layout", "L,R,H"]])
    func pipeHeader(_ extra: [String]) throws {
        let temp = try TempFolder()
        try temp.file("ring.ahap", Self.ringing)
        let options = extra.joined(separator: " ")
        let piped = try runShell("'\(hapticsynthBinary)' render ring.ahap -o - \(options) | cat", in: temp.url)
        let file = try runShell("'\(hapticsynthBinary)' render ring.ahap -o ring.wav \(options)", in: temp.url)
        let written = try Data(contentsOf: temp.url.appendingPathComponent("ring.wav"))
        let (riff, data) = headerLengths(piped.stdout)
        print("render -o - \(options) | cat: \(piped.stdout.count) bytes, header says RIFF \(riff), data \(data); the file: \(written.count) bytes")
        #expect(piped.status == 0 && file.status == 0, "\(piped.stderr) \(file.stderr)")
        #expect(riff == piped.stdout.count && data == piped.stdout.count)
        #expect(piped.stdout == written, "the same bytes as the file")
    }

    @Test("a render pushed past the plain-WAV limit by its ring-out is written as RF64 from the start")
    func ringOutPastPlainWAV() throws {
        let temp = try TempFolder()
        try temp.file("ring.ahap", Self.ringing)
        // The nominal 0.44 s fits 30,000 bytes of 16-bit mono; with the ring-out it does not.
        let run = try runShell("'\(hapticsynthBinary)' render ring.ahap -o ring.wav --plain-wav-limit-bytes 50000", in: temp.url)
        print("ring-out past the plain-WAV limit: exit \(run.status): \(run.stderr.trimmingCharacters(in: .newlines))")
        #expect(run.status == 0, "\(run.stderr)")
        let path = temp.url.appendingPathComponent("ring.wav").path
        #expect(try #require(FileManager.default.contents(atPath: path)).prefix(4) == Data("RF64".utf8))
        #expect(try SoundFileReader.info(path).frames > 24_000, "the ring-out is there")
        // Asked for plain WAV explicitly: refused before anything is written, the tail's maximum counted.
        let forced = try runShell("'\(hapticsynthBinary)' render ring.ahap -o forced.wav --format wav --plain-wav-limit-bytes 50000", in: temp.url)
        #expect(forced.status == 1 && forced.stderr.contains("do not fit a plain WAV file"), "\(forced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temp.url.appendingPathComponent("forced.wav").path))
    }
}
