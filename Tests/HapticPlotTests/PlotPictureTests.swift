// What is drawn where, read back from the written PNG (cairo decodes it), and what the
// vector files hold.

import Foundation
import HapticPattern
import HapticRender
import Testing

@testable import HapticPlot

@Suite("plot: what is drawn where")
struct PlotPictureTests {
    let theme = PlotTheme.light

    /// One transient at 0.5 s (sharpness 0.5, intensity 1), plotted over 0...1 s.
    func transientPlot(width: Int = 800) throws -> (PlotDocument, [UInt8]) {
        let pattern = try prepared([.event(.transient(at: 0.5, intensity: 1, sharpness: 0.5))])
        let panel = PatternPanel(trace: PatternTrace(pattern), elements: [])
        let document = PlotDocument(title: "t", panels: [panel], options: PlotOptions(width: width, height: 360, from: 0, to: 1))
        return (document, try document.render(.png))
    }

    @Test("a transient at 0.5 s in a 1 s plot has its stem at the middle column, in its sharpness's colour", arguments: [800, 1601])
    func stemInTheMiddle(width: Int) throws {
        let (document, bytes) = try transientPlot(width: width)
        let image = try DecodedPNG(bytes)
        #expect(image.width == width)
        let area = document.layout()[0].rectangle
        let columns = Int(area.width)
        // A row through the stem's body (intensity 0.3), across the whole plot area.
        let y = Int(area.y + area.height * 0.7)
        let stemColour = theme.sharpness(0.5)
        let hits = (Int(area.x)..<Int(area.x + area.width)).filter { image.matches($0, y, stemColour) }
        #expect(!hits.isEmpty, "the stem is drawn in the colour of sharpness 0.5")
        let middle = Int(area.x) + columns / 2
        #expect(hits.allSatisfy { abs($0 - middle) <= 1 }, "stem pixels at \(hits), middle column \(middle)")
        // And nothing of that colour anywhere else on that row.
        #expect(hits.count <= 3)
    }

    @Test("silence draws no waveform; sound does, only where it sounds")
    func silenceDrawsNothing() throws {
        let band = theme.waveform.with(alpha: 0.7).over(theme.panelBackground)
        func waveformColumns(_ elements: [PatternElement]) throws -> (Set<Int>, PanelFrame, DriveTrace) {
            let pattern = try prepared(elements)
            let document = PlotDocument(
                title: "t", panels: [DrivePanel(pattern: pattern)], options: PlotOptions(width: 700, height: 320, from: 0, to: 1))
            let image = try DecodedPNG(try document.render(.png))
            let frame = document.layout()[0]
            let a = frame.rectangle
            var columns: Set<Int> = []
            for y in Int(a.y + 20)..<Int(a.y + a.height - 20) {
                for x in Int(a.x)..<Int(a.x + a.width) where image.matches(x, y, band, tolerance: 4) { columns.insert(x) }
            }
            return (columns, frame, DriveTrace(pattern: pattern, scale: frame.scale))
        }
        // A pattern that lasts 1 s (its last parameter) and makes no sound at all.
        let (silent, _, silentTrace) = try waveformColumns([.parameter(DynamicParameter(.hapticIntensityControl, time: 1, value: 1))])
        #expect(silent.isEmpty, "no waveform pixel in a silent render")
        #expect(silentTrace.channels[0].maximum.allSatisfy { $0 == 0 } && silentTrace.channels[0].minimum.allSatisfy { $0 == 0 })
        // A continuous event from 0.4 to 0.6 s: waveform there and nowhere before it.
        let (sounding, frame, _) = try waveformColumns([.event(.continuous(at: 0.4, duration: 0.2, intensity: 1, sharpness: 0.5))])
        #expect(!sounding.isEmpty)
        let start = Int(frame.scale.x(0.4).rounded(.down))
        #expect(sounding.allSatisfy { $0 >= start - 1 }, "nothing drawn before the event starts")
        #expect(sounding.contains(Int(frame.scale.x(0.5))), "drawn in the middle of the event")
    }

