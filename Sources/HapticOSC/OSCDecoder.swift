#if canImport(Glibc)
import Glibc
#endif
import CLiblo
import HapticPattern

/// Turns datagrams into ``OSCCommand``s: liblo parses messages and bundles (any depth) and
/// hands every message to one generic method here; this file matches the address exactly
/// against the fixed address space, matches the argument types (any OSC number where a
/// number is expected, as liblo's coercion did), checks the values and applies a bundle's
/// timetag. Used by one thread at a time (the server's receiver).
///
/// Address patterns (`*`, `?`, `[…]`, `{…}`) are refused, never matched: the address space
/// is fixed, and liblo's matcher backtracks (one 44-byte `/*?*?…x` held the receiving thread
/// for about half a second per method). With one generic method liblo never matches.
///
/// liblo needs a server object to dispatch; a UDP one would listen on every interface,
/// so it is a Unix-socket one in a private folder, removed at once (nothing can reach it).
/// The decoder reads no clock: the caller gives the time (so a fuzzer can drive it alone).
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
        /// An address pattern (refused unmatched; counted as malformed).
        case addressPattern(String)
    }

    /// Longest pattern, cue or loop name accepted.
    static let maxNameLength = 256
    /// Most points of a loop's parameter curve.
    static let maxCurvePoints = 64
    /// Furthest a time may lie ahead of now (seconds).
    static let maxLeadSeconds = 3600.0

    /// The argument lists an address takes: `s` a string (OSC `s` or `S`), `n` a number
    /// (`i`, `h`, `f` or `d`); `.checkedByCommand`: any strings and numbers, checked by the
    /// command (the curve's variable length).
    enum Arguments {
        case lists([String])
        case checkedByCommand
    }

    /// The address space (README "Driving the engine over OSC"), matched exactly.
    static let addressSpace: [String: Arguments] = [
        "/hapticsynth/play": .lists(["s", "sn"]),
        "/hapticsynth/cue": .lists(["s", "sn"]),
        "/hapticsynth/transient": .lists(["nn", "nnn"]),
        "/hapticsynth/loop/start": .lists(["ss", "ssn", "ssnn"]),
        "/hapticsynth/loop/intensity": .lists(["sn"]),
        "/hapticsynth/loop/sharpness": .lists(["sn"]),
        "/hapticsynth/loop/curve": .checkedByCommand,
        "/hapticsynth/loop/stop": .lists(["s", "sn"]),
        "/hapticsynth/stop": .lists(["", "n"]),
        "/hapticsynth/status": .lists([""]),
        "/hapticsynth/clock": .lists([""]),
        "/hapticsynth/follow/gain": .lists(["n"]),
        "/hapticsynth/follow/mute": .lists(["n"]),
        "/hapticsynth/follow/mode": .lists(["s"]),
        "/hapticsynth/follow/ducking": .lists(["n"]),
    ]

    /// The characters OSC reserves for patterns (and liblo treats as such); none is in an address we serve.
    static let patternCharacters: Set<UInt8> = Set(" #*,?[]{}".utf8)

    /// One argument as the address space sees it.
    enum Argument: Equatable {
        case string(String)
        case number(Double)

        var kind: Character {
            switch self {
            case .string: "s"
            case .number: "n"
            }
        }
    }

    private let server: lo_server
    // The current datagram's results (the callback appends).
    private var commands: [OSCCommand] = []
    private var problems: [Problem] = []
    /// The wall clock's offset from the monotonic one, asked for at most once per datagram,
    /// and only when a bundle's timetag needs it.
    private var measuredWallOffset: Double?
    private var readWallOffset: () -> Double = { 0 }
    private var wallMinusMonotonic: Double {
        if let measuredWallOffset { return measuredWallOffset }
        let offset = readWallOffset()
        measuredWallOffset = offset
        return offset
    }
    private var now = 0.0
    /// The follower's mode names `/hapticsynth/follow/mode` accepts (the server gives
    /// `FollowMode`'s; the decoder itself depends on nothing of the engine, for the fuzzer).
    let followModes: [String]

    init(followModes: [String] = []) throws(OSCSocketError) {
        self.followModes = followModes
        var template = Array("/tmp/hapticsynth-osc.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw OSCSocketError("mkdtemp: \(String(cString: strerror(errno)))") }
        let folder = String(cString: made)
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
        // One generic method (no path, no types): liblo matches nothing, this file does.
        lo_server_add_method(server, nil, nil, receiveMessage, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit { lo_server_free(server) }

    /// Decodes one datagram received at monotonic time `now`; `wallMinusMonotonic` reads the
    /// offset of the wall clock from the monotonic one (called only for a bundle's timetag).
    func decode(_ bytes: UnsafeMutableRawBufferPointer, now: Double, wallMinusMonotonic: @escaping () -> Double) -> (Outcome, [Problem]) {
        commands = []
        problems = []
        self.now = now
        measuredWallOffset = nil
        readWallOffset = wallMinusMonotonic
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
    private func checkedTime(_ t: Double, _ address: String) -> Double? {
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

    /// A level in dB within `range` (NaN and infinities refused).
    private func checkedLevel(_ decibels: Double, _ range: ClosedRange<Double>, _ address: String) -> Double? {
        guard decibels.isFinite, range.contains(decibels) else {
            problems.append(.badArgument("\(address): \(decibels) dB (expected \(Int(range.lowerBound))...\(Int(range.upperBound)) dB)"))
            return nil
        }
        return decibels
    }

    private func checkedName(_ name: String, _ address: String) -> String? {
        guard !name.isEmpty, name.utf8.count <= Self.maxNameLength else {
            problems.append(.badArgument("\(address): a name must have 1...\(Self.maxNameLength) bytes"))
            return nil
        }
        return name
    }

    /// The time a message means: its own argument when given, else its bundle's timetag.
    private func time(_ explicit: Double?, timetag: lo_timetag, _ address: String) -> Double? {
        if let explicit { return checkedTime(explicit, address) }
        if OSCTimetag.isImmediate(seconds: timetag.sec, fraction: timetag.frac) { return 0 }
        let t = OSCTimetag.monotonicSeconds(seconds: timetag.sec, fraction: timetag.frac, wallMinusMonotonic: wallMinusMonotonic)
        if t == 0 { return 0 }
        // A timetag already past plays now; one too far ahead is refused like a time argument.
        return checkedTime(max(t, now), address)
    }

    /// One message from liblo: the address matched exactly, then the argument types, then the values.
    fileprivate func receive(_ path: UnsafePointer<CChar>, _ types: UnsafePointer<CChar>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?, _ argc: Int, _ message: lo_message) {
        let address = String(cString: path)
        let typeBytes = types.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self), count: strlen($0))) } ?? []
        let typeText = String(decoding: typeBytes, as: UTF8.self)
        if address.utf8.contains(where: Self.patternCharacters.contains) {
            problems.append(.addressPattern("\(address.prefix(80))"))
            return
        }
        guard let accepted = Self.addressSpace[address] else { return unknown(address, typeText) }
        guard typeBytes.count == argc, argc == 0 || argv != nil, let arguments = Self.arguments(typeBytes, argv) else {
            return unknown(address, typeText)
        }
        if case .lists(let lists) = accepted, !lists.contains(String(arguments.map(\.kind))) { return unknown(address, typeText) }
        if let problem = Self.nonFinite(arguments, address) { return problems.append(problem) }
        if let command = command(address, arguments, lo_message_get_timestamp(message)) { commands.append(command) }
    }

    /// The arguments as strings and numbers; nil when one is of another OSC type (blob, MIDI, true...).
    static func arguments(_ types: [UInt8], _ argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?) -> [Argument]? {
        var arguments: [Argument] = []
        arguments.reserveCapacity(types.count)
        for (i, type) in types.enumerated() {
            // Each value is read at its own size: `pointee` would read the whole 8-byte lo_arg
            // union, past the end of liblo's buffer for a 4-byte value at its end (the fuzzer found it).
            guard let arg = argv?[i].map(UnsafeRawPointer.init) else { return nil }
            switch type {
            case UInt8(ascii: "i"): arguments.append(.number(Double(arg.loadUnaligned(as: Int32.self))))
            case UInt8(ascii: "h"): arguments.append(.number(Double(arg.loadUnaligned(as: Int64.self))))
            case UInt8(ascii: "f"): arguments.append(.number(Double(arg.loadUnaligned(as: Float.self))))
            case UInt8(ascii: "d"): arguments.append(.number(arg.loadUnaligned(as: Double.self)))
            case UInt8(ascii: "s"), UInt8(ascii: "S"):
                arguments.append(.string(String(cString: arg.assumingMemoryBound(to: CChar.self))))
            default: return nil
            }
        }
        return arguments
    }

    /// A NaN or infinite number, at any address and position, is refused before any command is
    /// made of it (a transient's NaN intensity once started a voice), as the C library refuses it.
    static func nonFinite(_ arguments: [Argument], _ address: String) -> Problem? {
        for (i, argument) in arguments.enumerated() {
            if case .number(let value) = argument, !value.isFinite {
                return .badArgument("\(address): argument \(i + 1) is \(value) (numbers must be finite)")
            }
        }
        return nil
    }

    /// The command of an address whose argument kinds matched one of its lists.
    private func command(_ address: String, _ args: [Argument], _ tag: lo_timetag) -> OSCCommand? {
        func string(_ i: Int) -> String { if case .string(let s) = args[i] { s } else { "" } }
        func number(_ i: Int) -> Double { if case .number(let d) = args[i] { d } else { .nan } }
        func timeArgument(_ i: Int) -> Double? { self.time(i < args.count ? number(i) : nil, timetag: tag, address) }
        switch address {
        case "/hapticsynth/play":
            guard let name = checkedName(string(0), address), let t = timeArgument(1) else { return nil }
            return .play(pattern: name, time: t)
        case "/hapticsynth/cue":
            guard let name = checkedName(string(0), address), let t = timeArgument(1) else { return nil }
            return .cue(name: name, time: t)
        case "/hapticsynth/transient":
            guard let t = timeArgument(2) else { return nil }
            return .transient(intensity: number(0), sharpness: number(1), time: t)
        case "/hapticsynth/loop/start":
            guard let id = checkedName(string(0), address), let name = checkedName(string(1), address), let t = timeArgument(3) else { return nil }
            return .loopStart(id: id, pattern: name, intensity: args.count > 2 ? number(2) : 1, time: t)
        case "/hapticsynth/loop/intensity":
            return checkedName(string(0), address).map { .loopIntensity(id: $0, value: number(1)) }
        case "/hapticsynth/loop/sharpness":
            return checkedName(string(0), address).map { .loopSharpness(id: $0, value: number(1)) }
        case "/hapticsynth/loop/curve":
            return curve(address, args, tag)
        case "/hapticsynth/loop/stop":
            guard let id = checkedName(string(0), address), let t = timeArgument(1) else { return nil }
            return .loopStop(id: id, time: t)
        case "/hapticsynth/stop":
            return timeArgument(0).map { .stopAll(time: $0) }
        case "/hapticsynth/status": return .status
        case "/hapticsynth/clock": return .clock
        case "/hapticsynth/follow/gain":
            return checkedLevel(number(0), -60...40, address).map { .followGain(decibels: $0) }
        case "/hapticsynth/follow/ducking":
            return checkedLevel(number(0), -60...0, address).map { .followDucking(decibels: $0) }
        case "/hapticsynth/follow/mute":
            guard !number(0).isNaN else {
                problems.append(.badArgument("\(address): NaN (expected 0 to unmute, anything else to mute)"))
                return nil
            }
            return .followMute(number(0) != 0)
        case "/hapticsynth/follow/mode":
            guard followModes.contains(string(0)) else {
                problems.append(.badArgument("\(address): mode \"\(string(0).prefix(40))\" (expected \(followModes.joined(separator: " or ")))"))
                return nil
            }
            return .followMode(string(0))
        default:
            unknown(address, "")
            return nil
        }
    }

    /// `/hapticsynth/loop/curve ,ss` + (time, value) pairs of numbers; no time argument (the
    /// curve's times are relative to its bundle's timetag or now).
    private func curve(_ address: String, _ args: [Argument], _ tag: lo_timetag) -> OSCCommand? {
        guard args.count >= 4, (args.count - 2) % 2 == 0, case .string(let idText) = args[0], case .string(let parameterName) = args[1] else {
            problems.append(.unknownAddress("\(address) with types ,\(String(args.map(\.kind))) (expected ,ss then time/value pairs)"))
            return nil
        }
        let pairs = (args.count - 2) / 2
        guard pairs <= Self.maxCurvePoints else {
            problems.append(.badArgument("\(address): \(pairs) points (at most \(Self.maxCurvePoints))"))
            return nil
        }
        guard let id = checkedName(idText, address) else { return nil }
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
            guard case .number(let t) = args[2 + 2 * k], case .number(let v) = args[3 + 2 * k] else {
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

    private func unknown(_ address: String, _ types: String) {
        problems.append(.unknownAddress("\(address.prefix(80)) ,\(types.prefix(40))"))
    }
}

/// liblo's callback for every message (`user_data` is the decoder).
private func receiveMessage(
    _ path: UnsafePointer<CChar>?, _ types: UnsafePointer<CChar>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<lo_arg>?>?,
    _ argc: Int32, _ message: lo_message?, _ user: UnsafeMutableRawPointer?
) -> Int32 {
    guard let path, let user, let message else { return 0 }
    Unmanaged<OSCDecoder>.fromOpaque(user).takeUnretainedValue().receive(path, types, argv, Int(argc), message)
    return 0
}
