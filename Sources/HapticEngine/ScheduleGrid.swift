/// The frame grid scheduled times are converted on (render side).
///
/// Why not the filter directly: the filter's estimate moves with every timestamp (jitter of
/// the server's delay reports, the acquisition bandwidth), so two onsets scheduled Δ apart
/// could land a few frames more or less than Δ·fs apart (72002–72064 frames for Δ = 1.5 s
/// were seen through PulseAudio). The grid runs at exactly the nominal rate from an anchor,
/// so onsets Δ apart are round(Δ·fs) frames apart; the anchor follows the filter's estimate
/// only while the filter settles after a (re)lock, and afterwards moves, by whole frames,
/// only when the two disagree by more than a threshold. Drift therefore cannot accumulate
/// beyond the threshold (measured through the PulseAudio rig: +70…+360 ppm, so with the
/// default 2 ms a correction every 6–30 s), and the absolute error stays within threshold +
/// the filter's own error (≈ 0.05–0.2 ms there).
struct ScheduleGrid: Equatable {
    var anchorFrame: Int64 = 0
    var anchorNanos: Double = 0
    var nanosPerFrame: Double = 1e9 / 48_000
    var framesPerNano: Double = 48_000 / 1e9
    /// Whether the grid holds its anchor (the filter has settled); otherwise it tracks the filter.
    var holding = false

    init(sampleRate: Double = 48_000) {
        nanosPerFrame = 1e9 / sampleRate
        framesPerNano = sampleRate / 1e9
    }

    @_noLocks
    func nanos(forFrame frame: Int64) -> Double {
        anchorNanos + Double(frame - anchorFrame) * nanosPerFrame
    }

    /// The fractional frame that plays at `nanos` (multiplying by the rate: Δ·fs is exact for
    /// whole nanoseconds whenever it is a whole number of frames).
    @_noLocks
    func frame(forNanos nanos: Double) -> Double {
        Double(anchorFrame) + (nanos - anchorNanos) * framesPerNano
    }
}
