import CSndFile
import Foundation
import HapticTestSupport
import HapticRender
import Testing

@testable import HapticSoundFile

@Suite("Reading and writing sound files (libsndfile)")
struct SoundFileRoundTripTests {
    /// Values exactly representable at every bit depth under test (multiples of 2^-15),
    /// including both ends of the 16-bit range.
    static func exactValues(frames: Int, channels: Int) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0 ..< frames * channels {
            let k = (i * 7919) % 65536 - 32768  // covers -32768 ... 32767
            out[i] = Float(k) / 32768
        }
        return out
    }

    @Test(
        "round trip is exact",
        arguments: ["wav", "flac", "aiff"], [SoundFileWriter.SampleFormat.int16, .int24, .float32])
    func roundTrip(ext: String, sampleFormat: SoundFileWriter.SampleFormat) throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let path = folder.file("rt.\(ext)")
        let samples = Self.exactValues(frames: 10_000, channels: 3)
        if ext == "flac" && sampleFormat == .float32 {
            // FLAC has no float encoding: libsndfile refuses, and we say so before creating anything.
            #expect(throws: SoundFileError.self) {
                try SoundFileWriter.write(samples, channels: 3, sampleRate: 44100, to: path, sampleFormat: sampleFormat)
            }
            #expect(folder.contents().isEmpty)
            return
        }
        let peak = try SoundFileWriter.write(samples, channels: 3, sampleRate: 44100, to: path, sampleFormat: sampleFormat)
        #expect(peak == 1.0)
        #expect(folder.contents() == ["rt.\(ext)"])  // no temporary left over
        let back = try SoundFileReader.read(path)
        #expect(back.channels == 3)
        #expect(back.sampleRate == 44100)
        #expect(back.samples == samples)
        let info = try SoundFileReader.info(path)
        #expect(info.frames == 10_000)
    }

    @Test("non-representable values quantise to the nearest step, clipping at full scale")
    func quantisation() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let input: [Float] = [0.3, -0.3, 1.5, -1.5, 0.99999, 1e-6]
        try SoundFileWriter.write(input, channels: 1, sampleRate: 48000, to: folder.file("q.wav"))
        let back = try SoundFileReader.read(folder.file("q.wav")).samples
        let expected: [Float] = [
            (0.3 * 32768).rounded() / 32768, (-0.3 * 32768).rounded() / 32768, 32767 / 32768, -1, 32767 / 32768, 0,
        ]
        #expect(back == expected)
    }

    @Test("a sound longer than the reader's limit is refused with a message naming the limit; one at it is read")
    func lengthLimit() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let path = folder.file("one-second.wav")
        try SoundFileWriter.write([Float](repeating: 0.25, count: 8000), channels: 1, sampleRate: 8000, to: path)
        #expect(try SoundFileReader.read(path, maxSeconds: 1).samples.count == 8000)
        do {
            _ = try SoundFileReader.read(path, maxSeconds: 0.5)
            Issue.record("a 1 s sound was read under a 0.5 s limit")
        } catch {
            print("sound past the limit: \(error.description)")
            #expect(error.description.contains("longer than the 0.5 s limit for sounds"))
        }
    }

    @Test("block-by-block writing equals one-shot writing, and the peak is reported")
    func streaming() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let samples = sine(frequency: 100, rate: 48000, frames: 20_000, amplitude: 0.25, channels: 2)
        try SoundFileWriter.write(samples, channels: 2, sampleRate: 48000, to: folder.file("one.flac"), sampleFormat: .int24)
        let writer = try SoundFileWriter(path: folder.file("blocks.flac"), channels: 2, sampleRate: 48000, sampleFormat: .int24)
        var offset = 0
        for block in [1, 127, 4096, 5000, 3] + Array(repeating: 1000, count: 20) {
            let end = min(samples.count, offset + block * 2)
            try writer.write(Array(samples[offset ..< end]))
            offset = end
        }
        try writer.write(Array(samples[offset...]))
        // Before finish the destination does not exist; only the hidden temporary does.
        #expect(!FileManager.default.fileExists(atPath: folder.file("blocks.flac")))
        try writer.finish()
        #expect(writer.framesWritten == 20_000)
        #expect(abs(writer.peak - 0.25) < 1e-4)
        #expect(abs(writer.peakDBFS - 20 * log10(0.25)) < 0.01)
        #expect(try SoundFileReader.read(folder.file("one.flac")).samples == SoundFileReader.read(folder.file("blocks.flac")).samples)
        #expect(folder.contents() == ["blocks.flac", "one.flac"])
    }

    @Test("format is inferred from the extension through libsndfile's own list")
    func formatInference() throws {
        #expect(SoundFileWriter.FileFormat(extensionOf: "a/b/out.WAV") == .wav)
        #expect(SoundFileWriter.FileFormat(extensionOf: "x.aif") == .aiff)
        #expect(SoundFileWriter.FileFormat(extensionOf: "flac") == .flac)
        #expect(SoundFileWriter.FileFormat(extensionOf: "x.caf") != nil)
        #expect(SoundFileWriter.FileFormat(extensionOf: "x.mp4") == nil)
        #expect(SoundFileWriter.FileFormat(extensionOf: "noextension") == nil)
        let folder = TempFolder()
        defer { folder.cleanup() }
        // An explicit format wins over the extension.
        try SoundFileWriter.write([0, 0.5], channels: 1, sampleRate: 8000, to: folder.file("x.dat"), format: .flac)
        let info = try SoundFileReader.info(folder.file("x.dat"))
        #expect(info.format & 0x0FFF_0000 == SoundFileWriter.FileFormat.flac.code)
        do {
            _ = try SoundFileWriter(path: folder.file("x.mp4"), channels: 1, sampleRate: 8000)
            Issue.record("expected an error")
        } catch {
            #expect(error.operation == .format)
            #expect(error.description.contains("x.mp4"))
        }
        #expect(folder.contents() == ["x.dat"])
    }

    @Test(".ogg and .oga are Ogg Vorbis, .opus is Ogg Opus: written by their extension and read back")
    func oggAndOpus() throws {
        let ogg = try #require(SoundFileWriter.FileFormat(extensionOf: "x.ogg"), "x.ogg names a format")
        #expect(SoundFileWriter.FileFormat(extensionOf: "x.OGA") == ogg)
        let opus = try #require(SoundFileWriter.FileFormat(extensionOf: "x.opus"), "x.opus names a format (this libsndfile has Opus)")
        #expect(opus.code == ogg.code && opus != ogg)
        let folder = TempFolder()
        defer { folder.cleanup() }
        // A second of a 200 Hz tone at 48 kHz (a rate Opus takes).
        let tone = (0..<48_000).map { Float(0.5 * sin(2 * Double.pi * 200 * Double($0) / 48_000)) }
        for (name, subtype) in [("tone.ogg", Int32(SF_FORMAT_VORBIS)), ("tone.opus", Int32(SF_FORMAT_OPUS))] {
            try SoundFileWriter.write(tone, channels: 1, sampleRate: 48_000, to: folder.file(name))
            let info = try SoundFileReader.info(folder.file(name))
            #expect(info.format & 0x0FFF_0000 == Int32(SF_FORMAT_OGG) && info.format & 0xFFFF == subtype, "\(name): format \(info.format)")
            let back = try SoundFileReader.read(folder.file(name))
            #expect(back.sampleRate == 48_000 && abs(back.samples.count - tone.count) < 1_000, "\(name): \(back.samples.count) samples")
            let peak = back.samples[10_000..<40_000].map { abs($0) }.max() ?? 0
            #expect(abs(peak - 0.5) < 0.05, "\(name): peak \(peak)")
        }
    }
}

