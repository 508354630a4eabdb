// A sound's waveform and envelope for the page: the channels' mix in columns (at most
// `maxColumns`, about 5 ms each for a short sound), each its lowest and highest sample and its
// RMS. Read a block at a time, so a long sound takes the memory of the columns.

import Foundation
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
        // A column's part of the block at a time (no division per sample: 60 s of sound is
        // about 3 million samples, on the page's opening path).
        try stream.readMono(from: 0, to: frames, channel: nil) { block in
            block.withUnsafeBufferPointer { samples in
                var i = 0
                while i < samples.count {
                    let column = min(frame / perColumn, columns - 1)
                    let count = min(samples.count - i, (column + 1) * perColumn - frame)
                    var (lo, hi, sum) = (low[column], high[column], Float(0))
                    for x in samples[i..<(i + max(1, count))] {
                        let v = x.isFinite ? x : 0
                        lo = min(lo, v)
                        hi = max(hi, v)
                        sum += v * v
                    }
                    (low[column], high[column]) = (lo, hi)
                    squares[column] += Double(sum)
                    i += max(1, count)
                    frame += max(1, count)
                }
            }
        }
        let rms = squares.map { Float(($0 / Double(perColumn)).squareRoot()) }
        // Four decimals (a 10,000th of full scale, finer than a pixel): the JSON the page waits for
        // on opening a sound is then a third shorter (243 → 166 KB for 60 s).
        func shown(_ x: Float) -> Float { (x * 10_000).rounded() / 10_000 }
        return WaveformView(bucketSeconds: Double(perColumn) / rate, min: low.map(shown), max: high.map(shown), rms: rms.map(shown))
    }

    /// The view as the API's JSON, written here rather than by JSONEncoder: its 36,000 numbers
    /// for a minute of sound took JSONEncoder about 50 ms on the page's opening path, this about 1.
    /// The same numbers (four decimals); a value past what is drawn is written as Swift prints it,
    /// and one that is not finite (a float file's overflow) as the largest Float, as JSON has no
    /// infinity.
    static func json(_ view: WaveformView) -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(16 + 8 * (view.min.count + view.max.count + view.rms.count))
        func append(_ text: String) { out.append(contentsOf: text.utf8) }
        func number(_ value: Float) {
            let x = value.isFinite ? value : (value < 0 ? -Float.greatestFiniteMagnitude : .greatestFiniteMagnitude)
            guard abs(x) < 1e9 else { return append("\(x)") }
            let scaled = Int64((Double(x) * 10_000).rounded())
            if scaled < 0 { out.append(UInt8(ascii: "-")) }
            let magnitude = scaled.magnitude
            append(String(magnitude / 10_000))
            var fraction = magnitude % 10_000
            guard fraction != 0 else { return }
            out.append(UInt8(ascii: "."))
            var divisor: UInt64 = 1_000
            while fraction != 0 {
                out.append(UInt8(ascii: "0") + UInt8(fraction / divisor))
                fraction %= divisor
                divisor /= 10
            }
        }
        func array(_ key: String, _ values: [Float]) {
            append(",\"\(key)\":[")
            for (i, value) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                number(value)
            }
            out.append(UInt8(ascii: "]"))
        }
        append("{\"bucketSeconds\":\(view.bucketSeconds.isFinite ? view.bucketSeconds : 0)")
        array("min", view.min)
        array("max", view.max)
        array("rms", view.rms)
        out.append(UInt8(ascii: "}"))
        return Data(out)
    }
}
