// CONTRACT between the engine and its output back-ends (ALSA, the virtual
// device used by unit tests). Signatures are fixed; anything may be added.

import HapticRender

/// What a device was opened with (the device may grant other values than asked).
public struct DeviceFormat: Sendable, Equatable {
    /// Interleaved channels per frame.
    public var channels: Int
    /// Frames per second.
    public var sampleRate: Int
    /// Frames the engine renders and writes per period.
    public var periodFrames: Int
    /// Frames the device buffers in all (typically 2–4 periods).
    public var bufferFrames: Int

    /// Asked for: the position each channel is to have (nil: the device's own map). Granted:
    /// not used (the device's `channelMap` says where its channels went).
    public var channelMap: [ChannelPosition]? = nil

    public init(channels: Int, sampleRate: Int, periodFrames: Int, bufferFrames: Int) {
        self.channels = channels
        self.sampleRate = sampleRate
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames
    }
}

/// A fault the device reports while running.
public enum DeviceFault: Error, Sendable, Equatable {
    /// Underrun (-EPIPE): the device ran dry; recoverable in place.
    case xrun
    /// Suspended (-ESTRPIPE); recoverable by resuming.
    case suspended
    /// No progress within the bounded wait: with some servers (JACK) this is the only sign of death.
    case timeout
    /// The device or its sound server is gone (-EIO, -ENODEV, -EBADFD, repeated -EPIPE...): reopen needed.
    case gone(String)
}

/// An error opening a device.
public struct DeviceOpenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The device name as given (for example `hw:1,0`).
    public var device: String
    /// What failed, with the back-end's own message (for example ALSA's `snd_strerror`).
    public var message: String
    /// The errno-style code when there is one (negative, as ALSA returns it).
    public var code: Int32?

    public init(device: String, message: String, code: Int32? = nil) {
        self.device = device
        self.message = message
        self.code = code
    }

    public var description: String { "\(device): \(message)" }
}

/// A mapping point between the device's frame counter and CLOCK_MONOTONIC:
/// frame `framesPlayed` reached the device output at `monotonicNanos`.
public struct DeviceTimestamp: Sendable, Equatable {
    public var framesPlayed: Int64
    public var monotonicNanos: Int64
    public init(framesPlayed: Int64, monotonicNanos: Int64) {
        self.framesPlayed = framesPlayed
        self.monotonicNanos = monotonicNanos
    }
}

/// An output the engine's render thread writes to. Implementations are used from
/// one thread at a time: `open`/`close` from the control side while the render
/// thread is not running, `write`/`timestamp`/`recover` from the render thread.
/// `write` and `recover` must not allocate, lock, or block longer than `waitTimeout`.
public protocol OutputDevice: AnyObject {
    /// The name the device was asked for (for messages).
    var name: String { get }

    /// Opens the device; returns the format actually granted.
    func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat

    /// Writes all `frames` interleaved float frames, waiting (bounded) for room.
    /// Returns nil on success or the fault that stopped it.
    func write(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault?

    /// The current frame/time mapping point (frames written − delay, at now), or nil if unknown.
    func timestamp() -> DeviceTimestamp?

    /// Tries to recover in place from `fault` (xrun: prepare; suspended: resume).
    /// Returns false when the handle is unusable and must be closed and reopened.
    func recover(from fault: DeviceFault) -> Bool

    /// Stops and closes; idempotent.
    func close()

    /// How many of the frames passed to the last `write` that returned a fault reached the
    /// device before the fault (0 when it failed before writing anything). The engine writes
    /// only the rest after recovering, so its frame count and the device's stay equal.
    var framesWrittenBeforeFault: Int { get }

    /// Waits (bounded, like `write`) until `frames` can be written without waiting. The render
    /// thread calls it before rendering a period, so that the period is rendered as late as
    /// possible: an immediate command issued meanwhile still makes it into that period (one
    /// period less latency than rendering first and then waiting inside `write`). Returns nil
    /// when there is room (or the device cannot tell), else the fault that stopped the wait.
    func waitForRoom(frames: Int) -> DeviceFault?

    /// What the device says about its channels before it is opened: the channel maps it can
    /// take and, through a sound server, the sink behind it. nil when it cannot say (the
    /// default). Called from the control side, with the device closed.
    func describeChannels() -> DeviceChannels?

    /// Where the channels of the open device go: one position per channel, as the device
    /// names them (ALSA's `snd_pcm_get_chmap`, or the map a sound server's plugin gives the
    /// stream). nil when it cannot say (the default) or while closed.
    var channelMap: [ChannelPosition]? { get }
}

extension OutputDevice {
    /// Devices whose `write` fails before writing anything need not implement it.
    public var framesWrittenBeforeFault: Int { 0 }

    /// Default: no separate wait (the write itself waits for room).
    public func waitForRoom(frames: Int) -> DeviceFault? { nil }

    /// Default: the device cannot say.
    public func describeChannels() -> DeviceChannels? { nil }

    /// Default: the device cannot say.
    public var channelMap: [ChannelPosition]? { nil }
}
