import CHapticSynth
import Foundation
import Testing

/// hs_player_* as the header says, measured on an offline engine (the rendered peaks are
/// deterministic): a curve's first point, is_playing until a stop takes effect, and the
/// controls set before a start in force from its first hit.
@Suite struct PlayerControlTests {
    static let rate = 48_000
    /// A loud continuous event (1 s, looped by the player): its level follows the intensity control.
    static let hum = #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}]}"#

    /// An offline engine with a player of `json`; closed and freed by `body`'s end.
    func withPlayer(_ json: String, _ body: (_ engine: OpaquePointer?, _ player: OpaquePointer?) throws -> Void) throws {
        var status: Int32 = 0
        let pattern = loadJSON(json, status: &status)
        try #require(status == HS_OK, "\(lastError())")
        defer { hs_pattern_free(pattern) }
        let (engine, opened) = openOffline(rate: Double(Self.rate))
        try #require(opened == HS_OK, "\(lastError())")
        defer { hs_engine_close(engine) }
        var player: OpaquePointer? = nil
        try #require(hs_player_create(&player, engine, pattern) == HS_OK, "\(lastError())")
        defer { hs_player_free(player) }
        try body(engine, player)
    }

    /// The peak of the next `seconds` pulled.
    func peak(_ engine: OpaquePointer?, _ seconds: Double) -> Float {
        pull(engine, frames: Int(seconds * Double(Self.rate)), channels: 1).samples.map(abs).max() ?? 0
    }

    func now(_ engine: OpaquePointer?) -> Double {
        var t = 0.0
        hs_engine_now(engine, &t)
        return t
    }

    /// The hum's level 0.1…0.3 s after a curve sent now (mid-event, clear of the loop's wrap).
    func levelAfterCurve(_ times: [Double], _ values: [Float]) throws -> (full: Float, after: Float) {
        var result: (Float, Float) = (0, 0)
        try withPlayer(Self.hum) { engine, player in
            #expect(hs_player_start(player, 0) == HS_OK, "\(lastError())")
            _ = peak(engine, 0.1)
            let full = peak(engine, 0.2)
            let status = hs_player_schedule_curve(player, Int32(HS_PARAM_INTENSITY), times, values, Int32(times.count), now(engine))
            #expect(status == HS_OK, "\(lastError())")
            _ = peak(engine, 0.1)
            result = (full, peak(engine, 0.2))
        }
        return result
    }

    @Test("a curve's first point applies at its time: 0 s → 0.1 … 2 s → 1.0 starts low; a constant 0.1 curve jumps")
    func curveStartsAtItsFirstPoint() throws {
        let (full, rising) = try levelAfterCurve([0, 2], [0.1, 1.0])
        #expect(full > 0.05, "the hum sounds: \(full)")
        // From 0.1 at 0 s, rising to 1.0 at 2 s: 0.24 of full 0.3 s in (the first point ignored: 1.0).
        #expect(rising < full * 0.6, "0.1 → 1.0 over 2 s: \(rising) of \(full) just after its start")
        let (full2, constant) = try levelAfterCurve([0, 2], [0.1, 0.1])
        #expect(constant < full2 * 0.4, "a constant 0.1 curve: \(constant) of \(full2)")
        // A single point is a jump too.
        let (full3, single) = try levelAfterCurve([0], [0.1])
        #expect(single < full3 * 0.4, "a one-point curve: \(single) of \(full3)")
    }

    @Test("hs_player_is_playing is 1 until a stop scheduled for later takes effect, then 0")
    func playingUntilTheStopTakesEffect() throws {
        try withPlayer(Self.hum) { engine, player in
            #expect(hs_player_start(player, 0) == HS_OK, "\(lastError())")
            _ = peak(engine, 0.2)
            let stopAt = now(engine) + 1.0
            #expect(hs_player_stop(player, stopAt) == HS_OK, "\(lastError())")
            #expect(hs_player_is_playing(player) == 1, "the stop is 1 s away")
            #expect(peak(engine, 0.9) > 0.05, "still sounding before the stop")
            #expect(hs_player_is_playing(player) == 1, "0.1 s before the stop")
            _ = peak(engine, 0.2)
            #expect(peak(engine, 0.2) < 1e-3, "silent after the stop")
            #expect(hs_player_is_playing(player) == 0, "after the stop took effect")
        }
    }

