import HapticEngine
import Testing

@testable import HapticKit

/// The manager builds its engines with the engine's defaults: no process-wide memory lock
/// unless the program asks for one.
@Test func managerEnginesDoNotLockMemoryByDefault() {
    let config = HapticManager.Configuration(
        hapticsFolder: "/nonexistent/Haptics", assetsFolder: "/nonexistent/Assets", output: .alsa("null"),
        audioOutput: .alsa("null"))
    #expect(config.engine.lockMemory == false)
    #expect(config.audioEngine.lockMemory == false)
}
