// A waveform reduced to columns and drawn as a band: exact at any length (each column shows
// the smallest and largest sample in it), one path however many columns.

extension Canvas {
    /// Adds per-column extents as sub-paths of the current path: each run of columns that hold
    /// sound (not both 0: silence draws nothing) becomes one closed shape, the maxima left to
    /// right and the minima back. A column under 1.8 units thick is widened to that around
    /// its middle, so a quiet stretch or a single cycle stays visible as a line.
    func addWaveformBand(left: Double, minimum: [Float], maximum: [Float], y: (Float) -> Double) {
        let columns = min(minimum.count, maximum.count)
        var c = 0
        while c < columns {
            guard minimum[c] != 0 || maximum[c] != 0 else {
                c += 1
                continue
            }
            var end = c
            while end + 1 < columns && (minimum[end + 1] != 0 || maximum[end + 1] != 0) { end += 1 }
            let edges = (c...end).map { k -> (top: Double, bottom: Double) in
                let top = y(maximum[k]), bottom = y(minimum[k])
                let middle = (top + bottom) / 2
                return bottom - top < 1.8 ? (middle - 0.9, middle + 0.9) : (top, bottom)
            }
            move(left + Double(c), edges[0].top)
            for (i, e) in edges.enumerated() { line(left + Double(c + i) + 0.5, e.top) }
            line(left + Double(end + 1), edges[edges.count - 1].top)
            line(left + Double(end + 1), edges[edges.count - 1].bottom)
            for (i, e) in edges.enumerated().reversed() { line(left + Double(c + i) + 0.5, e.bottom) }
            line(left + Double(c), edges[0].bottom)
            close()
            c = end + 1
        }
    }
}

/// The smallest and largest sample of channel `channel` (of `stride` interleaved) in each
/// column, the columns given by their first frames and the last one's end; 0 and 0 for a
/// column with no frames.
func columnExtents(
    _ samples: UnsafeBufferPointer<Float>, channel: Int, stride: Int, boundaries: [Int]
) -> (minimum: [Float], maximum: [Float]) {
    let frames = samples.count / max(1, stride)
    let columns = boundaries.count - 1
    var minimum = [Float](repeating: 0, count: max(0, columns)), maximum = minimum
    for column in 0..<max(0, columns) {
        let lo = min(frames, boundaries[column]), hi = min(frames, boundaries[column + 1])
        guard lo < hi else { continue }
        var low = Float.infinity, high = -Float.infinity
        for f in lo..<hi {
            let v = samples[f * stride + channel]
            low = min(low, v)
            high = max(high, v)
        }
        minimum[column] = low
        maximum[column] = high
    }
    return (minimum, maximum)
}
