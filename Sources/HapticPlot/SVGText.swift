// Text in an SVG picture as `<text>` elements: cairo's SVG surface writes each glyph as an
// outline, so a title could be neither edited nor searched. The canvas records the texts
// instead of drawing them (`Canvas.textAsElements`), and they are written here, after
// everything cairo drew (text is drawn last in each place anyway: over the series), each
// clipped as it was drawn.

import Foundation

enum SVGText {
    /// `svg` with `texts` inserted before its closing `</svg>`.
    static func inserting(_ texts: [DrawnText], into svg: [UInt8]) -> [UInt8] {
        guard !texts.isEmpty, let end = lastRange(of: Array("</svg>".utf8), in: svg) else { return svg }
        var clips: [Rect] = []
        var body = ""
        for text in texts {
            var clipAttribute = ""
            if let clip = text.clip {
                if !clips.contains(clip) { clips.append(clip) }
                let index = clips.firstIndex(of: clip) ?? 0
                clipAttribute = " clip-path=\"url(#text-clip-\(index + 1))\""
            }
            let c = text.colour
            func channel(_ v: Double) -> Int { Int((min(1, max(0, v)) * 255).rounded()) }
            var attributes = "x=\"\(number(text.vertical ? 0 : text.x))\" y=\"\(number(text.vertical ? 0 : text.y))\""
            if text.vertical {
                attributes = "x=\"0\" y=\"0\" text-anchor=\"middle\" transform=\"translate(\(number(text.x)) \(number(text.y))) rotate(-90)\""
            }
            attributes += " font-size=\"\(number(text.size))\"" + (text.bold ? " font-weight=\"bold\"" : "")
            attributes += " fill=\"rgb(\(channel(c.red)),\(channel(c.green)),\(channel(c.blue)))\""
            if c.alpha < 1 { attributes += " fill-opacity=\"\(number(c.alpha))\"" }
            body += "<text \(attributes)\(clipAttribute)>\(escaped(text.text))</text>\n"
        }
        var head = "<g font-family=\"DejaVu Sans, sans-serif\" style=\"white-space:pre\">\n"
        // (A clipPath draws nothing where it stands: no <defs> needed.)
        for (k, r) in clips.enumerated() {
            head += "<clipPath id=\"text-clip-\(k + 1)\"><rect x=\"\(number(r.x))\" y=\"\(number(r.y))\" width=\"\(number(r.width))\" height=\"\(number(r.height))\"/></clipPath>\n"
        }
        return Array(svg[..<end]) + Array((head + body + "</g>\n").utf8) + Array(svg[end...])
    }

    /// Up to three decimals, no trailing zeros (the same bytes for the same picture).
    static func number(_ v: Double) -> String {
        let text = String(format: "%.3f", v.isFinite ? v : 0)
        let trimmed = text.contains(".") ? String(text.reversed().drop { $0 == "0" }.reversed()) : text
        return trimmed.hasSuffix(".") ? String(trimmed.dropLast()) : trimmed
    }

    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            // (XML 1.0 allows no other control characters, even escaped.)
            case _ where scalar.value < 0x20 && scalar != "\t": out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func lastRange(of needle: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var i = bytes.count - needle.count
        while i >= 0 {
            if bytes[i] == needle[0] && Array(bytes[i..<(i + needle.count)]) == needle { return i }
            i -= 1
        }
        return nil
    }
}
