import HapticPattern

/// Decoded sound for AudioCustom events: interleaved float samples (1 or 2 channels)
/// already converted to the render rate.
public struct SoundBuffer: Sendable, Equatable {
    public var channels: Int
    public var sampleRate: Double
    /// Interleaved, `frames * channels` long.
    public var samples: [Float]
    public var frames: Int { channels == 0 ? 0 : samples.count / channels }

    public init(channels: Int, sampleRate: Double, samples: [Float]) {
        self.channels = channels
        self.sampleRate = sampleRate
        self.samples = samples
    }
}

/// Supplies the sound files that AudioCustom events name. Implemented at the edge
/// (HapticSoundFile: libsndfile to read, libsoxr to convert the rate); the renderer
/// itself does no I/O.
public protocol SoundSource: Sendable {
    /// The sound `path` (as written in EventWaveformPath), converted to `sampleRate`
    /// and transposed by `transposition` (a playback-speed ratio: 2 = an octave up).
    func sound(path: String, sampleRate: Double, transposition: Double) throws(SoundSourceError) -> SoundBuffer

    /// What `sound(path:sampleRate:transposition:)` would cost, known before anything is
    /// decoded (from the file's header); nil when the source cannot tell (the sound is then
    /// loaded and measured). The default is nil.
    func estimate(path: String, sampleRate: Double, transposition: Double) -> SoundEstimate?
}

extension SoundSource {
    public func estimate(path: String, sampleRate: Double, transposition: Double) -> SoundEstimate? { nil }
}

/// A sound's cost before it is loaded: which file it is, whatever the spelling of its path
/// (two estimates with one `identity` are one file), and the bytes of its converted samples.
public struct SoundEstimate: Sendable, Equatable {
    public var identity: String
    public var bytes: Int
    public init(identity: String, bytes: Int) {
        self.identity = identity
        self.bytes = bytes
    }
}

/// Why a sound could not be supplied: names the file and what went wrong.
public struct SoundSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { printable("\(path): \(message)") }
}
