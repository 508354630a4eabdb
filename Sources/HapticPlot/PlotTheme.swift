// The plot's colours: a light and a dark theme, each series' colour, and the sharpness scale
// that colours transients and continuous events.

/// An sRGB colour with alpha, components 0...1.
public struct PlotColour: Sendable, Equatable {
    public var red: Double
    public var green: Double
    public var blue: Double
    public var alpha: Double

    public init(red: Double, green: Double, blue: Double, alpha: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `0xRRGGBB`.
    public init(_ hex: UInt32, alpha: Double = 1) {
        self.init(
            red: Double(hex >> 16 & 0xFF) / 255, green: Double(hex >> 8 & 0xFF) / 255, blue: Double(hex & 0xFF) / 255,
            alpha: alpha)
    }

    public func with(alpha: Double) -> PlotColour { PlotColour(red: red, green: green, blue: blue, alpha: alpha) }

    /// The colour a fraction `t` (0...1) of the way to `other`.
    func mixed(with other: PlotColour, _ t: Double) -> PlotColour {
        let t = min(1, max(0, t))
        return PlotColour(
            red: red + (other.red - red) * t, green: green + (other.green - green) * t,
            blue: blue + (other.blue - blue) * t, alpha: alpha + (other.alpha - alpha) * t)
    }
}

/// Light (for pages and print) or dark (for screens and slides).
public enum PlotThemeName: String, Sendable, CaseIterable {
    case light, dark
}

/// Every colour a plot uses.
public struct PlotTheme: Sendable {
    public var background: PlotColour
    /// Text, axes and frames.
    public var foreground: PlotColour
    /// Secondary text (tick labels, notes).
    public var muted: PlotColour
    public var grid: PlotColour
    public var panelBackground: PlotColour

    /// Series colours.
    public var waveform: PlotColour
    public var envelope: PlotColour
    public var gainReduction: PlotColour
    public var eventTime: PlotColour
    public var feltOnset: PlotColour
    public var ceiling: PlotColour
    public var audioBar: PlotColour
    public var soundWaveform: PlotColour
    public var soundEnvelope: PlotColour
    public var plannedSkew: PlotColour
    public var sampleSkew: PlotColour
    public var feltSkew: PlotColour
    /// The sensitivity panel: each transient at the sensitivity that first gives it, and the
    /// transients at the chosen sensitivity.
    public var hit: PlotColour
    public var hitAtSensitivity: PlotColour
    /// The sharpness scale, from 0 (dull, low) to 1 (sharp, high), evenly spaced stops.
    public var sharpnessStops: [PlotColour]

    /// The colour for `sharpness` (0...1) on the sharpness scale.
    public func sharpness(_ value: Double) -> PlotColour {
        let stops = sharpnessStops
        let x = min(1, max(0, value.isFinite ? value : 0)) * Double(stops.count - 1)
        let i = min(stops.count - 2, Int(x))
        return stops[i].mixed(with: stops[i + 1], x - Double(i))
    }

    public static func named(_ name: PlotThemeName) -> PlotTheme {
        switch name {
        case .light: light
        case .dark: dark
        }
    }

    public static let light = PlotTheme(
        background: PlotColour(0xFFFFFF), foreground: PlotColour(0x1F2328), muted: PlotColour(0x656D76),
        grid: PlotColour(0xD8DEE4), panelBackground: PlotColour(0xF6F8FA),
        waveform: PlotColour(0x3B6FB6), envelope: PlotColour(0x0B2E5C), gainReduction: PlotColour(0xD1242F),
        eventTime: PlotColour(0x656D76), feltOnset: PlotColour(0xBF3989), ceiling: PlotColour(0xD1242F, alpha: 0.55),
        audioBar: PlotColour(0x1A7F37), soundWaveform: PlotColour(0x6E7781), soundEnvelope: PlotColour(0x1A7F37),
        plannedSkew: PlotColour(0x656D76), sampleSkew: PlotColour(0x3B6FB6), feltSkew: PlotColour(0xBF3989),
        hit: PlotColour(0x3B6FB6), hitAtSensitivity: PlotColour(0xBF3989),
        sharpnessStops: [PlotColour(0x2C1E7A), PlotColour(0x7B2A9A), PlotColour(0xC23A6B), PlotColour(0xE9702A), PlotColour(0xE8B800)])

    public static let dark = PlotTheme(
        background: PlotColour(0x0D1117), foreground: PlotColour(0xE6EDF3), muted: PlotColour(0x8B949E),
        grid: PlotColour(0x30363D), panelBackground: PlotColour(0x161B22),
        waveform: PlotColour(0x58A6FF), envelope: PlotColour(0xCAE8FF), gainReduction: PlotColour(0xFF7B72),
        eventTime: PlotColour(0x8B949E), feltOnset: PlotColour(0xF778BA), ceiling: PlotColour(0xFF7B72, alpha: 0.55),
        audioBar: PlotColour(0x3FB950), soundWaveform: PlotColour(0x6E7681), soundEnvelope: PlotColour(0x3FB950),
        plannedSkew: PlotColour(0x8B949E), sampleSkew: PlotColour(0x58A6FF), feltSkew: PlotColour(0xF778BA),
        hit: PlotColour(0x58A6FF), hitAtSensitivity: PlotColour(0xF778BA),
        sharpnessStops: [PlotColour(0x5A4FCF), PlotColour(0x9D4EDD), PlotColour(0xE05A8A), PlotColour(0xF28C38), PlotColour(0xFFD23F)])
}
