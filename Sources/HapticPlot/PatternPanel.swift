// The pattern as a designer wrote it and the voice plays it: continuous events as an area
// (intensity, envelopes and curves included) coloured by sharpness, with a sharpness line;
// transients as stems (height intensity, colour sharpness); audio events as named bars.
// Every value comes from `PatternTrace`, i.e. from the renderer's own evaluation.

import HapticPattern
import HapticRender

/// A series sampled at a fixed step, for overlays (a sound's envelope behind its haptic).
public struct TimeSeries: Sendable, Equatable {
    /// Time of `values[0]` and the step between values, in seconds.
    public var start: Double
    public var step: Double
    public var values: [Double]

    public init(start: Double, step: Double, values: [Double]) {
        self.start = start
        self.step = step
        self.values = values
    }

    /// The largest value in each column of `scale` (nil where the series has none); a column
    /// narrower than the step takes the value interpolated at its centre.
    func columnMaxima(_ scale: TimeScale) -> [Double?] {
        guard step > 0, !values.isEmpty else { return Array(repeating: nil, count: scale.columns) }
        return (0..<scale.columns).map { c in
            let t0 = scale.time(ofColumn: c), t1 = scale.time(ofColumn: c + 1)
            // Clamped before conversion: a column far outside the series (a time range a file
            // chose) must not trap; NaN (an infinite range) gives no index.
            let last = Double(values.count - 1)
            let u0 = ((t0 - start) / step).rounded(.up), u1 = ((t1 - start) / step).rounded(.down)
            guard !u0.isNaN, !u1.isNaN else { return nil }
            let i0 = Int(min(max(0, u0), last + 1))
            let i1 = Int(max(-1, min(last, u1)))
            if i0 <= i1 { return values[i0...i1].max() }
            let x = ((t0 + t1) / 2 - start) / step
            guard x >= 0, x <= Double(values.count - 1) else { return nil }
            let i = min(values.count - 2, Int(x))
            if values.count == 1 { return values[0] }
            return values[i] + (values[i + 1] - values[i]) * (x - Double(i))
        }
    }
}

/// The pattern panel (see the file's comment).
public struct PatternPanel: PlotPanel {
    public let trace: PatternTrace
    /// The pattern's elements, for the audio events' names.
    public let elements: [PatternElement]
    /// A sound's envelope (0...1) drawn behind the haptic, on the intensity axis.
    public var soundEnvelope: TimeSeries?
    public var title: String

    public init(trace: PatternTrace, elements: [PatternElement], title: String = "pattern", soundEnvelope: TimeSeries? = nil) {
        self.trace = trace
        self.elements = elements
        self.title = title
        self.soundEnvelope = soundEnvelope
    }

    public var weight: Double { 1 }

    public var extent: ClosedRange<Double> { 0...max(1e-3, trace.pattern.duration) }

    public func legend(_ theme: PlotTheme) -> [LegendEntry] {
        var entries: [LegendEntry] = []
        if soundEnvelope != nil { entries.append(LegendEntry("sound envelope", .line(theme.soundEnvelope))) }
        if !trace.continuous.isEmpty {
            entries.append(LegendEntry("continuous (colour: sharpness)", .sharpness))
            entries.append(LegendEntry("sharpness", .dashed(theme.foreground)))
        }
        if !trace.transients.isEmpty { entries.append(LegendEntry("transients", .sharpness)) }
        if !trace.audio.isEmpty { entries.append(LegendEntry("audio events", .area(theme.audioBar.with(alpha: 0.35)))) }
        return entries
    }

    public func draw(in frame: PanelFrame, on canvas: Canvas, theme: PlotTheme) {
        let a = frame.area
        let scale = frame.scale
        let audioLaneHeight = trace.audio.isEmpty ? 0 : min(44, (a.height * 0.22).rounded())
        let lane = Rect(x: a.x, y: a.y + audioLaneHeight + (audioLaneHeight > 0 ? 6 : 0), width: a.width,
                        height: a.height - audioLaneHeight - (audioLaneHeight > 0 ? 6 : 0) - 4)
        let y = { (v: Double) in lane.maxY - min(1, max(0, v)) * lane.height }
        let grid = [0, 0.25, 0.5, 0.75, 1.0]
        frame.horizontalGrid(lane, low: 0, high: 1, values: grid, on: canvas, theme: theme)
        frame.leftAxis(lane, low: 0, high: 1, ticks: [0, 0.5, 1], label: "intensity", on: canvas, theme: theme)
        drawSharpnessAxis(lane, canvas, theme)
        canvas.save()
        canvas.clip(to: Rect(x: frame.bounds.x, y: a.y - 4, width: frame.bounds.width, height: a.height + 4))
        if let soundEnvelope { drawColumns(soundEnvelope.columnMaxima(scale), scale, y, canvas, theme.soundEnvelope, width: 1.5) }
        drawContinuous(scale, y, lane, canvas, theme)
        drawTransients(scale, y, lane, canvas, theme)
        if audioLaneHeight > 0 {
            drawAudio(Rect(x: a.x, y: a.y + 2, width: a.width, height: audioLaneHeight - 2), scale, canvas, theme)
        }
        canvas.restore()
    }

