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
