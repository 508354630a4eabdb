import HapticALSA

#if canImport(Glibc)
    import Glibc
#endif

/// Waiting for what a recording holds, while it records: tests and benchmarks wait for the
/// sound they expect (and for the silence after it) instead of sleeping for a guessed time.
/// Every wait is bounded and polls what has been recorded so far (frames below
/// `framesRecorded` are complete and no longer written).
extension ALSACaptureDevice {
    /// Channels being recorded.
    public var recordedChannels: Int { grantedFormat?.channels ?? requested.channels }

    /// Sample `channel` of recorded `frame` (S16 recordings scaled by 1/32768, as `floatSamples`).
    /// Only for `frame < framesRecorded`.
    public func sample(frame: Int, channel: Int) -> Float {
        let index = frame * recordedChannels + channel
        switch sampleFormat {
        case .s16: return Float(buffer.load(fromByteOffset: index * 2, as: Int16.self)) / 32768
        default: return buffer.load(fromByteOffset: index * 4, as: Float.self)
        }
    }

    /// The largest |sample| over the channels of recorded `frame`.
    public func level(frame: Int) -> Float {
        var peak: Float = 0
        for c in 0..<recordedChannels { peak = max(peak, abs(sample(frame: frame, channel: c))) }
        return peak
    }

    /// Waits until `frames` frames have been recorded; false when `timeout` seconds passed first.
    @discardableResult
    public func waitForFrames(_ frames: Int, timeout: Double) -> Bool {
        poll(timeout: timeout) { framesRecorded >= frames }
    }

    /// Waits until the recording holds sound: the first frame from `from` on whose level exceeds
    /// `threshold` (0: any non-zero sample) on any channel of `channels` (nil: all), or nil when
    /// `timeout` seconds passed first.
    public func waitForSound(from: Int = 0, above threshold: Float = 0, channels: [Int]? = nil, timeout: Double) -> Int? {
        var next = max(0, from)
        var found: Int? = nil
        let watched = channels ?? Array(0..<recordedChannels)
        _ = poll(timeout: timeout) {
            let end = framesRecorded
            while next < end {
                if watched.contains(where: { abs(sample(frame: next, channel: $0)) > threshold }) {
                    found = next
                    return true
                }
                next += 1
            }
            return false
        }
        return found
    }

    /// Waits until, after frame `after`, the recording ends in `frames` frames at or below
    /// `threshold` (0: exact zeros) on every channel: a sound heard at `after` has come and gone.
    /// False when `timeout` seconds passed first.
    @discardableResult
    public func waitForSilence(after: Int, frames: Int, threshold: Float = 0, timeout: Double) -> Bool {
        var next = max(0, after)
        var quiet = 0
        return poll(timeout: timeout) {
            let end = framesRecorded
            while next < end {
                quiet = level(frame: next) > threshold ? 0 : quiet + 1
                next += 1
            }
            return quiet >= frames
        }
    }

    /// Waits until what was played has all been recorded: a sound (within `timeout`), then
    /// `silence` frames of exact silence after its end (within `timeout` more). False otherwise.
    @discardableResult
    public func waitForWholeSound(silence: Int = 9600, timeout: Double = 60) -> Bool {
        guard let heard = waitForSound(timeout: timeout) else { return false }
        return waitForSilence(after: heard, frames: silence, timeout: timeout)
    }

    /// Polls `condition` every 5 ms for at most `timeout` seconds.
    private func poll(timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = monotonicNanos() + Int64(timeout * 1e9)
        while true {
            if condition() { return true }
            if monotonicNanos() >= deadline { return false }
            usleep(5_000)
        }
    }
}
