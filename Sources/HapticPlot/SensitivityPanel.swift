// The transients `convert` gives a sound at each of a ladder of sensitivities: a row of dots
// per sensitivity, over the sound's time, the chosen sensitivity's row larger, in its own
// colour, on a dashed line. One picture for what Meta Haptics Studio's slider shows as it
// moves: a designer reads off which hits a sensitivity keeps, which join a little higher, and
// where a hit moves to an earlier peak as the threshold falls.

/// The sensitivity panel (see the file's comment).
public struct SensitivityPanel: PlotPanel {
    /// The transients' times (s from the sound's start) at one sensitivity (0…1).
    public struct Row: Sendable, Equatable {
        public var sensitivity: Double
        public var times: [Double]

        public init(sensitivity: Double, times: [Double]) {
            self.sensitivity = sensitivity
            self.times = times
        }
    }

    public let rows: [Row]
    /// The chosen sensitivity (0…1): its row is drawn as the conversion's result.
    public let chosen: Double
    /// The sound's length (s).
    public let duration: Double
    public var title: String

    public init(rows: [Row], chosen: Double, duration: Double, title: String) {
        self.rows = rows
        self.chosen = chosen
        self.duration = duration
        self.title = title
    }

    public var weight: Double { 0.9 }

    public var extent: ClosedRange<Double> { 0...max(1e-3, duration.isFinite ? duration : 0) }

    var chosenLabel: String {
        let percent = chosen * 100
        return "--sensitivity \(formatFixed(percent, decimals: percent == percent.rounded() ? 0 : 1)) %"
    }

    public func legend(_ theme: PlotTheme) -> [LegendEntry] {
        // (The dashed line is the chosen row's; its dots name it.)
        [LegendEntry("transients per sensitivity", .dot(theme.hit)), LegendEntry("at \(chosenLabel)", .dot(theme.hitAtSensitivity))]
    }

    /// The y of a sensitivity (0…1) in `area`: 0 at the bottom, 1 at the top, a dot's radius in.
    static func y(_ s: Double, _ area: Rect) -> Double {
        let inset = 6.0
        return area.maxY - inset - min(1, max(0, s.isFinite ? s : 0)) * (area.height - 2 * inset)
    }

    public func draw(in frame: PanelFrame, on canvas: Canvas, theme: PlotTheme) {
        let a = frame.area
        let scale = frame.scale
        let y = { (s: Double) in Self.y(s, a) }
        let lane = Rect(x: a.x, y: y(1), width: a.width, height: y(0) - y(1))
        let ticks = [0.0, 25, 50, 75, 100]
        frame.horizontalGrid(lane, low: 0, high: 100, values: ticks, on: canvas, theme: theme)
        frame.leftAxis(lane, low: 0, high: 100, ticks: ticks, label: "sensitivity (%)", on: canvas, theme: theme) {
            formatFixed($0, decimals: 0)
        }
        canvas.save()
        canvas.clip(to: frame.bounds)
        canvas.move(a.x, y(chosen))
        canvas.line(a.maxX, y(chosen))
        canvas.stroke(theme.muted, width: 1.2, dash: [6, 4], butt: true)
        // Only the dots within the picture's range (a long sound has thousands per row).
        let visible = { (t: Double) in t >= scale.from - 0.01 && t <= scale.to + 0.01 }
        for row in rows where row.sensitivity != chosen {
            for t in row.times where visible(t) { canvas.circle(scale.x(t), y(row.sensitivity), radius: 3) }
        }
        if canvas.hasPath { canvas.fill(theme.hit) }
        for row in rows where row.sensitivity == chosen {
            for t in row.times where visible(t) { canvas.circle(scale.x(t), y(chosen), radius: 4.5) }
        }
        if canvas.hasPath { canvas.fill(theme.hitAtSensitivity) }
        canvas.restore()
    }
}
