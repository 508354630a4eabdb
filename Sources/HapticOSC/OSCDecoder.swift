#if canImport(Glibc)
import Glibc
#endif
import CLiblo
import HapticEngine
import HapticPattern

/// Turns datagrams into ``OSCCommand``s through liblo: liblo parses messages and bundles
/// (any depth), matches addresses and argument types (coercing between int, float and
/// double), and calls back here; this file checks the values and applies a bundle's
/// timetag. Used by one thread at a time (the server's receiver).
///
/// liblo needs a server object to dispatch; a UDP one would listen on every interface,
/// so it is a Unix-socket one in a private folder, removed at once (nothing can reach it).
/// `@unchecked Sendable`: handed to the receiver thread once and used only there.
final class OSCDecoder: @unchecked Sendable {
    /// What one datagram gave.
    enum Outcome: Equatable {
        case commands([OSCCommand])
        case malformed(String)
    }

    /// A problem with one message of a datagram (counted; logged with rate limiting).
    enum Problem: Equatable {
        case unknownAddress(String)
        case badArgument(String)
    }

    /// Longest pattern, cue or loop name accepted.
    static let maxNameLength = 256
    /// Most points of a loop's parameter curve.
    static let maxCurvePoints = 64
    /// Furthest a time may lie ahead of now (seconds).
    static let maxLeadSeconds = 3600.0

    private let server: lo_server
    private let folder: String
    // The current datagram's results (the callbacks append).
    fileprivate var commands: [OSCCommand] = []
    fileprivate var problems: [Problem] = []
    /// The wall clock's offset from the monotonic one, measured (three clock reads, three
    /// tries) at most once per datagram, and only when a bundle's timetag needs it.
    fileprivate var measuredWallOffset: Double?
    fileprivate var wallMinusMonotonic: Double {
        if let measuredWallOffset { return measuredWallOffset }
        let offset = OSCTimetag.wallMinusMonotonic()
        measuredWallOffset = offset
        return offset
    }
    fileprivate var now = 0.0

