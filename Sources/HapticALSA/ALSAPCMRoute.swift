import CALSA
import CSoundServer
import HapticEngine
import HapticRender

#if canImport(Glibc)
    import Glibc
#endif

/// Where a PCM name leads in ALSA's configuration: to a sound server's plugin (`pulse`,
/// `pipewire`) with the server and sink it names, or to something else. Follows `slave.pcm`
/// (plug, route, softvol, rate, hooks, empty, dmix...) and `playback.pcm` (asym) down to the
/// first plugin that names no further slave.
struct ALSAPCMRoute: Equatable {
    enum Kind: String { case pulse, pipewire, other }
    var kind: Kind
    /// The server the plugin names (`server`), nil: the plugin's default.
    var server: String?
    /// The sink the plugin names (`device` for pulse, `playback_node` for pipewire), nil: the default.
    var sink: String?

    /// The route of `name`, or nil when ALSA's configuration does not define it.
    static func of(_ name: String) -> ALSAPCMRoute? {
        // A counted reference to the global tree (safe while other threads update it).
        var top: OpaquePointer?
        guard snd_config_update_ref(&top) >= 0, let top else { return nil }
        defer { snd_config_unref(top) }
        return follow(name, top: top, depth: 0)
    }

    private static func follow(_ name: String, top: OpaquePointer, depth: Int) -> ALSAPCMRoute? {
        var conf: OpaquePointer?
        guard depth < 16, snd_config_search_definition(top, "pcm", name, &conf) >= 0, let conf else { return nil }
        defer { snd_config_delete(conf) }
        return follow(node: conf, top: top, depth: depth)
    }

    private static func follow(node: OpaquePointer, top: OpaquePointer, depth: Int) -> ALSAPCMRoute? {
        guard depth < 16 else { return nil }
        switch string(node, "type") {
        case "pulse":
            return ALSAPCMRoute(kind: .pulse, server: string(node, "server"), sink: string(node, "device"))
        case "pipewire":
            return ALSAPCMRoute(kind: .pipewire, server: string(node, "server"), sink: string(node, "playback_node"))
        default:
            for key in ["slave.pcm", "playback.pcm"] {
                var child: OpaquePointer?
                guard snd_config_search(node, key, &child) >= 0, let child else { continue }
                if let slaveName = string(child) {
                    return follow(slaveName, top: top, depth: depth + 1)
                }
                return follow(node: child, top: top, depth: depth + 1)
            }
            return ALSAPCMRoute(kind: .other, server: nil, sink: nil)
        }
    }

    private static func string(_ node: OpaquePointer, _ key: String) -> String? {
        var child: OpaquePointer?
        guard snd_config_search(node, key, &child) >= 0, let child else { return nil }
        return string(child)
    }

    private static func string(_ node: OpaquePointer) -> String? {
        var value: UnsafePointer<CChar>?
        guard snd_config_get_type(node) == SND_CONFIG_TYPE_STRING, snd_config_get_string(node, &value) >= 0,
            let value
        else { return nil }
        return String(cString: value)
    }

    /// The sink the stream plays into and its channel map, asked of the server (at most
    /// `timeoutMilliseconds`); the sink's map is nil when the server cannot be asked.
    func serverSink(timeoutMilliseconds: Int32 = 1000) -> SoundServerSink? {
        guard kind != .other else { return nil }
        let via = kind == .pulse ? "ALSA pulse plugin" : "ALSA pipewire plugin"
        // What the plugin itself would connect to: its `device`, else $PULSE_SINK (libpulse's
        // default for a stream) / $PIPEWIRE_NODE, else the server's default sink.
        var sinkName = sink
        if sinkName == nil, let env = getenv(kind == .pulse ? "PULSE_SINK" : "PIPEWIRE_NODE") {
            sinkName = String(cString: env)
        }
        // A pipewire plugin's `server` names a PipeWire remote, not a PulseAudio socket.
        let pulseServer = kind == .pulse ? server : nil
        var map = hs_sink_map()
        let result = hs_sink_channel_map(pulseServer, sinkName, timeoutMilliseconds, &map)
        guard result == 0 else { return SoundServerSink(name: sinkName, positions: nil, via: via) }
        let positions = withUnsafeBytes(of: map.positions) { raw in
            (0..<Int(map.channels)).map { ChannelPosition(pulseValue: raw.load(fromByteOffset: $0 * 4, as: Int32.self)) ?? .unknown }
        }
        let name = withUnsafeBytes(of: map.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let description = withUnsafeBytes(of: map.description) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return SoundServerSink(
            name: name.isEmpty ? sinkName : name, description: description.isEmpty ? nil : description,
            positions: positions, via: via)
    }
}
