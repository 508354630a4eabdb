// A sound (the source of a converted haptic): its waveform per channel, each column's
// extent, and its envelope.

import HapticRender

/// The sound panel (see the file's comment).
public struct SoundPanel: PlotPanel {
    public let sound: SoundBuffer
    /// The sound's envelope (0...1), drawn above and below each lane's zero line.
    public var envelope: TimeSeries?
    public var title: String

    public init(sound: SoundBuffer, title: String, envelope: TimeSeries? = nil) {
        self.sound = sound
        self.title = title
        self.envelope = envelope
    }

    public var weight: Double { sound.channels > 1 ? 1.1 : 0.8 }

    public var extent: ClosedRange<Double> { 0...max(1e-3, Double(sound.frames) / max(1, sound.sampleRate)) }

    public func legend(_ theme: PlotTheme) -> [LegendEntry] {
        var entries = [LegendEntry("waveform", .area(theme.soundWaveform.with(alpha: 0.8)))]
        if envelope != nil { entries.append(LegendEntry("envelope", .line(theme.soundEnvelope))) }
        return entries
    }

    public func draw(in frame: PanelFrame, on canvas: Canvas, theme: PlotTheme) {
        let scale = frame.scale
        let channels = max(1, min(8, sound.channels))
        let lanes = frame.lanes(channels)
        let y = { (lane: Rect, v: Float) in lane.midY - Double(max(-1, min(1, v))) * lane.height / 2 }
        for (c, lane) in lanes.enumerated() {
            frame.horizontalGrid(lane, low: -1, high: 1, values: [-1, 0, 1], on: canvas, theme: theme)
            frame.leftAxis(lane, low: -1, high: 1, ticks: [-1, 0, 1], label: channels == 1 ? "mono" : "ch \(c + 1)", on: canvas, theme: theme)
        }
        canvas.save()
        canvas.clip(to: frame.bounds)
        let boundaries = scale.frameBoundaries(sampleRate: sound.sampleRate)
        let frames = sound.frames
        let stride = sound.channels
        let first = boundaries[0], last = boundaries[scale.columns]
        if Double(last - first) < 2 * Double(scale.columns) {
            // Zoomed in past one frame per column: the samples themselves.
            for (c, lane) in lanes.enumerated() {
                let lo = max(0, first - 1), hi = min(frames, last + 1)
                guard lo < hi else { continue }
                for f in lo..<hi {
                    let point = (scale.x(Double(f) / sound.sampleRate), y(lane, sound.samples[f * stride + c]))
                    if f == lo { canvas.move(point.0, point.1) } else { canvas.line(point.0, point.1) }
                }
            }
            if canvas.hasPath { canvas.stroke(theme.soundWaveform, width: 1.5) }
        } else {
            sound.samples.withUnsafeBufferPointer { samples in
                for (c, lane) in lanes.enumerated() {
                    let extents = columnExtents(samples, channel: c, stride: stride, boundaries: boundaries)
                    canvas.addWaveformBand(left: scale.left, minimum: extents.minimum, maximum: extents.maximum) { y(lane, $0) }
                }
            }
            if canvas.hasPath { canvas.fill(theme.soundWaveform.with(alpha: 0.8)) }
        }
        if let envelope {
            let values = envelope.columnMaxima(scale)
            for lane in lanes {
                for sign: Float in [1, -1] {
                    var drawing = false
                    for (c, v) in values.enumerated() {
                        guard let v else {
                            drawing = false
                            continue
                        }
                        let point = (scale.left + Double(c) + 0.5, y(lane, sign * Float(v)))
                        if drawing { canvas.line(point.0, point.1) } else { canvas.move(point.0, point.1) }
                        drawing = true
                    }
                }
            }
            if canvas.hasPath { canvas.stroke(theme.soundEnvelope, width: 1.5) }
        }
        canvas.restore()
    }
}

extension TimeSeries {
    /// The sound's Hilbert envelope (HapticRender's, the drive panel's), the largest over its
    /// channels; nil for a sound longer than the drive's envelope limit (one transform of it).
    public static func envelope(of buffer: SoundBuffer) -> TimeSeries? {
        let frames = buffer.frames, channels = buffer.channels
        guard frames > 0, frames <= DriveTrace.envelopeFrameLimit else { return nil }
        var largest = [Double](repeating: 0, count: frames)
        for c in 0..<channels {
            // A non-finite sample (a float file can hold one) counts as silence here.
            let channel = (0..<frames).map { i -> Float in
                let v = buffer.samples[i * channels + c]
                return v.isFinite ? v : 0
            }
            for (i, v) in hilbertEnvelope(channel).prefix(frames).enumerated() { largest[i] = max(largest[i], v) }
        }
        return TimeSeries(start: 0, step: 1 / buffer.sampleRate, values: largest)
    }
}
