// The picture's text, measured as cairo lays it out: the title, the subtitle and every panel's
// title and legend stay apart and on the page at every width and for every set of panels; a
// sharp transient shows over a sharp continuous area; SVG text is text.

import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import HapticPattern
import HapticRender
import Testing

@testable import HapticPlot

@Suite("plot: text layout and marks that must show")
struct PlotLayoutTests {
    static let widths = [480, 500, 560, 600, 640, 720, 800, 1024, 1600, 4000, 16_000]
    static let name = "explosion_with_a_rather_long_name"

    /// One panel of each kind, titled as the CLI titles them with several inputs.
    static func panels() throws -> [any PlotPanel] {
        let elements: [PatternElement] = [
            .event(.continuous(at: 0, duration: 0.8, intensity: 0.8, sharpness: 0.6)),
            .event(.transient(at: 0.3, intensity: 1, sharpness: 0.9)),
            .event(Event(time: 0.1, type: .audioContinuous, duration: 0.5, parameters: [EventParameter(.audioVolume, 0.5)])),
        ]
        let pattern = try prepared(elements)
        let sound = SoundBuffer(channels: 1, sampleRate: 8000, samples: (0..<8000).map { Float(sin(Double($0) * 0.05) * 0.5) })
        return [
            PatternPanel(trace: PatternTrace(pattern), elements: elements, title: "pattern · \(name).ahap"),
            DrivePanel(pattern: pattern, title: "drive on bass-shaker, voice-coil · \(name).ahap"),
            SoundPanel(sound: sound, title: "sound · \(name).wav"),
            SensitivityPanel(
                rows: [SensitivityPanel.Row(sensitivity: 0.5, times: [0.3])], chosen: 0.5, duration: 1,
                title: "transients by sensitivity · \(name).wav"),
            SkewPanel(beats: [BeatSkew(time: 0.5, planned: 0, sample: 0, felt: 1)], title: "skew audio − haptic per beat · \(name).json"),
        ]
    }

    static func document(_ panels: [any PlotPanel], width: Int, height: Int? = nil) -> PlotDocument {
        PlotDocument(
            title: "\(name).wav + \(name).ahap + \(name).json · bass-shaker, voice-coil",
            subtitle: "\(name).ahap: 0.80 s, 1 transients, 1 continuous, 1 audio events · \(name).wav: 1.00 s, 1 ch, 8000 Hz · "
                + "\(name).json: 1 beats at 48000 Hz, cue beat_hit, 120 BPM, offline · rendered at 48000 Hz",
            panels: panels, options: PlotOptions(width: width, height: height))
    }

    /// Every header text and legend swatch of `document`: apart from each other, off the
    /// panels' areas, on the page; and every planned text drawn.
    func checkHeaders(_ document: PlotDocument, _ label: String) {
        let (layout, texts) = document.drawnTexts()
        let page = Rect(x: 0, y: 0, width: Double(document.options.width), height: Double(layout.height))
        var boxes: [(String, Rect)] = []
        func drawn(_ text: String, _ y: Double) -> Rect? { texts.first { $0.text == text && abs($0.y - y) < 0.01 }?.box }
        var baseline = PlotDocument.margin + 18
        for line in layout.titleLines {
            if let box = drawn(line, baseline) { boxes.append(("title \(line)", box)) } else { Issue.record("\(label): title line not drawn") }
            baseline += PlotLayout.titleLine
        }
        baseline += 20 - PlotLayout.titleLine
        for line in layout.subtitleLines {
            if let box = drawn(line, baseline) { boxes.append(("subtitle \(line)", box)) } else { Issue.record("\(label): subtitle line not drawn") }
            baseline += PlotLayout.subtitleLine
        }
        for header in layout.headers {
            if let box = drawn(header.title, header.titleBaseline) { boxes.append(("panel title \(header.title)", box)) }
            else { Issue.record("\(label): panel title not drawn") }
            for item in header.legend {
                if let box = drawn(item.name, item.baseline) { boxes.append(("legend \(item.name)", box)) }
                else { Issue.record("\(label): legend entry not drawn") }
                boxes.append(("swatch \(item.name)", Rect(x: item.x - 26, y: item.baseline - 9, width: 20, height: 10)))
            }
        }
        #expect(layout.headers.count == document.panels.count, "\(label)")
        for (k, (what, box)) in boxes.enumerated() {
            #expect(page.contains(box), "\(label): \(what) \(box) leaves the page \(page)")
            for (other, otherBox) in boxes[(k + 1)...] where box.overlaps(otherBox) {
                Issue.record("\(label): \(what) \(box) overlaps \(other) \(otherBox)")
            }
            for frame in layout.frames where box.overlaps(frame.area) {
                Issue.record("\(label): \(what) \(box) overlaps a panel's area \(frame.area)")
            }
        }
    }

