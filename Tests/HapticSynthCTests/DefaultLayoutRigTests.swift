import CHapticSynth
import Foundation
import HapticALSATesting
import HapticKit
import Synchronization
import Testing

/// The lines the library logged (hs_set_log_callback's callback is a C function: no captures).
let loggedLines = Mutex<[String]>([])

/// hs_engine_open with the default layout on sinks built as PulseAudio builds a PC's card in
/// its stereo, 2.1 and 5.1 profiles (scripts/rig.sh: null sinks with channel_map=front-left,...):
/// the haptic reaches a channel the sink keeps (LFE where there is one) — recorded from the
/// sink's monitor — and the status, the channel info and the log say where each channel went.
@Suite(.serialized, .enabled(if: CRig.isRunning, "needs scripts/rig.sh"))
struct DefaultLayoutRigTests {
    struct Sink: Sendable, CustomStringConvertible {
        var short: String
        var positions: [ChannelPosition]
        var out: String { CRig.env["HAPTICSYNTH_RIG_OUT_\(short.uppercased())"] ?? "hs_out_\(short)" }
        var input: String { CRig.env["HAPTICSYNTH_RIG_IN_\(short.uppercased())"] ?? "hs_in_\(short)" }
        var description: String { short }
        /// Where the default layout (with sound) puts the haptic.
        var expectedHaptic: ChannelPosition { positions.contains(.lfe) ? .lfe : .frontRight }
        /// Through ALSA's pulse plugin a capture's map is fixed by its width: the smallest holding the sink's.
        var recordChannels: Int {
            (1...8).first { n in positions.allSatisfy(ChannelPosition.soundServerMap(channels: n).contains) } ?? positions.count
        }
    }

    static let sinks = [
        Sink(short: "stereo", positions: [.frontLeft, .frontRight]),
        Sink(short: "21", positions: [.frontLeft, .frontRight, .lfe]),
        Sink(short: "51", positions: [.frontLeft, .frontRight, .rearLeft, .rearRight, .frontCenter, .lfe]),
    ]

    @Test(arguments: sinks)
    func theHapticReachesAChannelTheSinkKeeps(_ sink: Sink) throws {
        loggedLines.withLock { $0.removeAll() }
        #expect(hs_set_log_callback({ _, level, message in
            if level >= HS_LOG_WARNING, let message { loggedLines.withLock { $0.append(String(cString: message)) } }
        }, nil, Int32(HS_LOG_DEBUG)) == HS_OK)
        defer { hs_set_log_callback(nil, nil, 0) }

        let capture = ALSACaptureDevice(name: sink.input, channels: sink.recordChannels, sampleFormat: .float32, seconds: 6)
        try capture.start()
        var engine: OpaquePointer? = nil
        try #require(hs_engine_open(&engine, sink.out, nil, 0) == HS_OK, "\(lastError())")
        var pattern: OpaquePointer? = nil
        try #require(hs_pattern_load_file(&pattern, repoRoot + "/Haptics/heartbeat.ahap") == HS_OK)
        defer { hs_pattern_free(pattern) }
        var status = hs_engine_status()
        status.struct_size = MemoryLayout<hs_engine_status>.size
        #expect(hs_engine_get_status(engine, &status) == HS_OK)
        #expect(status.haptic_carried == 1, "\(sink): the default layout's haptic is carried")

        // Each channel's role and fate; the haptic on the expected position, carried.
        var roles: [String] = []
        var hapticPositions: [String] = []
        for c in 0..<status.channels {
            var info = hs_channel_info()
            info.struct_size = MemoryLayout<hs_channel_info>.size
            #expect(hs_engine_channel_info(engine, c, &info) == HS_OK, "\(lastError())")
            let position = withUnsafeBytes(of: info.position) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            let profile = withUnsafeBytes(of: info.profile) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            roles.append("\(info.source)@\(position):\(info.fate)")
            if info.source == HS_SOURCE_HAPTIC {
                hapticPositions.append(position)
                #expect(info.fate == HS_CHANNEL_CARRIED && profile == "bass-shaker", "\(sink) channel \(c): \(roles.last!) \(profile)")
            }
        }
        var outOfRange = hs_channel_info()
        outOfRange.struct_size = MemoryLayout<hs_channel_info>.size
        #expect(hs_engine_channel_info(engine, status.channels, &outOfRange) == HS_ERR_INVALID_ARGUMENT)
        #expect(hapticPositions == ["\(sink.expectedHaptic)"], "\(sink): \(roles)")

        #expect(hs_engine_play(engine, pattern, 0) == HS_OK, "\(lastError())")
        var now = 0.0
        hs_engine_now(engine, &now)
        let end = now + 1.5
        while hs_monotonic_now() < end { usleep(20_000) }
        hs_engine_close(engine)
        usleep(300_000)
        let recording = capture.stop()
        let map = ChannelPosition.soundServerMap(channels: recording.channels)
        func peak(_ p: ChannelPosition) -> Float {
            guard let c = map.firstIndex(of: p) else { return 0 }
            return stride(from: c, to: recording.floatSamples.count, by: recording.channels).map { abs(recording.floatSamples[$0]) }.max() ?? 0
        }
        let peaks = sink.positions.map { "\($0) \(peak($0))" }
        print("\(sink): channels \(roles); received \(peaks); log \(loggedLines.withLock { $0 })")
        #expect(peak(sink.expectedHaptic) > 0.05, "\(sink): the haptic reached \(sink.expectedHaptic): \(peaks)")
        if sink.short == "stereo" {
            // The choice gives up the sound's right channel: said in the log, as the CLI says it.
            #expect(loggedLines.withLock { $0.contains { $0.contains("is stereo") } }, "\(loggedLines.withLock { $0 })")
        }
    }

    /// An explicit L,R,H on the stereo sink: the haptic on AUX0 is dropped, and the log and the
    /// status say so (nothing lost silently).
    @Test func aDroppedHapticIsLoggedAndReported() throws {
        loggedLines.withLock { $0.removeAll() }
        #expect(hs_set_log_callback({ _, level, message in
            if level >= HS_LOG_WARNING, let message { loggedLines.withLock { $0.append(String(cString: message)) } }
        }, nil, Int32(HS_LOG_WARNING)) == HS_OK)
        defer { hs_set_log_callback(nil, nil, 0) }
        var options = hs_engine_options()
        hs_engine_options_init(&options)
        options.device = permanent(Self.sinks[0].out)
        options.layout = permanent("L,R,H")
        var engine: OpaquePointer? = nil
        try #require(hs_engine_open_with(&engine, &options) == HS_OK, "\(lastError())")
        defer { hs_engine_close(engine) }
        var status = hs_engine_status()
        status.struct_size = MemoryLayout<hs_engine_status>.size
        #expect(hs_engine_get_status(engine, &status) == HS_OK)
        #expect(status.haptic_carried == 0 && status.channels == 3)
        var info = hs_channel_info()
        info.struct_size = MemoryLayout<hs_channel_info>.size
        #expect(hs_engine_channel_info(engine, 2, &info) == HS_OK)
        let reason = withUnsafeBytes(of: info.reason) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        #expect(info.source == HS_SOURCE_HAPTIC && info.fate == HS_CHANNEL_DROPPED && reason.contains("AUX0"), "\(info.fate): \(reason)")
        let lines = loggedLines.withLock { $0 }
        #expect(lines.contains { $0.contains("does not reach the actuator") }, "\(lines)")
    }
}