    @Test("each series is one path: the SVG's paths do not grow with the events or the length")
    func onePathPerSeries() throws {
        func svg(_ elements: [PatternElement], seconds: Double) throws -> String {
            let pattern = try prepared(elements)
            let trace = PatternTrace(pattern)
            let document = PlotDocument(
                title: "t", panels: [PatternPanel(trace: trace, elements: elements), DrivePanel(pattern: pattern, trace: trace)],
                options: PlotOptions(width: 900, from: 0, to: seconds))
            return String(decoding: try document.render(.svg), as: UTF8.self)
        }
        // Paths outside <defs> (cairo's glyphs live in <defs>).
        func drawnPaths(_ text: String) -> [Substring] {
            let body = text.components(separatedBy: "</defs>").last ?? text
            return body.split(separator: "\n").filter { $0.hasPrefix("<path") }
        }
        // Both have a loud overlap (the limiter acts), transients sparse enough to mark their felt
        // onsets, and a stretch short enough for the envelope: the same series are drawn.
        let loud: [PatternElement] = [
            .event(.continuous(at: 0.6, duration: 0.3, intensity: 1, sharpness: 0.3)), .event(.transient(at: 0.7, intensity: 1, sharpness: 0.3)),
        ]
        let small = try svg(loud + [
            .event(.transient(at: 0.1, intensity: 1, sharpness: 0.2)), .event(.transient(at: 0.5, intensity: 0.5, sharpness: 0.9)),
            .event(.continuous(at: 0.2, duration: 0.3, intensity: 0.7, sharpness: 0.4)),
        ], seconds: 1)
        var many = loud
        for k in 0..<50 { many.append(.event(.transient(at: 1 + 0.03 * Double(k), intensity: 0.2 + 0.01 * Double(k), sharpness: Double(k % 10) / 10))) }
        for k in 0..<12 { many.append(.event(.continuous(at: 1 + 0.12 * Double(k), duration: 0.1, intensity: 0.4, sharpness: Double(k % 7) / 7))) }
        let large = try svg(many, seconds: 2.5)
        #expect(drawnPaths(small).count == drawnPaths(large).count, "the same series, the same number of paths")
        // The waveform: one data path (plus its legend swatch), however long the render.
        let waveformStyle = "fill:" + svgColour(theme.waveform) + ";fill-opacity:0.7"
        #expect(drawnPaths(small).filter { $0.contains(waveformStyle) }.count == 2)
        #expect(drawnPaths(large).filter { $0.contains(waveformStyle) }.count == 2)
    }

