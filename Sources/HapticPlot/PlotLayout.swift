// Where a picture's text goes, measured with cairo before anything is drawn: the title and the
// subtitle wrap onto as many lines as the width needs (at the " · " between facts first, then
// between words), and each panel's header puts its legend in right-aligned rows, the panel's
// title beside the first row when it fits there, else on a row of its own above. Nothing of
// the header text overlaps, or leaves the page, at any width (PlotLayoutTests measure it).

import CCairo

/// The picture's layout: the text lines, each panel's header and frame, the height.
struct PlotLayout {
    var titleLines: [String]
    var subtitleLines: [String]
    var headers: [PanelHeader]
    var frames: [PanelFrame]
    var height: Int
    /// Some panel would be less than `minimumPanelHeight` high (an explicit height too small).
    var cramped: Bool

    /// One panel's header: its title and where, its legend entries and where (baselines).
    struct PanelHeader {
        var title: String
        var titleBaseline: Double
        var legend: [(entry: LegendEntry, name: String, x: Double, baseline: Double)]
        var height: Double
    }

    static let titleSize = 17.0, titleLine = 22.0
    static let subtitleSize = 12.0, subtitleLine = 16.0
    static let panelTitleSize = 13.0, legendSize = 11.0, headerRow = 16.0
    static let maximumTitleLines = 3, maximumSubtitleLines = 6
    static let minimumPanelHeight = 40.0

    /// The text block above the panels: the title's lines, then the subtitle's; its height.
    static func titleBlock(_ titleLines: Int, _ subtitleLines: Int) -> Double {
        // (One line of each: 56, the height it always had.)
        18 + Double(max(1, titleLines) - 1) * titleLine + (subtitleLines > 0 ? 20 + Double(subtitleLines - 1) * subtitleLine : 0) + 18
    }

    /// The header of a panel whose area spans `left...right`, from its top `top`.
    static func header(title: String, legend: [LegendEntry], left: Double, right: Double, top: Double, _ canvas: Canvas) -> PanelHeader {
        let room = right - left
        canvas.font(size: legendSize)
        // Each entry: swatch 20, gap 6, name, 14 before the next.
        var rows: [[(entry: LegendEntry, name: String, width: Double)]] = []
        var rowWidth = 0.0
        for entry in legend {
            let name = PlotDocument.fitted(entry.name, width: room - 26, canvas)
            let width = canvas.width(of: name) + 26
            if let last = rows.last, !last.isEmpty, rowWidth + 14 + width <= room {
                rows[rows.count - 1].append((entry, name, width))
                rowWidth += 14 + width
            } else {
                rows.append([(entry, name, width)])
                rowWidth = width
            }
        }
        let firstRow = rows.first.map { $0.map(\.width).reduce(0, +) + Double($0.count - 1) * 14 } ?? 0
        canvas.font(size: panelTitleSize, bold: true)
        let titleWidth = canvas.width(of: title)
        let beside = rows.isEmpty || titleWidth + 16 + firstRow <= room
        let shownTitle = beside ? title : PlotDocument.fitted(title, width: room, canvas)
        let legendStart = beside ? 0 : 1
        var placed: [(entry: LegendEntry, name: String, x: Double, baseline: Double)] = []
        for (r, row) in rows.enumerated() {
            let baseline = top + 18 + Double(r + legendStart) * headerRow
            var x = right
            for item in row.reversed() {
                x -= item.width
                placed.append((item.entry, item.name, x + 26, baseline))
                x -= 14
            }
        }
        let rowCount = max(1, rows.count + legendStart)
        return PanelHeader(
            title: shownTitle, titleBaseline: top + 18, legend: placed, height: 26 + Double(rowCount - 1) * headerRow)
    }

    /// `text` in lines at most `width` wide in the current font: broken at " · " first, then
    /// at spaces; a word wider than a line is shortened in the middle. At most `maximum`
    /// lines, the last ending in "…" when more would follow.
    static func wrapped(_ text: String, width: Double, maximum: Int, _ canvas: Canvas) -> [String] {
        guard !text.isEmpty else { return [] }
        var lines: [String] = []
        var line = ""
        func fits(_ s: String) -> Bool { canvas.width(of: s) <= width }
        func add(_ piece: String, separator: String) {
            if line.isEmpty {
                line = piece
            } else if fits(line + separator + piece) {
                line += separator + piece
            } else {
                lines.append(line + (separator == " · " ? " ·" : ""))
                line = piece
            }
            if !fits(line) {
                // Too wide alone: word by word.
                let words = line.split(separator: " ").map(String.init)
                line = ""
                for word in words {
                    let shown = fits(word) ? word : PlotDocument.fitted(word, width: width, canvas)
                    if line.isEmpty { line = shown } else if fits(line + " " + shown) { line += " " + shown } else {
                        lines.append(line)
                        line = shown
                    }
                }
            }
        }
        for fact in text.components(separatedBy: " · ") { add(fact, separator: " · ") }
        if !line.isEmpty { lines.append(line) }
        if lines.count > maximum {
            lines = Array(lines.prefix(maximum))
            lines[maximum - 1] = PlotDocument.fitted(lines[maximum - 1] + " …", width: width, canvas)
        }
        return lines
    }
}

extension PlotDocument {
    /// The texts the picture draws, and its layout (drawn on a recording surface: no file).
    func drawnTexts() -> (layout: PlotLayout, texts: [DrawnText]) {
        var ready = self
        ready.panels = panels.map { $0.prepared(for: scale) }
        let plan = ready.plan(prepared: ready.panels)
        guard let surface = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, nil) else { return (plan, []) }
        defer { cairo_surface_destroy(surface) }
        let canvas = Canvas(surface: surface)
        ready.draw(on: canvas, theme: PlotTheme.named(options.theme), plan: plan, width: Double(options.width), height: Double(plan.height))
        return (plan, canvas.texts)
    }
}