@Suite("Bad files and paths give typed errors and leave nothing behind")
struct SoundFileErrorTests {
    @Test func missingFile() {
        do {
            _ = try SoundFileReader.read("/nonexistent/folder/sound.wav")
            Issue.record("expected an error")
        } catch {
            #expect(error.operation == .open)
            #expect(error.path == "/nonexistent/folder/sound.wav")
            #expect(error.description.hasPrefix("/nonexistent/folder/sound.wav: "))
            #expect(error.message.lowercased().contains("no such file"))
        }
    }

    @Test func corruptFile() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let path = folder.file("corrupt.wav")
        try Data("RIFF\u{10}\u{0}\u{0}\u{0}WAVEthis is not audio at all".utf8).write(to: URL(fileURLWithPath: path))
        do {
            _ = try SoundFileReader.read(path)
            Issue.record("expected an error")
        } catch {
            #expect(error.path == path)
            #expect(!error.message.isEmpty)
            #expect(error.description.contains("corrupt.wav"))
        }
    }

    @Test func unwritableFolder() {
        do {
            try SoundFileWriter.write([0.1], channels: 1, sampleRate: 48000, to: "/nonexistent-folder/out.wav")
            Issue.record("expected an error")
        } catch {
            #expect(error.operation == .open)
            #expect(error.description.contains("/nonexistent-folder/out.wav"))
            #expect(error.message.contains("No such file or directory"))
        }
        #expect(!FileManager.default.fileExists(atPath: "/nonexistent-folder"))
    }

    @Test("a failure at the end (the destination became a folder while writing) leaves neither the file nor the temporary")
    func failedRename() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        // A folder at the destination is refused up front; made while writing, `finish` finds it
        // (and rename(2) would refuse to replace it anyway).
        let target = folder.file("out.wav")
        let writer = try SoundFileWriter(path: target, channels: 1, sampleRate: 48000)
        try FileManager.default.createDirectory(atPath: target + "/inner", withIntermediateDirectories: true)
        try writer.write([0.5, 0.25])
        #expect(folder.contents().count == 2)  // the folder + the hidden temporary
        #expect(throws: SoundFileError.self) { try writer.finish() }
        #expect(folder.contents() == ["out.wav"])
        #expect((try? FileManager.default.contentsOfDirectory(atPath: target)) == ["inner"])
    }

    @Test("cancel and abandoning a writer remove the temporary file")
    func cancelAndAbandon() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let writer = try SoundFileWriter(path: folder.file("a.wav"), channels: 2, sampleRate: 48000)
        try writer.write([0.1, 0.2, 0.3, 0.4])
        writer.cancel()
        #expect(folder.contents().isEmpty)
        #expect(throws: SoundFileError.self) { try writer.write([0.1, 0.2]) }
        do {
            let abandoned = try SoundFileWriter(path: folder.file("b.flac"), channels: 1, sampleRate: 48000)
            try abandoned.write([0.1])
            #expect(folder.contents().count == 1)
        }
        #expect(folder.contents().isEmpty)
    }

    @Test func partialFrameIsRejected() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let writer = try SoundFileWriter(path: folder.file("a.wav"), channels: 2, sampleRate: 48000)
        #expect(throws: SoundFileError.self) { try writer.write([0.1, 0.2, 0.3]) }
        writer.cancel()
        #expect(folder.contents().isEmpty)
    }
}

