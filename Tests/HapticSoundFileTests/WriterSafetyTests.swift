import Foundation
import HapticTestSupport
import Testing

@testable import HapticSoundFile

/// The writer's own guards (the CLI tests cover them end to end): a plain WAV never wraps
/// its 32-bit sizes, the destination is checked, nothing is left behind on refusal.
@Suite("SoundFileWriter: sizes and destinations")
struct WriterSafetyTests {
    func entries(_ folder: TempFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("a plain WAV of unknown length that grows past its limit fails and leaves nothing")
    func plainWAVGrowsPastLimit() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let writer = try SoundFileWriter(path: folder.file("x.wav"), channels: 2, sampleRate: 48000, plainWAVByteLimit: 4000)
        try writer.write([Float](repeating: 0.1, count: 1000 * 2))  // 4000 bytes: at the limit
        do {
            try writer.write([Float](repeating: 0.1, count: 2))
            Issue.record("wrote past the plain-WAV limit")
        } catch {
            print("plain WAV past its limit: \(error)")
            #expect(error.description.contains("4 GiB"))
        }
        #expect(try entries(folder).isEmpty, "temporary file removed")
    }

    @Test("expected length past the limit: RF64 when inferred, refused when WAV is given")
    func expectedLength() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let auto = try SoundFileWriter(path: folder.file("a.wav"), channels: 1, sampleRate: 48000, expectedFrames: 3000, plainWAVByteLimit: 4000)
        #expect(auto.fileFormat == .rf64)
        try auto.write([Float](repeating: 0.25, count: 3000))
        try auto.finish()
        #expect(try SoundFileReader.read(folder.file("a.wav")).frames == 3000)
        #expect(throws: SoundFileError.self) {
            try SoundFileWriter(path: folder.file("b.wav"), channels: 1, sampleRate: 48000, format: .wav, expectedFrames: 3000, plainWAVByteLimit: 4000)
        }
        #expect(try entries(folder) == ["a.wav"])
        // The real limit: 4 GiB of 16-bit stereo is 2^30 frames, and RF64 is chosen past it.
        let big = try SoundFileWriter(path: folder.file("big.wav"), channels: 2, sampleRate: 48000, expectedFrames: 1 << 30)
        #expect(big.fileFormat == .rf64)
        big.cancel()
        let fits = try SoundFileWriter(path: folder.file("fits.wav"), channels: 2, sampleRate: 48000, expectedFrames: (1 << 30) - 1024)
        #expect(fits.fileFormat == .wav)
        fits.cancel()
        #expect(try entries(folder) == ["a.wav"])
    }

    @Test("a destination that is a folder, a symbolic link or an input is refused before any file is made")
    func destinations() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        try FileManager.default.createDirectory(atPath: folder.file("dir.wav"), withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.file("in.wav")))
        try FileManager.default.createSymbolicLink(atPath: folder.file("link.wav"), withDestinationPath: "in.wav")
        let input = try #require(FileIdentity(path: folder.file("in.wav")))
        for (name, expected) in [("dir.wav", "is a folder"), ("link.wav", "is a symbolic link"), ("in.wav", "is one of the inputs")] {
            do {
                _ = try SoundFileWriter(path: folder.file(name), channels: 1, sampleRate: 48000, inputs: [input])
                Issue.record("accepted \(name)")
            } catch {
                print("writer to \(name): \(error)")
                #expect(error.description.contains(expected))
            }
        }
        #expect(try entries(folder) == ["dir.wav", "in.wav", "link.wav"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.file("in.wav"))) == Data("x".utf8))
    }
}
