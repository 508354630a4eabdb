import CHapticSynth
import HapticEngine
import HapticKit

// hs_engine_*: opening, pulling, closing, the clock, status and callbacks (hapticsynth.h).

@c(hs_engine_options_init)
public func hs_engine_options_init(_ options: UnsafeMutablePointer<hs_engine_options>?) -> Int32 {
    run("hs_engine_options_init") { () throws(Failure) in
        let options = try required(options, "options")
        options.pointee = hs_engine_options()
        options.pointee.struct_size = MemoryLayout<hs_engine_options>.size
    }
}

@c(hs_engine_open)
public func hs_engine_open(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ device: UnsafePointer<CChar>?,
                           _ profile: UnsafePointer<CChar>?, _ periodFrames: Int32) -> Int32 {
    run("hs_engine_open") { () throws(Failure) in
        let out = try required(out, "out")
        out.pointee = nil
        var options = CEngine.Options()
        options.device = try string(device, "device") ?? "default"
        options.profile = try HapticSynthC.profile(try string(profile, "profile"))
        options.periodFrames = try count(periodFrames, 16...16384, default: 256, "period_frames")
        try engineTable.give(try CEngine(options), to: out)
    }
}

@c(hs_engine_open_with)
public func hs_engine_open_with(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ options: UnsafePointer<hs_engine_options>?) -> Int32 {
    run("hs_engine_open_with") { () throws(Failure) in
        let out = try required(out, "out")
        out.pointee = nil
        let given = try versioned(options, "options", hs_engine_options())
        var o = CEngine.Options()
        o.offline = given.offline != 0
        o.device = try string(given.device, "options->device") ?? "default"
        o.audioDevice = try string(given.audio_device, "options->audio_device")
        if let text = try string(given.layout, "options->layout") { o.layout = try layout(text, "options->layout") }
        o.hapticsFolder = try string(given.haptics_folder, "options->haptics_folder")
        o.assetsFolder = try string(given.assets_folder, "options->assets_folder")
        o.profile = try profile(try string(given.profile, "options->profile"), assetsFolder: o.assetsFolder)
        o.sampleRate = try sampleRate(Double(given.sample_rate), "options->sample_rate")
        o.periodFrames = given.period_frames == 0 ? nil : try count(given.period_frames, 16...16384, default: 256, "options->period_frames")
        o.bufferPeriods = try count(given.buffer_periods, 2...16, default: 3, "options->buffer_periods")
        switch given.realtime_priority {
        case 0: o.realtimePriority = 70
        case -1: o.realtimePriority = nil
        case 1...99: o.realtimePriority = given.realtime_priority
        default: throw .invalidArgument("options->realtime_priority \(given.realtime_priority) is not 1...99, 0 (default) or -1 (none)")
        }
        o.lockMemory = given.lock_memory != 0
        if o.offline { o.layout = o.layout?.byColumn ?? .hapticMono }
        try engineTable.give(try CEngine(o), to: out)
    }
}

@c(hs_engine_open_offline)
public func hs_engine_open_offline(_ out: UnsafeMutablePointer<OpaquePointer?>?, _ rate: Double, _ channels: Int32,
                                   _ layoutText: UnsafePointer<CChar>?, _ profileText: UnsafePointer<CChar>?) -> Int32 {
    run("hs_engine_open_offline") { () throws(Failure) in
        let out = try required(out, "out")
        out.pointee = nil
        var o = CEngine.Options()
        o.offline = true
        o.sampleRate = try sampleRate(rate)
        guard (1...Limits.maxChannels).contains(Int(channels)) else {
            throw .invalidArgument("channels \(channels) is outside 1...\(Limits.maxChannels)")
        }
        let text = try string(layoutText, "layout")
        if let text {
            o.layout = try layout(text).byColumn
        } else {
            switch channels {
            case 1: o.layout = .hapticMono
            case 3: o.layout = .stereoPlusHaptic
            default: throw .invalidArgument("layout is NULL: give a channel map for \(channels) channels (NULL means H for 1, L,R,H for 3)")
            }
        }
        guard o.layout!.channels == Int(channels) else {
            // Positions name the channels of a map in its order (as `render --layout` writes them).
            throw .invalidArgument("layout \(text ?? o.layout!.mapDescription) has \(o.layout!.channels) channel"
                + "\(o.layout!.channels == 1 ? "" : "s") (an offline engine, like render, writes a map's entries in its order), channels is \(channels)")
        }
        o.profile = try profile(try string(profileText, "profile"))
        try engineTable.give(try CEngine(o), to: out)
    }
}

