import CHapticSynth
import Foundation
import HapticKit
import Testing

/// The offline (pulled) engine through the C API: what it renders, when, and its clock.
@Suite struct OfflineEngineTests {
    static let variants: [(rate: Int, channels: Int32, layout: String?, profile: String?)] = [
        (48_000, 1, nil, nil), (44_100, 3, "L,R,H", "voice-coil"), (96_000, 4, "0,0,H,H*-6dB", "lra"),
    ]

    @Test("every bundled pattern, played before the first pull, is the offline render bit for bit (3 rates, layouts, profiles)")
    func bundledPatternsRenderBitForBit() throws {
        let patterns = try bundledPatterns()
        #expect(patterns.count >= 9)
        for path in patterns {
            for v in Self.variants {
                let reference = try referenceRender(path, rate: v.rate, layout: v.layout ?? "H", profile: v.profile)
                var pattern: OpaquePointer? = nil
                try #require(hs_pattern_load_file(&pattern, path) == HS_OK, "\(path): \(lastError())")
                defer { hs_pattern_free(pattern) }
                let (engine, status) = openOffline(rate: Double(v.rate), channels: v.channels, layout: v.layout, profile: v.profile)
                try #require(status == HS_OK, "\(lastError())")
                defer { hs_engine_close(engine) }
                #expect(hs_engine_play(engine, pattern, 0) == HS_OK, "\(lastError())")
                // Blocks of odd sizes, as an audio callback might ask.
                let (pulled, failures) = pull(engine, frames: reference.frames, channels: Int(v.channels), block: 333)
                #expect(failures == 0)
                let differing = differingSamples(pulled, reference.samples)
                #expect(differing == 0, "\(path) at \(v.rate) Hz, \(v.layout ?? "H"): \(differing) of \(pulled.count) samples differ")
                #expect(reference.peak > 0.01, "\(path): the reference is not silent")

                // hs_pattern_render (no engine) renders the same, and says how long.
                var options = hs_render_options()
                #expect(hs_render_options_init(&options) == HS_OK)
                options.sample_rate = Int32(v.rate)
                options.layout = v.layout.map(permanent)
                options.profile = v.profile.map(permanent)
                var frames = 0, channels: Int32 = 0
                #expect(hs_pattern_render(pattern, &options, nil, 0, &frames, &channels) == HS_OK, "\(lastError())")
                #expect(frames == reference.frames && channels == v.channels)
                var rendered = [Float](repeating: .nan, count: frames * Int(channels))
                let status2 = rendered.withUnsafeMutableBufferPointer { hs_pattern_render(pattern, &options, $0.baseAddress, frames, &frames, &channels) }
                #expect(status2 == HS_OK, "\(lastError())")
                #expect(differingSamples(rendered, reference.samples) == 0, "\(path): hs_pattern_render differs")
            }
        }
    }

