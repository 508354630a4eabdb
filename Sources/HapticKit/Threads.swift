import HapticEngine

/// Starts a detached thread named `name`, at SCHED_FIFO `realtimePriority` when the process
/// may (else with normal scheduling), running `body`; false when no thread could be made.
/// For an app's own watchdogs (the CLI's Ctrl-C watchdog runs above the render thread).
@discardableResult
public func spawnDetachedRealtimeThread(
    name: String, realtimePriority: Int32?, body: @escaping @Sendable () -> Void
) -> Bool {
    HapticEngine.spawnDetachedThread(name: name, realtimePriority: realtimePriority, body: body)
}
