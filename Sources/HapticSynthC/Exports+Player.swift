import CHapticSynth
import HapticKit

// hs_player_*: looping players with live intensity and sharpness controls and curves.

@c(hs_player_create)
public func hs_player_create(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ engine: OpaquePointer?, _ pattern: OpaquePointer?) -> Int32 {
    run("hs_player_create") { () throws(Failure) in
        let out = try required(out, "out")
        out.pointee = nil
        let player = try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) -> CPlayer in
            CPlayer(engine: e, source: .prepared(try patternTable.with(pattern, "pattern") { $0 }.prepared(for: e)))
        }
        try playerTable.give(player, to: out)
        player.engine.adopt(player)
    }
}

@c(hs_player_create_named)
public func hs_player_create_named(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ engine: OpaquePointer?,
                                   _ name: UnsafePointer<CChar>?) -> Int32 {
    run("hs_player_create_named") { () throws(Failure) in
        let out = try required(out, "out")
        out.pointee = nil
        let name = try requiredString(name, "name")
        let player = try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) -> CPlayer in
            e.pulled?.serviceStep()
            guard NamedKind.pattern.isKnown(name, by: e.manager) else { throw NamedKind.pattern.unknown(name) }
            return CPlayer(engine: e, source: .library(name))
        }
        try playerTable.give(player, to: out)
        player.engine.adopt(player)
    }
}

@c(hs_player_start)
public func hs_player_start(_ player: OpaquePointer?, _ time: Double) -> Int32 {
    run("hs_player_start") { () throws(Failure) in
        try playerTable.with(player, "player") { (p: CPlayer) throws(Failure) in
            let at = try p.engine.time(time)
            try p.engine.prepareForControl()
            try p.start(at: at)
        }
    }
}

@c(hs_player_stop)
public func hs_player_stop(_ player: OpaquePointer?, _ time: Double) -> Int32 {
    run("hs_player_stop") { () throws(Failure) in
        try playerTable.with(player, "player") { (p: CPlayer) throws(Failure) in
            let at = try p.engine.time(time)
            try p.engine.prepareForControl()
            p.stop(at: at)
        }
    }
}

@c(hs_player_set_intensity)
public func hs_player_set_intensity(_ player: OpaquePointer?, _ intensity: Float) -> Int32 {
    run("hs_player_set_intensity") { () throws(Failure) in
        let value = try control(intensity, 0...1, "intensity")
        try playerTable.with(player, "player") { (p: CPlayer) throws(Failure) in
            try p.engine.prepareForControl()
            p.setIntensity(value)
        }
    }
}

@c(hs_player_set_sharpness)
public func hs_player_set_sharpness(_ player: OpaquePointer?, _ sharpness: Float) -> Int32 {
    run("hs_player_set_sharpness") { () throws(Failure) in
        let value = try control(sharpness, -1...1, "sharpness")
        try playerTable.with(player, "player") { (p: CPlayer) throws(Failure) in
            try p.engine.prepareForControl()
            p.setSharpness(value)
        }
    }
}

/// The most points of one curve (each is up to two commands to the render side).
let maximumCurvePoints = 256

@c(hs_player_schedule_curve)
public func hs_player_schedule_curve(_ player: OpaquePointer?, _ parameter: Int32, _ times: UnsafePointer<Double>?,
                                     _ values: UnsafePointer<Float>?, _ count: Int32, _ time: Double) -> Int32 {
    run("hs_player_schedule_curve") { () throws(Failure) in
        let id: DynamicParameterID, range: ClosedRange<Double>
        switch Int(parameter) {
        case HS_PARAM_INTENSITY: (id, range) = (.hapticIntensityControl, 0...1)
        case HS_PARAM_SHARPNESS: (id, range) = (.hapticSharpnessControl, -1...1)
        default: throw .invalidArgument("parameter \(parameter) is neither HS_PARAM_INTENSITY nor HS_PARAM_SHARPNESS")
        }
        guard (1...maximumCurvePoints).contains(Int(count)) else {
            throw .invalidArgument("count \(count) is outside 1...\(maximumCurvePoints)")
        }
        guard let times else { throw .invalidArgument("times is NULL") }
        guard let values else { throw .invalidArgument("values is NULL") }
        var points: [ParameterCurve.ControlPoint] = []
        for i in 0..<Int(count) {
            guard times[i].isFinite, (0...3600).contains(times[i]) else {
                throw .invalidArgument("times[\(i)] \(times[i]) is not a finite number of seconds within 0...3600")
            }
            points.append(ParameterCurve.ControlPoint(times[i], try control(values[i], range, "values[\(i)]")))
        }
        try playerTable.with(player, "player") { (p: CPlayer) throws(Failure) in
            let at = try p.engine.time(time)
            try p.engine.prepareForControl()
            try p.schedule(ParameterCurve(id, time: 0, points: points), at: at)
        }
    }
}

@c(hs_player_is_playing)
public func hs_player_is_playing(_ player: OpaquePointer?) -> Int32 {
    var playing = false
    let status = run("hs_player_is_playing") { () throws(Failure) in
        playing = try playerTable.with(player, "player") { (p: CPlayer) -> Bool in
            p.engine.pulled?.serviceStep()
            return p.isPlaying
        }
    }
    return status == HS_OK ? (playing ? 1 : 0) : status
}

@c(hs_player_free)
public func hs_player_free(_ player: OpaquePointer?) {
    runVoid("hs_player_free") { () throws(Failure) in
        guard player != nil else { return }
        let p = try playerTable.take(player, "player")
        p.stop(at: 0)
        p.engine.release(p)
    }
}
