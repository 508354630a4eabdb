import HapticEngine

/// An engine's own measurements at one moment, as the one line the live verbs print with
/// `--verbose`: latency, xruns, stalls, reconnections, dropped onsets, schedule grid corrections
/// (times the mapping of clock times to device frames moved after settling), render time per
/// period and whether the render thread got real-time scheduling.
public struct EngineReport: Sendable, CustomStringConvertible {
    /// The line.
    public let description: String

    /// Reads `engine`'s measurements now.
    public init(_ engine: HapticEngine) {
        let stats = engine.renderStatistics
        func ms(_ seconds: Double, _ digits: Int = 3) -> String { fixed(seconds * 1000, digits) }
        description = "latency \(ms(engine.outputLatency, 1)) ms, xruns \(engine.xrunCount) (after a slow render \(engine.slowRenderXrunCount)), stalls \(engine.stallCount), "
            + "reconnections \(engine.reconnectionCount), onsets dropped \(engine.droppedOnsetCount), "
            + "grid corrections \(engine.scheduleCorrectionCount), render per period: "
            + "median \(ms(stats.p50Seconds)) ms, p99 \(ms(stats.p99Seconds)) ms, max \(ms(stats.maxSeconds)) ms of "
            + "\(ms(stats.periodSeconds)) ms (headroom \(fixed(stats.headroom * 100, 0))%), "
            + "realtime scheduling: \(engine.isRealtime ? "yes" : "no")"
    }
}

/// `value` with `digits` decimals, as printf's `%.Nf` writes it (rounded half away from zero
/// rather than to even on a tie; no Foundation needed).
func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    var scale: Int64 = 1
    for _ in 0..<max(0, min(digits, 15)) { scale *= 10 }
    let scaled = (abs(value) * Double(scale)).rounded()
    guard scaled < 9e15 else { return "\(value)" }
    let whole = Int64(scaled) / scale, fraction = Int64(scaled) % scale
    let sign = value < 0 && scaled != 0 ? "-" : ""
    guard scale > 1 else { return sign + "\(whole)" }
    let digitsText = String(fraction)
    return sign + "\(whole)." + String(repeating: "0", count: String(scale).count - 1 - digitsText.count) + digitsText
}