    /// The right axis: the sharpness scale as a colour bar, 0 at the bottom, 1 at the top.
    func drawSharpnessAxis(_ lane: Rect, _ canvas: Canvas, _ theme: PlotTheme) {
        let bar = Rect(x: lane.maxX + 8, y: lane.y, width: 8, height: lane.height)
        let rows = max(2, Int(bar.height))
        canvas.rectangle(bar)
        canvas.fill(ColourStrip(x: bar.x, y: bar.y, vertical: true, colours: (0..<rows).map {
            theme.sharpness(1 - Double($0) / Double(rows - 1))
        }))
        canvas.font(size: 11)
        for v in [0.0, 0.5, 1.0] {
            canvas.text(formatFixed(v, decimals: 1), bar.maxX + 4, bar.maxY - v * bar.height + 4, theme.muted)
        }
        canvas.verticalText("sharpness", bar.maxX + 40, lane.midY, theme.muted)
    }

    /// A polyline through per-column values (gaps where nil), one path.
    func drawColumns(_ values: [Double?], _ scale: TimeScale, _ y: (Double) -> Double, _ canvas: Canvas, _ colour: PlotColour,
                     width: Double, dash: [Double] = []) {
        var drawing = false
        for (c, v) in values.enumerated() {
            guard let v else {
                drawing = false
                continue
            }
            let x = scale.left + Double(c) + 0.5
            if drawing { canvas.line(x, y(v)) } else { canvas.move(x, y(v)) }
            drawing = true
        }
        if canvas.hasPath { canvas.stroke(colour, width: width, dash: dash) }
    }

    /// Continuous events: one area (every event a sub-path; overlaps merge), filled by
    /// column with the intensity-weighted sharpness of what sounds there, its outline, and
    /// the sharpness line.
    func drawContinuous(_ scale: TimeScale, _ y: (Double) -> Double, _ lane: Rect, _ canvas: Canvas, _ theme: PlotTheme) {
        guard !trace.continuous.isEmpty else { return }
        // Per column: Σ intensity·sharpness, Σ intensity, Σ sharpness and the events sounding.
        var weighted = [Double](repeating: 0, count: scale.columns)
        var weights = [Double](repeating: 0, count: scale.columns)
        var plain = [Double](repeating: 0, count: scale.columns)
        var sounding = [Int](repeating: 0, count: scale.columns)
        var outline: [[(x: Double, y: Double)]] = []
        for (index, event) in trace.continuous.enumerated() {
            guard event.end > scale.from, event.start < scale.to else { continue }
            let first = max(0, scale.column(of: event.start)), last = min(scale.columns - 1, scale.column(of: event.end))
            guard first <= last else { continue }
            // The level at its breakpoints and at every column centre it covers.
            var times = trace.breakpoints(ofContinuous: index).filter { $0 >= scale.from && $0 <= scale.to }
            for c in first...last {
                let t = scale.time(ofColumn: c) + scale.secondsPerColumn / 2
                guard t > event.start, t < event.end else { continue }
                let level = trace.level(ofContinuous: index, at: t)
                weighted[c] += level.intensity * level.sharpness
                weights[c] += level.intensity
                plain[c] += level.sharpness
                sounding[c] += 1
                times.append(t)
            }
            times.sort()
            var points: [(x: Double, y: Double)] = []
            for t in times {
                points.append((scale.x(t), y(trace.level(ofContinuous: index, at: t).intensity)))
            }
            guard let firstPoint = points.first, let lastPoint = points.last else { continue }
            points.insert((firstPoint.x, lane.maxY), at: 0)
            points.append((lastPoint.x, lane.maxY))
            outline.append(points)
        }
        // The intensity-weighted sharpness (a plain mean where all sounding are at 0).
        let sharpness = (0..<scale.columns).map { c -> Double? in
            sounding[c] == 0 ? nil : weights[c] > 0 ? weighted[c] / weights[c] : plain[c] / Double(sounding[c])
        }
        let colours = sharpness.map { $0.map { theme.sharpness($0).with(alpha: 0.78) } ?? PlotColour(0, alpha: 0) }
        for points in outline {
            canvas.move(points[0].x, points[0].y)
            for p in points.dropFirst() { canvas.line(p.x, p.y) }
            canvas.close()
        }
        if canvas.hasPath { canvas.fill(ColourStrip(x: scale.left, colours: colours)) }
        for points in outline {
            canvas.move(points[1].x, points[1].y)
            for p in points.dropFirst(2).dropLast() { canvas.line(p.x, p.y) }
        }
        if canvas.hasPath { canvas.stroke(theme.foreground.with(alpha: 0.3), width: 0.8) }
        drawColumns(sharpness, scale, y, canvas, theme.foreground.with(alpha: 0.8), width: 1.2, dash: [5, 3])
    }

