// The user channel-map syntax for `--layout` / `--channels`.

import HapticDSP
import HapticPattern

/// Why a channel map could not be read: names the map, the channel and the problem.
public struct ChannelLayoutError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { printable(message) }
}

extension ChannelLayout {
    /// The most output channels a map may name (`Limits.maxChannels`).
    public static let maximumChannels = Limits.maxChannels

    /// Reads a channel map.
    ///
    /// Syntax: comma-separated channels, one entry per output channel in order.
    /// Each entry is a source with an optional gain: `SOURCE[*GAIN]`.
    /// - SOURCE: `H` (haptic drive), `L` / `R` (audio left / right), `0` or `-` (silence);
    ///   case-insensitive; `haptic`, `left`, `right`, `silence` are accepted too.
    /// - GAIN: a linear factor between -1 and 1 (`H*0.5`, `H*-1` inverts polarity) or a
    ///   level in dB at most 0 (`H*-6dB`). Gains above 1 are refused so that the ceiling holds.
    /// Named layouts: `mono`/`haptic` (= `H`) and `stereo+haptic` (= `L,R,H`).
    /// Examples: `L,R,H`; `0,0,H,H*0.5` (a 4-channel card whose channels 3–4 drive two shakers).
    public static func parse(_ text: String) throws(ChannelLayoutError) -> ChannelLayout {
        let trimmed = text.trimmingSpaces
        switch trimmed.lowercased() {
        case "mono", "haptic": return .hapticMono
        case "stereo+haptic": return .stereoPlusHaptic
        default: break
        }
        if trimmed.isEmpty { throw ChannelLayoutError("layout is empty (expected e.g. \"L,R,H\")") }
        let entries = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard entries.count <= maximumChannels else {
            throw ChannelLayoutError("layout \"\(text)\": \(entries.count) channels (at most \(maximumChannels))")
        }
        var sources: [Source] = []
        for (i, entry) in entries.enumerated() {
            let place = "layout \"\(text)\": channel \(i + 1)"
            if entry.isEmpty { throw ChannelLayoutError("\(place): empty entry") }
            let parts = entry.split(separator: "*", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
            var gain: Float = 1
            if parts.count == 2 {
                var g = parts[1].lowercased()
                let isDecibels = g.hasSuffix("db")
                if isDecibels { g.removeLast(2) }
                guard let value = Double(g.trimmingSpaces), value.isFinite else {
                    throw ChannelLayoutError("\(place): gain \"\(parts[1])\" is not a number (e.g. 0.5 or -6dB)")
                }
                if isDecibels {
                    guard value <= 0 else { throw ChannelLayoutError("\(place): gain \(parts[1]) is above 0 dB") }
                    gain = Float(decibelsToGain(value))
                } else {
                    guard (-1...1).contains(value) else {
                        throw ChannelLayoutError("\(place): gain \(parts[1]) is outside -1...1")
                    }
                    gain = Float(value)
                }
            }
            switch parts[0].lowercased() {
            case "h", "haptic": sources.append(.haptic(gain: gain))
            case "l", "left": sources.append(.audioLeft(gain: gain))
            case "r", "right": sources.append(.audioRight(gain: gain))
            case "0", "-", "silence":
                guard parts.count == 1 else { throw ChannelLayoutError("\(place): silence takes no gain") }
                sources.append(.silence)
            default:
                throw ChannelLayoutError("\(place): unknown source \"\(parts[0])\" (expected H, L, R or 0, optionally *GAIN)")
            }
        }
        return ChannelLayout(sources)
    }

    /// The map in `parse` syntax (gains printed only when not 1).
    public var mapDescription: String {
        sources.map { source -> String in
            func g(_ name: String, _ gain: Float) -> String { gain == 1 ? name : "\(name)*\(gain)" }
            switch source {
            case .haptic(let gain): return g("H", gain)
            case .audioLeft(let gain): return g("L", gain)
            case .audioRight(let gain): return g("R", gain)
            case .silence: return "0"
            }
        }.joined(separator: ",")
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