    init() throws(OSCSocketError) {
        var template = Array("/tmp/hapticsynth-osc.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw OSCSocketError("mkdtemp: \(String(cString: strerror(errno)))") }
        folder = String(cString: made)
        let path = folder + "/dispatch"
        guard let server = lo_server_new_with_proto(path, Int32(LO_UNIX), { _, _, _ in }) else {
            rmdir(folder)
            throw OSCSocketError("liblo: cannot make its dispatch server")
        }
        unlink(path)
        rmdir(folder)
        self.server = server
        // Timetagged bundles are dispatched at once: their time goes to the engine, which
        // schedules to the frame (liblo's own queue would wake us at the time instead).
        lo_server_enable_queue(server, 0, 1)
        lo_server_enable_coercion(server, 1)
        let me = Unmanaged.passUnretained(self).toOpaque()
        for (path, types) in Self.methods {
            lo_server_add_method(server, path, types, dispatchMessage, me)
        }
        // Last: anything else (unknown address, or known address with other arguments).
        lo_server_add_method(server, nil, nil, unknownMessage, me)
    }

    deinit { lo_server_free(server) }

    /// The address space: each address with each argument list it takes (types as liblo
    /// matches them after coercion; `nil`: checked here, for the curve's variable length).
    static let methods: [(String, String?)] = [
        ("/hapticsynth/play", "s"), ("/hapticsynth/play", "sd"),
        ("/hapticsynth/cue", "s"), ("/hapticsynth/cue", "sd"),
        ("/hapticsynth/transient", "ff"), ("/hapticsynth/transient", "ffd"),
        ("/hapticsynth/loop/start", "ss"), ("/hapticsynth/loop/start", "ssf"), ("/hapticsynth/loop/start", "ssfd"),
        ("/hapticsynth/loop/intensity", "sf"),
        ("/hapticsynth/loop/sharpness", "sf"),
        ("/hapticsynth/loop/curve", nil),
        ("/hapticsynth/loop/stop", "s"), ("/hapticsynth/loop/stop", "sd"),
        ("/hapticsynth/stop", ""), ("/hapticsynth/stop", "d"),
        ("/hapticsynth/status", ""),
        ("/hapticsynth/clock", ""),
    ]

    /// Decodes one datagram.
    func decode(_ bytes: UnsafeMutableRawBufferPointer) -> (Outcome, [Problem]) {
        commands = []
        problems = []
        now = MonotonicClock.now()
        measuredWallOffset = nil
        let rc = lo_server_dispatch_data(server, bytes.baseAddress, bytes.count)
        if rc < 0 {
            // liblo dispatches the messages of a bundle as it reads them: a bundle broken
            // half-way has played its first part (its commands are kept), the rest is malformed.
            let why = rc == -Int32(LO_EINVALIDBUND) ? "invalid bundle" : rc == -Int32(LO_EINVALIDPATH) ? "invalid address" : "invalid message (liblo error \(-rc))"
            return (.malformed(why), problems)
        }
        return (.commands(commands), problems)
    }

    // MARK: - checking values

    /// A time argument: 0 stays 0 (as soon as possible); otherwise finite and at most
    /// `maxLeadSeconds` ahead. A time in the past plays as soon as possible.
    fileprivate func checkedTime(_ t: Double, _ address: String) -> Double? {
        guard t.isFinite, t >= 0 else {
            problems.append(.badArgument("\(address): time \(t) is not a monotonic time in seconds"))
            return nil
        }
        if t == 0 { return 0 }
        guard t <= now + Self.maxLeadSeconds else {
            problems.append(.badArgument("\(address): time \(t) is more than \(Int(Self.maxLeadSeconds)) s ahead of now (\(now))"))
            return nil
        }
        return max(t, 0)
    }

    fileprivate func checkedName(_ name: String, _ address: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= Self.maxNameLength else {
            problems.append(.badArgument("\(address): a name must have 1...\(Self.maxNameLength) bytes"))
            return nil
        }
        return name
    }

    /// The time a message means: its own argument when given, else its bundle's timetag.
    fileprivate func time(_ explicit: Double?, timetag: lo_timetag, _ address: String) -> Double? {
        if let explicit { return checkedTime(explicit, address) }
        if OSCTimetag.isImmediate(seconds: timetag.sec, fraction: timetag.frac) { return 0 }
        let t = OSCTimetag.monotonicSeconds(seconds: timetag.sec, fraction: timetag.frac, wallMinusMonotonic: wallMinusMonotonic)
        if t == 0 { return 0 }
        // A timetag already past plays now; one too far ahead is refused like a time argument.
        return checkedTime(max(t, now), address)
    }

    fileprivate func handle(_ address: String, _ types: [UInt8], _ args: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?, _ message: lo_message) {
        // liblo matched the types (after coercion): argument i has the registered type.
        func string(_ i: Int) -> String { String(cString: UnsafeRawPointer(args![i]!).assumingMemoryBound(to: CChar.self)) }
        func float(_ i: Int) -> Double { Double(args![i]!.pointee.f) }
        func double(_ i: Int) -> Double? { i < types.count ? args![i]!.pointee.d : nil }
        let tag = lo_message_get_timestamp(message)
        var command: OSCCommand?
        switch address {
        case "/hapticsynth/play":
            if let name = checkedName(string(0), address), let t = time(double(1), timetag: tag, address) {
                command = .play(pattern: name, time: t)
            }
        case "/hapticsynth/cue":
            if let name = checkedName(string(0), address), let t = time(double(1), timetag: tag, address) {
                command = .cue(name: name, time: t)
            }
        case "/hapticsynth/transient":
            if let t = time(double(2), timetag: tag, address) {
                command = .transient(intensity: float(0), sharpness: float(1), time: t)
            }
        case "/hapticsynth/loop/start":
            if let id = checkedName(string(0), address), let name = checkedName(string(1), address),
               let t = time(double(3), timetag: tag, address) {
                command = .loopStart(id: id, pattern: name, intensity: types.count > 2 ? float(2) : 1, time: t)
            }
        case "/hapticsynth/loop/intensity":
            if let id = checkedName(string(0), address) { command = .loopIntensity(id: id, value: float(1)) }
        case "/hapticsynth/loop/sharpness":
            if let id = checkedName(string(0), address) { command = .loopSharpness(id: id, value: float(1)) }
        case "/hapticsynth/loop/curve":
            if let args { command = curve(address, types, args, tag) } else { unknown(address, "") }
        case "/hapticsynth/loop/stop":
            if let id = checkedName(string(0), address), let t = time(double(1), timetag: tag, address) {
                command = .loopStop(id: id, time: t)
            }
        case "/hapticsynth/stop":
            if let t = time(double(0), timetag: tag, address) { command = .stopAll(time: t) }
        case "/hapticsynth/status": command = .status
        case "/hapticsynth/clock": command = .clock
        default:
            problems.append(.unknownAddress(address))
        }
        if let command { commands.append(command) }
    }

    /// `/hapticsynth/loop/curve ,ss` + (time, value) pairs of any numeric type, optionally `,…d`
    /// is not allowed (the curve's times are relative to its bundle's timetag or now).
    private func curve(_ address: String, _ types: [UInt8], _ argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>, _ tag: lo_timetag) -> OSCCommand? {
        let s = UInt8(ascii: "s")
        func number(_ i: Int) -> Double? {
            switch types[i] {
            case UInt8(ascii: "f"): Double(argv[i]!.pointee.f)
            case UInt8(ascii: "d"): argv[i]!.pointee.d
            case UInt8(ascii: "i"): Double(argv[i]!.pointee.i)
            default: nil
            }
        }
        guard types.count >= 4, types[0] == s, types[1] == s, (types.count - 2) % 2 == 0 else {
            problems.append(.unknownAddress("\(address) with types ,\(String(decoding: types, as: UTF8.self)) (expected ,ss then time/value pairs)"))
            return nil
        }
        let pairs = (types.count - 2) / 2
        guard pairs <= Self.maxCurvePoints else {
            problems.append(.badArgument("\(address): \(pairs) points (at most \(Self.maxCurvePoints))"))
            return nil
        }
        guard let id = checkedName(String(cString: UnsafeRawPointer(argv[0]!).assumingMemoryBound(to: CChar.self)), address) else { return nil }
        let parameterName = String(cString: UnsafeRawPointer(argv[1]!).assumingMemoryBound(to: CChar.self))
        let parameter: DynamicParameterID
        switch parameterName {
        case "intensity": parameter = .hapticIntensityControl
        case "sharpness": parameter = .hapticSharpnessControl
        default:
            problems.append(.badArgument("\(address): parameter \"\(parameterName.prefix(40))\" (expected intensity or sharpness)"))
            return nil
        }
        var points: [OSCCommand.CurvePoint] = []
        for k in 0..<pairs {
            guard let t = number(2 + 2 * k), let v = number(3 + 2 * k) else {
                problems.append(.unknownAddress("\(address): point \(k) is not two numbers"))
                return nil
            }
            guard t.isFinite, t >= 0, t <= Self.maxLeadSeconds, v.isFinite else {
                problems.append(.badArgument("\(address): point \(k) (\(t), \(v)): time 0...\(Int(Self.maxLeadSeconds)) s and a finite value expected"))
                return nil
            }
            points.append(.init(time: t, value: v))
        }
        guard let start = time(nil, timetag: tag, address) else { return nil }
        return .loopCurve(id: id, parameter: parameter, points: points, time: start)
    }

    fileprivate func unknown(_ address: String, _ types: String) {
        problems.append(.unknownAddress("\(address.prefix(80)) ,\(types.prefix(40))"))
    }
}

/// liblo's callback for the known addresses (`user_data` is the decoder).
private func dispatchMessage(
    _ path: UnsafePointer<CChar>?, _ types: UnsafePointer<CChar>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?,
    _ argc: Int32, _ message: lo_message?, _ user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let path, let user, let message else { return 0 }
    let decoder = Unmanaged<OSCDecoder>.fromOpaque(user).takeUnretainedValue()
    let typeBytes = types.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
    guard typeBytes.count == Int(argc), argc == 0 || argv != nil else {
        decoder.unknown(String(cString: path), String(decoding: typeBytes, as: UTF8.self))
        return 0
    }
    decoder.handle(String(cString: path), typeBytes, argv, message)
    return 0
}

/// liblo's callback for everything else.
private func unknownMessage(
    _ path: UnsafePointer<CChar>?, _ types: UnsafePointer<CChar>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?,
    _ argc: Int32, _ message: lo_message?, _ user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let user else { return 0 }
    let decoder = Unmanaged<OSCDecoder>.fromOpaque(user).takeUnretainedValue()
    decoder.unknown(path.map { String(cString: $0) } ?? "?", types.map { String(cString: $0) } ?? "")
    return 0
}
