// What a layout asks of the renderer: which channel goes where, and which actuator profiles
// its haptic channels are rendered for (each distinct profile once).

extension ChannelLayout {
    /// Where channel `c` is to go by name, or nil (by column number).
    public func position(ofChannel c: Int) -> ChannelPosition? {
        c >= 0 && c < positions.count ? positions[c] : nil
    }

    /// The profile channel `c`'s haptic drive is rendered for, or nil (the default one).
    public func profile(ofChannel c: Int) -> ActuatorProfile? {
        c >= 0 && c < profiles.count ? profiles[c] : nil
    }

    /// Whether any channel is placed by position name.
    public var namesPositions: Bool { (0..<channels).contains { position(ofChannel: $0) != nil } }

    /// The channels that carry the haptic drive.
    public var hapticChannels: [Int] {
        sources.indices.filter { if case .haptic = sources[$0] { return true } else { return false } }
    }

    /// Whether some channel carries the sound (the audio buses).
    public var carriesSound: Bool {
        sources.contains {
            switch $0 {
            case .audioLeft, .audioRight: return true
            default: return false
            }
        }
    }

    /// The actuator profiles the haptic channels need, each once, in the order channels first
    /// use them; a haptic channel without its own profile uses `fallback`. Never empty: a
    /// layout without haptic channels gives `[fallback]`. The first is the one the sound is
    /// rendered with (sound does not depend on the profile).
    public func actuators(default fallback: ActuatorProfile) -> [ActuatorProfile] {
        var result: [ActuatorProfile] = []
        for c in hapticChannels {
            let profile = self.profile(ofChannel: c) ?? fallback
            if !result.contains(profile) { result.append(profile) }
        }
        return result.isEmpty ? [fallback] : result
    }

    /// For each channel, the index in `actuators(default: fallback)` of the drive it carries
    /// (0 for channels that carry no haptic drive).
    public func actuatorIndices(default fallback: ActuatorProfile) -> [Int] {
        let list = actuators(default: fallback)
        return (0..<channels).map { c in
            guard case .haptic = sources[c] else { return 0 }
            return list.firstIndex(of: profile(ofChannel: c) ?? fallback) ?? 0
        }
    }

    /// This layout with the channels reordered and widened: channel `i` of the result is
    /// channel `columns[i]` of this one, or silence where `columns[i]` is nil; `positions`
    /// become the given device positions.
    public func placed(columns: [Int?], positions devicePositions: [ChannelPosition]) -> ChannelLayout {
        ChannelLayout(
            columns.map { $0.map { sources[$0] } ?? .silence },
            positions: devicePositions.map { $0 },
            profiles: columns.map { $0.flatMap { profile(ofChannel: $0) } })
    }
}