// Real-time safe: no allocation, no lock, no wait; its messages are static.
@c(hs_engine_render)
public func hs_engine_render(_ engine: OpaquePointer?, _ interleaved: UnsafeMutablePointer<Float>?, _ frames: Int32) -> Int32 {
    guard let interleaved else {
        hs_internal_error_static(HS_MESSAGE_RENDER_BUFFER)
        return Int32(HS_ERR_INVALID_ARGUMENT)
    }
    guard frames >= 0 else {
        hs_internal_error_static(HS_MESSAGE_RENDER_FRAMES)
        return Int32(HS_ERR_INVALID_ARGUMENT)
    }
    let outcome = engineTable.withObject(handle(engine)) { engine -> Int32 in
        guard let pulled = engine.pulled else {
            hs_internal_error_static(HS_MESSAGE_RENDER_LIVE)
            return Int32(HS_ERR_UNSUPPORTED)
        }
        switch pulled.render(into: interleaved, frames: Int(frames)) {
        case .rendered, .finished:
            hs_internal_error_static(HS_MESSAGE_NONE)
            return Int32(HS_OK)
        case .busy:
            hs_internal_error_static(HS_MESSAGE_RENDER_BUSY)
            return Int32(HS_ERR_BUSY)
        case .notRunning, .notPulled:
            hs_internal_error_static(HS_MESSAGE_RENDER_NOT_RUNNING)
            return Int32(HS_ERR_NOT_RUNNING)
        }
    }
    switch outcome {
    case .success(let status): return status
    case .failure:
        hs_internal_error_static(HS_MESSAGE_RENDER_HANDLE)
        return Int32(HS_ERR_INVALID_HANDLE)
    }
}

@c(hs_engine_close)
public func hs_engine_close(_ engine: OpaquePointer?) {
    runVoid("hs_engine_close") { () throws(Failure) in
        try engineTable.take(engine, "engine").close()
    }
}

// Real-time safe (an atomic load, or the vDSO's clock).
@c(hs_engine_now)
public func hs_engine_now(_ engine: OpaquePointer?, _ now: UnsafeMutablePointer<Double>?) -> Int32 {
    guard let now else {
        hs_internal_error_static(HS_MESSAGE_NOW_POINTER)
        return Int32(HS_ERR_INVALID_ARGUMENT)
    }
    switch engineTable.withObject(handle(engine), { $0.now }) {
    case .success(let seconds):
        now.pointee = seconds
        hs_internal_error_static(HS_MESSAGE_NONE)
        return Int32(HS_OK)
    case .failure:
        hs_internal_error_static(HS_MESSAGE_NOW_HANDLE)
        return Int32(HS_ERR_INVALID_HANDLE)
    }
}

@c(hs_engine_get_status)
public func hs_engine_get_status(_ engine: OpaquePointer?, _ status: UnsafeMutablePointer<hs_engine_status>?) -> Int32 {
    run("hs_engine_get_status") { () throws(Failure) in
        let out = try required(status, "status")
        let size = try structSize(out.pointee.struct_size, "status", fix: "set it to sizeof(hs_engine_status)")
        var s = try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) -> hs_engine_status in
            e.pulled?.serviceStep()
            return e.status()
        }
        s.struct_size = size
        withUnsafeBytes(of: &s) { bytes in
            UnsafeMutableRawPointer(out).copyMemory(from: bytes.baseAddress!, byteCount: min(size, bytes.count))
        }
    }
}