@Suite("Rate conversion and transposition (libsoxr)")
struct ResamplerTests {
    /// Frequency and level of the middle half of a mono signal (edges hold filter transients).
    static func measure(_ x: [Float], rate: Double) -> (frequency: Double, rms: Double) {
        let middle = Array(x[x.count / 4 ..< 3 * x.count / 4])
        return (zeroCrossingFrequency(middle, rate: rate), rms(middle[...]))
    }

    @Test("a 44.1 kHz file converted to 48 kHz keeps length, frequency and level")
    func convert44100to48000() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        let inFrames = 44_100 * 2 + 37  // not a whole number of output frames
        let source = sine(frequency: 997, rate: 44100, frames: inFrames, amplitude: 0.5, channels: 2)
        try SoundFileWriter.write(source, channels: 2, sampleRate: 44100, to: folder.file("in.wav"), sampleFormat: .float32)
        let decoded = try SoundFileReader.read(folder.file("in.wav"))
        let converted = try Resampler.convert(decoded, to: 48000)
        #expect(converted.sampleRate == 48000)
        #expect(converted.channels == 2)
        let expectedFrames = Double(inFrames) * 48000 / 44100
        #expect(abs(Double(converted.frames) - expectedFrames) <= 1)
        let before = Self.measure(channel(decoded.samples, 0, of: 2), rate: 44100)
        for c in 0 ..< 2 {
            let after = Self.measure(channel(converted.samples, c, of: 2), rate: 48000)
            #expect(abs(after.frequency - 997) < 0.05, "channel \(c): \(after.frequency) Hz")
            #expect(abs(20 * log10(after.rms / before.rms)) < 0.1, "channel \(c): level \(after.rms) vs \(before.rms)")
        }
        // Aligned in time: the converted sine crosses zero where the original does (within ~1 µs).
        let out0 = channel(converted.samples, 0, of: 2)
        let t = 1.0  // the source crosses zero at k/997 s; compare phase at t = 997/997 s
        let index = Int((t * 48000).rounded())
        let expected = Float(0.5 * sin(2 * Double.pi * 997 * Double(index) / 48000))
        #expect(abs(out0[index] - expected) < 0.002)
    }

    @Test("reading a file made by sox and converting it")
    func soxFile() throws {
        guard let sox = which("sox") else {
            Issue.record("sox is not installed (scripts/install-deps.sh installs it)")
            return
        }
        let folder = TempFolder()
        defer { folder.cleanup() }
        let path = folder.file("sox.wav")
        let result = try run(sox, ["-n", "-r", "44100", "-c", "1", "-b", "24", path, "synth", "1", "sine", "440", "vol", "0.5"])
        #expect(result.status == 0)
        let decoded = try SoundFileReader.read(path)
        #expect(decoded.frames == 44100)
        let converted = try Resampler.convert(decoded, to: 48000)
        #expect(converted.frames == 48000)
        let m = Self.measure(converted.samples, rate: 48000)
        #expect(abs(m.frequency - 440) < 0.05)
        #expect(abs(20 * log10(m.rms / (0.5 / 2.0.squareRoot()))) < 0.1)
    }

    @Test("transposition by 2 doubles the frequency and halves the length", arguments: [2.0, 0.5, 1.5])
    func transposition(ratio: Double) throws {
        let source = SoundBuffer(channels: 1, sampleRate: 48000, samples: sine(frequency: 220, rate: 48000, frames: 48000, amplitude: 0.5))
        let out = try Resampler.convert(source, to: 48000, transposition: ratio)
        #expect(abs(Double(out.frames) - 48000 / ratio) <= 1)
        let m = Self.measure(out.samples, rate: 48000)
        #expect(abs(m.frequency - 220 * ratio) < 0.05 * ratio)
        #expect(abs(20 * log10(m.rms / (0.5 / 2.0.squareRoot()))) < 0.1)
    }

    @Test func invalidArguments() {
        #expect(throws: SoundFileError.self) { try Resampler.resample([0, 0], channels: 0, from: 44100, to: 48000) }
        #expect(throws: SoundFileError.self) { try Resampler.resample([0, 0], channels: 1, from: 0, to: 48000) }
        let buffer = SoundBuffer(channels: 1, sampleRate: 48000, samples: [0, 1])
        #expect(throws: SoundFileError.self) { try Resampler.convert(buffer, to: 48000, transposition: 0) }
        #expect(throws: SoundFileError.self) { try Resampler.convert(buffer, to: 48000, transposition: .nan) }
    }
}

