// Reading pictures back: a PNG decoded by cairo itself, pixels compared with the colours a
// theme draws, and small patterns prepared for plots.

import CCairo
import HapticPattern
import HapticRender
import Testing

@testable import HapticPlot

/// A decoded PNG: 8-bit RGBA per pixel (un-premultiplied from cairo's ARGB32).
struct DecodedPNG {
    var width: Int
    var height: Int
    /// Row-major, [r, g, b, a] per pixel.
    var pixels: [UInt8]

    init(_ bytes: [UInt8]) throws {
        final class Reader {
            let bytes: [UInt8]
            var offset = 0
            init(_ bytes: [UInt8]) { self.bytes = bytes }
        }
        let reader = Reader(bytes)
        let read: cairo_read_func_t = { closure, data, length in
            let reader = Unmanaged<Reader>.fromOpaque(closure!).takeUnretainedValue()
            let n = Int(length)
            guard reader.offset + n <= reader.bytes.count, let data else { return CAIRO_STATUS_READ_ERROR }
            for i in 0..<n { data[i] = reader.bytes[reader.offset + i] }
            reader.offset += n
            return CAIRO_STATUS_SUCCESS
        }
        let surface = try #require(cairo_image_surface_create_from_png_stream(read, Unmanaged.passUnretained(reader).toOpaque()))
        defer { cairo_surface_destroy(surface) }
        try #require(cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, "cairo could not read the PNG back")
        width = Int(cairo_image_surface_get_width(surface))
        height = Int(cairo_image_surface_get_height(surface))
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = try #require(cairo_image_surface_get_data(surface))
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let p = (data + y * stride + x * 4).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee }
                let a = p >> 24, r = p >> 16 & 0xFF, g = p >> 8 & 0xFF, b = p & 0xFF
                func straight(_ c: UInt32) -> UInt8 { a == 0 ? 0 : UInt8(min(255, (c * 255 + a / 2) / a)) }
                let i = (y * width + x) * 4
                pixels[i] = straight(r)
                pixels[i + 1] = straight(g)
                pixels[i + 2] = straight(b)
                pixels[i + 3] = UInt8(a)
            }
        }
        self.pixels = pixels
    }

    func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let i = (y * width + x) * 4
        return (Int(pixels[i]), Int(pixels[i + 1]), Int(pixels[i + 2]))
    }

    /// Whether pixel (x, y) is within `tolerance` (per channel, 0...255) of `colour` (opaque).
    func matches(_ x: Int, _ y: Int, _ colour: PlotColour, tolerance: Int = 6) -> Bool {
        let (r, g, b) = rgb(x, y)
        let want = colour.bytes
        return abs(r - want.0) <= tolerance && abs(g - want.1) <= tolerance && abs(b - want.2) <= tolerance
    }
}

extension PlotColour {
    /// 0...255 components.
    var bytes: (Int, Int, Int) { (Int((red * 255).rounded()), Int((green * 255).rounded()), Int((blue * 255).rounded())) }

    /// This colour at its alpha over an opaque `background`.
    func over(_ background: PlotColour) -> PlotColour {
        PlotColour(
            red: red * alpha + background.red * (1 - alpha), green: green * alpha + background.green * (1 - alpha),
            blue: blue * alpha + background.blue * (1 - alpha))
    }
}

/// `elements` prepared on the bass shaker at 48 kHz.
func prepared(_ elements: [PatternElement], profile: ActuatorProfile = .bassShaker) throws -> PreparedPattern {
    try PreparedPattern(AHAPPattern(elements: elements), profile: profile, sampleRate: 48_000)
}
