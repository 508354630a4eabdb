#if canImport(Glibc)
import Glibc
#endif

/// A peer's address as `recvfrom` gave it (replies go back to it).
public struct SocketAddress: Sendable {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)

    /// `host:port` for log lines.
    public var description: String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST)), port = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        var copy = storage
        let rc = withUnsafePointer(to: &copy) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                getnameinfo($0, length, &host, socklen_t(host.count), &port, socklen_t(port.count), NI_NUMERICHOST | NI_NUMERICSERV)
            }
        }
        guard rc == 0 else { return "?" }
        return "\(cText(host)):\(cText(port))"
    }
}

/// The text of a NUL-terminated C buffer.
func cText(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// A UDP socket of our own: liblo 0.31 cannot bind a UDP server to one address (it binds
/// every interface), and the server must listen on loopback unless asked otherwise. liblo
/// parses and dispatches what this socket reads (`lo_server_dispatch_data`).
/// `@unchecked Sendable`: the descriptor is set once; sends and receives on one UDP socket
/// from two threads are safe (the kernel serialises them); `close` is called once, last.
public final class UDPSocket: @unchecked Sendable {
    let fd: Int32
    /// The address the socket is bound to.
    public let boundAddress: SocketAddress

    /// A socket bound to `host` (a numeric IPv4/IPv6 address or a name) and `port` (0: any free port).
    public init(host: String, port: Int) throws(OSCSocketError) {
        guard (0...65535).contains(port) else { throw OSCSocketError("port \(port): expected 0...65535") }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else {
            throw OSCSocketError("\(host): not an address this machine can listen on (\(String(cString: gai_strerror(rc))))")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw OSCSocketError("socket: \(String(cString: strerror(errno)))") }
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let why = String(cString: strerror(errno))
            Glibc.close(fd)
            throw OSCSocketError("\(host):\(port): cannot listen (\(why))")
        }
        var bound = SocketAddress()
        _ = withUnsafeMutablePointer(to: &bound.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &bound.length) }
        }
        self.fd = fd
        boundAddress = bound
    }

    /// The port the socket is bound to.
    public var port: Int {
        var copy = boundAddress.storage
        let family = Int32(copy.ss_family)
        return withUnsafePointer(to: &copy) { p -> Int in
            if family == AF_INET6 {
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// Asks the kernel for a larger receive buffer (bursts wait there while a command plays)
    /// and for its count of datagrams dropped when the buffer was full (SO_RXQ_OVFL).
    func prepareForServing(receiveBufferBytes: Int32 = 1 << 20) {
        var size = receiveBufferBytes, on: Int32 = 1
        let length = socklen_t(MemoryLayout<Int32>.size)
        // FORCE passes the system's cap (root, as the engine's real-time priority needs); else the capped request.
        if setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, length) != 0 { _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, length) }
        _ = setsockopt(fd, SOL_SOCKET, SO_RXQ_OVFL, &on, length)
    }

    /// Waits up to `timeout` seconds for a datagram and reads it into `buffer`. Returns the
    /// datagram's real length (larger than the buffer when it was cut), its sender, and the
    /// kernel's count of datagrams dropped on this socket so far (nil when it did not say);
    /// nil when none came. `control` is scratch space for that count (64 bytes).
    func receive(into buffer: UnsafeMutableRawBufferPointer, control: UnsafeMutableRawBufferPointer, timeout: Double)
        -> (length: Int, from: SocketAddress, kernelDrops: UInt32?)?
    {
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, Int32(max(0, timeout) * 1000)) > 0 else { return nil }
        var from = SocketAddress()
        var drops: UInt32? = nil
        let n = withUnsafeMutablePointer(to: &from.storage) { name -> Int in
            var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
            return withUnsafeMutablePointer(to: &vector) { iov -> Int in
                var header = msghdr()
                header.msg_name = UnsafeMutableRawPointer(name)
                header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                header.msg_iov = iov
                header.msg_iovlen = 1
                header.msg_control = control.baseAddress
                header.msg_controllen = control.count
                let n = recvmsg(fd, &header, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT))
                from.length = header.msg_namelen
                // One kind of control message is asked for: the first header is it, or none came.
                let headerSize = MemoryLayout<cmsghdr>.size
                if n >= 0, header.msg_controllen >= headerSize + 4, let base = control.baseAddress {
                    let c = base.loadUnaligned(as: cmsghdr.self)
                    if c.cmsg_level == SOL_SOCKET && c.cmsg_type == SO_RXQ_OVFL { drops = base.loadUnaligned(fromByteOffset: headerSize, as: UInt32.self) }
                }
                return n
            }
        }
        guard n >= 0 else { return nil }
        return (n, from, drops)
    }

    /// Sends one datagram to `to`; false when the kernel refused it.
    @discardableResult
    func send(_ bytes: UnsafeRawBufferPointer, to: SocketAddress) -> Bool {
        var address = to
        let n = withUnsafePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes.baseAddress, bytes.count, 0, $0, to.length) }
        }
        return n == bytes.count
    }

    /// The address of `host:port` (for clients).
    public static func resolve(host: String, port: Int) throws(OSCSocketError) -> SocketAddress {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_DGRAM.rawValue)
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(host, String(port), &hints, &list)
        guard rc == 0, let first = list else { throw OSCSocketError("\(host): unknown host (\(String(cString: gai_strerror(rc))))") }
        defer { freeaddrinfo(list) }
        var address = SocketAddress()
        memcpy(&address.storage, first.pointee.ai_addr, Int(first.pointee.ai_addrlen))
        address.length = first.pointee.ai_addrlen
        return address
    }

    /// Whether the address is a loopback one (127.0.0.0/8 or ::1).
    public var isLoopback: Bool {
        var copy = boundAddress.storage
        let family = Int32(copy.ss_family)
        return withUnsafePointer(to: &copy) { p -> Bool in
            if family == AF_INET6 {
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { a in
                    withUnsafeBytes(of: a.pointee.sin6_addr) { $0.prefix(15).allSatisfy { $0 == 0 } && $0[15] == 1 }
                }
            }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127 }
        }
    }

    deinit { Glibc.close(fd) }
}
