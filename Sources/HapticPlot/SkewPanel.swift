// A rhythm session's timing: per beat, the skew between its sound and its haptic that the
// cue's alignment plans, the skew in samples that was played, and the felt skew (each part's
// half-envelope), all in ms over the beat's time.

/// One beat's skews (audio minus haptic, ms; nil where not measured).
public struct BeatSkew: Sendable, Equatable {
    /// The beat's time in the session (seconds from its origin).
    public var time: Double
    public var planned: Double?
    public var sample: Double?
    public var felt: Double?

    public init(time: Double, planned: Double?, sample: Double?, felt: Double?) {
        self.time = time
        self.planned = planned
        self.sample = sample
        self.felt = felt
    }
}

/// The skew panel (see the file's comment).
public struct SkewPanel: PlotPanel {
    public let beats: [BeatSkew]
    public var title: String

    public init(beats: [BeatSkew], title: String = "rhythm: skew audio − haptic") {
        self.beats = beats
        self.title = title
    }

    public var weight: Double { 1 }

    public var extent: ClosedRange<Double> {
        guard let first = beats.first?.time, let last = beats.last?.time else { return 0...1 }
        let spacing = beats.count > 1 ? (last - first) / Double(beats.count - 1) : 0.5
        return min(0, first)...(last + max(0.05, spacing))
    }

    public func legend(_ theme: PlotTheme) -> [LegendEntry] {
        [LegendEntry("planned", .dashed(theme.plannedSkew)), LegendEntry("sample", .dot(theme.sampleSkew)),
         LegendEntry("felt (half envelopes)", .dot(theme.feltSkew))]
    }

    public func draw(in frame: PanelFrame, on canvas: Canvas, theme: PlotTheme) {
        let a = frame.area
        let scale = frame.scale
        let values = beats.flatMap { [$0.planned, $0.sample, $0.felt] }.compactMap { $0 }.filter(\.isFinite)
        let extreme = max(0.5, values.map(abs).max() ?? 0)
        let ticks = Ticks(low: -extreme, high: extreme, count: 4)
        let limit = ticks.step * (extreme / ticks.step).rounded(.up)
        let y = { (v: Double) in a.midY - max(-limit, min(limit, v)) / limit * (a.height / 2 - 6) }
        let lane = Rect(x: a.x, y: y(limit), width: a.width, height: y(-limit) - y(limit))
        let grid = Ticks(low: -limit, high: limit, count: 4).values
        frame.horizontalGrid(lane, low: -limit, high: limit, values: grid, on: canvas, theme: theme)
        frame.leftAxis(lane, low: -limit, high: limit, ticks: grid, label: "skew (ms)", on: canvas, theme: theme) {
            Ticks(low: -limit, high: limit, count: 4).label($0)
        }
        canvas.save()
        canvas.clip(to: frame.bounds)
        // Planned: a step line through the beats.
        var drawing = false
        for (i, beat) in beats.enumerated() {
            guard let planned = beat.planned, planned.isFinite else {
                drawing = false
                continue
            }
            let next = i + 1 < beats.count ? beats[i + 1].time : beat.time + (extent.upperBound - beat.time)
            if drawing { canvas.line(scale.x(beat.time), y(planned)) } else { canvas.move(scale.x(beat.time), y(planned)) }
            canvas.line(scale.x(next), y(planned))
            drawing = true
        }
        if canvas.hasPath { canvas.stroke(theme.plannedSkew, width: 1.5, dash: [6, 4], butt: true) }
        for beat in beats {
            guard let v = beat.sample, v.isFinite else { continue }
            canvas.circle(scale.x(beat.time), y(v), radius: 3)
        }
        if canvas.hasPath { canvas.fill(theme.sampleSkew) }
        for beat in beats {
            guard let v = beat.felt, v.isFinite else { continue }
            canvas.circle(scale.x(beat.time), y(v), radius: 3.5)
        }
        if canvas.hasPath { canvas.stroke(theme.feltSkew, width: 1.8) }
        canvas.restore()
    }
}
