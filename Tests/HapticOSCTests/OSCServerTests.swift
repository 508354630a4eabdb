import Foundation
import HapticEngine
import HapticKit
import HapticPattern
import Testing

@testable import HapticOSC

/// The OSC server with a recording target: what liblo decodes, what is refused and counted,
/// bundles and timetags, replies, overload. No sound server needed.
@Suite("OSC server (decoding, counters, replies)")
struct OSCServerTests {
    @Test("every address of the address space decodes to its command, with and without a time")
    func addressSpace() throws {
        let (server, target, client) = try makeServer()
        defer { server.stop() }
        let t = MonotonicClock.now() + 1
        client.send("/hapticsynth/play", [.string("heartbeat")])
        client.send("/hapticsynth/play", [.string("heartbeat"), .double(t)])
        client.send("/hapticsynth/cue", [.string("beat_hit"), .double(t)])
        client.send("/hapticsynth/transient", [.float(0.8), .float(0.25)])
        client.send("/hapticsynth/transient", [.double(0.5), .int32(1), .double(t)])  // coerced by liblo
        client.send("/hapticsynth/loop/start", [.string("slider"), .string("heartbeat"), .float(0.5)])
        client.send("/hapticsynth/loop/intensity", [.string("slider"), .float(0.25)])
        client.send("/hapticsynth/loop/sharpness", [.string("slider"), .double(-0.5)])
        client.send("/hapticsynth/loop/curve", [.string("slider"), .string("intensity"), .float(0), .float(1), .double(0.5), .int32(0)])
        client.send("/hapticsynth/loop/stop", [.string("slider")])
        client.send("/hapticsynth/stop")
        client.send("/hapticsynth/loop/start", [.string("s2"), .string("thud"), .double(0.5), .double(t)])  // as `send` types it
        let got = target.wait(for: 12)
        #expect(got == [
            .play(pattern: "heartbeat", time: 0),
            .play(pattern: "heartbeat", time: t),
            .cue(name: "beat_hit", time: t),
            .transient(intensity: Double(Float(0.8)), sharpness: 0.25, time: 0),
            .transient(intensity: 0.5, sharpness: 1, time: t),
            .loopStart(id: "slider", pattern: "heartbeat", intensity: 0.5, time: 0),
            .loopIntensity(id: "slider", value: 0.25),
            .loopSharpness(id: "slider", value: -0.5),
            .loopCurve(id: "slider", parameter: .hapticIntensityControl, points: [.init(time: 0, value: 1), .init(time: 0.5, value: 0)], time: 0),
            .loopStop(id: "slider", time: 0),
            .stopAll(time: 0),
            .loopStart(id: "s2", pattern: "thud", intensity: 0.5, time: t),
        ])
        #expect(server.counters.snapshot.executed == 12)
    }

    @Test("the follower's addresses (serve --follow) decode to their commands; hostile values are bad arguments, never a command")
    func followAddresses() throws {
        let (server, target, client) = try makeServer()
        defer { server.stop() }
        client.send("/hapticsynth/follow/gain", [.float(-6)])
        client.send("/hapticsynth/follow/gain", [.int32(40)])
        client.send("/hapticsynth/follow/mute", [.int32(1)])
        client.send("/hapticsynth/follow/mute", [.float(0)])
        for mode in FollowMode.allCases { client.send("/hapticsynth/follow/mode", [.string(mode.rawValue)]) }
        client.send("/hapticsynth/follow/ducking", [.double(-20)])
        // Refused and counted: NaN, infinities and out-of-range levels, an unknown mode, a NaN mute.
        client.send("/hapticsynth/follow/gain", [.float(.nan)])
        client.send("/hapticsynth/follow/gain", [.double(.infinity)])
        client.send("/hapticsynth/follow/gain", [.double(40.5)])
        client.send("/hapticsynth/follow/gain", [.double(-1e308)])
        client.send("/hapticsynth/follow/ducking", [.float(3)])
        client.send("/hapticsynth/follow/mode", [.string("loud\u{7}")])
        client.send("/hapticsynth/follow/mode", [.string("")])
        client.send("/hapticsynth/follow/mute", [.double(.nan)])
        // Wrong types or counts: unknown as any other address's.
        client.send("/hapticsynth/follow/gain", [.string("-6")])
        client.send("/hapticsynth/follow/mode", [.float(1)])
        client.send("/hapticsynth/follow/mute")
        client.send("/hapticsynth/follow/gain", [.float(-3)])
        let expected: [OSCCommand] = [.followGain(decibels: -6), .followGain(decibels: 40), .followMute(true), .followMute(false)]
            + FollowMode.allCases.map { .followMode($0.rawValue) } + [.followDucking(decibels: -20), .followGain(decibels: -3)]
        let got = target.wait(for: expected.count)
        #expect(got == expected)
        let c = server.counters.snapshot
        #expect(c.badArguments == 8)
        #expect(c.unknownAddress == 3)
        #expect(c.executed == expected.count)
    }

    @Test("a NaN or infinite number is refused at every address and position, counted as a bad argument, never a command")
    func nonFiniteNumbers() throws {
        let (server, target, client) = try makeServer()
        defer { server.stop() }
        var sent = 0
        for bad in [Double.nan, .infinity, -.infinity] {
            let messages: [(String, [OSCClient.Argument])] = [
                ("/hapticsynth/transient", [.double(1), .double(bad)]),
                ("/hapticsynth/transient", [.double(bad), .double(0.5)]),
                ("/hapticsynth/transient", [.float(Float(bad)), .float(0.5), .double(0)]),
                ("/hapticsynth/play", [.string("heartbeat"), .double(bad)]),
                ("/hapticsynth/cue", [.string("beat_hit"), .double(bad)]),
                ("/hapticsynth/loop/start", [.string("s"), .string("heartbeat"), .double(bad)]),
                ("/hapticsynth/loop/start", [.string("s"), .string("heartbeat"), .double(1), .double(bad)]),
                ("/hapticsynth/loop/intensity", [.string("s"), .double(bad)]),
                ("/hapticsynth/loop/sharpness", [.string("s"), .float(Float(bad))]),
                ("/hapticsynth/loop/curve", [.string("s"), .string("intensity"), .double(0), .double(bad)]),
                ("/hapticsynth/loop/stop", [.string("s"), .double(bad)]),
                ("/hapticsynth/stop", [.double(bad)]),
                ("/hapticsynth/follow/gain", [.double(bad)]),
                ("/hapticsynth/follow/mute", [.double(bad)]),
                ("/hapticsynth/follow/ducking", [.double(bad)]),
            ]
            for (address, arguments) in messages {
                client.send(address, arguments)
                sent += 1
            }
        }
        client.send("/hapticsynth/transient", [.double(1), .double(0.5)])
        let got = target.wait(for: 1)
        #expect(got == [.transient(intensity: 1, sharpness: 0.5, time: 0)])
        let c = server.counters.snapshot
        #expect(c.badArguments == sent)
        #expect(c.unknownAddress == 0 && c.malformed == 0)
        #expect(c.executed == 1)
    }

    @Test("a bundle's timetag (wall clock) becomes the monotonic time it means")
    func timetags() throws {
        let (server, target, client) = try makeServer()
        defer { server.stop() }
        let mono = MonotonicClock.now() + 0.75
        let wall = mono + OSCTimetag.wallMinusMonotonic()
        client.send("/hapticsynth/transient", [.float(1), .float(0.5)], timetag: wall)
        client.send("/hapticsynth/play", [.string("thud")], timetag: wall)
        // An explicit time argument wins over the timetag.
        client.send("/hapticsynth/play", [.string("thud"), .double(mono + 1)], timetag: wall)
        let got = target.wait(for: 3)
        guard got.count == 3, case .transient(_, _, let t1) = got[0], case .play(_, let t2) = got[1], case .play(_, let t3) = got[2] else {
            Issue.record("got \(got)")
            return
        }
        // NTP fractions are 2^-32 s; the two clocks are read a few microseconds apart.
        #expect(abs(t1 - mono) < 0.0005 && abs(t2 - mono) < 0.0005, "\(t1 - mono), \(t2 - mono)")
        #expect(t3 == mono + 1)
    }

    @Test("malformed, oversized, unknown and out-of-range messages are counted, and the server goes on")
    func hostileInput() throws {
        let (server, target, client) = try makeServer()
        defer { server.stop() }
        var random = SystemRandomNumberGenerator()
        for i in 0..<200 {
            let junk = (0..<(1 + i % 60)).map { _ in UInt8.random(in: 0...255, using: &random) }
            client.sendRaw(junk.first == UInt8(ascii: "/") ? [0] + junk : junk)  // never a valid address by chance
        }
        client.sendRaw(Array(OSCClient.datagram("/hapticsynth/play", [.string("x")]).dropLast(3)))  // truncated
        client.sendRaw([UInt8](repeating: 0x2F, count: 20_000))  // over the 8 KiB limit
        client.send("/hapticsynth/nope", [.float(1)])
        client.send("/hapticsynth/play", [.float(1)])  // wrong type
        client.send("/hapticsynth/play", [.string("heartbeat"), .double(.nan)])
        client.send("/hapticsynth/play", [.string("heartbeat"), .double(1e308)])
        client.send("/hapticsynth/transient", [.float(1), .float(1), .double(-1)])
        client.send("/hapticsynth/play", [.string(String(repeating: "a", count: 300))])
        client.send("/hapticsynth/loop/curve", [.string("a"), .string("volume"), .float(0), .float(1)])
        client.send("/hapticsynth/loop/curve", [.string("a"), .string("intensity"), .float(0)])
        client.send("/hapticsynth/play", [.string("heartbeat")])
        let got = target.wait(for: 1)
        #expect(got == [.play(pattern: "heartbeat", time: 0)])
        let c = server.counters.snapshot
        #expect(c.datagrams == 211)
        #expect(c.malformed == 201)
        #expect(c.oversized == 1)
        #expect(c.unknownAddress == 3)
        #expect(c.badArguments == 5)
        #expect(c.executed == 1)
    }

    @Test("datagrams the kernel drops when the socket's buffer is full are counted (SO_RXQ_OVFL)")
    func kernelDrops() throws {
        let socket = try UDPSocket(host: "127.0.0.1", port: 0)
        socket.prepareForServing(receiveBufferBytes: 4096)  // tiny: a burst must overflow it
        let client = try OSCClient(port: socket.port)
        let sent = 500
        for _ in 0..<sent { client.send("/hapticsynth/transient", [.float(1), .float(0.5)]) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2048, alignment: 8)
        let control = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 8)
        defer {
            buffer.deallocate()
            control.deallocate()
        }
        var read = 0, drops: UInt32 = 0
        func drain() {
            while let got = socket.receive(into: buffer, control: control, timeout: 0.1) {
                read += 1
                drops = max(drops, got.kernelDrops ?? 0)
            }
        }
        drain()
        // The kernel stamps each datagram with the drops so far when it queues it: the count
        // arrives with the first datagram queued after the overflow.
        client.send("/hapticsynth/transient", [.float(1), .float(0.5)])
        drain()
        #expect(drops > 0)
        #expect(read + Int(drops) == sent + 1, "read \(read) + dropped \(drops)")
    }

    @Test("log lines show a client's control characters as escapes (the shared printable function)")
    func printableLog() {
        #expect(printable("/a\nfake line\u{1B}[2J") == "/a\\nfake line\\x1B[2J")
    }

    @Test("status and clock are replied to the sender")
    func replies() throws {
        let (server, _, client) = try makeServer()
        defer { server.stop() }
        // Counted on arrival, before the status sent after it (one socket: in order).
        client.sendRaw([1, 2, 3, 4])
        client.send("/hapticsynth/clock")
        let before = MonotonicClock.now()
        let clock = try #require(client.receive(timeout: 2))
        #expect(clock.address == "/hapticsynth/clock")
        guard case .double(let mono)? = clock.arguments.first else { Issue.record("\(clock)"); return }
        #expect(mono > before - 1 && mono <= MonotonicClock.now())
        client.send("/hapticsynth/status")
        let status = try #require(client.receive(timeout: 2))
        #expect(status.address == "/hapticsynth/status")
        #expect(status.arguments == [.string("recording"), .int64(1)])
    }

    @Test("overload: a full queue drops the newest commands and counts them; the receiver never waits")
    func overload() throws {
        // Each command takes 20 ms to play: 200 sent at once cannot all wait in a queue of 8.
        let (server, target, client) = try makeServer(target: RecordingTarget(delaySeconds: 0.02), queue: 8)
        defer { server.stop() }
        let t0 = MonotonicClock.now()
        for i in 0..<200 { client.send("/hapticsynth/transient", [.float(Float(i) / 200), .float(0)]) }
        // The receiver reads them all while the player is busy with the first. Waited for until
        // each is counted as kept or dropped too: the receiver counts a datagram before it
        // queues or drops it, and a loaded machine can hold it between the two (a loaded run
        // saw 200 datagrams and 199 kept or dropped). The bound is generous; the time is
        // checked below.
        let end = t0 + 30
        func settled() -> Bool {
            let c = server.counters.snapshot
            return c.datagrams >= 200 && c.accepted + c.dropped >= 200
        }
        while !settled() && MonotonicClock.now() < end { usleep(1_000) }
        let received = MonotonicClock.now() - t0
        let c = server.counters.snapshot
        #expect(c.datagrams == 200)
        #expect(c.accepted + c.dropped == 200)
        #expect(c.socketDrops == 0, "the burst fits the enlarged socket buffer")
        #expect(c.dropped >= 150, "dropped \(c.dropped)")
        #expect(received < 1, "reading 200 datagrams took \(received) s")
        // What was kept is the oldest: the first commands, in order.
        let got = target.wait(for: c.accepted)
        guard case .transient(let first, _, _)? = got.first else { Issue.record("\(got)"); return }
        #expect(first == 0)
    }
}
