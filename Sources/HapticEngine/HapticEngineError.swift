import HapticRender

/// Errors from engine and player calls.
public enum HapticEngineError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The call needs a running engine; the engine is in `state`.
    case engineNotRunning(HapticEngine.State)
    /// The player was made before the engine was reset (a new device handle); make a new one.
    case playerInvalidated
    /// Every voice of the pool (`Configuration.maxVoices`) is in use.
    case voiceLimitReached(Int)
    /// The command queue to the render thread is full (`Configuration.commandCapacity`).
    case commandQueueFull
    /// The device could not be opened (no device, no server, bad name...).
    case deviceUnavailable(DeviceOpenError)
    /// The device granted a format the engine cannot use.
    case formatMismatch(String)
    /// The pattern could not be prepared for this engine.
    case preparation(RenderError)
    /// The playback was ended by an engine stop or reset.
    case engineStopped

    public var description: String {
        switch self {
        case .engineNotRunning(let state): "haptic engine is not running (state: \(state))"
        case .playerInvalidated: "player was created before the engine was reset"
        case .voiceLimitReached(let n): "all \(n) voices are in use"
        case .commandQueueFull: "command queue to the render thread is full"
        case .deviceUnavailable(let error): "output device unavailable: \(error)"
        case .formatMismatch(let message): "output device format: \(message)"
        case .preparation(let error): "pattern preparation failed: \(error)"
        case .engineStopped: "playback ended by an engine stop or reset"
        }
    }
}
