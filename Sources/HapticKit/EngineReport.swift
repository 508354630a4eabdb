import Foundation
import HapticEngine

/// An engine's own measurements at one moment, as the one line the live verbs print with
/// `--verbose`: latency, xruns, stalls, reconnections, dropped onsets, render time per period
/// and whether the render thread got real-time scheduling.
public struct EngineReport: Sendable, CustomStringConvertible {
    /// The line.
    public let description: String

    /// Reads `engine`'s measurements now.
    public init(_ engine: HapticEngine) {
        let stats = engine.renderStatistics
        description = String(
            format: "latency %.1f ms, xruns %d, stalls %d, reconnections %d, onsets dropped %d, render per period: median %.3f ms, p99 %.3f ms, max %.3f ms of %.3f ms (headroom %.0f%%), realtime scheduling: %@",
            engine.outputLatency * 1000, engine.xrunCount, engine.stallCount, engine.reconnectionCount,
            engine.droppedOnsetCount, stats.p50Seconds * 1000, stats.p99Seconds * 1000,
            stats.maxSeconds * 1000, stats.periodSeconds * 1000, stats.headroom * 100, engine.isRealtime ? "yes" : "no")
    }
}
