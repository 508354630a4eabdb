// The render for a profile: per output channel its drive waveform (the extent of each column,
// so a long file stays exact), the haptic envelope, the ceiling, the limiters' gain reduction
// where they act, and each transient's felt onset against its event time (`DriveTrace`).

import HapticRender

/// The drive panel (see the file's comment).
public struct DrivePanel: PlotPanel {
    public let pattern: PreparedPattern
    public let layout: ChannelLayout?
    public let trace: PatternTrace
    public var title: String
    /// The drive, once computed for a scale (`prepared(for:)`).
    public private(set) var drive: DriveTrace?

    public init(pattern: PreparedPattern, layout: ChannelLayout? = nil, trace: PatternTrace? = nil, title: String? = nil) {
        self.pattern = pattern
        self.layout = layout
        self.trace = trace ?? PatternTrace(pattern)
        self.title = title ?? "drive · \(pattern.profile.name)"
    }

    var drawnChannels: Int {
        (layout ?? pattern.defaultLayout).sources.filter { if case .silence = $0 { return false } else { return true } }.count
    }

    public var weight: Double { max(1, Double(drawnChannels) * 0.6) }

    /// The pattern's length (the ring-out after it shows when `--to` reaches past it).
    public var extent: ClosedRange<Double> { 0...max(1e-3, pattern.duration) }

    public func legend(_ theme: PlotTheme) -> [LegendEntry] {
        var entries = [LegendEntry("waveform", .area(theme.waveform.with(alpha: 0.7)))]
        let enveloped = drive.map { $0.channels.contains { $0.envelope != nil } } ?? true
        entries.append(enveloped ? LegendEntry("envelope", .line(theme.envelope))
            : LegendEntry("envelope: plots ≤ \(formatFixed(Double(DriveTrace.envelopeFrameLimit) / pattern.sampleRate, decimals: 1)) s", .line(theme.muted)))
        entries.append(LegendEntry("ceiling", .dashed(theme.ceiling)))
        let reduction = drive.map { max($0.hapticGainReduction.max() ?? 0, $0.audioGainReduction.max() ?? 0) } ?? 1
        entries.append(reduction > Self.acting ? LegendEntry("limiter gain reduction (dB)", .line(theme.gainReduction))
            : LegendEntry("no limiting", .line(theme.muted)))
        let inRange = drive.map { d in trace.transients.contains { $0.time >= d.scale.from && $0.time <= d.scale.to } } ?? !trace.transients.isEmpty
        if inRange {
            let marked = drive.map { !$0.feltOnsets.isEmpty } ?? true
            entries.append(marked ? LegendEntry("event → felt onset", .line(theme.feltOnset))
                : LegendEntry("felt onsets: zoom in", .line(theme.muted)))
        }
        return entries
    }

    public func prepared(for scale: TimeScale) -> any PlotPanel {
        var panel = self
        if drive?.scale != scale { panel.drive = DriveTrace(pattern: pattern, layout: layout, scale: scale, trace: trace) }
        return panel
    }

    public func draw(in frame: PanelFrame, on canvas: Canvas, theme: PlotTheme) {
        let drive = self.drive.flatMap { $0.scale == frame.scale ? $0 : nil }
            ?? DriveTrace(pattern: pattern, layout: layout, scale: frame.scale, trace: trace)
        draw(drive, in: frame, on: canvas, theme: theme)
    }

    func draw(_ drive: DriveTrace, in frame: PanelFrame, on canvas: Canvas, theme: PlotTheme) {
        let scale = frame.scale
        let lanes = frame.lanes(drive.channels.count)
        let y = { (lane: Rect, v: Float) in lane.midY - Double(max(-1.05, min(1.05, v))) * lane.height / 2 }
        for (lane, channel) in zip(lanes, drive.channels) {
            frame.horizontalGrid(lane, low: -1, high: 1, values: [-1, -0.5, 0, 0.5, 1], on: canvas, theme: theme)
            frame.leftAxis(lane, low: -1, high: 1, ticks: [-1, 0, 1], label: "\(channel.name) (full scale)", on: canvas, theme: theme)
        }
        canvas.save()
        canvas.clip(to: frame.bounds)
        // Ceiling: ±c in every lane, one path.
        for lane in lanes {
            for v in [drive.ceiling, -drive.ceiling] {
                canvas.move(lane.x, y(lane, v))
                canvas.line(lane.maxX, y(lane, v))
            }
        }
        canvas.stroke(theme.ceiling, width: 1, dash: [6, 4], butt: true)
        drawWaveform(drive, lanes, scale, y, canvas, theme)
        drawEnvelope(drive, lanes, scale, y, canvas, theme)
        canvas.restore()
        drawGainReduction(drive, lanes, scale, canvas, theme)
        canvas.save()
        canvas.clip(to: frame.bounds)
        drawFeltOnsets(drive, lanes, scale, canvas, theme)
        canvas.restore()
    }

    /// Every lane's waveform in one path (`addWaveformBand`); in sample mode a line.
    func drawWaveform(_ drive: DriveTrace, _ lanes: [Rect], _ scale: TimeScale, _ y: (Rect, Float) -> Double, _ canvas: Canvas, _ theme: PlotTheme) {
        if drive.channels.first?.samples != nil {
            for (lane, channel) in zip(lanes, drive.channels) {
                guard let samples = channel.samples, !samples.isEmpty else { continue }
                for (i, v) in samples.enumerated() {
                    let x = scale.x(Double(drive.firstFrame + i) / drive.sampleRate)
                    if i == 0 { canvas.move(x, y(lane, v)) } else { canvas.line(x, y(lane, v)) }
                }
            }
            if canvas.hasPath { canvas.stroke(theme.waveform, width: 1.5) }
            return
        }
        for (lane, channel) in zip(lanes, drive.channels) {
            canvas.addWaveformBand(left: scale.left, minimum: channel.minimum, maximum: channel.maximum) { y(lane, $0) }
        }
        if canvas.hasPath { canvas.fill(theme.waveform.with(alpha: 0.7)) }
    }

