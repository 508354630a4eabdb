/// Maps the device's frame counter to CLOCK_MONOTONIC and back, filtered the way
/// JACK's delay-locked loop does it: a second-order loop fed with device
/// timestamps (frame `f` played at time `t`) that tracks both the offset and the
/// rate ratio between the sound card's clock and the system clock, so that drift
/// does not accumulate and timestamp jitter is averaged out.
///
/// The loop runs on the render thread (value type, no allocation). Updates may
/// come at any frame spacing; the gains are computed for the elapsed time so the
/// loop bandwidth stays `bandwidthHz` whatever the period size.
public struct FrameTimeFilter: Sendable, Equatable {
    /// The nominal sample rate (frames per second).
    public let nominalRate: Double
    /// Loop bandwidth once settled (Hz). Lower = smoother, slower to follow.
    public var bandwidthHz: Double
    /// Bandwidth right after a (re)start; it decays to `bandwidthHz` over `acquireSeconds` so
    /// that the loop locks quickly and then averages jitter.
    public var acquireBandwidthHz: Double
    /// An error larger than this (nanoseconds) is taken as a discontinuity: the
    /// mapping jumps to the new timestamp instead of slewing.
    public var jumpThresholdNanos: Double
    /// Seconds over which the bandwidth decays from the acquisition value to the settled one.
    public var acquireSeconds: Double

    /// Frame at the anchor point.
    public private(set) var anchorFrame: Int64 = 0
    /// Filtered monotonic time (ns) of `anchorFrame`.
    public private(set) var anchorNanos: Double = 0
    /// Estimated nanoseconds per device frame (1e9 / rate, rate as seen on CLOCK_MONOTONIC).
    public private(set) var nanosPerFrame: Double
    /// Whether a measured timestamp has set the mapping (otherwise it is a guess).
    public private(set) var isLocked = false
    /// Timestamps taken since the last (re)start.
    public private(set) var updates = 0
    /// Seconds of device time since the last (re)start (drives the bandwidth decay).
    private var lockedSeconds: Double = 0

    public init(sampleRate: Double, bandwidthHz: Double = 0.1, acquireBandwidthHz: Double = 4, acquireSeconds: Double = 5,
                jumpThresholdNanos: Double = 30_000_000) {
        nominalRate = sampleRate
        self.bandwidthHz = bandwidthHz
        self.acquireBandwidthHz = acquireBandwidthHz
        self.jumpThresholdNanos = jumpThresholdNanos
        self.acquireSeconds = acquireSeconds
        nanosPerFrame = 1e9 / sampleRate
    }

    /// Sets an unmeasured guess (used before the first timestamp arrives): `frame` plays at `nanos`.
    public mutating func guess(frame: Int64, atNanos nanos: Int64) {
        anchorFrame = frame
        anchorNanos = Double(nanos)
        isLocked = false
        updates = 0
        lockedSeconds = 0
    }

    /// Forgets the offset (after an xrun or restart) but keeps the rate estimate:
    /// the next timestamp sets the mapping directly.
    public mutating func unlock() {
        isLocked = false
        updates = 0
        lockedSeconds = 0
    }

    /// Feeds one measurement: frame `framesPlayed` reached the output at `monotonicNanos`.
    @_noLocks
    public mutating func update(_ ts: DeviceTimestamp) {
        let measured = Double(ts.monotonicNanos)
        guard isLocked else {
            anchorFrame = ts.framesPlayed
            anchorNanos = measured
            isLocked = true
            updates = 1
            return
        }
        let n = Double(ts.framesPlayed - anchorFrame)
        guard n > 0 else { return }  // no progress: nothing to learn (and no division by zero)
        let predicted = anchorNanos + n * nanosPerFrame
        let error = measured - predicted
        if abs(error) > jumpThresholdNanos {
            anchorFrame = ts.framesPlayed
            anchorNanos = measured
            updates += 1
            return
        }
        let dt = n * nanosPerFrame / 1e9
        lockedSeconds += dt
        // Bandwidth decays from the acquisition value to the settled one.
        let mix = min(lockedSeconds / acquireSeconds, 1)
        let bandwidth = acquireBandwidthHz + (bandwidthHz - acquireBandwidthHz) * mix
        // JACK's DLL: omega = 2*pi*B*T, b = sqrt(2)*omega, c = omega^2 (capped for stability
        // when updates are sparse).
        let omega = min(2 * Double.pi * bandwidth * dt, 0.7)
        let b = 1.4142135623730951 * omega
        let c = omega * omega
        anchorFrame = ts.framesPlayed
        anchorNanos = predicted + b * error
        nanosPerFrame += c * error / n
        // The rate ratio of real hardware is within a fraction of a percent of nominal.
        let nominal = 1e9 / nominalRate
        nanosPerFrame = min(max(nanosPerFrame, nominal * 0.995), nominal * 1.005)
        updates += 1
    }

    /// Monotonic nanoseconds at which `frame` plays.
    @_noLocks
    public func nanos(forFrame frame: Int64) -> Double {
        anchorNanos + Double(frame - anchorFrame) * nanosPerFrame
    }

    /// The (fractional) frame that plays at `nanos`.
    @_noLocks
    public func frame(forNanos nanos: Double) -> Double {
        Double(anchorFrame) + (nanos - anchorNanos) / nanosPerFrame
    }

    /// The device's rate as measured on the monotonic clock, relative to nominal (1 + drift).
    public var rateRatio: Double { (1e9 / nanosPerFrame) / nominalRate }
}
