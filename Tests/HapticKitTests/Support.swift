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

/// Runs a rig session, and once more when the first one was not recorded whole.
///
/// `make test` runs the unit tests and a fuzzer beside the rig lane on two cores, and once in a
/// long while an engine xrun or a capture overrun leaves a gap that no sample comparison
/// survives. One such hiccup is printed and the session runs again; the caller still requires
/// the attempt it gets to be whole, so a session that breaks twice fails.
/// - Parameter gap: what broke the recording (engine xruns, capture overruns), nil when whole.
func rigSession<Run>(_ label: String, gap: (Run) -> String?, _ session: () throws -> Run) throws -> Run {
    let first = try session()
    guard let broken = gap(first) else { return first }
    print("\(label): not recorded whole (\(broken)); running the session once more")
    return try session()
}
