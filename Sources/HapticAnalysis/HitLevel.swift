// What the sensitivity sets: the onset function's threshold over its running statistics, a
// multiple of the mean deviation plus a floor, both rising as the sensitivity falls (at 100 %
// 1.5 deviations over the mean, at 50 % 4, at 10 % 9.6). Each sensitivity a `StreamingAnalyzer`
// decides keeps its own memory of its last hit (the minimum gap) and of its current rise.

/// The hit decision at one sensitivity: its threshold's multiple and floor, and the state its
/// decisions keep.
struct HitLevel {
    let thresholdFactor: Float
    let thresholdFloor: Float
    let enabled: Bool
    /// `HitDecision.onRise`: whether the current rise of the onset function may still give a
    /// hit (it gave none yet).
    var riseArmed = true
    var lastHitIndex: Int64 = -1 << 40
    /// Hits written by the current `process` call.
    var hitCount = 0

    init(sensitivity: Double) {
        let insensitivity = Float(1 - sensitivity)
        thresholdFactor = 1.5 + 10 * insensitivity * insensitivity
        thresholdFloor = 0.02 + 0.3 * insensitivity * insensitivity
        enabled = sensitivity > 0
    }

    /// The threshold for running statistics `mean` and `deviation`.
    @_noLocks @inline(__always)
    func threshold(mean: Float, deviation: Float) -> Float { mean + thresholdFactor * deviation + thresholdFloor }
}
