// The shared time axis: a time range mapped onto the device columns of the plot area, and
// the "nice" tick values of any axis.

/// The plotted time range over the plot area's columns: column c covers
/// [from + c·Δ, from + (c+1)·Δ) with Δ = (to - from) / columns, and starts at x = left + c.
public struct TimeScale: Sendable, Equatable {
    public let from: Double
    public let to: Double
    /// x of `from` (device units).
    public let left: Double
    public let columns: Int

    public init(from: Double, to: Double, left: Double, columns: Int) {
        self.from = from
        self.to = to
        self.left = left
        self.columns = max(1, columns)
    }

    public var secondsPerColumn: Double { (to - from) / Double(columns) }

    /// x of time `t`.
    public func x(_ t: Double) -> Double { left + (t - from) / secondsPerColumn }

    /// The start of column `c` in seconds.
    public func time(ofColumn c: Int) -> Double { from + Double(c) * secondsPerColumn }

    /// The column holding time `t` (may lie outside 0..<columns).
    public func column(of t: Double) -> Int {
        let c = ((t - from) / secondsPerColumn).rounded(.down)
        return c.isFinite ? Int(max(-1e9, min(1e9, c))) : -1
    }

    /// The first frame of each column at `sampleRate`, and the end of the last: `columns + 1`
    /// non-decreasing values (clamped at 0).
    public func frameBoundaries(sampleRate: Double) -> [Int] {
        (0...columns).map { c in
            let f = (time(ofColumn: c) * sampleRate).rounded(.down)
            return Int(max(0, min(f, 1e15)))
        }
    }
}

/// Evenly spaced round values (1, 2 or 5 times a power of ten) across a range.
struct Ticks {
    var values: [Double]
    var step: Double

    /// About `count` ticks from `low` to `high` (inclusive when they fall on the grid).
    init(low: Double, high: Double, count: Int) {
        let span = high - low
        guard span.isFinite, span > 0 else {
            values = [low]
            step = 1
            return
        }
        let rough = span / Double(max(1, count))
        var power = 1.0
        while power * 10 <= rough { power *= 10 }
        while power > rough { power /= 10 }
        let unit = [1.0, 2, 5, 10].first { $0 * power >= rough } ?? 10
        step = unit * power
        var v: [Double] = []
        var k = (low / step).rounded(.up)
        while k * step <= high + step * 1e-9 && v.count < 1000 {
            v.append(k * step == 0 ? 0 : k * step)
            k += 1
        }
        values = v
    }

    /// A tick's label with as many decimals as the step needs.
    func label(_ value: Double) -> String {
        var decimals = 0
        var s = step
        while s < 1 - 1e-9 && decimals < 6 {
            s *= 10
            decimals += 1
        }
        return formatFixed(value, decimals: decimals)
    }
}

/// `value` with `decimals` digits after the point (no Foundation in this module's math).
func formatFixed(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : value < 0 ? "-inf" : "inf" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9e15 else { return "\(value)" }
    let whole = Int(scaled) / Int(scale)
    let fraction = Int(scaled) % Int(scale)
    let negative = value < 0 && scaled != 0
    var text = (negative ? "-" : "") + String(whole)
    if decimals > 0 {
        let digits = String(fraction)
        text += "." + String(repeating: "0", count: decimals - digits.count) + digits
    }
    return text
}
