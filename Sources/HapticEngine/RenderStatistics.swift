/// Render-time statistics (per period, CPU time spent rendering, excluding the device write).
public struct RenderStatistics: Sendable, Equatable {
    /// Periods rendered since the engine was created.
    public var periods: Int
    /// Mean render time per period (seconds).
    public var meanSeconds: Double
    /// Longest render time of a period (seconds).
    public var maxSeconds: Double
    /// Median and 99th percentile (seconds; quarter-octave histogram bucket upper bounds).
    public var p50Seconds: Double
    public var p99Seconds: Double
    /// The period's duration (seconds): the budget.
    public var periodSeconds: Double
    /// 1 − p99 / period: the fraction of the period left at the 99th percentile.
    public var headroom: Double { periodSeconds > 0 ? 1 - p99Seconds / periodSeconds : 0 }
}