    /// cairo's SVG spelling of a colour: `rgb(R%,G%,B%)` with six decimals.
    func svgColour(_ c: PlotColour) -> String {
        func percent(_ v: Double) -> String { String(format: "%.6f", v * 100).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression) + "%" }
        return "rgb(\(percent(c.red)),\(percent(c.green)),\(percent(c.blue)))"
    }

    @Test("the same input gives the same bytes twice", arguments: PlotFormat.allCases)
    func deterministic(format: PlotFormat) throws {
        let pattern = try prepared([
            .event(.transient(at: 0.1, intensity: 1, sharpness: 0.2)),
            .event(.continuous(at: 0.2, duration: 0.3, intensity: 0.7, sharpness: 0.4)),
        ])
        func draw() throws -> [UInt8] {
            let trace = PatternTrace(pattern)
            return try PlotDocument(
                title: "same", panels: [PatternPanel(trace: trace, elements: []), DrivePanel(pattern: pattern, trace: trace)],
                options: PlotOptions(width: 640)
            ).render(format)
        }
        let first = try draw(), second = try draw()
        #expect(first.count > 1000)
        #expect(first == second)
        let magic: [UInt8] = switch format {
        case .png: [0x89, 0x50, 0x4E, 0x47]
        case .svg: Array("<?xm".utf8)
        case .pdf: Array("%PDF".utf8)
        }
        #expect(Array(first.prefix(4)) == magic)
    }

    @Test("the drive panel's SVG: each series of its legend is one path, beside its swatch")
    func drivePanelPathPerLegendSeries() throws {
        // Loud enough for the limiter to act, with sparse transients (felt onsets marked).
        let pattern = try prepared([
            .event(.continuous(at: 0.6, duration: 0.3, intensity: 1, sharpness: 0.3)), .event(.continuous(at: 0.6, duration: 0.3, intensity: 1, sharpness: 0.3)),
            .event(.continuous(at: 0.6, duration: 0.3, intensity: 1, sharpness: 0.3)), .event(.transient(at: 0.7, intensity: 1, sharpness: 0.3)),
            .event(.transient(at: 0.1, intensity: 1, sharpness: 0.2)), .event(.transient(at: 0.5, intensity: 0.5, sharpness: 0.9)),
        ])
        let document = PlotDocument(title: "t", panels: [DrivePanel(pattern: pattern)], options: PlotOptions(width: 900, from: 0, to: 1))
        let text = String(decoding: try document.render(.svg), as: UTF8.self)
        let paths = (text.components(separatedBy: "</defs>").last ?? text).split(separator: "\n").filter { $0.hasPrefix("<path") }
        let legend = DrivePanel(pattern: pattern).prepared(for: document.layout()[0].scale).legend(theme)
        #expect(legend.map(\.name).contains("limiter gain reduction (dB)") && legend.map(\.name).contains("event → felt onset"), "\(legend.map(\.name))")
        // Series may share a colour (the ceiling and the gain reduction do): per style, two paths
        // (the series and its swatch) for each legend entry drawn in it.
        var entries: [String: [String]] = [:]
        for entry in legend {
            let style: String
            switch entry.swatch {
            case .area(let c): style = "fill:" + svgColour(c) + ";fill-opacity:" + String(format: "%g", c.alpha) + ";"
            case .line(let c), .dashed(let c): style = "stroke:" + svgColour(c) + ";"
            case .dot(let c): style = "fill:" + svgColour(c) + ";"
            case .sharpness: continue
            }
            entries[style, default: []].append(entry.name)
        }
        for (style, names) in entries {
            let drawn = paths.filter { $0.contains(style) }.count
            #expect(drawn == 2 * names.count, "\(names): \(drawn) paths in \(style) (one per series, one per swatch)")
        }
    }

    @Test("a sound's envelope: the Hilbert envelope, the largest over its channels, zero in silence; none past the limit; non-finite samples are silence")
    func soundEnvelope() throws {
        // Stereo: a 200 Hz tone of amplitude 0.5 on the left from 0.125 to 0.25 s; silence elsewhere.
        let fs = 48_000.0, frames = 24_000
        var samples = [Float](repeating: 0, count: frames * 2)
        for i in 6_000..<12_000 { samples[2 * i] = Float(0.5 * sin(2 * Double.pi * 200 * Double(i) / fs)) }
        let envelope = try #require(TimeSeries.envelope(of: SoundBuffer(channels: 2, sampleRate: fs, samples: samples)))
        #expect(envelope.values.count == frames && envelope.start == 0 && envelope.step == 1 / fs)
        #expect(abs(envelope.values[9_000] - 0.5) < 0.01, "\(envelope.values[9_000]) in the tone")
        #expect(envelope.values[2_000] < 0.01 && envelope.values[20_000] < 0.01, "\(envelope.values[2_000]), \(envelope.values[20_000]) in silence")
        let long = SoundBuffer(channels: 1, sampleRate: fs, samples: [Float](repeating: 0.1, count: DriveTrace.envelopeFrameLimit + 1))
        #expect(TimeSeries.envelope(of: long) == nil)
        let hostile = try #require(TimeSeries.envelope(of: SoundBuffer(channels: 1, sampleRate: fs, samples: [.nan, 0.5, .infinity, -.infinity])))
        #expect(hostile.values.allSatisfy(\.isFinite) && hostile.values.count == 4)
    }

    @Test("audio events are bars over their span, in a lane above the haptic")
    func audioBars() throws {
        let elements: [PatternElement] = [
            .event(Event(time: 0.25, type: .audioContinuous, duration: 0.5, parameters: [EventParameter(.audioVolume, 0.5)])),
            .event(.transient(at: 0.1, intensity: 0.5, sharpness: 0.5)),
        ]
        let pattern = try prepared(elements)
        let document = PlotDocument(
            title: "a", panels: [PatternPanel(trace: PatternTrace(pattern), elements: elements)],
            options: PlotOptions(width: 800, height: 400, from: 0, to: 1))
        let image = try DecodedPNG(try document.render(.png))
        let frame = document.layout()[0]
        let a = frame.rectangle
        let bar = theme.audioBar.with(alpha: 0.35).over(theme.panelBackground)
        // A row through the bar lane's lower half (below its name).
        let y = Int(a.y + 8)
        let columns = (Int(a.x)..<Int(a.x + a.width)).filter { image.matches($0, y, bar, tolerance: 8) }
        #expect(!columns.isEmpty)
        // From the event's start to its end (its envelope's release: 0.75 s and a little).
        #expect(abs((columns.min() ?? 0) - Int(frame.scale.x(0.25))) <= 2, "starts at 0.25 s")
        #expect(Double(columns.max() ?? 0) >= frame.scale.x(0.74) && Double(columns.max() ?? 0) <= frame.scale.x(0.9))
    }

    @Test("the skew panel puts each beat's sample skew at its time and value")
    func skewDots() throws {
        let beats = (0..<8).map { BeatSkew(time: 0.5 * Double($0), planned: 0, sample: $0 == 4 ? 2 : 0, felt: 1.5) }
        let document = PlotDocument(title: "r", panels: [SkewPanel(beats: beats)], options: PlotOptions(width: 800, height: 320))
        let image = try DecodedPNG(try document.render(.png))
        let frame = document.layout()[0]
        let a = frame.rectangle
        // Beat 3 (t = 1.5 s) at 0 ms: its dot sits on the panel's middle row.
        #expect(image.matches(Int(frame.scale.x(1.5)), Int(a.y + a.height / 2), theme.sampleSkew, tolerance: 10))
        // Beat 5 (t = 2 s) at 2 ms: above the middle, not on it.
        #expect(!image.matches(Int(frame.scale.x(2)), Int(a.y + a.height / 2), theme.sampleSkew, tolerance: 10))
        let above = (Int(a.y)..<Int(a.y + a.height / 2 - 4)).filter { image.matches(Int(frame.scale.x(2)), $0, theme.sampleSkew, tolerance: 10) }
        #expect(!above.isEmpty)
    }

    @Test("the sensitivity panel: a dot per transient at its row's sensitivity; the chosen row larger, in its colour, one path per series")
    func sensitivityRows() throws {
        let rows = [
            SensitivityPanel.Row(sensitivity: 0.1, times: [0.5]), SensitivityPanel.Row(sensitivity: 0.5, times: [0.5, 1.5]),
            SensitivityPanel.Row(sensitivity: 1, times: [0.5, 1.0, 1.5]),
        ]
        let panel = SensitivityPanel(rows: rows, chosen: 0.5, duration: 2, title: "s")
        let document = PlotDocument(title: "s", panels: [panel], options: PlotOptions(width: 800, height: 360))
        let image = try DecodedPNG(try document.render(.png))
        let frame = document.layout()[0]
        let r = frame.rectangle
        let area = Rect(x: r.x, y: r.y, width: r.width, height: r.height)
        func at(_ t: Double, _ s: Double) -> (Int, Int) { (Int(frame.scale.x(t).rounded()), Int(SensitivityPanel.y(s, area).rounded())) }
        for (t, s) in [(0.5, 0.1), (0.5, 1.0), (1.0, 1.0), (1.5, 1.0)] {
            let (x, y) = at(t, s)
            #expect(image.matches(x, y, theme.hit, tolerance: 10), "a dot at \(t) s, \(s)")
        }
        for t in [0.5, 1.5] {
            let (x, y) = at(t, 0.5)
            #expect(image.matches(x, y, theme.hitAtSensitivity, tolerance: 10), "the chosen row's dot at \(t) s")
        }
        // No transient at 1 s on the chosen row, none at 1.5 s on the lowest.
        let (x1, y1) = at(1.0, 0.5), (x2, y2) = at(1.5, 0.1)
        #expect(!image.matches(x1, y1, theme.hitAtSensitivity, tolerance: 30) && !image.matches(x1, y1, theme.hit, tolerance: 30))
        #expect(!image.matches(x2, y2, theme.hit, tolerance: 30))
        // In SVG, the rows' dots are one path and the chosen row's another (and their swatches),
        // each dot a closed sub-path of its path.
        let svg = String(decoding: try document.render(.svg), as: UTF8.self)
        let body = svg.components(separatedBy: "</defs>").last ?? svg
        func paths(_ colour: PlotColour) -> [Substring] {
            body.split(separator: "\n").filter { $0.hasPrefix("<path") && $0.contains("fill:" + svgColour(colour) + ";") }
        }
        let dots = paths(theme.hit), chosen = paths(theme.hitAtSensitivity)
        #expect(dots.count == 2 && chosen.count == 2, "\(dots.count) and \(chosen.count) paths")
        func closed(_ path: Substring) -> Int { path.components(separatedBy: " Z").count - 1 }
        #expect(dots.map(closed).max() == 4, "four dots off the chosen row (and the swatch's one)")
        #expect(chosen.map(closed).max() == 2, "two on it")
    }
}
