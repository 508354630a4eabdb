// CONTRACT between the renderer and its users (offline render, live engine).
// The signatures below are fixed; bodies are placeholders to be replaced by the
// real renderer. Anything may be added; nothing here may be renamed without
// updating HapticEngine and the CLI.

import HapticPattern

/// Mix buses a voice adds into: one haptic drive bus and a stereo audio bus,
/// each `frames` long. Buffers are owned by the caller (preallocated).
public struct MixBus {
    public var haptic: UnsafeMutablePointer<Float>
    public var audioLeft: UnsafeMutablePointer<Float>
    public var audioRight: UnsafeMutablePointer<Float>
    public var frames: Int

    public init(
        haptic: UnsafeMutablePointer<Float>, audioLeft: UnsafeMutablePointer<Float>,
        audioRight: UnsafeMutablePointer<Float>, frames: Int
    ) {
        self.haptic = haptic
        self.audioLeft = audioLeft
        self.audioRight = audioRight
        self.frames = frames
    }

    /// The frames `offset ..< offset + count` of this bus (for sample-accurate splits of a block).
    public func slice(from offset: Int, count: Int) -> MixBus {
        precondition(offset >= 0 && count >= 0 && offset + count <= frames)
        return MixBus(
            haptic: haptic + offset, audioLeft: audioLeft + offset, audioRight: audioRight + offset,
            frames: count)
    }
}

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
}

/// Why a sound could not be supplied: names the file and what went wrong.
public struct SoundSourceError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// Where each output channel's samples come from. The renderer fills any layout:
/// haptic mono, audio stereo + haptic, or a user map for multi-channel cards.
public struct ChannelLayout: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case haptic(gain: Float)
        case audioLeft(gain: Float)
        case audioRight(gain: Float)
        case silence
    }
    public var sources: [Source]
    public var channels: Int { sources.count }
    public init(_ sources: [Source]) { self.sources = sources }

    /// One haptic channel (the default without audio events).
    public static let hapticMono = ChannelLayout([.haptic(gain: 1)])
    /// Left, right, haptic (the default when a pattern has audio events).
    public static let stereoPlusHaptic = ChannelLayout([.audioLeft(gain: 1), .audioRight(gain: 1), .haptic(gain: 1)])
}

/// A pattern compiled for one sample rate and actuator profile: immutable and
/// shareable by any number of voices (players) on any thread.
public final class PreparedPattern: Sendable {
    /// Warnings from preparation (for example a missing sound in lenient use).
    public let warnings: [String]
    /// Length in seconds including release tails (what `render` writes before `--tail`).
    public let duration: Double
    /// Whether any audio event is present (selects the default layout).
    public let hasAudio: Bool
    /// The rate the pattern was prepared for.
    public let sampleRate: Double

    /// Compiles `pattern`. `sounds` resolves AudioCustom files (nil: every AudioCustom
    /// event is silent with a warning, or an error when `strict`).
    public init(
        _ pattern: AHAPPattern, profile: ActuatorProfile, sampleRate: Double,
        sounds: (any SoundSource)? = nil, strict: Bool = false
    ) throws(RenderError) {
        self.warnings = []
        self.duration = 0
        self.hasAudio = false
        self.sampleRate = sampleRate
    }
}

/// Why a pattern could not be prepared or rendered.
public struct RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One playback of a prepared pattern: adds its output into mix buses, block by block.
/// Rendering N frames in one call or in any split gives identical samples.
/// Every method is real-time safe (no allocation, no locks) once initialised;
/// `init` allocates its per-event state and must run off the render thread.
public struct PatternVoice {
    public let pattern: PreparedPattern

    public init(pattern: PreparedPattern) { self.pattern = pattern }

    /// Adds `bus.frames` frames of output into `bus`, advancing the voice.
    public mutating func render(into bus: MixBus) {}

    /// Pattern seconds advanced per output second (scales times and durations, not
    /// frequencies). May change between any two render calls.
    public var playbackRate: Double = 1

    /// Current position in pattern seconds.
    public var position: Double { 0 }

    /// Jumps to `offset` pattern seconds (sounding events are cut with a short fade).
    public mutating func seek(to offset: Double) {}

    /// When set, playback jumps back to 0 on reaching this position (pattern seconds).
    public var loopEnd: Double? = nil

    /// Sets a live value for a dynamic parameter, layered on the pattern's own controls
    /// (multiplying controls multiply, adding ones add). The value moves there linearly
    /// over `ramp` seconds (0: the renderer's short anti-zipper smoothing).
    public mutating func setControl(_ id: DynamicParameterID, value: Double, ramp: Double = 0) {}

    /// Begins a short fade-out (a few ms); the voice finishes when it reaches silence.
    public mutating func stop() {}

    /// True once everything the voice will ever produce has been rendered.
    public var isFinished: Bool { true }
}

/// The protection chain after the mix: DC blocking and a high-pass at the
/// profile's protection cutoff on the haptic bus, then limiters (haptic and audio)
/// that keep every sample under the ceiling. Writes the interleaved output for a layout.
public struct OutputStage {
    public init(profile: ActuatorProfile, sampleRate: Double, layout: ChannelLayout) {}

    /// Processes the mixed buses in place and writes `bus.frames` interleaved frames to `output`.
    public mutating func process(_ bus: MixBus, into output: UnsafeMutablePointer<Float>) {}
}

/// An actuator profile: what intensity and sharpness mean for one kind of hardware.
public struct ActuatorProfile: Sendable, Equatable {
    public var name: String
    public init(name: String) { self.name = name }
}
