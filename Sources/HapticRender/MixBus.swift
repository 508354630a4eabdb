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