    /// The first `seconds` a player of `json` plays, started `ahead` s from now, with the
    /// intensity control set before the start (nil: left at 1).
    func firstSamples(_ json: String, intensity: Float?, ahead: Double, seconds: Double) throws -> [Float] {
        var samples: [Float] = []
        try withPlayer(json) { engine, player in
            if let intensity { #expect(hs_player_set_intensity(player, intensity) == HS_OK) }
            #expect(hs_player_start(player, now(engine) + ahead) == HS_OK, "\(lastError())")
            _ = pull(engine, frames: Int(ahead * Double(Self.rate)), channels: 1)
            samples = pull(engine, frames: Int(seconds * Double(Self.rate)), channels: 1).samples
        }
        return samples
    }

    @Test("the intensity control set before hs_player_start drives a continuous event from its first frame")
    func controlsBeforeStartDriveFromTheFirstFrame() throws {
        // The hum made at 0.2 (played at control 1) and the hum at 1 played at control 0.2.
        let made = Self.hum.replacingOccurrences(of: #""ParameterValue": 1}"#, with: #""ParameterValue": 0.2}"#)
        try #require(made != Self.hum)
        for ahead in [0.0, 0.5] {
            let reference = try firstSamples(made, intensity: nil, ahead: ahead, seconds: 0.02)
            let controlled = try firstSamples(Self.hum, intensity: 0.2, ahead: ahead, seconds: 0.02)
            let worst = zip(reference, controlled).map { abs($0 - $1) }.max() ?? 1
            #expect(reference.contains { abs($0) > 0.01 }, "the hum at 0.2 sounds")
            #expect(worst < 1e-5, "started \(ahead) s ahead: the controlled hum differs by up to \(worst)")
        }
    }

    /// The heartbeat's first hit and a later loop's, at intensity 0.2 set before a start at `ahead` s.
    func heartbeatHits(startingAhead ahead: Double, intensity: Float?) throws -> (first: Float, later: Float) {
        let path = repoRoot + "/Haptics/heartbeat.ahap"
        var pattern: OpaquePointer? = nil
        try #require(hs_pattern_load_file(&pattern, path) == HS_OK, "\(lastError())")
        defer { hs_pattern_free(pattern) }
        var duration = 0.0
        #expect(hs_pattern_duration(pattern, &duration) == HS_OK && duration > 0.3)
        let (engine, opened) = openOffline(rate: Double(Self.rate))
        try #require(opened == HS_OK, "\(lastError())")
        defer { hs_engine_close(engine) }
        var player: OpaquePointer? = nil
        try #require(hs_player_create(&player, engine, pattern) == HS_OK, "\(lastError())")
        defer { hs_player_free(player) }
        if let intensity { #expect(hs_player_set_intensity(player, intensity) == HS_OK) }
        #expect(hs_player_start(player, ahead) == HS_OK, "\(lastError())")
        _ = peak(engine, ahead)
        let first = peak(engine, 0.1)  // the first hit (time 0 of the pattern)
        _ = peak(engine, duration - 0.1)
        let later = peak(engine, 0.1)  // the second loop's first hit
        return (first, later)
    }

    @Test("a hit struck on the frame a control jumps takes the new value (a curve sent for the start's own time)")
    func hitOnTheFrameOfAJumpTakesTheNewValue() throws {
        let path = repoRoot + "/Haptics/heartbeat.ahap"
        var pattern: OpaquePointer? = nil
        try #require(hs_pattern_load_file(&pattern, path) == HS_OK, "\(lastError())")
        defer { hs_pattern_free(pattern) }
        var duration = 0.0
        #expect(hs_pattern_duration(pattern, &duration) == HS_OK && duration > 0.3)
        let (engine, opened) = openOffline(rate: Double(Self.rate))
        try #require(opened == HS_OK, "\(lastError())")
        defer { hs_engine_close(engine) }
        var player: OpaquePointer? = nil
        try #require(hs_player_create(&player, engine, pattern) == HS_OK, "\(lastError())")
        defer { hs_player_free(player) }
        // The start and the jump at the same time: the same frame, the heartbeat's first hit on it.
        let at = now(engine) + 0.5
        #expect(hs_player_start(player, at) == HS_OK, "\(lastError())")
        #expect(hs_player_schedule_curve(player, Int32(HS_PARAM_INTENSITY), [0], [0.2], 1, at) == HS_OK, "\(lastError())")
        _ = peak(engine, 0.5)
        let first = peak(engine, 0.1)
        _ = peak(engine, duration - 0.1)
        let later = peak(engine, 0.1)  // the second pass's first hit, long after the jump
        let loud = try heartbeatHits(startingAhead: 0, intensity: nil).first
        #expect(later < loud * 0.5, "the jump to 0.2 holds: \(later) vs \(loud) at full intensity")
        #expect(abs(first - later) < later * 0.1, "the hit on the jump's frame \(first), later passes \(later)")
    }

    @Test("controls set before hs_player_start apply to its first hit, started now or ahead of now")
    func controlsBeforeStartApplyToTheFirstHit() throws {
        let loud = try heartbeatHits(startingAhead: 0, intensity: nil)
        #expect(loud.first > 0.2, "full intensity: \(loud.first)")
        for ahead in [0.0, 0.5] {
            let soft = try heartbeatHits(startingAhead: ahead, intensity: 0.2)
            #expect(abs(soft.first - soft.later) < soft.later * 0.1,
                    "started \(ahead) s ahead at 0.2: first hit \(soft.first), later loops \(soft.later)")
            #expect(soft.first < loud.first * 0.5, "first hit \(soft.first) vs \(loud.first) at full intensity")
        }
    }
}
