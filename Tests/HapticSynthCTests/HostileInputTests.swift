import CHapticSynth
import Foundation
import HapticTestSupport
import Testing

/// Hostile input through the C API: NULLs, wrong and destroyed handles, bad JSON and strings,
/// hostile numbers. Each is a negative status and a message naming the call, never a crash.
@Suite struct HostileInputTests {
    /// `status` is the expected failure and the message names the call.
    func refused(_ status: Int32, _ expected: Int, _ call: String, _ note: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let message = lastError()
        #expect(status == Int32(expected), "\(call): \(String(cString: hs_status_name(status))) (\(message)) \(note.map { "\($0)" } ?? "")",
                sourceLocation: sourceLocation)
        #expect(message.hasPrefix(call + ": ") && message.count > call.count + 4, "message: \(message)", sourceLocation: sourceLocation)
    }

    static let transient = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#

    @Test("NULL handles and NULL out pointers")
    func nulls() {
        var engine: OpaquePointer? = nil, pattern: OpaquePointer? = nil, player: OpaquePointer? = nil
        refused(hs_engine_open(nil, nil, nil, 0), HS_ERR_INVALID_ARGUMENT, "hs_engine_open")
        refused(hs_engine_open_with(&engine, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_with")
        refused(hs_engine_open_offline(nil, 48_000, 1, nil, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline")
        var buffer = [Float](repeating: 0, count: 64)
        refused(hs_engine_render(nil, &buffer, 64), HS_ERR_INVALID_HANDLE, "hs_engine_render")
        refused(hs_engine_play(nil, nil, 0), HS_ERR_INVALID_HANDLE, "hs_engine_play")
        refused(hs_engine_play_named(nil, "x", 0), HS_ERR_INVALID_HANDLE, "hs_engine_play_named")
        refused(hs_engine_play_cue(nil, nil, 0), HS_ERR_INVALID_ARGUMENT, "hs_engine_play_cue")
        refused(hs_engine_transient(nil, 1, 1, 0), HS_ERR_INVALID_HANDLE, "hs_engine_transient")
        refused(hs_engine_stop(nil, 0), HS_ERR_INVALID_HANDLE, "hs_engine_stop")
        var now = 0.0
        refused(hs_engine_now(nil, &now), HS_ERR_INVALID_HANDLE, "hs_engine_now")
        refused(hs_engine_get_status(nil, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_get_status")
        refused(hs_engine_set_callbacks(nil, nil), HS_ERR_INVALID_HANDLE, "hs_engine_set_callbacks")
        refused(hs_pattern_load_file(&pattern, nil), HS_ERR_INVALID_ARGUMENT, "hs_pattern_load_file")
        refused(hs_pattern_load_json(&pattern, nil, 10), HS_ERR_INVALID_ARGUMENT, "hs_pattern_load_json")
        refused(hs_pattern_load_json(nil, "{}", 2), HS_ERR_INVALID_ARGUMENT, "hs_pattern_load_json")
        refused(hs_pattern_duration(nil, &now), HS_ERR_INVALID_HANDLE, "hs_pattern_duration")
        refused(hs_player_create(&player, nil, nil), HS_ERR_INVALID_HANDLE, "hs_player_create")
        refused(hs_player_start(nil, 0), HS_ERR_INVALID_HANDLE, "hs_player_start")
        #expect(hs_player_is_playing(nil) == HS_ERR_INVALID_HANDLE)
        refused(hs_pattern_render(nil, nil, nil, 0, nil, nil), HS_ERR_INVALID_ARGUMENT, "hs_pattern_render")
        refused(hs_engine_options_init(nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_options_init")
        // Freeing NULL is nothing, as free(NULL) is.
        hs_pattern_free(nil)
        hs_player_free(nil)
        #expect(lastError() == "")
        hs_engine_close(nil)
        #expect(lastError() == "hs_engine_close: engine is NULL")
        #expect(engine == nil && pattern == nil && player == nil)
    }

    @Test("handles of another kind, made-up handles, and handles used after close or free")
    func wrongAndStaleHandles() throws {
        var status: Int32 = 0
        let pattern = loadJSON(Self.transient, status: &status)
        try #require(status == HS_OK)
        let (engine, opened) = openOffline()
        try #require(opened == HS_OK)
        var buffer = [Float](repeating: 0, count: 64)
        // A pattern where an engine belongs, and the other way round.
        refused(hs_engine_render(pattern, &buffer, 64), HS_ERR_INVALID_HANDLE, "hs_engine_render")
        refused(hs_engine_play(pattern, engine, 0), HS_ERR_INVALID_HANDLE, "hs_engine_play")
        #expect(lastError().contains("not a pattern handle") || lastError().contains("not an engine handle"))
        // Made-up values, an address, the largest pointer.
        let address = buffer.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        for fake in [UInt(0xDEAD_BEEF), address, UInt.max, 1] {
            let handle = OpaquePointer(bitPattern: fake)
            refused(hs_engine_play(handle, pattern, 0), HS_ERR_INVALID_HANDLE, "hs_engine_play")
            refused(hs_engine_render(handle, &buffer, 64), HS_ERR_INVALID_HANDLE, "hs_engine_render")
            refused(hs_player_stop(handle, 0), HS_ERR_INVALID_HANDLE, "hs_player_stop")
        }
        var player: OpaquePointer? = nil
        try #require(hs_player_create(&player, engine, pattern) == HS_OK)
        // Free the pattern: the player keeps what it needs; the handle is gone.
        hs_pattern_free(pattern)
        #expect(lastError() == "")
        refused(hs_engine_play(engine, pattern, 0), HS_ERR_INVALID_HANDLE, "hs_engine_play")
        #expect(lastError().contains("already freed"))
        hs_pattern_free(pattern)
        #expect(lastError() == "hs_pattern_free: pattern was already freed")
        #expect(hs_player_start(player, 0) == HS_OK, "\(lastError())")
        // Close the engine: its handle is refused, its player's calls say why.
        hs_engine_close(engine)
        refused(hs_engine_render(engine, &buffer, 64), HS_ERR_INVALID_HANDLE, "hs_engine_render")
        refused(hs_engine_transient(engine, 1, 1, 0), HS_ERR_INVALID_HANDLE, "hs_engine_transient")
        #expect(lastError().contains("already closed"))
        hs_engine_close(engine)
        #expect(lastError() == "hs_engine_close: engine was already closed")
        refused(hs_player_start(player, 0), HS_ERR_NOT_RUNNING, "hs_player_start")
        #expect(lastError().contains("engine was closed"))
        hs_player_free(player)
        refused(hs_player_set_intensity(player, 1), HS_ERR_INVALID_HANDLE, "hs_player_set_intensity")
        // A slot reused by a new pattern does not revive the old handle.
        let again = loadJSON(Self.transient, status: &status)
        defer { hs_pattern_free(again) }
        #expect(again != pattern)
        var duration = 0.0
        refused(hs_pattern_duration(pattern, &duration), HS_ERR_INVALID_HANDLE, "hs_pattern_duration")
        #expect(hs_pattern_duration(again, &duration) == HS_OK)
    }

    static let badJSON: [(String, [UInt8])] = [
        ("empty", []),
        ("a brace", Array("{".utf8)),
        ("an array", Array("[]".utf8)),
        ("null", Array("null".utf8)),
        ("Pattern a number", Array(#"{"Pattern": 5}"#.utf8)),
        ("truncated", Array(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTr"#.utf8)),
        ("1e400", Array(#"{"Pattern": [{"Event": {"Time": 1e400, "EventType": "HapticTransient"}}]}"#.utf8)),
        ("NaN", Array(#"{"Pattern": [{"Event": {"Time": NaN, "EventType": "HapticTransient"}}]}"#.utf8)),
        ("negative time", Array(#"{"Pattern": [{"Event": {"Time": -1, "EventType": "HapticTransient"}}]}"#.utf8)),
        ("deep nesting", Array(String(repeating: "[", count: 200_000).utf8)),
        ("not UTF-8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]),
        ("a lone surrogate escape", Array(#"{"Pattern": [], "\ud800": 1}"#.utf8) + [0xC0, 0x80]),
        ("NUL bytes", [0x7B, 0x00, 0x7D]),
    ]

    @Test("bad JSON: a parse error with where, never a crash")
    func badJSON() {
        for (name, bytes) in Self.badJSON {
            var pattern: OpaquePointer? = nil
            let status = bytes.withUnsafeBufferPointer { b in
                b.withMemoryRebound(to: CChar.self) { hs_pattern_load_json(&pattern, $0.baseAddress ?? UnsafePointer(bitPattern: 1), $0.count) }
            }
            refused(status, HS_ERR_PARSE, "hs_pattern_load_json", "\(name)")
            #expect(pattern == nil)
        }
        // Lengths past the limit, SIZE_MAX among them: refused before reading.
        var pattern: OpaquePointer? = nil
        refused(hs_pattern_load_json(&pattern, "{}", -1), HS_ERR_LIMIT, "hs_pattern_load_json")
        refused(hs_pattern_load_json(&pattern, "{}", 65 << 20), HS_ERR_LIMIT, "hs_pattern_load_json")
    }

    @Test("a Meta/Lofelt .haptic document loads from memory and from a file; a broken one is refused naming where")
    func hapticFormat() throws {
        let haptic = #"{"version": {"major": 1, "minor": 0, "patch": 0}, "metadata": {"editor": "x"}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}, {"time": 0.5, "amplitude": 0.8}]}}}}"#
        var status: Int32 = 0
        let pattern = loadJSON(haptic, status: &status)
        #expect(status == 0, "\(lastError())")
        var seconds = 0.0
        #expect(hs_pattern_duration(pattern, &seconds) == 0)
        #expect(abs(seconds - 0.5) < 1e-6, "the clip's 0.5 s: \(seconds)")
        hs_pattern_free(pattern)
        let path = NSTemporaryDirectory() + "hs-\(getpid()).haptic"
        try haptic.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        var fromFile: OpaquePointer? = nil
        #expect(hs_pattern_load_file(&fromFile, path) == 0, "\(lastError())")
        #expect(hs_pattern_duration(fromFile, &seconds) == 0 && abs(seconds - 0.5) < 1e-6)
        hs_pattern_free(fromFile)
        // One amplitude breakpoint: the spec wants two, lasting more than 0 s.
        let broken = #"{"version": {"major": 1, "minor": 0, "patch": 0}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}]}}}}"#
        let refusedPattern = loadJSON(broken, status: &status)
        refused(status, HS_ERR_PARSE, "hs_pattern_load_json")
        #expect(lastError().contains("amplitude"), "\(lastError())")
        #expect(refusedPattern == nil)
    }

    @Test("files that are not pattern files")
    func badFiles() {
        var pattern: OpaquePointer? = nil
        refused(hs_pattern_load_file(&pattern, "/nonexistent/x.ahap"), HS_ERR_IO, "hs_pattern_load_file")
        refused(hs_pattern_load_file(&pattern, repoRoot + "/Haptics"), HS_ERR_IO, "hs_pattern_load_file", "a folder")
        refused(hs_pattern_load_file(&pattern, "/dev/zero"), HS_ERR_IO, "hs_pattern_load_file", "a device")
        refused(hs_pattern_load_file(&pattern, repoRoot + "/Assets/sfx/sfx_click.wav"), HS_ERR_PARSE, "hs_pattern_load_file", "a WAV file")
        // Named as the sound it is, with the way to a pattern (not "line 1, column 1: unexpected 'R'").
        #expect(lastError().hasSuffix("sfx_click.wav: a WAV sound file, not a pattern; `hapticsynth convert` makes a pattern of it"), "\(lastError())")
        refused(hs_pattern_load_file(&pattern, ""), HS_ERR_INVALID_ARGUMENT, "hs_pattern_load_file", "empty")
        #expect(pattern == nil)
    }

    @Test("strings that are not UTF-8, too long, or not what they should name")
    func badStrings() {
        var engine: OpaquePointer? = nil
        let notUTF8: [CChar] = [CChar(bitPattern: 0xFF), CChar(bitPattern: 0xC3), 0x28, 0]
        refused(hs_engine_open_offline(&engine, 48_000, 1, notUTF8, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline")
        #expect(lastError().contains("not UTF-8"))
        let long = String(repeating: "H,", count: 3000) + "H"
        refused(hs_engine_open_offline(&engine, 48_000, 1, long, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline")
        refused(hs_engine_open_offline(&engine, 48_000, 2, "H,Q", nil), HS_ERR_PARSE, "hs_engine_open_offline", "unknown source")
        refused(hs_engine_open_offline(&engine, 48_000, 2, "H*2", nil), HS_ERR_PARSE, "hs_engine_open_offline", "gain above 1")
        refused(hs_engine_open_offline(&engine, 48_000, 2, "L,R,H", nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline", "channel count")
        refused(hs_engine_open_offline(&engine, 48_000, 2, nil, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline", "no default for 2")
        refused(hs_engine_open_offline(&engine, 48_000, 1, nil, "no-such-profile"), HS_ERR_PARSE, "hs_engine_open_offline")
        refused(hs_engine_open_offline(&engine, 48_000, 1, nil, "/nonexistent/p.json"), HS_ERR_PARSE, "hs_engine_open_offline")
        refused(hs_engine_open(&engine, "no_such_alsa_pcm_here", nil, 0), HS_ERR_DEVICE, "hs_engine_open")
        #expect(lastError().contains("no_such_alsa_pcm_here"))
        #expect(engine == nil)
    }

    @Test("hostile numbers: NaN, infinities, 1e308, -0, negative and huge counts")
    func hostileNumbers() throws {
        var engine: OpaquePointer? = nil
        for rate in [Double.nan, .infinity, -48_000, 1e308, 44_100.5, 7999, 384_001] {
            refused(hs_engine_open_offline(&engine, rate, 1, nil, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline", "rate \(rate)")
        }
        for channels: Int32 in [0, -1, 65, .max, .min] {
            refused(hs_engine_open_offline(&engine, 48_000, channels, nil, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline", "\(channels) channels")
        }
        for period: Int32 in [-5, 8, 1_000_000, .max] {
            refused(hs_engine_open(&engine, "null", nil, period), HS_ERR_INVALID_ARGUMENT, "hs_engine_open", "period \(period)")
        }
        var status: Int32 = 0
        let pattern = loadJSON(Self.transient, status: &status)
        defer { hs_pattern_free(pattern) }
        let (offline, _) = openOffline()
        defer { hs_engine_close(offline) }
        for time in [Double.nan, .infinity, -.infinity, 1e308, 3601] {
            refused(hs_engine_play(offline, pattern, time), HS_ERR_INVALID_ARGUMENT, "hs_engine_play", "time \(time)")
            refused(hs_engine_transient(offline, 1, 1, time), HS_ERR_INVALID_ARGUMENT, "hs_engine_transient", "time \(time)")
            refused(hs_engine_stop(offline, time), HS_ERR_INVALID_ARGUMENT, "hs_engine_stop", "time \(time)")
        }
        // -0, negative and past times mean now.
        for time in [-0.0, -1, -1e308, 0, 1e-300] {
            #expect(hs_engine_play(offline, pattern, time) == HS_OK, "time \(time): \(lastError())")
        }
        refused(hs_engine_transient(offline, .nan, 0.5, 0), HS_ERR_INVALID_ARGUMENT, "hs_engine_transient")
        refused(hs_engine_transient(offline, 0.5, .nan, 0), HS_ERR_INVALID_ARGUMENT, "hs_engine_transient")
        #expect(hs_engine_transient(offline, .infinity, -.greatestFiniteMagnitude, 0) == HS_OK, "clamped")
        var buffer = [Float](repeating: 0, count: 64)
        refused(hs_engine_render(offline, &buffer, -1), HS_ERR_INVALID_ARGUMENT, "hs_engine_render")
        refused(hs_engine_render(offline, &buffer, .min), HS_ERR_INVALID_ARGUMENT, "hs_engine_render")
        refused(hs_engine_render(offline, nil, 64), HS_ERR_INVALID_ARGUMENT, "hs_engine_render")
        #expect(hs_engine_render(offline, &buffer, 0) == HS_OK)

        var player: OpaquePointer? = nil
        try #require(hs_player_create(&player, offline, pattern) == HS_OK)
        defer { hs_player_free(player) }
        refused(hs_player_set_intensity(player, .nan), HS_ERR_INVALID_ARGUMENT, "hs_player_set_intensity")
        #expect(hs_player_set_sharpness(player, 1e30) == HS_OK)
        #expect(hs_player_start(player, 0) == HS_OK)
        let times: [Double] = [0, .nan, 1], values: [Float] = [0, 1, 0]
        refused(hs_player_schedule_curve(player, Int32(HS_PARAM_INTENSITY), times, values, 3, 0), HS_ERR_INVALID_ARGUMENT,
                "hs_player_schedule_curve", "a NaN time")
        for count: Int32 in [0, -1, 257, .max] {
            refused(hs_player_schedule_curve(player, Int32(HS_PARAM_INTENSITY), times, values, count, 0), HS_ERR_INVALID_ARGUMENT,
                    "hs_player_schedule_curve", "count \(count)")
        }
        refused(hs_player_schedule_curve(player, 7, times, values, 1, 0), HS_ERR_INVALID_ARGUMENT, "hs_player_schedule_curve")
        refused(hs_player_schedule_curve(player, Int32(HS_PARAM_INTENSITY), nil, values, 1, 0), HS_ERR_INVALID_ARGUMENT,
                "hs_player_schedule_curve")
        var text: UnsafePointer<CChar>? = nil
        refused(hs_pattern_warning(pattern, -1, &text), HS_ERR_INVALID_ARGUMENT, "hs_pattern_warning")
        refused(hs_pattern_warning(pattern, .max, &text), HS_ERR_INVALID_ARGUMENT, "hs_pattern_warning")

        var options = hs_render_options()
        hs_render_options_init(&options)
        for tail in [Double.nan, -1, 1e308, (-0.0).nextDown] {
            options.tail_seconds = tail
            var frames = 0
            refused(hs_pattern_render(pattern, &options, nil, 0, &frames, nil), HS_ERR_INVALID_ARGUMENT, "hs_pattern_render", "tail \(tail)")
        }
        options.tail_seconds = -0.0
        var frames = 0
        #expect(hs_pattern_render(pattern, &options, nil, 0, &frames, nil) == HS_OK, "a tail of -0 is 0")
        // A capacity of SIZE_MAX with no buffer is only a length query.
        #expect(hs_pattern_render(pattern, &options, nil, -1, &frames, nil) == HS_OK)
        // A pattern that lasts an hour and more is refused before rendering.
        let long = loadJSON(#"{"Pattern": [{"Event": {"Time": 3599, "EventType": "HapticContinuous", "EventDuration": 30}}]}"#, status: &status)
        defer { hs_pattern_free(long) }
        refused(hs_pattern_render(long, nil, nil, 0, &frames, nil), HS_ERR_LIMIT, "hs_pattern_render")
    }

    @Test("option structs: an unset struct_size is refused; an older, shorter struct works")
    func versionedStructs() {
        var options = hs_engine_options()
        var engine: OpaquePointer? = nil
        refused(hs_engine_open_with(&engine, &options), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_with")
        hs_engine_options_init(&options)
        options.device = permanent("null")
        options.sample_rate = 44_100
        // A caller built against a header that ended before `sample_rate`: the rest keep their defaults.
        options.struct_size = MemoryLayout<hs_engine_options>.offset(of: \.sample_rate)!
        #expect(hs_engine_open_with(&engine, &options) == HS_OK, "\(lastError())")
        var s = hs_engine_status()
        s.struct_size = MemoryLayout<hs_engine_status>.offset(of: \.now)!
        s.now = -7
        #expect(hs_engine_get_status(engine, &s) == HS_OK)
        #expect(s.sample_rate == 48_000, "sample_rate past the caller's struct_size: the default")
        #expect(s.now == -7, "fields past struct_size are left alone")
        hs_engine_close(engine)
        var status = hs_engine_status()
        let (offline, _) = openOffline()
        defer { hs_engine_close(offline) }
        refused(hs_engine_get_status(offline, &status), HS_ERR_INVALID_ARGUMENT, "hs_engine_get_status")
        var callbacks = hs_callbacks()
        refused(hs_engine_set_callbacks(offline, &callbacks), HS_ERR_INVALID_ARGUMENT, "hs_engine_set_callbacks")
        callbacks.struct_size = MemoryLayout<hs_callbacks>.size
        #expect(hs_engine_set_callbacks(offline, &callbacks) == HS_OK)
        #expect(hs_engine_set_callbacks(offline, nil) == HS_OK)
    }

    @Test("a string is read no further than 4096 bytes: no NUL in them is refused without touching the next byte (unreadable here); 4095 bytes and the NUL are taken")
    func stringReadBound() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        try #require(page >= 4096)
        let mapped = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let base = mapped, base != MAP_FAILED else {
            Issue.record("mmap: errno \(errno)")
            return
        }
        defer { munmap(base, 2 * page) }
        // The 4096 bytes end where the second page starts; reading byte index 4096 faults.
        try #require(mprotect(base + page, page, PROT_NONE) == 0)
        let text = (base + page - 4096).assumingMemoryBound(to: CChar.self)
        memset(text, Int32(UInt8(ascii: "a")), 4096)
        var engine: OpaquePointer? = nil
        refused(hs_engine_open_offline(&engine, 48_000, 1, nil, text), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline")
        #expect(lastError().contains("profile has no NUL within 4096 bytes"), "\(lastError())")
        refused(hs_engine_open_offline(&engine, 48_000, 1, text, nil), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_offline")
        #expect(lastError().contains("layout has no NUL within 4096 bytes"), "\(lastError())")
        // 4095 bytes and the NUL: read as a string (no such profile: a parse error, not a length one).
        text[4095] = 0
        refused(hs_engine_open_offline(&engine, 48_000, 1, nil, text), HS_ERR_PARSE, "hs_engine_open_offline")
        #expect(engine == nil)
    }

    @Test("struct_size: SIZE_MAX or any size no struct has is refused with the value given (it read as 0 before)")
    func impossibleStructSize() {
        var engine: OpaquePointer? = nil
        var options = hs_engine_options()
        hs_engine_options_init(&options)
        options.device = permanent("null")
        for size in [UInt.max, UInt(Int.max), 65_537] {
            options.struct_size = Int(bitPattern: size)
            refused(hs_engine_open_with(&engine, &options), HS_ERR_INVALID_ARGUMENT, "hs_engine_open_with", "struct_size \(size)")
            #expect(lastError().contains("options->struct_size \(size) is not the size of a struct"), "\(lastError())")
        }
        #expect(engine == nil)
        let (offline, _) = openOffline()
        defer { hs_engine_close(offline) }
        var status = hs_engine_status()
        status.struct_size = Int(bitPattern: UInt.max)
        refused(hs_engine_get_status(offline, &status), HS_ERR_INVALID_ARGUMENT, "hs_engine_get_status")
        #expect(lastError().contains("status->struct_size 18446744073709551615"), "\(lastError())")
        var callbacks = hs_callbacks()
        callbacks.struct_size = Int(bitPattern: UInt.max)
        refused(hs_engine_set_callbacks(offline, &callbacks), HS_ERR_INVALID_ARGUMENT, "hs_engine_set_callbacks")
        #expect(lastError().contains("callbacks->struct_size 18446744073709551615"), "\(lastError())")
    }

    @Test("the last error is per thread")
    func lastErrorPerThread() {
        hs_engine_stop(nil, 0)
        let here = lastError()
        let there = Recorder<String>()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let before = lastError()
            hs_pattern_free(nil)
            there.append(before)
            there.append(lastError())
            done.signal()
        }
        done.wait()
        #expect(here == "hs_engine_stop: engine is NULL")
        #expect(there.all == ["", ""], "another thread starts with no message and keeps its own")
        #expect(lastError() == here, "this thread's message is untouched by the other's calls")
    }

    @Test("a live engine on ALSA's null PCM: not pulled, plays, closes")
    func liveEngineOnTheNullPCM() throws {
        var engine: OpaquePointer? = nil
        try #require(hs_engine_open(&engine, "null", "voice-coil", 128) == HS_OK, "\(lastError())")
        var buffer = [Float](repeating: 0, count: 64)
        refused(hs_engine_render(engine, &buffer, 16), HS_ERR_UNSUPPORTED, "hs_engine_render")
        #expect(hs_engine_transient(engine, 1, 0.5, 0) == HS_OK, "\(lastError())")
        var now = 0.0
        #expect(hs_engine_now(engine, &now) == HS_OK && abs(now - hs_monotonic_now()) < 1)
        var s = hs_engine_status()
        s.struct_size = MemoryLayout<hs_engine_status>.size
        #expect(hs_engine_get_status(engine, &s) == HS_OK && s.offline == 0 && s.channels == 3 && s.period_frames == 128)
        hs_engine_close(engine)
    }
}
