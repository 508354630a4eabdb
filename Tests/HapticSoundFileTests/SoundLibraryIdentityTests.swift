import Foundation
import HapticRender
import HapticSoundFile
import Testing

/// A sound library knows a file by its identity (device and inode), not by how its path is
/// spelt: one decode and one conversion however many spellings a pattern uses.
@Suite("SoundLibrary: one file, one sound")
struct SoundLibraryIdentityTests {
    @Test("two spellings and a hard link share one buffer and are cached once; a copy is another file")
    func spellingsShareOneBuffer() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        try FileManager.default.createDirectory(atPath: folder.file("d"), withIntermediateDirectories: true)
        try SoundFileWriter.write(sine(frequency: 440, rate: 44_100, frames: 44_100, amplitude: 0.5), channels: 1, sampleRate: 44_100, to: folder.file("a.wav"))
        try FileManager.default.linkItem(atPath: folder.file("a.wav"), toPath: folder.file("link.wav"))
        try FileManager.default.copyItem(atPath: folder.file("a.wav"), toPath: folder.file("copy.wav"))
        let library = SoundLibrary(patternFolder: folder.path)

        let plain = try library.sound(path: "a.wav", sampleRate: 48_000, transposition: 1)
        let base = plain.samples.withUnsafeBufferPointer { $0.baseAddress }
        for spelling in ["./d/../a.wav", folder.file("a.wav"), "link.wav"] {
            let other = try library.sound(path: spelling, sampleRate: 48_000, transposition: 1)
            #expect(other.samples.withUnsafeBufferPointer { $0.baseAddress } == base, "\(spelling) decoded again")
            #expect(library.estimate(path: spelling, sampleRate: 48_000, transposition: 1)?.identity
                == library.estimate(path: "a.wav", sampleRate: 48_000, transposition: 1)?.identity)
        }
        // The decoded file and its one conversion.
        #expect(library.cachedBytes == (44_100 + plain.samples.count) * MemoryLayout<Float>.size)
        // The estimate (from the header) is what the conversion holds.
        let estimate = try #require(library.estimate(path: "a.wav", sampleRate: 48_000, transposition: 1))
        #expect(abs(estimate.bytes - plain.samples.count * MemoryLayout<Float>.size) <= 2 * MemoryLayout<Float>.size, "\(estimate.bytes)")

        let copy = try library.sound(path: "copy.wav", sampleRate: 48_000, transposition: 1)
        #expect(copy.samples.withUnsafeBufferPointer { $0.baseAddress } != base)
        #expect(library.estimate(path: "copy.wav", sampleRate: 48_000, transposition: 1)?.identity != estimate.identity)
        library.clearCache()
        #expect(library.cachedBytes == 0)
    }
}