@Suite("SoundLibrary: finding and caching the sounds AudioCustom events name")
struct SoundLibraryTests {
    @Test("search order: pattern folder, then Assets, then user folders")
    func searchOrder() throws {
        let root = TempFolder()
        defer { root.cleanup() }
        let fm = FileManager.default
        for dir in ["pattern", "assets", "user1", "user2"] {
            try fm.createDirectory(atPath: root.file(dir), withIntermediateDirectories: true)
        }
        // Same name in several folders, each with a distinct constant value to tell them apart.
        try SoundFileWriter.write([0.25, 0.25], channels: 1, sampleRate: 48000, to: root.file("pattern/a.wav"))
        try SoundFileWriter.write([0.5, 0.5], channels: 1, sampleRate: 48000, to: root.file("assets/a.wav"))
        try SoundFileWriter.write([0.5, 0.5], channels: 1, sampleRate: 48000, to: root.file("assets/b.wav"))
        try SoundFileWriter.write([0.75, 0.75], channels: 1, sampleRate: 48000, to: root.file("user1/b.wav"))
        try SoundFileWriter.write([0.75, 0.75], channels: 1, sampleRate: 48000, to: root.file("user1/c.wav"))
        try SoundFileWriter.write([-0.5, -0.5], channels: 1, sampleRate: 48000, to: root.file("user2/c.wav"))
        try SoundFileWriter.write([-0.25, -0.25], channels: 1, sampleRate: 48000, to: root.file("user2/d.wav"))

        let library = SoundLibrary(patternFile: root.file("pattern/p.ahap"), assetsFolder: root.file("assets"), folders: [root.file("user1")])
        library.addFolder(root.file("user2"))
        #expect(try library.sound(path: "a.wav", sampleRate: 48000, transposition: 1).samples == [0.25, 0.25])
        #expect(try library.sound(path: "b.wav", sampleRate: 48000, transposition: 1).samples == [0.5, 0.5])
        #expect(try library.sound(path: "c.wav", sampleRate: 48000, transposition: 1).samples == [0.75, 0.75])
        #expect(try library.sound(path: "d.wav", sampleRate: 48000, transposition: 1).samples == [-0.25, -0.25])
        #expect(try library.sound(path: root.file("user2/c.wav"), sampleRate: 48000, transposition: 1).samples == [-0.5, -0.5])
        #expect(library.resolve("../assets/b.wav") == root.file("pattern/../assets/b.wav"))
    }

