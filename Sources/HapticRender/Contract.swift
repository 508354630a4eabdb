// CONTRACT between the renderer and its users (offline render, live engine).
// The signatures here and in PreparedPattern.swift, PatternVoice.swift,
// OutputStage.swift and ActuatorProfile.swift are fixed. Anything may be added;
// nothing may be renamed without updating HapticEngine and the CLI.

import HapticPattern

/// Mix buses a voice adds into: one haptic drive bus and a stereo audio bus,
/// each `frames` long. Buffers are owned by the caller (preallocated).
///
/// A layout whose haptic channels drive several kinds of actuator has one haptic bus per
/// actuator profile (`hapticBusCount`), `hapticStride` samples apart from `haptic` on; each
/// actuator's voice renders into its own (`actuator(_:)`), the output stage reads them all.
public struct MixBus {
    public var haptic: UnsafeMutablePointer<Float>
    public var audioLeft: UnsafeMutablePointer<Float>
    public var audioRight: UnsafeMutablePointer<Float>
    public var frames: Int
    /// Haptic buses, one per actuator profile (1 unless the layout names several).
    public var hapticBusCount = 1
    /// Samples from one haptic bus to the next.
    public var hapticStride = 0

    /// Actuator `k`'s haptic bus.
    @inlinable @inline(__always)
    public func hapticBus(_ k: Int) -> UnsafeMutablePointer<Float> { haptic + k * hapticStride }

    /// The bus actuator `k`'s voice renders into: its haptic bus and the shared audio buses.
    @inlinable @inline(__always)
    public func actuator(_ k: Int) -> MixBus {
        MixBus(haptic: hapticBus(k), audioLeft: audioLeft, audioRight: audioRight, frames: frames)
    }

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
        var slice = MixBus(
            haptic: haptic + offset, audioLeft: audioLeft + offset, audioRight: audioRight + offset,
            frames: count)
        slice.hapticBusCount = hapticBusCount
        slice.hapticStride = hapticStride
        return slice
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
    /// Where each channel is to go, by name (nil: by its column number). Set by names in a
    /// layout (`FL,FR,LFE=H`); the engine places such a layout on the device's channel map.
    /// Shorter than `sources` means nil for the rest (see `position(ofChannel:)`).
    public var positions: [ChannelPosition?] = []
    /// The actuator profile each haptic channel's drive is rendered for (nil: the render's or
    /// engine's own profile). The pattern is rendered once per distinct profile.
    /// Shorter than `sources` means nil for the rest (see `profile(ofChannel:)`).
    public var profiles: [ActuatorProfile?] = []
    public var channels: Int { sources.count }
    public init(_ sources: [Source]) { self.sources = sources }
    public init(_ sources: [Source], positions: [ChannelPosition?], profiles: [ActuatorProfile?] = []) {
        self.sources = sources
        self.positions = positions
        self.profiles = profiles
    }

    /// Equal when every channel has the same source, position and profile (a missing entry of
    /// `positions` or `profiles` counts as nil).
    public static func == (a: ChannelLayout, b: ChannelLayout) -> Bool {
        a.sources == b.sources
            && (0..<a.channels).allSatisfy { a.position(ofChannel: $0) == b.position(ofChannel: $0) }
            && (0..<a.channels).allSatisfy { a.profile(ofChannel: $0) == b.profile(ofChannel: $0) }
    }

    /// One haptic channel (the default without audio events).
    public static let hapticMono = ChannelLayout([.haptic(gain: 1)])
    /// Left, right, haptic (the default when a pattern has audio events).
    public static let stereoPlusHaptic = ChannelLayout([.audioLeft(gain: 1), .audioRight(gain: 1), .haptic(gain: 1)])
}

/// Why a pattern could not be prepared or rendered.
public struct RenderError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { printable(message) }
}