@c(hs_engine_set_callbacks)
public func hs_engine_set_callbacks(_ engine: OpaquePointer?, _ callbacks: UnsafePointer<hs_callbacks>?) -> Int32 {
    run("hs_engine_set_callbacks") { () throws(Failure) in
        let given: hs_callbacks? = callbacks == nil ? nil : try versioned(callbacks, "callbacks", hs_callbacks())
        // The relay is taken out of the handle before waiting for deliveries to end: waiting
        // inside `with` would hold the handle, and a callback that closes this engine waits for
        // that hold to end (each waiting for the other, for good).
        let relay = try engineTable.with(engine, "engine") { $0.relay }
        relay.set(given)
    }
}

@c(hs_engine_reload_library)
public func hs_engine_reload_library(_ engine: OpaquePointer?) -> Int32 {
    run("hs_engine_reload_library") { () throws(Failure) in
        try engineTable.with(engine, "engine") { (e: CEngine) throws(Failure) in
            try e.prepareForControl()
            let report = e.manager.reloadLibrary()
            if let problem = report.cueSheetProblem { throw Failure(HS_ERR_PARSE, "\(problem) (the previous cue sheet is kept)") }
        }
    }
}

/// A C options struct as far as its `struct_size` reaches (a caller built against an older
/// header leaves the newer fields at their defaults: `blank`'s).
func versioned<T>(_ pointer: UnsafePointer<T>?, _ what: String, _ blank: T) throws(Failure) -> T {
    guard let pointer else { throw .invalidArgument("\(what) is NULL") }
    let size = try structSize(UnsafeRawPointer(pointer).load(as: Int.self), what, fix: "fill it with its _init function, or set it to sizeof")
    var value = blank
    withUnsafeMutableBytes(of: &value) { bytes in
        bytes.baseAddress!.copyMemory(from: pointer, byteCount: min(size, bytes.count))
    }
    return value
}

extension CEngine {
    /// What hs_engine_get_status reports.
    func status() -> hs_engine_status {
        var s = hs_engine_status()
        func code(_ status: HapticManager.Status) -> Int32 {
            switch status {
            case .running: Int32(HS_STATE_RUNNING)
            case .reconnecting: Int32(HS_STATE_RECONNECTING)
            case .unavailable: Int32(HS_STATE_UNAVAILABLE)
            }
        }
        s.state = code(manager.status)
        s.audio_state = manager.audioStatus.map(code) ?? -1
        s.offline = pulled == nil ? 0 : 1
        s.sample_rate = Int32(sampleRate)
        s.channels = Int32(channels)
        s.period_frames = Int32(periodFrames)
        s.engine_generation = Int32(clamping: manager.engineGeneration)
        s.now = now
        let stats = manager.statistics
        s.voices_started = Int64(stats.voicesStarted)
        s.starts_failed = Int64(stats.startsFailed)
        s.unknown_names = Int64(stats.unknownNames)
        s.calls_while_unavailable = Int64(stats.callsWhileUnavailable)
        s.transients_cut = Int64(stats.transientsCut)
        s.haptic_carried = hapticCarried()
        if let engine = manager.currentEngine {
            s.realtime = engine.isRealtime ? 1 : 0
            s.output_latency = engine.outputLatency
            s.frames_rendered = pulled?.framesPulled ?? engine.frameMapping.nextFrame
            s.active_voices = Int64(engine.activeVoiceCount)
            s.xruns = Int64(engine.xrunCount)
            s.stalls = Int64(engine.stallCount)
            s.reconnections = Int64(engine.reconnectionCount)
            s.dropped_onsets = Int64(engine.droppedOnsetCount)
            s.late_commands = Int64(engine.lateCommandCount)
        }
        return s
    }
}
