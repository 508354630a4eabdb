import HapticRender

/// Where each channel of an open device went, and a warning when a haptic channel did not
/// reach a channel of its own.
///
/// A device that plays itself (`hw:`) sends channel N to the position its channel map names.
/// Through a sound server the sink decides: the server keeps a stream channel on the sink's
/// channel of the same name (PulseAudio also pairs RL/RR with SL/SR), mixes an unmatched
/// left/right/centre channel into the speakers (PulseAudio with remixing on, its default, at
/// 1/9 for a side channel), and drops an unmatched LFE (unless `remixing-consume-lfe`) or AUX
/// channel. A haptic channel that is not kept on a channel of its own never reaches the
/// actuator: that is what `warning` says, in one line with the fix.
public struct ChannelRouting: Sendable, Equatable {
    /// What happened to one channel.
    public enum Fate: Sendable, Equatable {
        /// It plays on this position (nil: on its column; the device does not name it).
        case delivered(ChannelPosition?)
        /// The server drops it (why).
        case dropped(String)
        /// The server mixes it into the speakers instead of a channel of its own (why).
        case mixedIntoSpeakers(String)
        /// The device cannot say (why).
        case unknown(String)

        public var isDelivered: Bool {
            if case .delivered = self { return true }
            return false
        }
    }

    /// One channel of the device's stream.
    public struct Channel: Sendable, Equatable {
        /// 0-based column.
        public var index: Int
        public var source: ChannelLayout.Source
        /// The position the device gave it (nil: it cannot say).
        public var position: ChannelPosition?
        public var fate: Fate
    }

    /// The device's name (for messages).
    public var device: String
    public var channels: [Channel]
    /// What the device said about itself before opening.
    public var described: DeviceChannels?
    /// The layout that would deliver the haptic here (for the warning's fix).
    public var suggestion: DefaultChannelLayout

    /// - Parameters:
    ///   - layout: the layout by device column (``ChannelPlan/layout``).
    ///   - positions: the open device's channel map (`OutputDevice.channelMap`).
    public init(device: String, layout: ChannelLayout, positions: [ChannelPosition]?, described: DeviceChannels?) {
        self.device = device
        self.described = described
        let usable = positions.flatMap { $0.count == layout.channels ? $0 : nil }
        channels = layout.sources.indices.map { c in
            let position = usable?[c]
            return Channel(
                index: c, source: layout.sources[c], position: position,
                fate: Self.fate(of: position, server: described?.server, positionsReported: positions))
        }
        suggestion = DefaultChannelLayout(for: described, sound: layout.carriesSound, device: device)
    }

    /// The haptic channels that do not reach a channel of their own.
    public var lostHaptic: [Channel] {
        channels.filter {
            if case .haptic = $0.source { return !$0.fate.isDelivered }
            return false
        }
    }

    /// Whether the haptic reaches the actuator: true when every haptic channel is delivered on
    /// a channel of its own, false when one is dropped or mixed into the speakers, nil when the
    /// device cannot say (hs_engine_status.haptic_carried, the OSC status).
    public var hapticCarried: Bool? {
        let lost = lostHaptic
        if lost.isEmpty { return true }
        return lost.contains { if case .unknown = $0.fate { false } else { true } } ? false : nil
    }

    /// One line when a haptic channel does not reach a channel of its own, with the fix; nil
    /// when every haptic channel is delivered.
    public var warning: String? {
        let lost = lostHaptic
        guard let first = lost.first else { return nil }
        let which = lost.map { "channel \($0.index + 1)" + ($0.position.map { " (\($0))" } ?? "") }
            .joined(separator: ", ")
        let why: String
        switch first.fate {
        case .dropped(let reason), .mixedIntoSpeakers(let reason), .unknown(let reason): why = reason
        case .delivered: why = ""
        }
        let verb: String
        switch first.fate {
        case .unknown: verb = "may not reach the actuator"
        default: verb = "does not reach the actuator"
        }
        return "\(device): the haptic on \(which) \(verb): \(why); \(fix)"
    }

    /// What to do about it.
    var fix: String {
        let proposed = suggestion.layout
        let current = channels.map(\.source)
        let deliversHaptic = !proposed.hapticChannels.isEmpty
        if deliversHaptic, proposed.sources != current || proposed.namesPositions {
            return "use --layout \(proposed.mapDescription), or --haptic-device for a card of its own"
        }
        return "see `hapticsynth devices` for its channel maps, or use --haptic-device for a card of its own"
    }

    /// `L→FL R→FR H→LFE via sink hs_sink_21 (FL FR LFE)`, for --verbose and the status.
    public var summary: String {
        let map = channels.map { c -> String in
            let source: String
            switch c.source {
            case .haptic: source = "H"
            case .audioLeft: source = "L"
            case .audioRight: source = "R"
            case .silence: source = "0"
            }
            let target: String
            if c.source == .silence { return "0→" + (c.position.map { "\($0)" } ?? "ch\(c.index + 1)") }
            switch c.fate {
            case .delivered(let p): target = (p ?? c.position).map { "\($0)" } ?? "ch\(c.index + 1)"
            case .dropped: target = "\(c.position.map { "\($0)" } ?? "ch\(c.index + 1)") (dropped)"
            case .mixedIntoSpeakers: target = "\(c.position.map { "\($0)" } ?? "ch\(c.index + 1)") (mixed into the speakers)"
            case .unknown: target = c.position.map { "\($0)?" } ?? "ch\(c.index + 1)?"
            }
            return "\(source)→\(target)"
        }.joined(separator: " ")
        if let server = described?.server { return "\(map) via \(server.summary)" }
        return map
    }

    static func fate(of p: ChannelPosition?, server: SoundServerSink?, positionsReported: [ChannelPosition]?) -> Fate {
        guard let p else {
            if let reported = positionsReported {
                return .unknown("the device reports a \(reported.count)-channel map for a stream of another width")
            }
            return .unknown(
                server == nil
                    ? "the device reports no channel map" : "the sound server's plugin does not say where it goes")
        }
        guard let server else { return .delivered(p) }
        guard let sink = server.positions else {
            if p.isAux {
                return .unknown("the sink's channel map is unknown and ordinary sinks drop \(p)")
            }
            return .unknown("the sink's channel map is unknown")
        }
        if sink.contains(p) { return .delivered(p) }
        let twins: [ChannelPosition: ChannelPosition] = [
            .rearLeft: .sideLeft, .sideLeft: .rearLeft, .rearRight: .sideRight, .sideRight: .rearRight,
        ]
        if let twin = twins[p], sink.contains(twin) { return .delivered(twin) }
        if p == .mono || sink.contains(.mono) { return .delivered(sink.contains(.mono) ? .mono : nil) }
        let sinkName = "\(server.summary)"
        switch p.side {
        case .left, .right, .center:
            return .mixedIntoSpeakers("\(sinkName) has no \(p): the server mixes it into the speakers (or drops it)")
        default:
            return .dropped("\(sinkName) has no \(p): the server drops it")
        }
    }
}