    @Test("missing and unreadable sounds give a SoundSourceError naming the file")
    func errors() throws {
        let root = TempFolder()
        defer { root.cleanup() }
        try Data("not a sound".utf8).write(to: URL(fileURLWithPath: root.file("bad.wav")))
        let library = SoundLibrary(patternFolder: root.path, assetsFolder: root.file("Assets"))
        do {
            _ = try library.sound(path: "missing.wav", sampleRate: 48000, transposition: 1)
            Issue.record("expected an error")
        } catch {
            #expect(error.path == "missing.wav")
            #expect(error.message.contains("not found"))
            #expect(error.message.contains(root.file("Assets")))
        }
        do {
            _ = try library.sound(path: "bad.wav", sampleRate: 48000, transposition: 1)
            Issue.record("expected an error")
        } catch {
            #expect(error.path == "bad.wav")
            #expect(error.message.contains(root.file("bad.wav")))
        }
        #expect(throws: SoundSourceError.self) { try library.sound(path: "", sampleRate: 48000, transposition: 1) }
        // A folder with a sound's name is not a sound.
        try FileManager.default.createDirectory(atPath: root.file("dir.wav"), withIntermediateDirectories: true)
        #expect(throws: SoundSourceError.self) { try library.sound(path: "dir.wav", sampleRate: 48000, transposition: 1) }
    }

