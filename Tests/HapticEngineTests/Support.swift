@testable import HapticEngine
import HapticEngineTesting
import HapticTestSupport
import HapticPattern
import HapticRender
import Synchronization

/// Builds devices on demand and keeps every one it built (the first is `first`).
final class DeviceFactory: Sendable {
    let clock: EngineClock
    let options: VirtualOutputDevice.Options
    let built: Mutex<[VirtualOutputDevice]>
    /// While true, every new device is dead on arrival (the sound server is down).
    let serverDown = Atomic<Bool>(false)

    init(clock: EngineClock, options: VirtualOutputDevice.Options = VirtualOutputDevice.Options()) {
        self.clock = clock
        self.options = options
        built = Mutex([])
    }

    func make() -> any OutputDevice {
        let device = VirtualOutputDevice(name: "virtual", clock: clock, options: options)
        if serverDown.load(ordering: .acquiring) { device.kill() }
        built.withLock { $0.append(device) }
        return device
    }

    var devices: [VirtualOutputDevice] { built.withLock { $0 } }
    var first: VirtualOutputDevice { devices[0] }
}

/// A manual-drive engine on a virtual device with a hand-driven clock.
func makeManualEngine(
    period: Int = 256, bufferPeriods: Int = 3, maxVoices: Int = 256, trace: Int = 4096,
    options: VirtualOutputDevice.Options = VirtualOutputDevice.Options(),
    configure: (inout HapticEngine.Configuration) -> Void = { _ in }
) -> (HapticEngine, DeviceFactory, ManualClock) {
    let clock = ManualClock(nanos: 5_000_000_000)
    let factory = DeviceFactory(clock: .manual(clock), options: options)
    var configuration = HapticEngine.Configuration.manual(
        clock: clock, base: HapticEngine.Configuration(periodFrames: period, bufferPeriods: bufferPeriods))
    configuration.maxVoices = maxVoices
    configuration.commandTraceCapacity = trace
    configure(&configuration)
    let engine = HapticEngine(configuration: configuration) { factory.make() }
    return (engine, factory, clock)
}

let oneTransient = AHAPPattern(elements: [.event(.transient(at: 0, intensity: 1, sharpness: 0.5))])

func preparedTransient(_ engine: HapticEngine) throws -> PreparedPattern {
    try engine.prepare(oneTransient)
}

/// Renders until `body` is true or `limit` periods pass.
@discardableResult
func renderUntil(_ engine: HapticEngine, limit: Int = 10_000, _ body: () -> Bool) -> Bool {
    for _ in 0..<limit {
        if body() { return true }
        engine.renderOnePeriod()
    }
    return body()
}

