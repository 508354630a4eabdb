// A small drawing API over a cairo context: the only place HapticPlot calls cairo's drawing
// functions. Every series is built as one path and drawn with one stroke or fill, so a vector
// file holds one path element per series (not one per column or per event).

import CCairo

/// Horizontal placement of a text relative to its point.
enum TextAlignment {
    case left, centre, right
}

/// Draws on one cairo surface (image, SVG or PDF: the same calls for all three). Panels draw
/// through it; its drawing calls are internal to HapticPlot.
public final class Canvas {
    let context: OpaquePointer
    /// Text as SVG `<text>` elements (`texts`) instead of glyph outlines: cairo's SVG surface
    /// draws glyphs as paths, which no one can edit or search.
    let textAsElements: Bool
    /// Every text drawn, with its box (cairo's ink extents) and the clip it was drawn in.
    private(set) var texts: [DrawnText] = []
    private var currentFont = (size: 10.0, bold: false)
    /// The clip rectangle (nil: none), mirrored so that text elements can be clipped alike.
    private var clipStack: [Rect?] = [nil]

    init(surface: OpaquePointer, textAsElements: Bool = false) {
        context = cairo_create(surface)
        self.textAsElements = textAsElements
        // Advances unrounded on every surface, so that text is measured (and laid out) alike
        // in PNG, SVG and PDF.
        let options = cairo_font_options_create()
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        cairo_set_font_options(context, options)
        cairo_font_options_destroy(options)
        cairo_select_font_face(context, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
    }

    /// A canvas that only measures text (the layout's, before the picture's surface exists).
    static func measuring() -> Canvas? {
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1) else { return nil }
        defer { cairo_surface_destroy(surface) }
        return Canvas(surface: surface)
    }

    deinit { cairo_destroy(context) }

    // MARK: state

    func save() {
        cairo_save(context)
        clipStack.append(clipStack.last ?? nil)
    }
    func restore() {
        cairo_restore(context)
        if clipStack.count > 1 { clipStack.removeLast() }
    }

    func clip(to rect: Rect) {
        cairo_rectangle(context, rect.x, rect.y, rect.width, rect.height)
        cairo_clip(context)
        let current = clipStack.last ?? nil
        clipStack[clipStack.count - 1] = current.map { $0.intersection(rect) } ?? rect
    }

    func colour(_ c: PlotColour) {
        cairo_set_source_rgba(context, c.red, c.green, c.blue, c.alpha)
    }

    // MARK: paths

    func move(_ x: Double, _ y: Double) { cairo_move_to(context, x, y) }
    func line(_ x: Double, _ y: Double) { cairo_line_to(context, x, y) }
    func close() { cairo_close_path(context) }
    func rectangle(_ r: Rect) { cairo_rectangle(context, r.x, r.y, r.width, r.height) }
    func circle(_ x: Double, _ y: Double, radius: Double) {
        cairo_new_sub_path(context)
        cairo_arc(context, x, y, radius, 0, 2 * Double.pi)
        cairo_close_path(context)
    }
    /// Whether anything has been added to the current path.
    var hasPath: Bool { cairo_has_current_point(context) != 0 }

    /// Strokes the current path in `c`, `width` wide, optionally dashed; clears the path.
    func stroke(_ c: PlotColour, width: Double, dash: [Double] = [], butt: Bool = false) {
        colour(c)
        cairo_set_line_width(context, width)
        cairo_set_line_cap(context, butt ? CAIRO_LINE_CAP_BUTT : CAIRO_LINE_CAP_ROUND)
        dash.withUnsafeBufferPointer { cairo_set_dash(context, $0.baseAddress, Int32($0.count), 0) }
        cairo_stroke(context)
        cairo_set_dash(context, nil, 0, 0)
    }

    /// Fills the current path in `c`; clears the path.
    func fill(_ c: PlotColour) {
        colour(c)
        cairo_fill(context)
    }

    /// Fills the current path with `strip`: one colour per device column (see `ColourStrip`).
    func fill(_ strip: ColourStrip) {
        guard let pattern = strip.pattern() else {
            cairo_new_path(context)
            return
        }
        cairo_set_source(context, pattern)
        cairo_fill(context)
        cairo_pattern_destroy(pattern)
    }

