import CHapticSynth
import HapticEngine
import HapticKit

// hs_engine_channel_info and hs_set_log_callback: where an engine's channels go, and the
// library's log lines (what the CLI prints about a layout, told to the app).

@c(hs_set_log_callback)
public func hs_set_log_callback(
    _ callback: (@convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void)?,
    _ user: UnsafeMutableRawPointer?, _ minimumLevel: Int32
) -> Int32 {
    run("hs_set_log_callback") { () throws(Failure) in
        guard (Int32(HS_LOG_DEBUG)...Int32(HS_LOG_ERROR)).contains(minimumLevel) else {
            throw .invalidArgument("min_level \(minimumLevel) is not one of HS_LOG_DEBUG...HS_LOG_ERROR (0...3)")
        }
        logCallback.withLock { $0 = callback.map { LogCallback(function: $0, user: user, minimumLevel: minimumLevel) } }
    }
}

@c(hs_engine_channel_info)
public func hs_engine_channel_info(_ engine: OpaquePointer?, _ index: Int32, _ info: UnsafeMutablePointer<hs_channel_info>?) -> Int32 {
    run("hs_engine_channel_info") { () throws(Failure) in
        let out = try required(info, "info")
        let size = out.pointee.struct_size
        guard size > 0 else { throw .invalidArgument("info->struct_size is 0 (set it to sizeof(hs_channel_info))") }
        var filled = try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) -> hs_channel_info in
            e.pulled?.serviceStep()
            let channels = try e.channelReport()
            guard index >= 0, Int(index) < channels.count else {
                throw .invalidArgument("index \(index) is outside 0...\(channels.count - 1) (the engine has \(channels.count) channels)")
            }
            return channels[Int(index)].info
        }
        filled.struct_size = size
        withUnsafeBytes(of: &filled) { bytes in
            UnsafeMutableRawPointer(out).copyMemory(from: bytes.baseAddress!, byteCount: min(size, bytes.count))
        }
    }
}

/// One output channel as the engine reports it (hs_channel_info in Swift terms).
struct ChannelReport {
    var source: ChannelLayout.Source
    var position: ChannelPosition?
    var profile: String?
    var fate: ChannelRouting.Fate

    var info: hs_channel_info {
        var info = hs_channel_info()
        switch source {
        case .silence: (info.source, info.gain) = (Int32(HS_SOURCE_SILENCE), 0)
        case .haptic(let gain): (info.source, info.gain) = (Int32(HS_SOURCE_HAPTIC), Float(gain))
        case .audioLeft(let gain): (info.source, info.gain) = (Int32(HS_SOURCE_LEFT), Float(gain))
        case .audioRight(let gain): (info.source, info.gain) = (Int32(HS_SOURCE_RIGHT), Float(gain))
        }
        copy(position.map { "\($0)" } ?? "", into: &info.position)
        copy(profile ?? "", into: &info.profile)
        switch fate {
        case .delivered: info.fate = Int32(HS_CHANNEL_CARRIED)
        case .dropped(let why): info.fate = Int32(HS_CHANNEL_DROPPED); copy(why, into: &info.reason)
        case .mixedIntoSpeakers(let why): info.fate = Int32(HS_CHANNEL_MIXED); copy(why, into: &info.reason)
        case .unknown(let why): info.fate = Int32(HS_CHANNEL_UNKNOWN); copy(why, into: &info.reason)
        }
        return info
    }
}

/// Copies `text` into a fixed C char array, NUL-terminated, cut at a UTF-8 character boundary.
func copy<T>(_ text: String, into field: inout T) {
    withUnsafeMutableBytes(of: &field) { buffer in
        var bytes = Array(text.utf8.prefix(buffer.count - 1))
        // Never end inside a character: drop continuation bytes and the lead byte they follow.
        if bytes.count < text.utf8.count {
            while let last = bytes.last, last & 0xC0 == 0x80 { bytes.removeLast() }
            if let last = bytes.last, last >= 0xC0 { bytes.removeLast() }
        }
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        buffer.copyBytes(from: bytes)
    }
}

extension CEngine {
    /// The haptic output's channels as its device was last opened: what each carries, where it
    /// went (offline: every channel is the caller's, carried as is).
    func channelReport() throws(Failure) -> [ChannelReport] {
        let layout = manager.configuration.engine.layout
        let fallback = manager.configuration.engine.profile
        /// The profile of the layout's entry for a channel (by its position when the layout places by position).
        func profile(_ c: Int, _ position: ChannelPosition?, _ source: ChannelLayout.Source) -> String? {
            guard case .haptic = source else { return nil }
            let entry = layout.namesPositions
                ? position.flatMap { p in (0..<layout.channels).first { layout.position(ofChannel: $0) == p } } : c
            return (entry.flatMap { layout.profile(ofChannel: $0) } ?? fallback).name
        }
        if pulled != nil {
            return (0..<layout.channels).map { c in
                ChannelReport(source: layout.sources[c], position: nil, profile: profile(c, nil, layout.sources[c]), fate: .delivered(nil))
            }
        }
        guard let routing = manager.channelRouting else { throw .notRunning("the engine's device is not open") }
        return routing.channels.map { channel in
            ChannelReport(source: channel.source, position: channel.position,
                          profile: profile(channel.index, channel.position, channel.source), fate: channel.fate)
        }
    }

    /// hs_engine_status.haptic_carried: 1, 0 (dropped or mixed), or -1 (unknown).
    func hapticCarried() -> Int32 {
        if pulled != nil { return 1 }  // offline: every channel is the caller's (channelReport)
        return manager.channelRouting?.hapticCarried.map { $0 ? 1 : 0 } ?? -1
    }
}
