import Testing
@testable import HapticEngine

@Suite struct FrameTimeFilterTests {
    /// Synthetic device: nominal 48 kHz running 200 ppm fast against the monotonic
    /// clock, timestamps every period at "frames written − delay" points with ±1 ms jitter.
    @Test func tracksDriftWithJitterWithoutAccumulating() {
        let fs = 48_000.0
        let trueNanosPerFrame = 1e9 / (fs * (1 + 200e-6))
        let t0 = 3_000_000_000.0
        var filter = FrameTimeFilter(sampleRate: fs)
        filter.guess(frame: 0, atNanos: Int64(t0) + 2_000_000)  // a guess 2 ms off
        var rng: UInt64 = 12345
        func jitter() -> Double {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return (Double(rng >> 11) / Double(1 << 53) * 2 - 1) * 1_000_000  // ±1 ms
        }
        let period: Int64 = 256
        var frame: Int64 = 0
        var earlyMax = 0.0, lateMax = 0.0
        let updatesPerHour = Int(3600 * fs) / Int(period)
        for k in 0..<updatesPerHour {
            frame += period
            // The reported point wobbles around the period boundary (delay granularity).
            let reported = frame - Int64(k % 7) * 13
            let truth = t0 + Double(reported) * trueNanosPerFrame
            filter.update(DeviceTimestamp(framesPlayed: reported, monotonicNanos: Int64(truth + jitter())))
            let seconds = Double(frame) / fs
            if seconds > 10 {
                // The error of the mapping for the next frame to be rendered (a few periods ahead).
                let ahead = frame + 3 * period
                let error = abs(filter.nanos(forFrame: ahead) - (t0 + Double(ahead) * trueNanosPerFrame))
                if seconds < 70 { earlyMax = max(earlyMax, error) }
                if seconds > 3540 { lateMax = max(lateMax, error) }
            }
        }
        // Bounded well under the jitter (±1 ms) and not growing over an hour.
        #expect(earlyMax < 200_000, "error after 10-70 s: \(earlyMax) ns")
        #expect(lateMax < 200_000, "error in the last minute of an hour: \(lateMax) ns")
        // The drift was learned: the rate ratio is 1 + 200 ppm within 5 ppm.
        #expect(abs(filter.rateRatio - (1 + 200e-6)) < 5e-6, "rate ratio \(filter.rateRatio)")
    }

    @Test func exactTimestampsGiveExactMapping() {
        var filter = FrameTimeFilter(sampleRate: 48_000)
        for k in 1...100 {
            let f = Int64(k * 512)
            filter.update(DeviceTimestamp(framesPlayed: f, monotonicNanos: 1_000_000_000 + f * 1_000_000_000 / 48_000))
        }
        let f: Int64 = 1_000_000
        #expect(abs(filter.nanos(forFrame: f) - (1e9 + Double(f) * 1e9 / 48_000)) < 1_000)
        #expect(abs(filter.frame(forNanos: 1e9 + 10 * 1e9) - 480_000) < 0.05)
    }

    @Test func discontinuityJumpsInsteadOfSlewing() {
        var filter = FrameTimeFilter(sampleRate: 48_000)
        filter.update(DeviceTimestamp(framesPlayed: 0, monotonicNanos: 1_000_000_000))
        filter.update(DeviceTimestamp(framesPlayed: 48_000, monotonicNanos: 2_000_000_000))
        // The stream stalled for 100 ms (an underrun): the next point is far off the line.
        filter.update(DeviceTimestamp(framesPlayed: 96_000, monotonicNanos: 3_100_000_000))
        #expect(abs(filter.nanos(forFrame: 96_000) - 3_100_000_000) < 1)
        #expect(abs(filter.rateRatio - 1) < 1e-9)
    }

    @Test func unlockKeepsRateAndTakesNextPointAsIs() {
        var filter = FrameTimeFilter(sampleRate: 48_000)
        filter.update(DeviceTimestamp(framesPlayed: 0, monotonicNanos: 0))
        filter.unlock()
        #expect(!filter.isLocked)
        filter.update(DeviceTimestamp(framesPlayed: 1000, monotonicNanos: 5_000_000_000))
        #expect(filter.isLocked)
        #expect(filter.nanos(forFrame: 1000) == 5_000_000_000)
    }
}
