// The user channel-map syntax for `--layout` / `--channels` (render and every live verb).

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

    /// The named layouts `parse` accepts, with what each stands for.
    public static let presets: [(name: String, meaning: String)] = [
        ("mono", "H"), ("haptic", "H"), ("stereo+haptic", "L,R,H"), ("2.1", "FL,FR,LFE=H"),
        ("dualsense", "0,0,H:dualsense,H:dualsense"), ("dualsense+sound", "L,R,H:dualsense,H:dualsense"),
    ]

    /// Reads a channel map, naming built-in profiles only (see the other `parse`).
    public static func parse(_ text: String) throws(ChannelLayoutError) -> ChannelLayout {
        try parse(text) { name throws(ChannelLayoutError) in
            guard let profile = ActuatorProfile.builtIn(named: name) else {
                throw ChannelLayoutError(
                    "unknown profile \"\(name)\" (known: \(ActuatorProfile.builtInNames.joined(separator: ", ")))")
            }
            return profile
        }
    }

    /// Reads a channel map.
    ///
    /// Syntax: comma-separated channels, one entry per output channel in order.
    /// Each entry is a source with an optional profile and gain: `SOURCE[:PROFILE][*GAIN]`.
    /// - SOURCE: `H` (haptic drive), `L` / `R` (audio left / right), `0` or `-` (silence);
    ///   case-insensitive; `haptic`, `left`, `right`, `silence` are accepted too.
    /// - PROFILE (haptic only): the actuator profile this channel's drive is rendered for
    ///   (`H:voice-coil`); `profile` resolves the name. Channels without one use the render's
    ///   or engine's profile; each distinct profile is rendered once.
    /// - GAIN: a linear factor between -1 and 1 (`H*0.5`, `H*-1` inverts polarity) or a
    ///   level in dB at most 0 (`H*-6dB`). Gains above 1 are refused so that the ceiling holds.
    /// - A position places the entry on a named speaker position instead of a column:
    ///   `LFE=H`, `H@LFE`, `FR=H:voice-coil*0.5`; a bare left or right position (`FL`, `RR`...)
    ///   carries that side of the sound. Positions are FL, FR, FC, LFE, RL, RR, SL, SR, RC, FLC,
    ///   FRC, ..., MONO, AUX0…AUX63 (`ChannelPosition`). Either every entry names a position
    ///   or none does; the engine places a named layout on the device's channel map.
    /// Named layouts: `mono`/`haptic` (= `H`), `stereo+haptic` (= `L,R,H`), `2.1`
    /// (= `FL,FR,LFE=H`), `dualsense` (= `0,0,H:dualsense,H:dualsense`: a DualSense's four
    /// USB channels, its actuators on 3–4) and `dualsense+sound` (the sound on 1–2 as well).
    /// Examples: `L,R,H`; `0,0,H,H*0.5` (a 4-channel card whose channels 3–4 drive two shakers).
    public static func parse(
        _ text: String, profile: (String) throws(ChannelLayoutError) -> ActuatorProfile
    ) throws(ChannelLayoutError) -> ChannelLayout {
        let trimmed = text.trimmingSpaces
        switch trimmed.lowercased() {
        case "mono", "haptic": return .hapticMono
        case "stereo+haptic": return .stereoPlusHaptic
        default: break
        }
        if let preset = presets.first(where: { $0.name == trimmed.lowercased() }) {
            return try parse(preset.meaning, profile: profile)
        }
        if trimmed.isEmpty { throw ChannelLayoutError("layout is empty (expected e.g. \"L,R,H\")") }
        let entries = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        guard entries.count <= maximumChannels else {
            throw ChannelLayoutError("layout \"\(text)\": \(entries.count) channels (at most \(maximumChannels))")
        }
        var layout = ChannelLayout([])
        for (i, entry) in entries.enumerated() {
            let place = "layout \"\(text)\": channel \(i + 1)"
            let parsed = try LayoutEntry.parse(entry, place: place, profile: profile)
            layout.sources.append(parsed.source)
            layout.positions.append(parsed.position)
            layout.profiles.append(parsed.profile)
        }
        try checkPositions(layout, text: text)
        if !layout.namesPositions { layout.positions = [] }
        if layout.profiles.allSatisfy({ $0 == nil }) { layout.profiles = [] }
        return layout
    }

    /// Either every channel names a position or none does, and no position is named twice.
    private static func checkPositions(_ layout: ChannelLayout, text: String) throws(ChannelLayoutError) {
        let named = (0..<layout.channels).filter { layout.position(ofChannel: $0) != nil }
        guard !named.isEmpty else { return }
        if let bare = (0..<layout.channels).first(where: { layout.position(ofChannel: $0) == nil }) {
            throw ChannelLayoutError(
                "layout \"\(text)\": channel \(bare + 1) names no position while channel \(named[0] + 1) does "
                    + "(name every channel's position, e.g. FL,FR,LFE=H, or none)")
        }
        for (k, c) in named.enumerated() {
            if let earlier = named[..<k].first(where: { layout.position(ofChannel: $0) == layout.position(ofChannel: c) }) {
                throw ChannelLayoutError(
                    "layout \"\(text)\": channels \(earlier + 1) and \(c + 1) both name position \(layout.position(ofChannel: c)!)")
            }
        }
    }

    /// The map in `parse` syntax (gains printed only when not 1, profiles and positions when set).
    public var mapDescription: String {
        (0..<channels).map { c -> String in
            var entry: String
            switch sources[c] {
            case .haptic: entry = "H"
            case .audioLeft: entry = "L"
            case .audioRight: entry = "R"
            case .silence: entry = "0"
            }
            if let profile = profile(ofChannel: c) { entry += ":" + profile.name }
            switch sources[c] {
            case .haptic(let gain), .audioLeft(let gain), .audioRight(let gain):
                if gain != 1 { entry += "*\(gain)" }
            case .silence: break
            }
            if let position = position(ofChannel: c) { entry = "\(position)=" + entry }
            return entry
        }.joined(separator: ",")
    }
}