    /// Transients: stems with a head, one path, filled by column with the sharpness of the
    /// tallest stem there. Of several transients in one column only the tallest is drawn (the
    /// others would lie under it), so the path never holds more stems than there are columns.
    func drawTransients(_ scale: TimeScale, _ y: (Double) -> Double, _ lane: Rect, _ canvas: Canvas, _ theme: PlotTheme) {
        guard !trace.transients.isEmpty else { return }
        var tallestInColumn = [PatternTrace.Transient?](repeating: nil, count: scale.columns)
        for t in trace.transients where t.time >= scale.from && t.time <= scale.to {
            let c = min(scale.columns - 1, max(0, scale.column(of: t.time)))
            if t.intensity > tallestInColumn[c]?.intensity ?? -1 { tallestInColumn[c] = t }
        }
        var tallest = [Double](repeating: -1, count: scale.columns)
        var colours = [PlotColour](repeating: PlotColour(0, alpha: 0), count: scale.columns)
        let half = 1.0, head = 3.0
        func addStems() {
            for case let t? in tallestInColumn {
                let x = scale.x(t.time), top = y(t.intensity)
                canvas.rectangle(Rect(x: x - half, y: top, width: 2 * half, height: lane.maxY - top))
                canvas.circle(x, top, radius: head)
            }
        }
        // An outline in the background's colour first, so that a stem shows over an area of
        // its own colour (a sharp transient over a sharp continuous event).
        addStems()
        if canvas.hasPath { canvas.stroke(theme.panelBackground, width: 4) }
        addStems()
        for case let t? in tallestInColumn {
            let x = scale.x(t.time)
            let c0 = max(0, Int((x - head - scale.left).rounded(.down))), c1 = min(scale.columns - 1, Int((x + head - scale.left).rounded(.down)))
            guard c0 <= c1 else { continue }
            for c in c0...c1 where t.intensity > tallest[c] {
                tallest[c] = t.intensity
                colours[c] = theme.sharpness(t.sharpness)
            }
        }
        if canvas.hasPath { canvas.fill(ColourStrip(x: scale.left, colours: colours)) }
    }

    /// Audio events: bars in their own lane, named after their sound (or "AudioContinuous").
    func drawAudio(_ lane: Rect, _ scale: TimeScale, _ canvas: Canvas, _ theme: PlotTheme) {
        let rows = 2
        let rowHeight = (lane.height - 2) / Double(rows)
        var rowEnds = [Double](repeating: -.infinity, count: rows)
        var bars: [(rect: Rect, name: String, playable: Bool)] = []
        for event in trace.audio where event.end >= scale.from && event.start <= scale.to {
            let x0 = max(lane.x, scale.x(event.start)), x1 = min(lane.maxX, max(scale.x(event.end), scale.x(event.start) + 2))
            let row = rowEnds.firstIndex { $0 <= x0 } ?? (rowEnds.indices.min { rowEnds[$0] < rowEnds[$1] } ?? 0)
            rowEnds[row] = x1 + 2
            let rect = Rect(x: x0, y: lane.y + Double(row) * (rowHeight + 2), width: x1 - x0, height: rowHeight)
            bars.append((rect, audioName(event), event.playable))
        }
        for bar in bars where bar.playable { canvas.rectangle(bar.rect) }
        if canvas.hasPath { canvas.fill(theme.audioBar.with(alpha: 0.35)) }
        for bar in bars where !bar.playable { canvas.rectangle(bar.rect) }
        if canvas.hasPath { canvas.stroke(theme.audioBar, width: 1, dash: [3, 2], butt: true) }
        canvas.font(size: 10)
        for bar in bars where bar.rect.width > 24 {
            canvas.save()
            canvas.clip(to: bar.rect)
            canvas.text(bar.name + (bar.playable ? "" : " (not found)"), bar.rect.x + 3, bar.rect.maxY - 5, theme.foreground)
            canvas.restore()
        }
    }

    func audioName(_ event: PatternTrace.Audio) -> String {
        guard event.element < elements.count, case .event(let e) = elements[event.element] else { return "audio" }
        if let path = e.waveformPath { return path.split(separator: "/").last.map(String.init) ?? path }
        return e.type.rawValue
    }
}
