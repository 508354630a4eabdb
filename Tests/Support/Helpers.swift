// Small helpers shared by several test targets (one copy, not one per target).

import Foundation
import Synchronization

/// A small deterministic generator (SplitMix64), so that random tests are repeatable.
public struct SeededRandom: RandomNumberGenerator {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Counts calls from any thread.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    public init() {}
    public func bump() { value.add(1, ordering: .relaxed) }
    public var count: Int { value.load(ordering: .relaxed) }
}

/// Collects values from any thread.
public final class Recorder<T: Sendable>: Sendable {
    private let items = Mutex<[T]>([])
    public init() {}
    public func append(_ item: T) { items.withLock { $0.append(item) } }
    public var all: [T] { items.withLock { $0 } }
}

/// Runs the rig's control script (`rig.sh stop-server` / `start-server`); returns its exit status.
@discardableResult
public func runRigControl(_ script: String, _ command: String) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = [script, command]
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
