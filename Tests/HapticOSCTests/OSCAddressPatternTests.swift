import Foundation
import HapticEngine
import Testing

@testable import HapticOSC

/// OSC address patterns (`*`, `?`, `[...]`, `{...}`) are not served: the address space is
/// fixed, so the server matches each address exactly itself, and a pattern is refused and
/// counted before it can reach liblo's matcher (which backtracks: one 44-byte `/*?*?…x`
/// used to hold the receiving thread for about half a second).
@Suite("OSC address patterns")
struct OSCAddressPatternTests {
    /// A 44-byte datagram whose address is `/` then `*?` eighteen times then `x`, no arguments.
    static let hostilePattern: [UInt8] = {
        let address = "/" + String(repeating: "*?", count: 18) + "x"
        var bytes = Array(address.utf8) + [0]
        while bytes.count % 4 != 0 { bytes.append(0) }
        bytes += Array(",".utf8) + [0, 0, 0]
        return bytes
    }()

    @Test("a burst of wildcard patterns neither delays nor loses the transients sent among them")
    func burstOfPatterns() throws {
        #expect(Self.hostilePattern.count == 44)
        let (server, target, client) = try makeServer()
        defer { server.stop() }
        let transients = 20
        let t0 = MonotonicClock.now()
        for i in 0..<transients {
            for _ in 0..<4 { client.sendRaw(Self.hostilePattern) }
            client.send("/hapticsynth/transient", [.float(Float(i + 1) / Float(transients)), .float(0.5)])
        }
        // Generous: a loaded machine reads 100 datagrams in far less; liblo's matcher took ~0.5 s per pattern.
        let got = target.wait(for: transients, timeout: 10)
        let last = target.arrivals.last.map { $0 - t0 } ?? .infinity
        let c = server.counters.snapshot
        print("20 transients among 80 wildcard patterns: \(got.count) played, the last \(String(format: "%.3f", last)) s after the first was sent; malformed \(c.malformed)")
        #expect(got.count == transients, "every transient played")
        #expect(got == (0..<transients).map { .transient(intensity: Double(Float($0 + 1) / Float(transients)), sharpness: 0.5, time: 0) })
        #expect(last < 3, "the last transient played \(last) s after the burst began")
        #expect(c.malformed == 4 * transients, "each pattern refused and counted as malformed")
        #expect(c.unknownAddress == 0)
    }

    @Test("a pattern that would match a real address is refused too; exact addresses still play", arguments: [
        "/hapticsynth/transien?", "/hapticsynth/*", "/hapticsynth/[t]ransient", "/hapticsynth/{transient,play}", "/*/transient",
    ])
    func patternsRefused(_ address: String) throws {
        let (server, target, client) = try makeServer()
        defer { server.stop() }
        client.send(address, [.float(1), .float(0.5)])
        client.send("/hapticsynth/transient", [.float(0.25), .float(0.5)])
        let got = target.wait(for: 1)
        usleep(50_000)
        #expect(target.received == [.transient(intensity: 0.25, sharpness: 0.5, time: 0)], "only the exact address played: \(got)")
        let c = server.counters.snapshot
        #expect(c.malformed == 1 && c.executed == 1, "\(c)")
    }

    @Test("the decoder matches argument types itself: numbers of any OSC numeric type, strings of either string type")
    func coercion() throws {
        let decoder = try OSCDecoder()
        func decode(_ bytes: [UInt8]) -> OSCDecoder.Outcome {
            var copy = bytes
            return copy.withUnsafeMutableBytes { decoder.decode($0, now: 100, wallMinusMonotonic: { 0 }).0 }
        }
        let mixed = OSCClient.datagram("/hapticsynth/transient", [.int64(1), .int32(0), .double(150)])
        #expect(decode(mixed) == .commands([.transient(intensity: 1, sharpness: 0, time: 150)]))
        let wrong = OSCClient.datagram("/hapticsynth/transient", [.string("1"), .float(0)])
        #expect(decode(wrong) == .commands([]))
        let tooMany = OSCClient.datagram("/hapticsynth/status", [.float(0)])
        #expect(decode(tooMany) == .commands([]))
    }
}
