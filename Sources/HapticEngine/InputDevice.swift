// CONTRACT between a live input's user (the follower, issue 21) and the capture back-ends
// (ALSA; a virtual input in tests). The input twin of OutputDevice.swift: same format, fault
// and open-error types, so a capture is recovered and reported the way an output is.

/// When captured frames arrived: the device had captured `framesCaptured` frames since its
/// last open (read so far + waiting to be read) at `monotonicNanos` (CLOCK_MONOTONIC). Set
/// against the output's ``DeviceTimestamp`` it gives the drift between the two clocks.
public struct CaptureTimestamp: Sendable, Equatable {
    /// Frames the device had captured at `monotonicNanos`.
    public var framesCaptured: Int64
    /// When, on CLOCK_MONOTONIC.
    public var monotonicNanos: Int64
    /// When the stream (re)started (ALSA's trigger stamp; 0 when the device cannot say).
    public var triggerNanos: Int64

    public init(framesCaptured: Int64, monotonicNanos: Int64, triggerNanos: Int64 = 0) {
        self.framesCaptured = framesCaptured
        self.monotonicNanos = monotonicNanos
        self.triggerNanos = triggerNanos
    }
}

/// What one non-blocking read of an input gave.
public enum CaptureRead: Sendable, Equatable {
    /// This many frames were read (0: none are waiting now).
    case frames(Int)
    /// The read stopped on a fault: `.xrun` is an overrun (frames were lost), recoverable in
    /// place with ``InputDevice/recover(from:)``; `.gone` needs a reopen.
    case fault(DeviceFault)
}

/// A capture stream read without blocking, period by period, from a real-time thread.
/// Implementations are used from one thread at a time: `open`/`close` from the control side
/// while no one reads, `read`/`timestamp`/`recover` from the reading (render) thread, where
/// they must not allocate, lock or block.
public protocol InputDevice: AnyObject {
    /// The name the device was asked for (for messages).
    var name: String { get }

    /// Opens and starts the stream; returns the format actually granted (its channel count
    /// may be any of those the device was allowed to choose; see the implementation).
    func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat

    /// Reads at most `frames` interleaved float frames of the granted channel count into
    /// `samples` without waiting.
    func read(into samples: UnsafeMutablePointer<Float>, frames: Int) -> CaptureRead

    /// The frame/time mapping point of the last read, or nil if unknown.
    func timestamp() -> CaptureTimestamp?

    /// Recovers in place from `fault` (overrun: prepare and restart; suspended: resume).
    /// False when the handle is unusable and must be closed and reopened.
    func recover(from fault: DeviceFault) -> Bool

    /// Stops and closes; idempotent.
    func close()
}
