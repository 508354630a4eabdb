import Glibc
import HapticTestSupport
import HapticPattern
import Testing

/// Bad and enormous input: a clear error or a load, never a crash, within a generous
/// bound (these bounds prove "no hang" in a debug build; speed is measured by parse-bench).
@Suite("Robustness")
struct RobustnessTests {
    func elapsed(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        let c = (clock.now - start).components
        return Double(c.seconds) + Double(c.attoseconds) * 1e-18
    }

    /// CPU seconds the calling thread spends in `body`.
    func cpuTime(_ body: () throws -> Void) rethrows -> Double {
        func now() -> Double {
            var ts = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
            return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
        }
        let start = now()
        try body()
        return now() - start
    }

    @Test("an empty file")
    func empty() {
        #expect(failure([UInt8]())?.message == "empty file: no JSON value")
    }

    @Test("binary garbage, 1,000 seeded samples, including a 50 MB one")
    func garbage() {
        var rng = SeededRandom(seed: 7)
        for _ in 0..<1000 {
            let bytes = (0..<Int.random(in: 1...512, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            #expect(throws: AHAPError.self) { try AHAPPattern.decode(from: bytes) }
        }
        // Truncations of a valid file: every prefix is an error, never a crash.
        let valid = Array(doc(event: #""Time": 0, "EventType": "HapticTransient", "# + hapticParameters).utf8)
        for cut in 0..<valid.count {
            #expect(throws: AHAPError.self) { try AHAPPattern.decode(from: Array(valid[..<cut])) }
        }
        var big = [UInt8](repeating: 0, count: 50_000_000)
        for i in big.indices { big[i] = UInt8(truncatingIfNeeded: i &* 2654435761 >> 13) }
        big[0] = UInt8(ascii: "{")
        let seconds = elapsed { #expect(throws: AHAPError.self) { try AHAPPattern.decode(from: big) } }
        // A no-hang bound only (a quadratic step would take hours); the speed is parse-bench's.
        // Seen: 5 s on a quiet machine, 80 s in a debug build with the load average at 27.
        #expect(seconds < 600)
    }

    @Test("a 50 MB file of real events loads")
    func fiftyMegabytes() throws {
        var text = #"{"Version": 1.0, "Pattern": ["#
        let event = #"{"Event": {"Time": 0.125, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.75}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.3}]}},"#
        let count = 50_000_000 / event.utf8.count + 1
        text.reserveCapacity(50_000_100)
        for _ in 0..<count { text += event }
        text += "]}"
        let bytes = Array(text.utf8)
        #expect(bytes.count >= 50_000_000)
        var decoded: DecodedAHAP?
        // The decoder's own work (this thread's CPU time): a loaded machine's preemption is not
        // the decoder's, a quadratic step would be.
        let seconds = try cpuTime { decoded = try AHAPPattern.decode(from: bytes) }
        #expect(decoded?.pattern.elements.count == count)
        // A no-hang bound only (a quadratic step would take hours); the speed is parse-bench's.
        // Seen: 5 s on a quiet machine, 80 s in a debug build with the load average at 27.
        #expect(seconds < 600)
    }

    @Test("a 50 MB string loads (metadata is kept)")
    func hugeString() throws {
        let text = #"{"Metadata": {"Notes": ""# + String(repeating: "abcdefghij", count: 5_000_000) + #""}, "Pattern": []}"#
        let decoded = try AHAPPattern.decode(text: text)
        guard case .object(let members)? = decoded.pattern.metadata, case .string(let notes) = members.first?.value else {
            Issue.record("metadata not kept")
            return
        }
        #expect(notes.utf8.count == 50_000_000)
    }

    @Test("100,000-deep nesting is an error everywhere it can appear")
    func deepNesting() {
        let depth = 100_000
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
        let cases = [
            arrays,  // top level: not an object
            #"{"Metadata": "# + arrays + "}",
            #"{"Pattern": [{"Event": {"Extra": "# + objects + "}}]}",
            #"{"Pattern": "# + arrays + "}",
            objects,
        ]
        for text in cases {
            let seconds = elapsed { #expect(throws: AHAPError.self) { try AHAPPattern.decode(text: text) } }
            #expect(seconds < 600, "a no-hang bound only; the speed is parse-bench's")
        }
        #expect(failure(#"{"Metadata": "# + arrays + "}")?.message == "nesting deeper than 256 levels")
    }

    @Test("huge and non-finite numbers")
    func numbers() throws {
        #expect(failure(#"{"Version": 1e309, "Pattern": []}"#)?.message == "number 1e309 is too large (not a finite double)")
        #expect(failure(#"{"Version": -1e99999999999999999999, "Pattern": []}"#)?.kind == .syntax)
        #expect(try AHAPPattern.decode(text: #"{"Version": 1e-99999999999999999999, "Pattern": []}"#).pattern.version == 0)
        #expect(try AHAPPattern.decode(text: #"{"Version": 1.7976931348623157e308, "Pattern": []}"#).pattern.version == .greatestFiniteMagnitude)
        // A huge but finite time is a valid (if silly) pattern.
        let far = try AHAPPattern.decode(text: doc(event: #""Time": 1e300, "EventType": "HapticTransient", "# + hapticParameters))
        #expect(far.pattern.duration == 1e300)
    }

    @Test("a million events load, warnings stay bounded")
    func millionEvents() throws {
        var bytes: [UInt8] = Array(#"{"Pattern": ["#.utf8)
        bytes.reserveCapacity(80_000_000)
        // Reverse time order (the worst case for sorting checks) and no intensity (a warning per event).
        for i in 0..<1_000_000 {
            bytes += Array(#"{"Event": {"Time": \#(1_000_000 - i), "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}},"#.utf8)
        }
        bytes += Array("]}".utf8)
        var decoded: DecodedAHAP?
        // The decoder's own work (this thread's CPU time): a loaded machine's preemption is not
        // the decoder's, a quadratic step would be.
        let seconds = try cpuTime { decoded = try AHAPPattern.decode(from: bytes) }
        #expect(decoded?.pattern.elements.count == 1_000_000)
        #expect(decoded?.warnings.count == 1001)
        // 1,000,000 absent intensities + 1 unsorted + 1 over the element limit + 100,000 times
        // past the time limit (the first 100,000 events are at 900,001 s and later), 1,000 listed.
        #expect(decoded?.warnings.last?.message == "1099002 more warnings not listed")
        // A no-hang bound only (a quadratic step would take hours); the speed is parse-bench's.
        // Seen: 5 s on a quiet machine, 80 s in a debug build with the load average at 27.
        #expect(seconds < 600)
    }
}
