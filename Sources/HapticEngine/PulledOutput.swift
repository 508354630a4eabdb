/// The output of an engine in pull drive: the caller's own buffer, filled by
/// ``HapticEngine/render(into:frames:)`` (a game engine's audio thread, SDL's audio stream, an
/// offline render to a file). It grants whatever format the engine asks for. The pull drive
/// never writes to it; a render thread that did would be told the device is gone at once (it
/// is not a device to play through).
public final class PulledOutput: OutputDevice, Sendable {
    public let name: String

    public init(name: String = "pulled output") { self.name = name }

    public func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat { requested }

    public func write(_ samples: UnsafePointer<Float>, frames: Int) -> DeviceFault? {
        .gone("\(name) is read with HapticEngine.render(into:frames:), not written by a render thread")
    }

    public func timestamp() -> DeviceTimestamp? { nil }
    public func recover(from fault: DeviceFault) -> Bool { false }
    public func close() {}
}
