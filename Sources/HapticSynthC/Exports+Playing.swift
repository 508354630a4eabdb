import CHapticSynth
import HapticEngine
import HapticKit

// Playing on an engine: patterns, library patterns, cues, sound effects, transients, stop.

@c(hs_engine_prepare)
public func hs_engine_prepare(_ engine: OpaquePointer?, _ pattern: OpaquePointer?) -> Int32 {
    run("hs_engine_prepare") { () throws(Failure) in
        try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) in
            _ = try patternTable.with(pattern, "pattern") { $0 }.prepared(for: e)
        }
    }
}

@c(hs_engine_play)
public func hs_engine_play(_ engine: OpaquePointer?, _ pattern: OpaquePointer?, _ time: Double) -> Int32 {
    run("hs_engine_play") { () throws(Failure) in
        try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) in
            let p = try patternTable.with(pattern, "pattern") { $0 }
            let at = try e.time(time)
            try e.prepareForControl()
            try e.started(e.manager.play(try p.prepared(for: e), atTime: at))
        }
    }
}

@c(hs_engine_play_named)
public func hs_engine_play_named(_ engine: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ time: Double) -> Int32 {
    run("hs_engine_play_named") { () throws(Failure) in
        try play(engine, name, time, .pattern) { m, n, t in [m.play(n, atTime: t)].compactMap { $0 } }
    }
}

@c(hs_engine_play_cue)
public func hs_engine_play_cue(_ engine: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ time: Double) -> Int32 {
    run("hs_engine_play_cue") { () throws(Failure) in
        try play(engine, name, time, .cue) { m, n, t in m.play(cue: n, atTime: t) }
    }
}

@c(hs_engine_play_sound)
public func hs_engine_play_sound(_ engine: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ time: Double) -> Int32 {
    run("hs_engine_play_sound") { () throws(Failure) in
        try play(engine, name, time, .soundEffect) { m, n, t in [m.playSFX(n, atTime: t)].compactMap { $0 } }
    }
}

/// What a name played on an engine names.
enum NamedKind {
    case pattern, cue, soundEffect

    func isKnown(_ name: String, by manager: HapticManager) -> Bool {
        switch self {
        case .pattern: manager.canPlay(pattern: name)
        case .cue: manager.canPlay(cue: name)
        case .soundEffect: manager.canPlay(soundEffect: name)
        }
    }

    func unknown(_ name: String) -> Failure {
        let message = switch self {
        case .pattern: "no pattern named \(name) in the haptics folder (missing, or it did not load)"
        case .cue: "no cue named \(name) in the cue sheet (missing, or its pattern or sound is not there)"
        case .soundEffect: "no sound effect named \(name) (sfx/\(name).wav in the assets folder)"
        }
        return Failure(HS_ERR_NOT_FOUND, message)
    }
}

/// Plays the `kind` called `name` on `engine` at `time` with `start` (the players it started).
private func play(_ engine: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ time: Double, _ kind: NamedKind,
                  _ start: (HapticManager, String, Double) -> [PatternPlayer]) throws(Failure) {
    let name = try requiredString(name, "name")
    try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) in
        let at = try e.time(time)
        try e.prepareForControl()
        guard kind.isKnown(name, by: e.manager) else { throw kind.unknown(name) }
        let players = start(e.manager, name, at)
        if players.isEmpty { try e.started(nil) }
        for player in players { e.recent.remember(player) }
    }
}

@c(hs_engine_transient)
public func hs_engine_transient(_ engine: OpaquePointer?, _ intensity: Float, _ sharpness: Float, _ time: Double) -> Int32 {
    run("hs_engine_transient") { () throws(Failure) in
        let i = try control(intensity, 0...1, "intensity"), s = try control(sharpness, 0...1, "sharpness")
        try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) in
            let at = try e.time(time)
            try e.prepareForControl()
            try e.started(e.manager.playTransientEvent(intensity: i, sharpness: s, atTime: at))
        }
    }
}

@c(hs_engine_stop)
public func hs_engine_stop(_ engine: OpaquePointer?, _ time: Double) -> Int32 {
    run("hs_engine_stop") { () throws(Failure) in
        try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) in
            let at = try e.time(time)
            try e.prepareForControl()
            e.stopAll(at: at)
        }
    }
}

extension CEngine {
    /// A one-shot start's outcome: remembered for hs_engine_stop, or why nothing started (the
    /// engine was checked running just before: it refused).
    func started(_ player: PatternPlayer?) throws(Failure) {
        guard let player else {
            throw Failure(HS_ERR_LIMIT, "the engine refused the start (all voices in use, its command queue full, or it stopped meanwhile)")
        }
        recent.remember(player)
    }
}
