import HapticTestSupport
import Foundation
import HapticEngine
import HapticPattern
import HapticRender

@testable import HapticKit

/// The repository root, found from this file's location (Tests/HapticKitTests/<file>).
let kitRepoRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
let kitHaptics = kitRepoRoot + "/Haptics"
let kitAssets = kitRepoRoot + "/Assets"

/// The running rig (scripts/rig.sh), if the tests were started inside one.
enum KitRig {
    static let env = ProcessInfo.processInfo.environment
    static var isRunning: Bool {
        let running = env["HAPTICSYNTH_RIG_DIR"] != nil
        if !running { _ = announce }
        return running
    }
    private static let announce: Void = {
        print("skipped: HapticKit rig tests (HAPTICSYNTH_RIG_DIR unset): run `scripts/rig.sh swift test --filter HapticKitTests`")
    }()
    static let out = env["HAPTICSYNTH_RIG_OUT"] ?? "hs_out"
    static let input = env["HAPTICSYNTH_RIG_IN"] ?? "hs_in"
    static let control = env["HAPTICSYNTH_RIG_CTL"] ?? "scripts/rig.sh"

    /// Runs `rig.sh <command>` (stop-server / start-server); returns its exit status.
    @discardableResult
    static func control(_ command: String) throws -> Int32 { try runRigControl(control, command) }
}

/// Wall seconds a call takes (CLOCK_MONOTONIC), timed with the calling thread at real-time
/// priority: what the call waits for, not how long a loaded machine keeps the test off the CPU.
@discardableResult
func wallTime(_ body: () -> Void) -> Double {
    withRealtimePriority {
        let t0 = MonotonicClock.now()
        body()
        return MonotonicClock.now() - t0
    }
}

/// Decodes a bundled pattern strictly.
func bundledPattern(_ name: String) throws -> AHAPPattern {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: kitHaptics + "/\(name).ahap")))
    return try AHAPPattern.decode(from: bytes, options: AHAPDecodeOptions(strict: true)).pattern
}

/// First index whose sample departs from exact zero.
func firstNonZero(_ x: [Float], from start: Int = 0) -> Int? {
    var i = max(0, start)
    while i < x.count {
        if x[i] != 0 { return i }
        i += 1
    }
    return nil
}
