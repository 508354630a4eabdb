// The three file formats, one drawing path: a cairo surface of the format's kind is created
// over an in-memory byte sink, the same drawing calls run on it, and the bytes come back.
// Nothing that varies between runs reaches the bytes (PDF dates are fixed, SVG ids renumbered).

import CCairo

/// A picture file format.
public enum PlotFormat: String, Sendable, CaseIterable {
    case png, svg, pdf

    /// The format for a file name's extension (case-insensitive), or nil.
    public init?(fileName: String) {
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        self.init(rawValue: name[name.index(after: dot)...].lowercased())
    }

    /// The extensions known, for messages.
    public static var known: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// Why a picture could not be made.
public struct PlotError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Collects what cairo writes.
final class ByteSink {
    var bytes: [UInt8] = []
}

/// cairo's write callback: appends to the `ByteSink` passed as the closure pointer.
private let appendToSink: cairo_write_func_t = { closure, data, length in
    guard let closure, let data else { return CAIRO_STATUS_WRITE_ERROR }
    let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
    sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return CAIRO_STATUS_SUCCESS
}

extension PlotFormat {
    /// Draws a `width` × `height` picture (pixels for PNG, points for PDF, user units shown as
    /// pixels for SVG) with `draw`, and returns the file's bytes.
    func render(width: Int, height: Int, title: String, draw: (Canvas) -> Void) throws(PlotError) -> [UInt8] {
        let sink = ByteSink()
        let closure = Unmanaged.passUnretained(sink).toOpaque()
        let w = Double(width), h = Double(height)
        let surface: OpaquePointer?
        switch self {
        case .png: surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .svg: surface = cairo_svg_surface_create_for_stream(appendToSink, closure, w, h)
        case .pdf: surface = cairo_pdf_surface_create_for_stream(appendToSink, closure, w, h)
        }
        guard let surface, cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            if let surface { cairo_surface_destroy(surface) }
            throw PlotError("cannot create a \(width)x\(height) \(rawValue) surface")
        }
        defer { cairo_surface_destroy(surface) }
        switch self {
        case .png: break
        case .svg: cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX)
        case .pdf:
            // cairo writes the time of day as the creation date unless told otherwise.
            let fixed = "2000-01-01T00:00:00Z"
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATE_DATE, fixed)
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_MOD_DATE, fixed)
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_TITLE, title)
            cairo_pdf_surface_set_metadata(surface, CAIRO_PDF_METADATA_CREATOR, "hapticsynth plot")
        }
        var texts: [DrawnText] = []
        do {
            let canvas = Canvas(surface: surface, textAsElements: self == .svg)
            draw(canvas)
            texts = canvas.texts
            let status = cairo_status(canvas.context)
            guard status == CAIRO_STATUS_SUCCESS else {
                throw PlotError("drawing failed: \(String(cString: cairo_status_to_string(status)))")
            }
        }
        if self == .png {
            let status = cairo_surface_write_to_png_stream(surface, appendToSink, closure)
            guard status == CAIRO_STATUS_SUCCESS else {
                throw PlotError("cannot encode the PNG: \(String(cString: cairo_status_to_string(status)))")
            }
        } else {
            cairo_surface_finish(surface)
            let status = cairo_surface_status(surface)
            guard status == CAIRO_STATUS_SUCCESS else {
                throw PlotError("cannot write the \(rawValue): \(String(cString: cairo_status_to_string(status)))")
            }
        }
        return self == .svg ? SVGText.inserting(texts, into: SVGIdentifiers.renumbered(sink.bytes)) : sink.bytes
    }
}
