import HapticEngine
import Synchronization

/// An ``InputDevice`` for tests: serves a signal made by `sample(frame, channel)` as the test
/// lets frames arrive (`arrive`), with faults injected.
/// `@unchecked Sendable`: used by one thread at a time, as the contract says.
final class ScriptedInput: InputDevice, @unchecked Sendable {
    let name = "scripted"
    let channels: Int
    let sample: @Sendable (Int, Int) -> Float
    /// Faults the next reads return, in order.
    var faults: [DeviceFault] = []
    /// When set, `open` refuses.
    var refuseOpen = false
    private(set) var opens = 0
    private(set) var recoveries = 0
    private var produced = 0
    private var waiting = 0

    init(channels: Int, sample: @escaping @Sendable (Int, Int) -> Float) {
        self.channels = channels
        self.sample = sample
    }

    /// `frames` more frames have been captured (they wait for a read).
    func arrive(_ frames: Int) { waiting += frames }

    /// Frames served so far.
    var framesServed: Int { produced }

    func open(requested: DeviceFormat) throws(DeviceOpenError) -> DeviceFormat {
        if refuseOpen { throw DeviceOpenError(device: name, message: "refused") }
        opens += 1
        waiting = 0
        var granted = requested
        granted.channels = channels
        return granted
    }

    func read(into samples: UnsafeMutablePointer<Float>, frames: Int) -> CaptureRead {
        if !faults.isEmpty { return .fault(faults.removeFirst()) }
        let n = min(frames, waiting)
        for f in 0..<n {
            for c in 0..<channels { samples[f * channels + c] = sample(produced + f, c) }
        }
        produced += n
        waiting -= n
        return .frames(n)
    }

    func timestamp() -> CaptureTimestamp? { CaptureTimestamp(framesCaptured: Int64(produced + waiting), monotonicNanos: 1) }

    func recover(from fault: DeviceFault) -> Bool {
        recoveries += 1
        if case .gone = fault { return false }
        return true
    }

    func close() {}
}
