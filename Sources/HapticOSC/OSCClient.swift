#if canImport(Glibc)
import Glibc
#endif
import CLiblo

/// A small OSC client over UDP (the `send` verb, tests and benchmarks): messages built by
/// liblo, sent from a socket of its own so that a reply to the sender comes back here.
public final class OSCClient: Sendable {
    /// One argument of a message.
    public enum Argument: Sendable, Equatable {
        case string(String)
        case float(Float)
        case double(Double)
        case int32(Int32)
        case int64(Int64)
    }

    private let socket: UDPSocket
    private let server: SocketAddress

    /// A client of the server at `host:port`.
    public init(host: String = "127.0.0.1", port: Int) throws(OSCSocketError) {
        server = try UDPSocket.resolve(host: host, port: port)
        let family = Int32(server.storage.ss_family)
        socket = try UDPSocket(host: family == AF_INET6 ? "::1" : "127.0.0.1", port: 0)
    }

    /// A message as a datagram; with `timetag` (Unix wall seconds) wrapped in a bundle.
    public static func datagram(_ address: String, _ arguments: [Argument], timetag: Double? = nil) -> [UInt8] {
        guard let message = lo_message_new() else { return [] }
        defer { lo_message_free(message) }
        for argument in arguments {
            switch argument {
            case .string(let s): lo_message_add_string(message, s)
            case .float(let f): lo_message_add_float(message, f)
            case .double(let d): lo_message_add_double(message, d)
            case .int32(let i): lo_message_add_int32(message, i)
            case .int64(let h): lo_message_add_int64(message, h)
            }
        }
        var size = 0
        if let timetag {
            let (sec, frac) = OSCTimetag.timetag(wallSeconds: timetag)
            guard let bundle = lo_bundle_new(lo_timetag(sec: sec, frac: frac)) else { return [] }
            defer { lo_bundle_free(bundle) }
            lo_bundle_add_message(bundle, address, message)
            guard let bytes = lo_bundle_serialise(bundle, nil, &size) else { return [] }
            defer { free(bytes) }
            return Array(UnsafeRawBufferPointer(start: bytes, count: size))
        }
        guard let bytes = lo_message_serialise(message, address, nil, &size) else { return [] }
        defer { free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: size))
    }

    /// Sends a message (in a bundle when `timetag` is given); false when the kernel refused it.
    @discardableResult
    public func send(_ address: String, _ arguments: [Argument] = [], timetag: Double? = nil) -> Bool {
        sendRaw(Self.datagram(address, arguments, timetag: timetag))
    }

    /// Sends any bytes as one datagram (tests send malformed ones).
    @discardableResult
    public func sendRaw(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { socket.send($0, to: server) }
    }

    /// Waits up to `timeout` seconds for a message; returns its address and arguments
    /// (strings, doubles, 64- and 32-bit integers, floats), nil when none came or it was no message.
    public func receive(timeout: Double) -> (address: String, arguments: [Argument])? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65_536, alignment: 8)
        let control = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer {
            buffer.deallocate()
            control.deallocate()
        }
        guard let (length, _, _) = socket.receive(into: buffer, control: control, timeout: timeout), length <= buffer.count else { return nil }
        var result: Int32 = 0
        guard let message = lo_message_deserialise(buffer.baseAddress, length, &result) else { return nil }
        defer { lo_message_free(message) }
        // The address is the datagram's first string.
        let address = String(cString: buffer.baseAddress!.assumingMemoryBound(to: CChar.self))
        let count = Int(lo_message_get_argc(message))
        guard let types = lo_message_get_types(message), let argv = lo_message_get_argv(message) else { return (address, []) }
        var arguments: [Argument] = []
        for i in 0..<count {
            guard let arg = argv[i] else { break }
            switch UInt8(bitPattern: types[i]) {
            case UInt8(ascii: "s"): arguments.append(.string(String(cString: UnsafeRawPointer(arg).assumingMemoryBound(to: CChar.self))))
            case UInt8(ascii: "d"): arguments.append(.double(arg.pointee.d))
            case UInt8(ascii: "f"): arguments.append(.float(arg.pointee.f))
            case UInt8(ascii: "h"): arguments.append(.int64(arg.pointee.h))
            case UInt8(ascii: "i"): arguments.append(.int32(arg.pointee.i))
            default: break
            }
        }
        return (address, arguments)
    }
}