    /// Strokes the current path with `strip`'s colours.
    func stroke(_ strip: ColourStrip, width: Double) {
        guard let pattern = strip.pattern() else {
            cairo_new_path(context)
            return
        }
        cairo_set_source(context, pattern)
        cairo_set_line_width(context, width)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_BUTT)
        cairo_stroke(context)
        cairo_pattern_destroy(pattern)
    }

    // MARK: text

    func font(size: Double, bold: Bool = false) {
        currentFont = (size, bold)
        cairo_select_font_face(
            context, "DejaVu Sans", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, size)
    }

    /// The advance width of `text` in the current font.
    func width(of text: String) -> Double {
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, text, &extents)
        return extents.x_advance
    }

    /// The box `text`'s ink covers when drawn from (x, baseline y) in the current font.
    func box(of text: String, _ x: Double, _ y: Double) -> Rect {
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, text, &extents)
        return Rect(x: x + extents.x_bearing, y: y + extents.y_bearing, width: extents.width, height: extents.height)
    }

    /// Draws `text` with its baseline at `y`.
    func text(_ text: String, _ x: Double, _ y: Double, _ c: PlotColour, align: TextAlignment = .left) {
        let w = align == .left ? 0 : width(of: text)
        let left = align == .left ? x : align == .centre ? x - w / 2 : x - w
        texts.append(DrawnText(
            text: text, x: left, y: y, size: currentFont.size, bold: currentFont.bold, colour: c, vertical: false,
            box: box(of: text, left, y), clip: clipStack.last ?? nil))
        guard !textAsElements else { return }
        colour(c)
        cairo_move_to(context, left, y)
        cairo_show_text(context, text)
        cairo_new_path(context)
    }

    /// Draws `text` turned 90° counter-clockwise, centred on (x, y) along its length.
    func verticalText(_ text: String, _ x: Double, _ y: Double, _ c: PlotColour) {
        let w = width(of: text)
        let flat = box(of: text, -w / 2, 0)
        texts.append(DrawnText(
            text: text, x: x, y: y, size: currentFont.size, bold: currentFont.bold, colour: c, vertical: true,
            box: Rect(x: x + flat.y, y: y - flat.maxX, width: flat.height, height: flat.width), clip: clipStack.last ?? nil))
        guard !textAsElements else { return }
        save()
        cairo_translate(context, x, y)
        cairo_rotate(context, -Double.pi / 2)
        colour(c)
        cairo_move_to(context, -w / 2, 0)
        cairo_show_text(context, text)
        cairo_new_path(context)
        restore()
    }
}

/// A text as drawn: where (its baseline's start; for vertical text the centre it turns
/// about), its font and colour, the box it covers on the page, and the clip it was drawn in.
struct DrawnText: Equatable {
    var text: String
    var x: Double
    var y: Double
    var size: Double
    var bold: Bool
    var colour: PlotColour
    var vertical: Bool
    var box: Rect
    var clip: Rect?
}

/// A rectangle in device units (pixels for PNG, points for SVG and PDF).
struct Rect: Equatable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double
    var maxX: Double { x + width }
    var maxY: Double { y + height }
    var midY: Double { y + height / 2 }

    func intersection(_ other: Rect) -> Rect {
        let x0 = max(x, other.x), y0 = max(y, other.y)
        return Rect(x: x0, y: y0, width: max(0, min(maxX, other.maxX) - x0), height: max(0, min(maxY, other.maxY) - y0))
    }

    /// Whether the two overlap by more than a touch.
    func overlaps(_ other: Rect) -> Bool {
        let i = intersection(other)
        return i.width > 0.01 && i.height > 0.01
    }

    func contains(_ other: Rect) -> Bool {
        other.x >= x - 0.01 && other.y >= y - 0.01 && other.maxX <= maxX + 0.01 && other.maxY <= maxY + 0.01
    }
}

/// One colour per device column (or row) of a span of the page, used as a paint source: a
/// series whose colour changes along time (sharpness) is still one path with one fill. A
/// 1-pixel-high (or wide) image, extended over the other direction, without smoothing.
struct ColourStrip {
    /// Where the first colour's column (row) starts.
    var x: Double
    var y: Double = 0
    /// Colours run down rows instead of across columns.
    var vertical = false
    var colours: [PlotColour]

    func pattern() -> OpaquePointer? {
        let count = colours.count
        let (w, h) = vertical ? (1, count) : (count, 1)
        guard count > 0, let image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else { return nil }
        defer { cairo_surface_destroy(image) }
        cairo_surface_flush(image)
        guard let data = cairo_image_surface_get_data(image) else { return nil }
        let stride = Int(cairo_image_surface_get_stride(image)) / 4
        data.withMemoryRebound(to: UInt32.self, capacity: vertical ? count * stride : count) { pixels in
            for (i, c) in colours.enumerated() {
                // Premultiplied ARGB, native endian.
                let a = min(1, max(0, c.alpha))
                func channel(_ v: Double) -> UInt32 { UInt32((min(1, max(0, v)) * a * 255).rounded()) }
                pixels[vertical ? i * stride : i] = UInt32((a * 255).rounded()) << 24 | channel(c.red) << 16 | channel(c.green) << 8 | channel(c.blue)
            }
        }
        cairo_surface_mark_dirty(image)
        let pattern = cairo_pattern_create_for_surface(image)
        cairo_pattern_set_filter(pattern, CAIRO_FILTER_NEAREST)
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        var matrix = cairo_matrix_t()
        // Column i of the image is device column x + i (or row y + i); the image's one row
        // (column) is padded over the rest.
        cairo_matrix_init_translate(&matrix, -x, vertical ? -y : 0)
        cairo_pattern_set_matrix(pattern, &matrix)
        return pattern
    }
}
