import HapticEngine

/// An ``OutputDevice`` that hands every frame written to a sink (a sound file, an array) and
/// plays on a ``ManualClock``: frame `n` plays at the open time + n/fs, and a write waits
/// (moves the clock) until the buffer has room, as a real device would. Its timestamps are
/// exact, so the engine's frame/time mapping is exact too. Any rate and channel count: it
/// grants what the engine asks, or refuses a format other than the one it was made for.
///
/// A sink that throws ends the recording: the device reports itself gone and keeps the
/// error's description in ``error``.
///
/// `@unchecked Sendable`: used by the one thread that drives the manual engine.
public final class RecordingOutputDevice: OutputDevice, @unchecked Sendable {
    public let name: String
    public let clock: ManualClock
    /// The only channel count and rate the device opens with (nil: whatever is asked).
    public let requiredChannels: Int?
    public let requiredSampleRate: Int?
    private let sink: (UnsafeBufferPointer<Float>) throws -> Void
    private var format = DeviceFormat(channels: 1, sampleRate: 48_000, periodFrames: 256, bufferFrames: 768)
    private var openNanos: Int64 = 0
    private var written: Int64 = 0
    /// Why the sink failed (nil while it has not).
    public private(set) var error: String?

    /// - Parameters:
    ///   - channels, sampleRate: the format the sink takes (nil: any).
    ///   - sink: receives each period's interleaved samples, in order, on the driving thread.
    public init(name: String = "recording", clock: ManualClock, channels: Int? = nil, sampleRate: Int? = nil,
                sink: @escaping (UnsafeBufferPointer<Float>) throws -> Void) {
        self.name = name
        self.clock = clock
        self.requiredChannels = channels
        self.requiredSampleRate = sampleRate
        self.sink = sink
    }

    public func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        if requiredChannels.map({ requested.channels != $0 }) ?? false
            || requiredSampleRate.map({ requested.sampleRate != $0 }) ?? false
        {
            let channels = requiredChannels.map { "\($0) channels" } ?? "any channels"
            let rate = requiredSampleRate.map { "\($0) Hz" } ?? "any rate"
            throw DeviceOpenError(device: name, message: "the \(name) is \(channels) at \(rate)")
        }
        format = requested
        openNanos = clock.nanos
        written = 0
        return requested
    }

    private func nanos(ofFrame frame: Int64) -> Int64 {
        openNanos + Int64((Double(frame) * 1e9 / Double(format.sampleRate)).rounded())
    }

    public func write(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault? {
        if let error { return .gone(error) }
        clock.advance(toNanos: nanos(ofFrame: written + Int64(frames) - Int64(format.bufferFrames)))
        do {
            try sink(UnsafeBufferPointer(start: samples, count: frames * format.channels))
        } catch {
            let message = String(describing: error)
            self.error = message
            return .gone(message)
        }
        written += Int64(frames)
        return nil
    }

    public func timestamp() -> DeviceTimestamp? {
        let played = written - Int64(format.bufferFrames)
        guard played > 0 else { return nil }
        return DeviceTimestamp(framesPlayed: played, monotonicNanos: nanos(ofFrame: played))
    }

    public func recover(from fault: DeviceFault) -> Bool { false }
    public func close() {}
}
