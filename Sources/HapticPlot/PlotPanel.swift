// What every panel of a plot provides, and what the document gives it to draw in.

/// One horizontal band of a plot, over the time axis the panels share.
public protocol PlotPanel {
    /// Shown at the panel's top left.
    var title: String { get }
    /// Relative height (1: an ordinary panel).
    var weight: Double { get }
    /// The time span (seconds) the panel's content covers, for the default range.
    var extent: ClosedRange<Double> { get }
    /// The legend: the series this panel draws, in order, in `theme`'s colours.
    func legend(_ theme: PlotTheme) -> [LegendEntry]
    /// The panel with whatever it computes for `scale` done (before its legend is asked for).
    func prepared(for scale: TimeScale) -> any PlotPanel
    /// Draws the panel's axes labels and series inside `frame`.
    func draw(in frame: PanelFrame, on canvas: Canvas, theme: PlotTheme)
}

extension PlotPanel {
    public func prepared(for scale: TimeScale) -> any PlotPanel { self }
}

/// A legend entry: a series' name and how its swatch looks.
public struct LegendEntry: Sendable, Equatable {
    public enum Swatch: Sendable, Equatable {
        case line(PlotColour)
        case dashed(PlotColour)
        case area(PlotColour)
        case dot(PlotColour)
        /// A short ramp through the sharpness scale.
        case sharpness
    }
    public var name: String
    public var swatch: Swatch

    public init(_ name: String, _ swatch: Swatch) {
        self.name = name
        self.swatch = swatch
    }
}

/// Where a panel draws: its plot area (the data rectangle) and the shared time scale.
public struct PanelFrame {
    /// The data rectangle; y axis labels go left of it, a second axis right of it.
    let area: Rect
    public let scale: TimeScale

    /// The area widened by a few units each side: the panel's background and drawing clip,
    /// so that a mark at either end of the range shows whole.
    var bounds: Rect { Rect(x: area.x - 6, y: area.y, width: area.width + 12, height: area.height) }

    /// The plot area in device units: x, y, width, height.
    public var rectangle: (x: Double, y: Double, width: Double, height: Double) {
        (area.x, area.y, area.width, area.height)
    }
}

extension PanelFrame {
    /// Horizontal lanes of equal height inside the area (`count` ≥ 1), `gap` apart.
    func lanes(_ count: Int, gap: Double = 8) -> [Rect] {
        let n = max(1, count)
        let h = (area.height - gap * Double(n - 1)) / Double(n)
        return (0..<n).map { Rect(x: area.x, y: area.y + Double($0) * (h + gap), width: area.width, height: h) }
    }

    /// Draws a y axis at the area's left for `lane`: ticks from `low` to `high` (value → y
    /// linear), their labels, horizontal grid lines, and `label` turned along the axis.
    func leftAxis(
        _ lane: Rect, low: Double, high: Double, ticks: [Double]? = nil, label: String, on canvas: Canvas, theme: PlotTheme,
        format: (Double) -> String = { formatFixed($0, decimals: 1) }
    ) {
        let values = ticks ?? Ticks(low: low, high: high, count: 4).values
        canvas.font(size: 11)
        for v in values {
            // Centred on its value, kept inside the lane (stacked lanes' end labels would meet).
            let y = lane.maxY - (v - low) / (high - low) * lane.height
            canvas.text(format(v), lane.x - 6, min(lane.maxY - 1, max(lane.y + 9, y + 4)), theme.muted, align: .right)
        }
        canvas.font(size: 11)
        canvas.verticalText(label, lane.x - 50, lane.midY, theme.muted)
    }

    /// Horizontal grid lines at `values` of a lane (one path).
    func horizontalGrid(_ lane: Rect, low: Double, high: Double, values: [Double], on canvas: Canvas, theme: PlotTheme) {
        for v in values {
            let y = (lane.maxY - (v - low) / (high - low) * lane.height).rounded() + 0.5
            canvas.move(lane.x, y)
            canvas.line(lane.maxX, y)
        }
        if canvas.hasPath { canvas.stroke(theme.grid, width: 1, butt: true) }
    }
}