/// One entry of a layout: `[POS=]SOURCE[:PROFILE][*GAIN][@POS]`, or a bare left/right position.
private struct LayoutEntry {
    var source: ChannelLayout.Source
    var position: ChannelPosition?
    var profile: ActuatorProfile?

    static func parse(
        _ entry: String, place: String, profile resolve: (String) throws(ChannelLayoutError) -> ActuatorProfile
    ) throws(ChannelLayoutError) -> LayoutEntry {
        if entry.isEmpty { throw ChannelLayoutError("\(place): empty entry") }
        var spec = entry
        var position: ChannelPosition? = nil
        if let at = spec.lastIndex(of: "@") {
            position = try self.position(String(spec[spec.index(after: at)...]).trimmingSpaces, place: place)
            spec = String(spec[..<at]).trimmingSpaces
        }
        if let equals = spec.firstIndex(of: "=") {
            guard position == nil else { throw ChannelLayoutError("\(place): \"\(entry)\" names its position twice") }
            position = try self.position(String(spec[..<equals]).trimmingSpaces, place: place)
            spec = String(spec[spec.index(after: equals)...]).trimmingSpaces
        }
        if spec.isEmpty { throw ChannelLayoutError("\(place): \"\(entry)\" names no source") }
        // A bare position: that side of the sound, placed there.
        if position == nil, let bare = ChannelPosition(name: spec), sourceName(spec) == nil {
            switch bare.side {
            case .left: return LayoutEntry(source: .audioLeft(gain: 1), position: bare)
            case .right: return LayoutEntry(source: .audioRight(gain: 1), position: bare)
            default:
                throw ChannelLayoutError("\(place): position \(bare) needs a source (e.g. \(bare)=H or \(bare)=0)")
            }
        }
        let parts = spec.split(separator: "*", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).trimmingSpaces }
        var head = parts[0]
        var gainText = parts.count == 2 ? parts[1] : nil
        // The profile may also follow the gain (`H*0.5:voice-coil`).
        var profileName: String? = nil
        if let colon = head.firstIndex(of: ":") {
            profileName = String(head[head.index(after: colon)...]).trimmingSpaces
            head = String(head[..<colon]).trimmingSpaces
        } else if let g = gainText, let colon = g.firstIndex(of: ":") {
            profileName = String(g[g.index(after: colon)...]).trimmingSpaces
            gainText = String(g[..<colon]).trimmingSpaces
        }
        var gain: Float = 1
        if let gainText { gain = try self.gain(gainText, place: place) }
        var profile: ActuatorProfile? = nil
        if let profileName {
            guard !profileName.isEmpty else { throw ChannelLayoutError("\(place): \"\(entry)\": empty profile name") }
            do { profile = try resolve(profileName) } catch { throw ChannelLayoutError("\(place): \(error)") }
        }
        guard let kind = sourceName(head) else {
            throw ChannelLayoutError("\(place): unknown source \"\(head)\" (expected H, L, R or 0, optionally *GAIN)")
        }
        let source: ChannelLayout.Source
        switch kind {
        case "h": source = .haptic(gain: gain)
        case "l": source = .audioLeft(gain: gain)
        case "r": source = .audioRight(gain: gain)
        default:
            guard gainText == nil else { throw ChannelLayoutError("\(place): silence takes no gain") }
            source = .silence
        }
        if profile != nil, kind != "h" {
            throw ChannelLayoutError("\(place): only a haptic channel (H) takes a profile")
        }
        return LayoutEntry(source: source, position: position, profile: profile)
    }

    /// `h`, `l`, `r` or `0` for a source name, else nil.
    static func sourceName(_ text: String) -> String? {
        switch text.lowercased() {
        case "h", "haptic": return "h"
        case "l", "left": return "l"
        case "r", "right": return "r"
        case "0", "-", "silence": return "0"
        default: return nil
        }
    }

    static func position(_ text: String, place: String) throws(ChannelLayoutError) -> ChannelPosition {
        guard let position = ChannelPosition(name: text) else {
            throw ChannelLayoutError(
                "\(place): unknown position \"\(text)\" (expected FL, FR, FC, LFE, RL, RR, SL, SR, MONO, AUX0... )")
        }
        return position
    }

    static func gain(_ text: String, place: String) throws(ChannelLayoutError) -> Float {
        var g = text.lowercased()
        let isDecibels = g.hasSuffix("db")
        if isDecibels { g.removeLast(2) }
        guard let value = Double(g.trimmingSpaces), value.isFinite else {
            throw ChannelLayoutError("\(place): gain \"\(text)\" is not a number (e.g. 0.5 or -6dB)")
        }
        if isDecibels {
            guard value <= 0 else { throw ChannelLayoutError("\(place): gain \(text) is above 0 dB") }
            return Float(decibelsToGain(value))
        }
        guard (-1...1).contains(value) else { throw ChannelLayoutError("\(place): gain \(text) is outside -1...1") }
        return Float(value)
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
