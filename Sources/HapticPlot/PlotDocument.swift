// A whole picture: a title, panels stacked over one time axis, the axes, grids and legends,
// laid out for a size and drawn in one format.

/// The picture's size, theme and time range.
public struct PlotOptions: Sendable, Equatable {
    /// Device units (pixels for PNG).
    public var width: Int
    /// nil: from the panels (about 230 units per panel).
    public var height: Int?
    public var theme: PlotThemeName
    /// The time range (seconds); nil ends come from the panels' content.
    public var from: Double?
    public var to: Double?

    public init(width: Int = 1600, height: Int? = nil, theme: PlotThemeName = .light, from: Double? = nil, to: Double? = nil) {
        self.width = width
        self.height = height
        self.theme = theme
        self.from = from
        self.to = to
    }

    /// The smallest and largest sizes drawn.
    public static let minimumSize = (width: 480, height: 240)
    public static let maximumSize = (width: 16_000, height: 16_000)
}

/// A picture of one or more panels over a shared time axis.
public struct PlotDocument {
    public var title: String
    /// A second line under the title (facts: profile, rate, lengths).
    public var subtitle: String
    public var panels: [any PlotPanel]
    public var options: PlotOptions

    public init(title: String, subtitle: String = "", panels: [any PlotPanel], options: PlotOptions = PlotOptions()) {
        self.title = title
        self.subtitle = subtitle
        self.panels = panels
        self.options = options
    }

    // Layout metrics (device units).
    static let margin = 16.0
    static let titleHeight = 56.0
    static let leftAxis = 78.0
    static let rightAxis = 70.0
    static let panelHeader = 26.0
    static let panelGap = 14.0
    static let timeAxis = 44.0
    static let panelUnitHeight = 230.0

    /// The height used: the option's, or one from the panels' weights.
    public var height: Int {
        if let h = options.height { return h }
        let weights = panels.map(\.weight).reduce(0, +)
        let fixed = Self.margin * 2 + Self.titleHeight + Self.timeAxis
            + Double(panels.count) * (Self.panelHeader + Self.panelGap)
        return Int((fixed + max(1, weights) * Self.panelUnitHeight).rounded())
    }

    /// The time range drawn: the options', else the union of the panels' extents.
    public var timeRange: (from: Double, to: Double) {
        let extents = panels.map(\.extent)
        let from = options.from ?? min(0, extents.map(\.lowerBound).min() ?? 0)
        let to = options.to ?? (extents.map(\.upperBound).max() ?? from + 1)
        // (The CLI refuses --to at or before --from; an empty content gets one second.)
        return (from, to > from ? to : from + 1)
    }

    /// Each panel's frame for the current size and range, in panel order.
    public func layout() -> [PanelFrame] {
        let w = Double(options.width), h = Double(height)
        let left = Self.margin + Self.leftAxis
        let plotWidth = (w - left - Self.rightAxis - Self.margin).rounded(.down)
        let range = timeRange
        let scale = TimeScale(from: range.from, to: range.to, left: left, columns: Int(plotWidth))
        let weights = panels.map { max(0.1, $0.weight) }
        let fixed = Self.margin * 2 + Self.titleHeight + Self.timeAxis + Double(panels.count) * (Self.panelHeader + Self.panelGap)
        let unit = max(10, h - fixed) / max(0.1, weights.reduce(0, +))
        var y = Self.margin + Self.titleHeight
        var frames: [PanelFrame] = []
        for weight in weights {
            y += Self.panelHeader
            let area = Rect(x: left, y: y.rounded(), width: Double(scale.columns), height: (weight * unit).rounded(.down))
            frames.append(PanelFrame(area: area, scale: scale))
            y = area.maxY + Self.panelGap
        }
        return frames
    }

    /// The picture as a file of `format`.
    public func render(_ format: PlotFormat) throws(PlotError) -> [UInt8] {
        let w = options.width, h = height
        guard (PlotOptions.minimumSize.width...PlotOptions.maximumSize.width).contains(w),
            (PlotOptions.minimumSize.height...PlotOptions.maximumSize.height).contains(h)
        else {
            throw PlotError(
                "size \(w)x\(h) is outside \(PlotOptions.minimumSize.width)x\(PlotOptions.minimumSize.height)"
                    + "...\(PlotOptions.maximumSize.width)x\(PlotOptions.maximumSize.height)")
        }
        let theme = PlotTheme.named(options.theme)
        let frames = layout()
        var ready = self
        ready.panels = zip(panels, frames).map { $0.prepared(for: $1.scale) }
        return try format.render(width: w, height: h, title: title) { canvas in
            ready.draw(on: canvas, theme: theme, frames: frames, width: Double(w), height: Double(h))
        }
    }

