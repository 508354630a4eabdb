import HapticEngine

/// What the follower has counted since it was opened (readable from any thread).
public struct FollowStatistics: Sendable, Equatable {
    /// Captured frames followed (taken into the mix).
    public var framesFollowed: Int
    /// Capture overruns (-EPIPE) recovered in place: captured frames were lost.
    public var overruns: Int
    /// Output periods that found less captured sound than a period (silence filled in).
    public var underruns: Int
    /// Captured frames dropped to keep the latency from creeping.
    public var trimmedFrames: Int
    /// Times the capture was lost (its device or sound server gone), and reopened.
    public var captureLosses: Int
    public var captureReopens: Int
    /// The drift correction: how much faster (positive) or slower the capture's clock runs
    /// than the output's, as the servo has learnt it, in parts per million.
    public var captureRateCorrectionPPM: Double = 0
    /// Captured frames waiting in the jitter queue after the last period (the follower's own
    /// share of the latency).
    public var queuedFrames: Int = 0
    /// Transients played for hits (the analysis mode).
    public var transients: Int = 0
    /// Time the render thread spent reading the capture, per period (a part of the engine's
    /// render time: through a sound server's plugin, its client library's work; the rest of the
    /// render is the follower's processing and the output stage).
    public var captureReads: RenderStatistics? = nil
    /// The capture's latest stamp (for drift against the output), nil before the first.
    public var lastTimestamp: CaptureTimestamp?
}