    @Test("conversions are cached per rate and transposition, and shared across threads; a file written again is read again")
    func caching() async throws {
        let root = TempFolder()
        defer { root.cleanup() }
        let source = sine(frequency: 300, rate: 44100, frames: 4410, amplitude: 0.5, channels: 2)
        try SoundFileWriter.write(source, channels: 2, sampleRate: 44100, to: root.file("s.wav"), sampleFormat: .float32)
        let library = SoundLibrary(patternFolder: root.path)
        let first = try library.sound(path: "s.wav", sampleRate: 48000, transposition: 1)
        #expect(first.frames == 4800)
        #expect(first.channels == 2)
        #expect(library.decodeCount == 1)
        let direct = try Resampler.convert(SoundFileReader.read(root.file("s.wav")), to: 48000, transposition: 2)
        let results = try await withThrowingTaskGroup(of: SoundBuffer.self) { group in
            for i in 0 ..< 16 {
                group.addTask { try library.sound(path: "s.wav", sampleRate: 48000, transposition: i % 2 == 0 ? 1 : 2) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { $0 == first }.count == 8)
        #expect(results.filter { $0 == direct }.count == 8)
        #expect(library.decodeCount == 1, "16 requests from 16 tasks: the file decoded once")
        let cached = library.cachedBytes

        // Written again in place (the same inode, as an editor's save does): the new sound, the old one forgotten.
        let identity = try #require(FileIdentity(path: root.file("s.wav")))
        try SoundFileWriter.write([0.25], channels: 1, sampleRate: 44100, to: root.file("t.wav"))
        let bytes = try Data(contentsOf: URL(fileURLWithPath: root.file("t.wav")))
        let handle = try #require(FileHandle(forWritingAtPath: root.file("s.wav")))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: bytes)
        try handle.close()
        #expect(FileIdentity(path: root.file("s.wav")) == identity, "written in place")
        #expect(try library.sound(path: "s.wav", sampleRate: 44100, transposition: 1).samples == [0.25])
        #expect(library.decodeCount == 2)
        #expect(library.cachedBytes < cached, "the old version's decode and conversions forgotten")

        // Replaced by another file (a rename over it): read again.
        try FileManager.default.removeItem(atPath: root.file("t.wav"))
        try SoundFileWriter.write([0.5], channels: 1, sampleRate: 44100, to: root.file("t.wav"))
        #expect(rename(root.file("t.wav"), root.file("s.wav")) == 0)
        #expect(try library.sound(path: "s.wav", sampleRate: 44100, transposition: 1).samples == [0.5])
        #expect(library.decodeCount == 3)

        // Gone: an error naming it, not the cached sound.
        try FileManager.default.removeItem(atPath: root.file("s.wav"))
        #expect(throws: SoundSourceError.self) { try library.sound(path: "s.wav", sampleRate: 44100, transposition: 1) }
    }

    @Test(
        "every sound of the shared corpus reads, with the length and rate sox reports",
        .enabled(if: Corpus.audioFolder != nil, "corpus sounds not found (../shared/corpus/audio or $HAPTICSYNTH_CORPUS)"))
    func corpus() throws {
        let corpus = try #require(Corpus.audioFolder).path
        let files = FileManager.default.enumerator(atPath: corpus)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".wav") }
        #expect(!files.isEmpty)
        let soxi = which("soxi")
        let library = SoundLibrary(patternFolder: corpus)
        for file in files {
            let path = corpus + "/" + file
            let sound = try SoundFileReader.read(path)
            #expect(sound.frames > 0, "\(file)")
            #expect(sound.samples.allSatisfy { $0 >= -1 && $0 <= 1 }, "\(file)")
            if let soxi {
                let frames = try run(soxi, ["-s", path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
                let rate = try run(soxi, ["-r", path]).output.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(String(sound.frames) == frames, "\(file)")
                #expect(String(Int(sound.sampleRate)) == rate, "\(file)")
            }
            let converted = try library.sound(path: file, sampleRate: 48000, transposition: 1)
            #expect(abs(Double(converted.frames) - Double(sound.frames) * 48000 / sound.sampleRate) <= 1, "\(file)")
        }
    }
}
