// When a sound has rung out: the one end rule of a render and of live playback.

/// Measures how long the output has been silent, for the end rule that `render`
/// (`RenderEnding.silence`) and live playback (HapticEngine's `notifyWhenRungOut`) share: past
/// its last sound, output goes on until it has stayed below `silenceLevel` (-90 dBFS) on every
/// channel for one period of the protection high-pass's cutoff — so that the chain's ringing has
/// died too — and at most `maximumExtraSeconds` past the nominal end.
///
/// Real-time safe: `note` allocates nothing, takes no lock and runs a bounded loop.
public struct RingOutMeter: Sendable {
    /// The level below which the output counts as silent: -90 dBFS.
    public static let silenceLevel: Float = 3.1622776e-5
    /// The longest the ring-out may run past the nominal end.
    public static let maximumExtraSeconds = 30.0

    /// How long the output must stay below `silenceLevel` (frames).
    public let quietFramesNeeded: Int
    /// How long it has, up to the last frame noted (frames).
    public private(set) var quietFrames = 0

    /// A meter for output shaped by `profile`'s protection chain at `sampleRate`.
    public init(profile: ActuatorProfile, sampleRate: Double) {
        quietFramesNeeded = max(1, Int((sampleRate / profile.protection.highPassHz).rounded(.up)))
    }

    /// Whether the output has been silent long enough.
    public var hasRungOut: Bool { quietFrames >= quietFramesNeeded }

    /// Notes `frames` interleaved frames of `channels` channels that were just produced.
    public mutating func note(_ block: UnsafePointer<Float>, frames: Int, channels: Int) {
        note(peak: peakMagnitude(UnsafeMutablePointer(mutating: block), frames * channels), block, frames: frames, channels: channels)
    }

    /// Starts counting again (a new device, a new stream).
    public mutating func reset() { quietFrames = 0 }

    /// `note` for a block whose peak is known: a quiet block adds to the count; a block over the
    /// level restarts it from its last loud frame.
    mutating func note(peak: Float, _ block: UnsafePointer<Float>, frames: Int, channels: Int) {
        if peak < Self.silenceLevel {
            quietFrames = min(quietFrames + frames, Int.max / 2)
            return
        }
        var last = frames - 1
        while last >= 0 {
            var loud = false
            for c in 0..<channels where abs(block[last * channels + c]) >= Self.silenceLevel { loud = true }
            if loud { break }
            last -= 1
        }
        quietFrames = frames - 1 - last
    }
}
