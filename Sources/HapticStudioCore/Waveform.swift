// A sound's waveform and envelope for the page: the channels' mix in columns (at most
// `maxColumns`, about 5 ms each for a short sound), each its lowest and highest sample and its
// RMS. Read a block at a time, so a long sound takes the memory of the columns.

import HapticKit

enum Waveform {
    static let maxColumns = 20_000
    static let columnsPerSecond = 200.0

    static func read(_ path: String) throws(SoundFileError) -> WaveformView {
        let stream = try SoundFileStream(path: path)
        let frames = stream.info.frames
        let rate = Double(stream.info.sampleRate)
        guard frames > 0, rate > 0 else { return WaveformView(bucketSeconds: 0.005, min: [], max: [], rms: []) }
        let wanted = Int(min(Double(maxColumns), max(1, (Double(frames) / rate * columnsPerSecond).rounded(.up))))
        let perColumn = max(1, (frames + wanted - 1) / wanted)
        let columns = (frames + perColumn - 1) / perColumn
        var low = [Float](repeating: 0, count: columns)
        var high = [Float](repeating: 0, count: columns)
        var squares = [Double](repeating: 0, count: columns)
        var frame = 0
        try stream.readMono(from: 0, to: frames, channel: nil) { block in
            for x in block {
                let column = min(frame / perColumn, columns - 1)
                let v = x.isFinite ? x : 0
                low[column] = min(low[column], v)
                high[column] = max(high[column], v)
                squares[column] += Double(v) * Double(v)
                frame += 1
            }
        }
        let rms = squares.map { Float(($0 / Double(perColumn)).squareRoot()) }
        return WaveformView(bucketSeconds: Double(perColumn) / rate, min: low, max: high, rms: rms)
    }
}