    @Test("a pattern played at time T is heard from pulled frame round(T·fs); the clock is the frames pulled")
    func scheduledPlayLandsOnItsFrame() throws {
        var status: Int32 = 0
        let pattern = loadJSON(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}}]}"#, status: &status)
        try #require(status == HS_OK)
        defer { hs_pattern_free(pattern) }
        let (engine, opened) = openOffline(rate: 44_100)
        try #require(opened == HS_OK)
        defer { hs_engine_close(engine) }
        var now = -1.0
        #expect(hs_engine_now(engine, &now) == HS_OK && now == 0)
        _ = pull(engine, frames: 1000, channels: 1)
        #expect(hs_engine_now(engine, &now) == HS_OK && abs(now - 1000 / 44_100.0) < 1e-9)
        let t = 0.123456
        #expect(hs_engine_play(engine, pattern, t) == HS_OK, "\(lastError())")
        let frame = Int((t * 44_100).rounded())
        let (samples, _) = pull(engine, frames: frame + 4000 - 1000, channels: 1)
        let heard = Array(samples[(frame - 1000)...])
        #expect(samples[..<(frame - 1000)].allSatisfy { $0 == 0 }, "silence before frame \(frame)")
        var tmp: Int32 = 0
        let alone = loadJSON(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}}]}"#, status: &tmp)
        defer { hs_pattern_free(alone) }
        var options = hs_render_options()
        hs_render_options_init(&options)
        options.sample_rate = 44_100
        var frames = 0
        var reference = [Float](repeating: 0, count: 44_100)
        _ = reference.withUnsafeMutableBufferPointer { hs_pattern_render(alone, &options, $0.baseAddress, 44_100, &frames, nil) }
        // Started inside a block here (the offline render starts it on the stage's first frame):
        // equal within float rounding of the differently aligned high-pass.
        let worst = zip(heard, reference[..<heard.count]).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-5, "differs from the offline render by \(worst)")
        var s = hs_engine_status()
        s.struct_size = MemoryLayout<hs_engine_status>.size
        #expect(hs_engine_get_status(engine, &s) == HS_OK)
        #expect(s.offline == 1 && s.sample_rate == 44_100 && s.channels == 1 && s.late_commands == 0)
        #expect(s.frames_rendered == Int64(frame + 4000) && s.voices_started == 1, "\(s.frames_rendered) frames, \(s.voices_started) voices")
    }

    @Test("a .haptic clip in the haptics folder plays by name, as the clip file loaded itself plays")
    func hapticClipPlaysByName() throws {
        let folder = NSTemporaryDirectory() + "hs-clips-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let heartbeat = try AHAPPattern.load(file: repoRoot + "/Haptics/heartbeat.ahap").pattern
        try Data(HapticClip(pattern: heartbeat).encoded().utf8).write(to: URL(fileURLWithPath: folder + "/knock.haptic"))
        var heard: [[Float]] = []
        for byName in [true, false] {
            var options = hs_engine_options()
            #expect(hs_engine_options_init(&options) == HS_OK)
            options.offline = 1
            options.haptics_folder = permanent(folder)
            var engine: OpaquePointer? = nil
            try #require(hs_engine_open_with(&engine, &options) == HS_OK, "\(lastError())")
            defer { hs_engine_close(engine) }
            if byName {
                #expect(hs_engine_play_named(engine, "knock", 0) == HS_OK, "\(lastError())")
            } else {
                var pattern: OpaquePointer? = nil
                try #require(hs_pattern_load_file(&pattern, folder + "/knock.haptic") == HS_OK, "\(lastError())")
                defer { hs_pattern_free(pattern) }
                #expect(hs_engine_play(engine, pattern, 0) == HS_OK, "\(lastError())")
            }
            heard.append(pull(engine, frames: 48_000, channels: 1).samples)
        }
        #expect(heard[0].contains { abs($0) > 0.01 }, "the clip sounds")
        #expect(differingSamples(heard[0], heard[1]) == 0, "by name as from its file")
    }

    @Test("the library, cues and sound effects of an offline engine (Haptics/, Assets/)")
    func libraryAndCues() throws {
        var options = hs_engine_options()
        #expect(hs_engine_options_init(&options) == HS_OK)
        options.offline = 1
        options.layout = permanent("L,R,H")
        options.haptics_folder = permanent(repoRoot + "/Haptics")
        options.assets_folder = permanent(repoRoot + "/Assets")
        var engine: OpaquePointer? = nil
        try #require(hs_engine_open_with(&engine, &options) == HS_OK, "\(lastError())")
        defer { hs_engine_close(engine) }
        #expect(hs_engine_play_named(engine, "heartbeat", 0) == HS_OK, "\(lastError())")
        #expect(hs_engine_play_cue(engine, "beat_hit", 0.5) == HS_OK, "\(lastError())")
        #expect(hs_engine_play_sound(engine, "sfx_click", 1.0) == HS_OK, "\(lastError())")
        #expect(hs_engine_play_named(engine, "no_such_pattern", 0) == HS_ERR_NOT_FOUND)
        #expect(lastError().contains("no_such_pattern"))
        #expect(hs_engine_play_cue(engine, "no_such_cue", 0) == HS_ERR_NOT_FOUND)
        #expect(hs_engine_play_sound(engine, "no_such_sound", 0) == HS_ERR_NOT_FOUND)
        let (samples, failures) = pull(engine, frames: 72_000, channels: 3)
        #expect(failures == 0)
        func peak(_ channel: Int, _ range: Range<Int>) -> Float { range.map { abs(samples[$0 * 3 + channel]) }.max() ?? 0 }
        #expect(peak(2, 0..<24_000) > 0.05, "heartbeat on H")
        #expect(peak(0, 24_000..<48_000) > 0.01, "the cue's sound on L")
        #expect(peak(0, 48_000..<72_000) > 0.01, "the click on L")
        #expect(hs_engine_reload_library(engine) == HS_OK, "\(lastError())")
    }

    @Test("players: a loop with live intensity, a curve, stop; hs_engine_stop silences what the handle started")
    func playersAndStop() throws {
        var status: Int32 = 0
        let pattern = loadJSON(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 0.5, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}}]}"#, status: &status)
        defer { hs_pattern_free(pattern) }
        let (engine, _) = openOffline()
        defer { hs_engine_close(engine) }
        var player: OpaquePointer? = nil
        try #require(hs_player_create(&player, engine, pattern) == HS_OK, "\(lastError())")
        defer { hs_player_free(player) }
        #expect(hs_player_is_playing(player) == 0)
        #expect(hs_player_start(player, 0) == HS_OK, "\(lastError())")
        #expect(hs_player_is_playing(player) == 1)
        func level(_ seconds: Double) -> Float {
            let (s, _) = pull(engine, frames: Int(seconds * 48_000), channels: 1)
            return s.suffix(4800).map(abs).max() ?? 0
        }
        let loud = level(1.2)  // past the 0.5 s pattern: it loops
        #expect(loud > 0.1)
        #expect(hs_player_set_intensity(player, 0.1) == HS_OK)
        let soft = level(0.5)
        #expect(soft < loud * 0.5, "intensity 0.1: \(soft) vs \(loud)")
        var now = 0.0
        hs_engine_now(engine, &now)
        let times: [Double] = [0, 0.2], values: [Float] = [1, 1]
        #expect(hs_player_schedule_curve(player, Int32(HS_PARAM_INTENSITY), times, values, 2, now) == HS_OK, "\(lastError())")
        let back = level(0.5)
        #expect(back > soft * 2, "the curve brought the intensity back: \(back) vs \(soft)")
        #expect(hs_player_stop(player, 0) == HS_OK)
        #expect(level(0.5) < 1e-3, "silent after stop")
        #expect(hs_player_is_playing(player) == 0)

        // One-shot voices and a restarted loop, then hs_engine_stop: all silent.
        #expect(hs_player_start(player, 0) == HS_OK)
        #expect(hs_engine_play(engine, pattern, 0) == HS_OK)
        #expect(hs_engine_transient(engine, 1, 0.5, 0) == HS_OK)
        #expect(level(0.2) > 0.1)
        #expect(hs_engine_stop(engine, 0) == HS_OK, "\(lastError())")
        #expect(level(0.5) < 1e-3, "silent after hs_engine_stop")
        #expect(hs_player_is_playing(player) == 0)
        var s = hs_engine_status()
        s.struct_size = MemoryLayout<hs_engine_status>.size
        hs_engine_get_status(engine, &s)
        #expect(s.active_voices == 0, "every voice came back (\(s.active_voices) left)")
    }

    @Test("hs_pattern_render: a buffer too small, exact length, and a file")
    func renderToBufferAndFile() throws {
        let path = repoRoot + "/Haptics/heartbeat.ahap"
        var pattern: OpaquePointer? = nil
        try #require(hs_pattern_load_file(&pattern, path) == HS_OK)
        defer { hs_pattern_free(pattern) }
        var frames = 0
        #expect(hs_pattern_render(pattern, nil, nil, 0, &frames, nil) == HS_OK)
        var small = [Float](repeating: 0, count: 100)
        var told = 0
        #expect(small.withUnsafeMutableBufferPointer { hs_pattern_render(pattern, nil, $0.baseAddress, 100, &told, nil) } == HS_ERR_LIMIT)
        #expect(told == frames && lastError().contains("capacity_frames"))
        var options = hs_render_options()
        hs_render_options_init(&options)
        options.exact_length = 1
        options.tail_seconds = 0.25
        var exact = 0
        #expect(hs_pattern_render(pattern, &options, nil, 0, &exact, nil) == HS_OK)
        var duration = 0.0
        hs_pattern_duration(pattern, &duration)
        #expect(exact == Int(((duration + 0.25) * 48_000).rounded()) || abs(exact - Int((duration + 0.25) * 48_000)) <= 1)

        let folder = NSTemporaryDirectory() + "hs-render-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        options.exact_length = 0
        options.tail_seconds = 0
        options.bits = 32
        #expect(hs_pattern_render_file(pattern, &options, folder + "/heartbeat.wav") == HS_OK, "\(lastError())")
        let file = try SoundFileReader.read(folder + "/heartbeat.wav")
        let reference = try referenceRender(path, rate: 48_000, layout: "H", profile: nil)
        #expect(file.frames == reference.frames)
        #expect(differingSamples(file.samples, reference.samples) == 0)
        // Never over its input.
        #expect(hs_pattern_render_file(pattern, &options, path) == HS_ERR_IO)
        #expect(lastError().contains(path))
        // Nor over the profile file it renders for (a hard link of it, so the name is a sound file's).
        let profileFile = folder + "/prof.json"
        try FileManager.default.copyItem(atPath: repoRoot + "/Assets/actuators/bass-shaker.json", toPath: profileFile)
        try FileManager.default.linkItem(atPath: profileFile, toPath: folder + "/prof.wav")
        let profileBefore = FileManager.default.contents(atPath: profileFile)
        let rendered = profileFile.withCString { name in
            options.profile = name
            defer { options.profile = nil }
            return hs_pattern_render_file(pattern, &options, folder + "/prof.wav")
        }
        #expect(rendered == HS_ERR_IO, "\(lastError())")
        #expect(lastError().contains("is one of the inputs"), "\(lastError())")
        #expect(FileManager.default.contents(atPath: profileFile) == profileBefore)
        options.bits = 12
        #expect(hs_pattern_render_file(pattern, &options, folder + "/x.wav") == HS_ERR_INVALID_ARGUMENT)
        #expect(!FileManager.default.fileExists(atPath: folder + "/x.wav"))
    }
}
