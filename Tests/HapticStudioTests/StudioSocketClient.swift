import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal WebSocket client for the tests (RFC 6455 over a blocking TCP socket): the upgrade
/// request with chosen headers (so that refusals can be seen as HTTP answers), masked frames out,
/// whole messages and close frames in, every wait bounded by a deadline. Once upgraded, a thread
/// of its own reads the socket and answers pings at once, as a browser does, however long the test
/// itself is busy elsewhere (an HTTP call on a starved machine): the server closes a socket whose
/// pongs do not come.
final class StudioSocketClient: @unchecked Sendable {
    enum Message: Equatable {
        case text(String)
        case close(code: Int, reason: String)
    }

    private let fd: Int32
    /// The handshake's bytes, then the reader thread's (it alone touches them after the upgrade).
    private var buffer: [UInt8] = []
    private var closed = false
    /// What the reader thread received, and whether the stream ended; guarded by `received`.
    private let received = NSCondition()
    private var inbox: [Message] = []
    private var ended = false
    private var stopping = false
    /// Reading held (a client that reads nothing: the kernel's buffers fill, the server's writes wait).
    private var paused = false
    private let writing = NSLock()
    private let readerDone = DispatchSemaphore(value: 0)
    private var reading = false

    /// The answer to an upgrade request: its status, its body when refused, the client when upgraded.
    struct Handshake {
        var status: Int
        var body: String
        var client: StudioSocketClient?
    }

    private init(fd: Int32) { self.fd = fd }
    deinit { close() }

