import Synchronization

/// Render time per period, recorded by the render side (atomics: no lock, no allocation) and
/// read by any thread as ``RenderStatistics``: count, sum, maximum and a quarter-octave histogram.
/// (The follower times its capture reads, a part of the render, with one too.)
/// `@unchecked Sendable`: the histogram pointer is fixed at init; its cells are atomics.
package final class RenderStatisticsRecorder: @unchecked Sendable {
    private let periods = Atomic<Int>(0)
    private let sumNanos = Atomic<Int>(0)
    private let maxNanos = Atomic<Int>(0)
    static let histogramBuckets = 160
    private let histogram: UnsafeMutablePointer<Atomic<Int>>

    package init() {
        histogram = .allocate(capacity: Self.histogramBuckets)
        for i in 0..<Self.histogramBuckets { (histogram + i).initialize(to: Atomic(0)) }
    }

    deinit {
        histogram.deinitialize(count: Self.histogramBuckets)
        histogram.deallocate()
    }

    /// Render side: one period took `nanos`.
    package func record(nanos: Int64) {
        let v = Int(nanos)
        periods.add(1, ordering: .relaxed)
        sumNanos.add(v, ordering: .relaxed)
        if v > maxNanos.load(ordering: .relaxed) { maxNanos.store(v, ordering: .relaxed) }
        histogram[Self.bucket(nanos: v)].add(1, ordering: .relaxed)
    }

    /// What was recorded, against a period of `periodSeconds`.
    package func statistics(periodSeconds: Double) -> RenderStatistics {
        let periods = periods.load(ordering: .relaxed)
        let sum = sumNanos.load(ordering: .relaxed)
        let maxNanos = maxNanos.load(ordering: .relaxed)
        var counts = [Int](repeating: 0, count: Self.histogramBuckets)
        var total = 0
        for i in 0..<Self.histogramBuckets {
            counts[i] = histogram[i].load(ordering: .relaxed)
            total += counts[i]
        }
        func percentile(_ p: Double) -> Double {
            guard total > 0 else { return 0 }
            let target = Int((Double(total) * p).rounded(.up))
            var seen = 0
            for i in 0..<Self.histogramBuckets {
                seen += counts[i]
                if seen >= max(target, 1) { return min(Self.bucketUpperNanos(i), Double(maxNanos)) / 1e9 }
            }
            return Double(maxNanos) / 1e9
        }
        return RenderStatistics(
            periods: periods,
            meanSeconds: periods > 0 ? Double(sum) / Double(periods) / 1e9 : 0,
            maxSeconds: Double(maxNanos) / 1e9,
            p50Seconds: percentile(0.5), p99Seconds: percentile(0.99),
            periodSeconds: periodSeconds)
    }

    /// Quarter-octave bucket of a duration, from integer bit tricks (no libm).
    @_noLocks
    static func bucket(nanos: Int) -> Int {
        let v = UInt64(max(nanos, 1))
        let octave = 63 - v.leadingZeroBitCount
        let quarter = octave >= 2 ? Int((v >> UInt64(octave - 2)) & 3) : 0
        return min(octave * 4 + quarter, histogramBuckets - 1)
    }

    static func bucketUpperNanos(_ bucket: Int) -> Double {
        let octave = bucket / 4, quarter = bucket % 4
        return Double(UInt64(1) << UInt64(octave)) * (1 + Double(quarter + 1) / 4)
    }
}