    func draw(on canvas: Canvas, theme: PlotTheme, frames: [PanelFrame], width: Double, height: Double) {
        canvas.rectangle(Rect(x: 0, y: 0, width: width, height: height))
        canvas.fill(theme.background)
        let room = width - 2 * Self.margin
        canvas.font(size: 17, bold: true)
        canvas.text(Self.fitted(title, width: room, canvas), Self.margin, Self.margin + 18, theme.foreground)
        if !subtitle.isEmpty {
            canvas.font(size: 12)
            canvas.text(Self.fitted(subtitle, width: room, canvas), Self.margin, Self.margin + 38, theme.muted)
        }
        guard let first = frames.first else { return }
        let scale = first.scale
        let ticks = Ticks(low: scale.from, high: scale.to, count: max(2, scale.columns / 110))
        for (panel, frame) in zip(panels, frames) {
            let a = frame.area
            // Background (a little wider than the data, so a stem at either end shows whole)
            // and the vertical (time) grid, one path each.
            canvas.rectangle(frame.bounds)
            canvas.fill(theme.panelBackground)
            for t in ticks.values {
                let x = scale.x(t).rounded() + 0.5
                canvas.move(x, a.y)
                canvas.line(x, a.maxY)
            }
            if canvas.hasPath { canvas.stroke(theme.grid, width: 1, butt: true) }
            canvas.save()
            panel.draw(in: frame, on: canvas, theme: theme)
            canvas.restore()
            drawHeader(panel, frame, canvas, theme)
        }
        // The time axis under the last panel.
        guard let last = frames.last else { return }
        canvas.font(size: 11)
        for t in ticks.values {
            let x = scale.x(t)
            canvas.text(ticks.label(t), x, last.area.maxY + 16, theme.muted, align: .centre)
        }
        canvas.font(size: 12)
        canvas.text("time (s)", last.area.x + last.area.width / 2, last.area.maxY + 34, theme.foreground, align: .centre)
    }

    /// The panel's title at its top left (shortened in the middle to leave the legend room)
    /// and its legend at its top right.
    func drawHeader(_ panel: any PlotPanel, _ frame: PanelFrame, _ canvas: Canvas, _ theme: PlotTheme) {
        let a = frame.area
        let baseline = a.y - 8
        let legend = panel.legend(theme)
        canvas.font(size: 11)
        let legendWidth = legend.map { canvas.width(of: $0.name) + 40 }.reduce(0, +)
        canvas.font(size: 13, bold: true)
        canvas.text(Self.fitted(panel.title, width: a.width - legendWidth - 16, canvas), a.x, baseline, theme.foreground)
        canvas.font(size: 11)
        var x = a.maxX
        for entry in legend.reversed() {
            x -= canvas.width(of: entry.name)
            canvas.text(entry.name, x, baseline, theme.foreground)
            x -= 26
            drawSwatch(entry.swatch, Rect(x: x, y: baseline - 9, width: 20, height: 10), canvas, theme)
            x -= 14
        }
    }

    /// `text`, shortened in the middle with "…" until it fits `width` in the current font.
    static func fitted(_ text: String, width: Double, _ canvas: Canvas) -> String {
        guard canvas.width(of: text) > width else { return text }
        var characters = Array(text)
        while characters.count > 8 {
            characters.remove(at: characters.count / 2)
            let half = characters.count / 2
            let candidate = String(characters[..<half]) + "…" + String(characters[half...])
            if canvas.width(of: candidate) <= width { return candidate }
        }
        return String(characters)
    }

    func drawSwatch(_ swatch: LegendEntry.Swatch, _ r: Rect, _ canvas: Canvas, _ theme: PlotTheme) {
        switch swatch {
        case .line(let c):
            canvas.move(r.x, r.midY)
            canvas.line(r.maxX, r.midY)
            canvas.stroke(c, width: 2)
        case .dashed(let c):
            canvas.move(r.x, r.midY)
            canvas.line(r.maxX, r.midY)
            canvas.stroke(c, width: 1.5, dash: [4, 3], butt: true)
        case .area(let c):
            canvas.rectangle(r)
            canvas.fill(c)
        case .dot(let c):
            canvas.circle(r.x + r.width / 2, r.midY, radius: 3.5)
            canvas.fill(c)
        case .sharpness:
            let n = Int(r.width)
            canvas.rectangle(r)
            canvas.fill(ColourStrip(x: r.x, y: r.y, colours: (0..<n).map { theme.sharpness(Double($0) / Double(max(1, n - 1))) }))
        }
    }
}