    /// Sends GET `path` to `address` (http://127.0.0.1:PORT) as a WebSocket upgrade (or, with
    /// `upgrade` false, a plain GET), with `headers` beside the upgrade's.
    static func connect(_ address: String, path: String = "/api/socket", headers: [String: String], upgrade: Bool = true, timeout: Double = 60) throws -> Handshake {
        guard let url = URL(string: address), let port = url.port else { throw StudioProcessError("no port in \(address)") }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw StudioProcessError("socket(): \(errno)") }
        let client = StudioSocketClient(fd: fd)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { throw StudioProcessError("connect to \(address): errno \(errno)") }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        if upgrade { request += "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" }
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        try client.write(Array((request + "\r\n").utf8))
        let deadline = Date().addingTimeInterval(timeout)
        var headerEnd: Range<Int>?
        while headerEnd == nil {
            guard try client.fill(deadline) else { throw StudioProcessError("the studio closed the connection before answering") }
            headerEnd = client.buffer.firstRange(of: Array("\r\n\r\n".utf8))
        }
        let head = String(decoding: client.buffer[..<headerEnd!.lowerBound], as: UTF8.self)
        client.buffer.removeFirst(headerEnd!.upperBound)
        let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        if status == 101 {
            client.startReading()
            return Handshake(status: status, body: "", client: client)
        }
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
        while client.buffer.count < length { guard try client.fill(deadline) else { break } }
        return Handshake(status: status, body: String(decoding: client.buffer.prefix(length), as: UTF8.self), client: nil)
    }

    func send(_ text: String) throws { try sendFrame(opcode: 1, Array(text.utf8)) }

    /// One masked frame (the client's frames are masked, RFC 6455 5.3).
    func sendFrame(opcode: UInt8, _ payload: [UInt8]) throws {
        var frame: [UInt8] = [0x80 | opcode]
        if payload.count < 126 {
            frame.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            frame += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            frame.append(0x80 | 127)
            frame += (0..<8).reversed().map { UInt8((payload.count >> ($0 * 8)) & 0xFF) }
        }
        let mask: [UInt8] = [0x12, 0x34, 0x56, 0x78]
        frame += mask
        frame += payload.enumerated().map { $0.element ^ mask[$0.offset % 4] }
        try write(frame)
    }

    /// The next text message or close frame; nil once the connection ended without one. Throws
    /// when `timeout` seconds pass.
    func receive(timeout: Double = 60) throws -> Message? {
        let deadline = Date().addingTimeInterval(timeout)
        received.lock()
        defer { received.unlock() }
        while inbox.isEmpty && !ended {
            guard received.wait(until: deadline) || !inbox.isEmpty || ended else { throw StudioProcessError("nothing came from the studio in time") }
        }
        return inbox.isEmpty ? nil : inbox.removeFirst()
    }

    /// The next message that is a JSON object, parsed (close frames and the end: an error).
    func receiveJSON(timeout: Double = 60) throws -> [String: Any] {
        guard let message = try receive(timeout: timeout) else { throw StudioProcessError("the socket closed") }
        guard case .text(let text) = message else { throw StudioProcessError("the socket closed: \(message)") }
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { throw StudioProcessError("not an object: \(text)") }
        return object
    }

    /// Stops reading the socket until `resumeReading` (pings go unanswered meanwhile).
    func pauseReading() { setPaused(true) }
    func resumeReading() { setPaused(false) }
    private func setPaused(_ value: Bool) {
        received.lock()
        paused = value
        received.broadcast()
        received.unlock()
    }

    func close() {
        guard !closed else { return }
        closed = true
        received.lock()
        stopping = true
        received.unlock()
        if reading {
            shutdown(fd, Int32(SHUT_RDWR))
            readerDone.wait()
        }
        Glibc.close(fd)
    }

    private func write(_ bytes: [UInt8]) throws {
        writing.lock()
        defer { writing.unlock() }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else {
                let error = errno
                // Say why, when the studio said: its close frame, if the reader has it.
                received.lock()
                let said = inbox.last { if case .close = $0 { true } else { false } }
                received.unlock()
                throw StudioProcessError("send: errno \(error)" + (said.map { " (the studio closed the socket: \($0))" } ?? ""))
            }
            offset += n
        }
    }

    /// The reader thread: frames in, pings answered, messages and the close handed to `receive`.
    private func startReading() {
        reading = true
        Thread.detachNewThread { [self] in
            defer {
                received.lock()
                ended = true
                received.broadcast()
                received.unlock()
                readerDone.signal()
            }
            var text: [UInt8] = []
            while let frame = nextFrame() {
                switch frame.opcode {
                case 8:
                    let payload = frame.payload
                    let code = payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : 1005
                    deliver(.close(code: code, reason: String(decoding: payload.dropFirst(2), as: UTF8.self)))
                case 1, 0:
                    text += frame.payload
                    if frame.fin {
                        deliver(.text(String(decoding: text, as: UTF8.self)))
                        text = []
                    }
                case 9:
                    // A ping is answered at once (RFC 6455 5.5.2).
                    try? sendFrame(opcode: 10, frame.payload)
                default: continue  // pong
                }
            }
        }
    }

    private func deliver(_ message: Message) {
        received.lock()
        inbox.append(message)
        received.broadcast()
        received.unlock()
    }

    /// The next whole frame from the socket; nil at the end of the stream or when closing.
    private func nextFrame() -> (opcode: UInt8, fin: Bool, payload: [UInt8])? {
        guard need(2) else { return nil }
        let opcode = buffer[0] & 0x0F, fin = buffer[0] & 0x80 != 0
        var length = Int(buffer[1] & 0x7F), headerSize = 2
        if length == 126 {
            guard need(4) else { return nil }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            headerSize = 4
        } else if length == 127 {
            guard need(10) else { return nil }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            headerSize = 10
        }
        guard need(headerSize + length) else { return nil }
        let payload = Array(buffer[headerSize..<(headerSize + length)])
        buffer.removeFirst(headerSize + length)
        return (opcode, fin, payload)
    }

    /// Whether `count` bytes are buffered, reading until then (no deadline: `close` ends it).
    private func need(_ count: Int) -> Bool {
        while buffer.count < count {
            received.lock()
            while paused && !stopping { _ = received.wait(until: Date().addingTimeInterval(0.2)) }
            let stop = stopping
            received.unlock()
            guard !stop else { return false }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 200) > 0 else { continue }
            guard read() else { return false }
        }
        return true
    }

    /// Reads what is there (the handshake, waiting until `deadline`); false at the end of the stream.
    @discardableResult
    private func fill(_ deadline: Date) throws -> Bool {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw StudioProcessError("nothing came from the studio in time") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(min(left, 1) * 1000)) > 0 { break }
        }
        return read()
    }

    private func read() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { return false }
        buffer += chunk[..<n]
        return true
    }
}