    /// The haptic envelope, above and (mirrored) below the zero line, one path.
    func drawEnvelope(_ drive: DriveTrace, _ lanes: [Rect], _ scale: TimeScale, _ y: (Rect, Float) -> Double, _ canvas: Canvas, _ theme: PlotTheme) {
        for (lane, channel) in zip(lanes, drive.channels) {
            guard let envelope = channel.envelope else { continue }
            for sign: Float in [1, -1] {
                var drawing = false
                for (c, v) in envelope.enumerated() {
                    guard v > 0 else {
                        drawing = false
                        continue
                    }
                    let x = scale.left + Double(c) + 0.5
                    if drawing { canvas.line(x, y(lane, sign * v)) } else { canvas.move(x, y(lane, sign * v)) }
                    drawing = true
                }
            }
        }
        if canvas.hasPath { canvas.stroke(theme.envelope, width: 1.2) }
    }

    /// Below this (dB) the limiters count as not acting.
    static let acting: Float = 0.01

    /// The limiters' gain reduction where they act (over 0.01 dB), hanging from each lane's top
    /// on a dB scale at the right; one path. Nothing (not even the axis) where they never act.
    func drawGainReduction(_ drive: DriveTrace, _ lanes: [Rect], _ scale: TimeScale, _ canvas: Canvas, _ theme: PlotTheme) {
        let deepest = Double(max(drive.hapticGainReduction.max() ?? 0, drive.audioGainReduction.max() ?? 0))
        guard deepest > Double(Self.acting) else { return }
        let step = Ticks(low: 0, high: deepest, count: 3).step
        let range = deepest <= 3 ? 3 : step * (deepest / step).rounded(.up)
        let acting = Self.acting
        for (lane, channel) in zip(lanes, drive.channels) {
            let reduction = channel.isHaptic ? drive.hapticGainReduction : drive.audioGainReduction
            guard (reduction.max() ?? 0) > acting else { continue }
            // The dB axis at the right of each lane.
            canvas.font(size: 10)
            for v in [0.0, range / 2, range] {
                canvas.text(formatFixed(-v, decimals: range < 10 ? 1 : 0), lane.maxX + 6, lane.y + v / range * lane.height / 2 + 4, theme.gainReduction)
            }
            var drawing = false
            for (c, r) in reduction.enumerated() {
                guard r > acting else {
                    drawing = false
                    continue
                }
                let x = scale.left + Double(c) + 0.5
                let yy = lane.y + min(1, Double(r) / range) * lane.height / 2
                if drawing { canvas.line(x, yy) } else { canvas.move(x, yy) }
                drawing = true
            }
        }
        if canvas.hasPath { canvas.stroke(theme.gainReduction, width: 1.5) }
        canvas.font(size: 11)
        canvas.verticalText("gain reduction (dB)", lanes[0].maxX + 52, (lanes[0].y + lanes[lanes.count - 1].maxY) / 2, theme.muted)
    }

    /// Each transient's event time (a tick at the lane's foot) and its felt onset (a triangle
    /// at the half-envelope time, joined to the tick, with the delay in ms where there is
    /// room), on the haptic lanes.
    func drawFeltOnsets(_ drive: DriveTrace, _ lanes: [Rect], _ scale: TimeScale, _ canvas: Canvas, _ theme: PlotTheme) {
        let hapticLanes = zip(lanes, drive.channels).filter { $0.1.isHaptic }.map(\.0)
        guard !drive.feltOnsets.isEmpty, !hapticLanes.isEmpty else { return }
        for lane in hapticLanes {
            for mark in drive.feltOnsets {
                let x = scale.x(mark.event)
                canvas.move(x, lane.maxY)
                canvas.line(x, lane.maxY - 16)
            }
        }
        canvas.stroke(theme.eventTime, width: 1.5, butt: true)
        for lane in hapticLanes {
            for mark in drive.feltOnsets {
                let x0 = scale.x(mark.event), x1 = scale.x(mark.felt), base = lane.maxY - 8
                canvas.move(x0, base)
                canvas.line(x1, base)
                canvas.move(x1 - 4, lane.maxY - 1)
                canvas.line(x1, lane.maxY - 9)
                canvas.line(x1 + 4, lane.maxY - 1)
                canvas.close()
            }
        }
        canvas.stroke(theme.feltOnset, width: 1.5)
        // The delay, after the mark where the next one leaves room for it (before its tick at the
        // right end of the range).
        canvas.font(size: 10)
        let end = scale.left + Double(scale.columns)
        for lane in hapticLanes {
            for (i, mark) in drive.feltOnsets.enumerated() {
                let label = "+" + formatFixed((mark.felt - mark.event) * 1000, decimals: 1) + " ms"
                let width = canvas.width(of: label)
                let x = scale.x(mark.felt) + 7
                let next = min(end, i + 1 < drive.feltOnsets.count ? scale.x(drive.feltOnsets[i + 1].event) : .infinity)
                let previous = i > 0 ? scale.x(drive.feltOnsets[i - 1].felt) + 7 : scale.left
                if x + width + 4 < next {
                    canvas.text(label, x, lane.maxY - 3, theme.feltOnset)
                } else if i + 1 == drive.feltOnsets.count, scale.x(mark.event) - 6 - width > previous {
                    canvas.text(label, scale.x(mark.event) - 6, lane.maxY - 3, theme.feltOnset, align: .right)
                }
            }
        }
    }
}
