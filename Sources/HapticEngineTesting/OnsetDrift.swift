/// Recorded onset times against a schedule kept on the device's own clock (the rhythm session's
/// beat grid): such a grid drifts from CLOCK_MONOTONIC by the device's rate error, so each
/// onset's error (recorded time − scheduled time) is that drift plus one constant offset (the
/// recorder's timestamp bias) plus the stamps' jitter. Rig tests print it; rhythm-bench measures it.
public struct OnsetDrift: Sendable {
    /// The constant part: the median error left after the measured drift (seconds).
    public var offset: Double
    /// The largest |error − drift − offset| over the onsets (seconds).
    public var wander: Double
    /// Onsets within 1 ms of drift + offset.
    public var withinOneMillisecond: Int
    /// The least-squares slope of the errors against time (seconds per second).
    public var fittedSlope: Double
    /// The drift the device's measured rates predict, per second over the onsets' span.
    public var measuredDrift: Double

    /// - Parameters:
    ///   - onsets: per onset, seconds since the first scheduled one and its error (seconds).
    ///   - rates: the device's measured rate (1 + drift) sampled at monotonic times through the session.
    ///   - origin: the first onset's scheduled monotonic time.
    public init(onsets: [(t: Double, error: Double)], rates: [(time: Double, ratio: Double)], origin: Double) {
        // A device-clocked grid's drift from origin to origin + t: ∫ (1/ratio − 1) dτ over the sampled rates.
        func drift(_ t: Double) -> Double {
            var sum = 0.0
            for (i, r) in rates.enumerated() {
                let a = max(r.time, origin), b = min(i + 1 < rates.count ? rates[i + 1].time : .infinity, origin + t)
                if b > a { sum += (b - a) * (1 / r.ratio - 1) }
            }
            return sum
        }
        measuredDrift = onsets.last.map { $0.t > 0 ? drift($0.t) / $0.t : 0 } ?? 0
        let residuals = onsets.map { $0.error - drift($0.t) }
        let median = residuals.isEmpty ? .nan : residuals.sorted()[residuals.count / 2]
        offset = median
        wander = residuals.map { abs($0 - median) }.max() ?? .infinity
        withinOneMillisecond = residuals.filter { abs($0 - median) < 0.001 }.count
        let n = Double(onsets.count)
        let mx = onsets.map(\.t).reduce(0, +) / n, my = onsets.map(\.error).reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for o in onsets {
            sxy += (o.t - mx) * (o.error - my)
            sxx += (o.t - mx) * (o.t - mx)
        }
        fittedSlope = sxx > 0 ? sxy / sxx : .nan
    }

    /// One line: slope fitted vs measured, the offset, how many onsets within 1 ms, the worst.
    public func summary(count: Int) -> String {
        func f(_ x: Double, _ scale: Double, _ digits: Int) -> String {
            let p = (0..<digits).reduce(1.0) { r, _ in r * 10 }
            return "\((x * scale * p).rounded() / p)"
        }
        return "slope fitted \(f(fittedSlope, 1e6, 1)) ppm vs measured \(f(measuredDrift, 1e6, 1)) ppm; after the measured drift: offset "
            + "\(f(offset, 1000, 2)) ms, within 1 ms on \(withinOneMillisecond)/\(count), max wander \(f(wander, 1000, 3)) ms"
    }
}
