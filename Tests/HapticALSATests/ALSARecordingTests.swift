import Testing

@testable import HapticALSATesting

/// Dating a recording's frames from its stamps (no device: stamps made as a reader takes them,
/// one per 256-frame read at 48 kHz, some of them late).
@Suite("a recording's frames dated by its stamps")
struct ALSARecordingTests {
    static let rate = 48_000
    static let origin: Int64 = 5_000_000_000

    /// The time frame `n` was captured, on a clock that keeps the nominal rate.
    static func nanos(_ n: Int64) -> Int64 { origin + n * 1_000_000_000 / Int64(rate) }

    /// A recording of `reads` reads of 256 frames, stamped when each ended, `late` ns later for the
    /// reads listed.
    static func recording(reads: Int, late: [Int: Int64] = [:]) -> ALSARecording {
        let stamps = (1...reads).map { k in
            let frames = Int64(k * 256)
            return CaptureStamp(framesCaptured: frames, monotonicNanos: nanos(frames) + (late[k] ?? 0))
        }
        return ALSARecording(channels: 1, sampleRate: rate, sampleFormat: .float32, int16Samples: [],
                             floatSamples: [Float](repeating: 0, count: reads * 256), stamps: stamps, overruns: 0,
                             overflowed: false, errors: [])
    }

    @Test("a late first stamp: the earliest bound of the next second dates the frame as it was captured")
    func lateFirstStamp() throws {
        // The read ending at frame 2560 (the 10th) stamped 30 ms late: a starved reader.
        let r = Self.recording(reads: 400, late: [10: 30_000_000])
        let frame = 2500
        let first = try #require(r.monotonicNanos(ofFrame: frame))
        let best = try #require(r.monotonicNanos(ofFrame: frame, earliestWithin: 1))
        #expect(first - Self.nanos(Int64(frame)) == 30_000_000, "the first stamp alone carries its lateness")
        #expect(abs(best - Self.nanos(Int64(frame))) <= 1, "the earliest bound: \(best - Self.nanos(Int64(frame))) ns off")
        #expect(r.stampLateness(ofFrame: frame, window: 1).map { abs($0 - 30_000_000) <= 1 } == true)
        // A frame whose first stamp was on time: nothing to correct.
        #expect(r.stampLateness(ofFrame: 5000, window: 1).map { abs($0) <= 1 } == true)
    }

    @Test("frames the recording lost and stamps beyond the window only bound later; no stamp, no time")
    func lostFramesAndWindow() throws {
        // From the 20th read on, every stamp 50 ms later than its frames say (frames lost before it).
        let late = Dictionary(uniqueKeysWithValues: (20...400).map { ($0, Int64(50_000_000)) })
        let r = Self.recording(reads: 400, late: late)
        let best = try #require(r.monotonicNanos(ofFrame: 1000, earliestWithin: 1))
        #expect(abs(best - Self.nanos(1000)) <= 1, "the stamps before the loss date it: \(best - Self.nanos(1000)) ns off")
        // A frame whose stamps are all late, and an earlier, exact one more than the window later
        // than the first: the window keeps it out.
        let lateOnly = Self.recording(reads: 400, late: Dictionary(uniqueKeysWithValues: (1...300).map { ($0, Int64(20_000_000)) }))
        let windowed = try #require(lateOnly.monotonicNanos(ofFrame: 100, earliestWithin: 1))
        #expect(windowed - Self.nanos(100) == 20_000_000, "only the second after the frame counts")
        let wider = try #require(lateOnly.monotonicNanos(ofFrame: 100, earliestWithin: 2))
        #expect(abs(wider - Self.nanos(100)) <= 1)
        // Beyond the last stamp, no time; a hostile window neither traps nor widens beyond a minute.
        #expect(r.monotonicNanos(ofFrame: 400 * 256, earliestWithin: 1) == nil)
        #expect(r.monotonicNanos(ofFrame: 1000, earliestWithin: .nan) != nil)
        #expect(r.monotonicNanos(ofFrame: 1000, earliestWithin: .infinity) != nil)
        #expect(r.monotonicNanos(ofFrame: 1000, earliestWithin: -1e308) != nil)
    }
}
