// Decoding ahead on another thread hands over exactly what reading on the caller's thread does.

import Foundation
import HapticSoundFile
import Testing

@Suite("SoundFileStream: decoding ahead on a thread of its own")
struct DecodeAheadTests {
    @Test("the same mono blocks as readMono, in order, for the mix, a channel and a range", arguments: [
        (nil, 0, 50_000), (2, 0, 50_000), (nil, 1_234, 41_000),
    ] as [(Int?, Int, Int)])
    func sameBlocks(channel: Int?, first: Int, end: Int) throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        var samples = sine(frequency: 110, rate: 48000, frames: 50_000, amplitude: 0.5, channels: 2)
        for i in stride(from: 1, to: samples.count, by: 2) { samples[i] *= -0.25 }  // the channels differ
        try SoundFileWriter.write(samples, channels: 2, sampleRate: 48000, to: folder.file("s.wav"), sampleFormat: .float32)
        var direct: [[Float]] = []
        try SoundFileStream(path: folder.file("s.wav")).readMono(from: first, to: end, channel: channel) { direct.append($0) }
        var ahead: [[Float]] = []
        try SoundFileStream(path: folder.file("s.wav")).readMonoDecodingAhead(from: first, to: end, channel: channel) { ahead.append($0) }
        #expect(direct.count > 8)  // more blocks than the queue holds
        #expect(ahead == direct)
        #expect(ahead.reduce(0) { $0 + $1.count } == end - first)
    }

    @Test("an error comes after every block before it, as from readMono")
    func errorAfterTheBlocksBeforeIt() throws {
        let folder = TempFolder()
        defer { folder.cleanup() }
        var samples = sine(frequency: 110, rate: 48000, frames: 30_000, amplitude: 0.5)
        samples[20_000] = .nan
        try SoundFileWriter.write(samples, channels: 1, sampleRate: 48000, to: folder.file("nan.wav"), sampleFormat: .float32)
        func read(ahead: Bool) -> (frames: Int, error: String?) {
            var frames = 0
            do {
                let stream = try SoundFileStream(path: folder.file("nan.wav"))
                if ahead {
                    try stream.readMonoDecodingAhead(from: 0, to: 30_000, channel: nil) { frames += $0.count }
                } else {
                    try stream.readMono(from: 0, to: 30_000, channel: nil) { frames += $0.count }
                }
                return (frames, nil)
            } catch {
                return (frames, "\(error)")
            }
        }
        let direct = read(ahead: false), ahead = read(ahead: true)
        #expect(direct.error?.contains("NaN") == true)
        #expect(ahead.frames == direct.frames)
        #expect(ahead.error == direct.error)
    }
}
