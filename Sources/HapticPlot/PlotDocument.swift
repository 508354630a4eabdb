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
    static let leftAxis = 78.0
    static let rightAxis = 70.0
    static let panelGap = 14.0
    static let timeAxis = 44.0
    static let panelUnitHeight = 230.0

    /// The height used: the option's, or one from the panels' weights and headers.
    public var height: Int { plan().height }

    /// The time range drawn: the options', else the union of the panels' extents.
    public var timeRange: (from: Double, to: Double) {
        let extents = panels.map(\.extent)
        let from = options.from ?? min(0, extents.map(\.lowerBound).min() ?? 0)
        let to = options.to ?? (extents.map(\.upperBound).max() ?? from + 1)
        // (The CLI refuses --to at or before --from; an empty content gets one second.)
        return (from, to > from ? to : from + 1)
    }

    /// The shared time scale for the current width and range.
    var scale: TimeScale {
        let left = Self.margin + Self.leftAxis
        let plotWidth = (Double(options.width) - left - Self.rightAxis - Self.margin).rounded(.down)
        let range = timeRange
        return TimeScale(from: range.from, to: range.to, left: left, columns: Int(max(1, plotWidth)))
    }

    /// Each panel's frame for the current size and range, in panel order.
    public func layout() -> [PanelFrame] { plan().frames }

    /// The layout, the panels prepared for the scale (their legends may depend on it).
    func plan(prepared: [any PlotPanel]? = nil) -> PlotLayout {
        let scale = self.scale
        let panels = prepared ?? self.panels.map { $0.prepared(for: scale) }
        let theme = PlotTheme.named(options.theme)
        guard let canvas = Canvas.measuring() else {
            return PlotLayout(titleLines: [title], subtitleLines: [subtitle], headers: [], frames: [], height: options.height ?? 240, cramped: true)
        }
        let room = Double(options.width) - 2 * Self.margin
        canvas.font(size: PlotLayout.titleSize, bold: true)
        let titleLines = PlotLayout.wrapped(title, width: room, maximum: PlotLayout.maximumTitleLines, canvas)
        canvas.font(size: PlotLayout.subtitleSize)
        let subtitleLines = PlotLayout.wrapped(subtitle, width: room, maximum: PlotLayout.maximumSubtitleLines, canvas)
        let top = Self.margin + PlotLayout.titleBlock(titleLines.count, subtitleLines.count)
        let left = scale.left, right = scale.left + Double(scale.columns)
        // Header heights first (their tops are placed below).
        let heights = panels.map {
            PlotLayout.header(title: $0.title, legend: $0.legend(theme), left: left, right: right, top: 0, canvas).height
        }
        let weights = panels.map { max(0.1, $0.weight) }
        let fixed = top + Self.margin + Self.timeAxis + heights.reduce(0, +) + Double(panels.count) * Self.panelGap
        let h = options.height.map(Double.init) ?? (fixed + max(1, weights.reduce(0, +)) * Self.panelUnitHeight).rounded()
        let unit = max(10, h - fixed) / max(0.1, weights.reduce(0, +))
        var y = top
        var frames: [PanelFrame] = []
        var headers: [PlotLayout.PanelHeader] = []
        for (panel, weight) in zip(panels, weights) {
            headers.append(PlotLayout.header(title: panel.title, legend: panel.legend(theme), left: left, right: right, top: y, canvas))
            y += headers[headers.count - 1].height
            let area = Rect(x: left, y: y.rounded(), width: Double(scale.columns), height: (weight * unit).rounded(.down))
            frames.append(PanelFrame(area: area, scale: scale))
            y = area.maxY + Self.panelGap
        }
        let cramped = frames.contains { $0.area.height < PlotLayout.minimumPanelHeight } || (frames.last.map { $0.area.maxY + Self.timeAxis > h } ?? false)
        return PlotLayout(titleLines: titleLines, subtitleLines: subtitleLines, headers: headers, frames: frames, height: Int(h), cramped: cramped)
    }

    /// The picture as a file of `format`.
    public func render(_ format: PlotFormat) throws(PlotError) -> [UInt8] {
        let w = options.width
        guard (PlotOptions.minimumSize.width...PlotOptions.maximumSize.width).contains(w) else {
            throw PlotError(
                "width \(w) is outside \(PlotOptions.minimumSize.width)...\(PlotOptions.maximumSize.width)")
        }
        var ready = self
        ready.panels = panels.map { $0.prepared(for: scale) }
        let plan = ready.plan(prepared: ready.panels)
        let h = plan.height
        guard (PlotOptions.minimumSize.height...PlotOptions.maximumSize.height).contains(h) else {
            throw PlotError(
                "size \(w)x\(h) is outside \(PlotOptions.minimumSize.width)x\(PlotOptions.minimumSize.height)"
                    + "...\(PlotOptions.maximumSize.width)x\(PlotOptions.maximumSize.height)")
        }
        guard !plan.cramped else {
            var roomy = self
            roomy.options.height = nil
            throw PlotError("size \(w)x\(h) is too small for \(panels.count) panel\(panels.count == 1 ? "" : "s") (at least \(w)x\(roomy.minimumHeight(prepared: ready.panels)))")
        }
        let theme = PlotTheme.named(options.theme)
        return try format.render(width: w, height: h, title: title) { canvas in
            ready.draw(on: canvas, theme: theme, plan: plan, width: Double(w), height: Double(h))
        }
    }

    /// The least height at which every panel has its minimum height.
    func minimumHeight(prepared: [any PlotPanel]) -> Int {
        var low = PlotOptions.minimumSize.height, high = PlotOptions.maximumSize.height
        var probe = self
        while low < high {
            let mid = (low + high) / 2
            probe.options.height = mid
            if probe.plan(prepared: prepared).cramped { low = mid + 1 } else { high = mid }
        }
        return low
    }

    func draw(on canvas: Canvas, theme: PlotTheme, plan: PlotLayout, width: Double, height: Double) {
        canvas.rectangle(Rect(x: 0, y: 0, width: width, height: height))
        canvas.fill(theme.background)
        canvas.font(size: PlotLayout.titleSize, bold: true)
        var baseline = Self.margin + 18
        for line in plan.titleLines {
            canvas.text(line, Self.margin, baseline, theme.foreground)
            baseline += PlotLayout.titleLine
        }
        canvas.font(size: PlotLayout.subtitleSize)
        baseline += 20 - PlotLayout.titleLine
        for line in plan.subtitleLines {
            canvas.text(line, Self.margin, baseline, theme.muted)
            baseline += PlotLayout.subtitleLine
        }
        let frames = plan.frames
        guard let first = frames.first else { return }
        let scale = first.scale
        let ticks = Ticks(low: scale.from, high: scale.to, count: max(2, scale.columns / 110))
        for ((panel, frame), header) in zip(zip(panels, frames), plan.headers) {
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
            drawHeader(header, frame, canvas, theme)
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

    /// The panel's title at its top left and its legend in rows at its top right, as planned.
    func drawHeader(_ header: PlotLayout.PanelHeader, _ frame: PanelFrame, _ canvas: Canvas, _ theme: PlotTheme) {
        canvas.font(size: PlotLayout.panelTitleSize, bold: true)
        canvas.text(header.title, frame.area.x, header.titleBaseline, theme.foreground)
        canvas.font(size: PlotLayout.legendSize)
        for item in header.legend {
            canvas.text(item.name, item.x, item.baseline, theme.foreground)
            drawSwatch(item.entry.swatch, Rect(x: item.x - 26, y: item.baseline - 9, width: 20, height: 10), canvas, theme)
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