    @Test("titles, subtitle and legends: apart and on the page at every width, for every set of panels", arguments: widths)
    func headerTextApart(width: Int) throws {
        let all = try Self.panels()
        for set in 1..<(1 << all.count) {
            let chosen = all.indices.filter { set & (1 << $0) != 0 }.map { all[$0] }
            checkHeaders(Self.document(chosen, width: width), "width \(width), panels \(chosen.map(\.title.first!))")
        }
    }

    @Test("at the least height a set of panels allows the text still holds; below it, refused in one sentence", arguments: [480, 640])
    func leastHeight(width: Int) throws {
        let all = try Self.panels()
        for count in 1...all.count {
            let chosen = Array(all.prefix(count))
            let scale = Self.document(chosen, width: width).scale
            let least = Self.document(chosen, width: width).minimumHeight(prepared: chosen.map { $0.prepared(for: scale) })
            checkHeaders(Self.document(chosen, width: width, height: least), "\(width)x\(least), \(count) panels")
            if least > PlotOptions.minimumSize.height {
                #expect(throws: PlotError.self) { try Self.document(chosen, width: width, height: least - 1).render(.png) }
                do { _ = try Self.document(chosen, width: width, height: least - 1).render(.png) } catch {
                    #expect(error.message.contains("too small for \(count) panel") && error.message.contains("at least \(width)x\(least)"), "\(error)")
                }
            }
        }
    }

    @Test("a sharp transient's stem shows over a sharp continuous area: outlined in the background's colour")
    func stemOverAreaOfItsColour() throws {
        let elements: [PatternElement] = [
            .event(.continuous(at: 0, duration: 1, intensity: 1, sharpness: 1)),
            .event(.transient(at: 0.5, intensity: 0.6, sharpness: 1)),
        ]
        let pattern = try prepared(elements)
        let theme = PlotTheme.light
        let document = PlotDocument(
            title: "t", panels: [PatternPanel(trace: PatternTrace(pattern), elements: elements)],
            options: PlotOptions(width: 800, height: 360, from: 0, to: 1))
        let image = try DecodedPNG(try document.render(.png))
        let frame = document.layout()[0]
        let a = frame.rectangle
        let x = Int(frame.scale.x(0.5).rounded())
        let y = Int(a.y + a.height * 0.8)  // through the stem's body, inside the area
        let area = theme.sharpness(1).with(alpha: 0.78).over(theme.panelBackground)
        #expect(image.matches(x - 20, y, area, tolerance: 12), "the area's colour away from the stem")
        #expect(image.matches(x, y, theme.sharpness(1), tolerance: 12), "the stem in its sharpness's colour")
        // Beside the stem, each side: a column in the background's colour (the outline).
        for side in [-1, 1] {
            let outlined = (1...3).contains { image.matches(x + side * $0, y, theme.panelBackground, tolerance: 40) }
            #expect(outlined, "an outline on the \(side < 0 ? "left" : "right") of the stem")
        }
    }

    @Test("SVG text is <text> elements: the title found as text, no glyph outlines")
    func svgText() throws {
        let document = Self.document(Array(try Self.panels().prefix(2)), width: 1600)
        let svg = try document.render(.svg)
        final class Texts: NSObject, XMLParserDelegate {
            var texts: [String] = []
            var current: String?
            var glyphs = 0
            func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
                if name == "text" { current = "" }
                if attributes["id"]?.hasPrefix("glyph") == true { glyphs += 1 }
            }
            func parser(_ parser: XMLParser, foundCharacters string: String) { current? += string }
            func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
                if name == "text", let current { texts.append(current) }
                if name == "text" { current = nil }
            }
        }
        let parser = XMLParser(data: Data(svg))
        let delegate = Texts()
        parser.delegate = delegate
        #expect(parser.parse(), "the SVG parses: \(String(describing: parser.parserError))")
        let (layout, _) = document.drawnTexts()
        #expect(delegate.texts.contains(layout.titleLines[0]), "the title as text: \(delegate.texts.prefix(3))")
        #expect(delegate.texts.contains("time (s)"))
        #expect(delegate.glyphs == 0, "no glyph outlines")
    }
}
