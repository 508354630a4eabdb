// A curve as the analysis makes it: points in time order, read as straight lines between them.

/// A point of a curve: seconds and a value.
public struct CurvePoint: Sendable, Equatable {
    public var time: Double
    public var value: Double
    public init(time: Double, value: Double) {
        self.time = time
        self.value = value
    }
}

extension Array where Element == CurvePoint {
    /// The piecewise-linear curve's value at `time` (points in time order; held flat before the
    /// first point and after the last; 0 for no points). A binary search: long curves are cheap.
    public func value(at time: Double) -> Double {
        guard let first, let last else { return 0 }
        if time <= first.time { return first.value }
        if time >= last.time { return last.value }
        var lo = 0, hi = count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if self[mid].time <= time { lo = mid } else { hi = mid }
        }
        let a = self[lo], b = self[hi]
        return b.time > a.time ? a.value + (b.value - a.value) * (time - a.time) / (b.time - a.time) : b.value
    }
}
