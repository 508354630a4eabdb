import HapticTestSupport
import Foundation
import HapticEngine
import HapticALSATesting

@testable import HapticALSA

/// The running rig (scripts/rig.sh), if the tests were started inside one.
enum Rig {
    static let env = ProcessInfo.processInfo.environment
    static let directory = env["HAPTICSYNTH_RIG_DIR"]
    static var isRunning: Bool {
        let running = directory != nil
        if !running { announceSkip() }
        return running
    }
    static let out = env["HAPTICSYNTH_RIG_OUT"] ?? "hs_out"
    static let input = env["HAPTICSYNTH_RIG_IN"] ?? "hs_in"
    static let outB = env["HAPTICSYNTH_RIG_OUT_B"] ?? "hs_out_b"
    static let inputB = env["HAPTICSYNTH_RIG_IN_B"] ?? "hs_in_b"
    static let outMono = env["HAPTICSYNTH_RIG_OUT_MONO"] ?? "hs_out_mono"
    static let inputMono = env["HAPTICSYNTH_RIG_IN_MONO"] ?? "hs_in_mono"
    static let out4ch = env["HAPTICSYNTH_RIG_OUT_4CH"] ?? "hs_out_4ch"
    static let input4ch = env["HAPTICSYNTH_RIG_IN_4CH"] ?? "hs_in_4ch"
    static let badSink = env["HAPTICSYNTH_RIG_BAD_SINK"] ?? "hs_bad_sink"
    static let stereoOnly = env["HAPTICSYNTH_RIG_STEREO_ONLY"] ?? "hs_stereo_only"
    static let control = env["HAPTICSYNTH_RIG_CTL"] ?? "scripts/rig.sh"

    private static let once: Void = {
        print("skipped: no rig (HAPTICSYNTH_RIG_DIR unset): run `scripts/rig.sh swift test` for the ALSA integration tests")
    }()
    static func announceSkip() { _ = once }

    /// Runs `rig.sh <command>` (stop-server / start-server); returns its exit status.
    @discardableResult
    static func control(_ command: String) throws -> Int32 { try runRigControl(control, command) }
}

/// Seconds on CLOCK_MONOTONIC.
func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

/// The test ramp: frame k carries (k mod 32767) + 1 on channel 0, its negation on channel 1,
/// and fixed distinct offsets on further channels, as S16 values; written as float value / 32768.
func rampValue(frame k: Int64, channel c: Int) -> Int16 {
    let base = Int16(k % 32767) + 1
    switch c {
    case 0: return base
    case 1: return -base
    default: return Int16((Int(base) / 2 + 1000 * c) % 32767)
    }
}

/// Fills `frames` interleaved float frames of the ramp starting at `start`.
func fillRamp(_ buffer: UnsafeMutablePointer<Float>, frames: Int, channels: Int, start: Int64) {
    for i in 0 ..< frames {
        for c in 0 ..< channels {
            buffer[i * channels + c] = Float(rampValue(frame: start + Int64(i), channel: c)) / 32768
        }
    }
}

/// Checks that `recording` channel `c` holds the ramp from its first non-zero frame on.
/// Returns (signal frames, mismatches, gaps) where gaps are runs of silence inside the signal.
func analyseRamp(_ rec: ALSARecording, channels: Int, sourceChannels: Int) -> (frames: Int, mismatches: Int, gaps: [Int]) {
    let s = rec.int16Samples
    let n = rec.frames
    guard let first = (0 ..< n).first(where: { s[$0 * rec.channels] != 0 }) else { return (0, 0, []) }
    let last = (0 ..< n).last(where: { s[$0 * rec.channels] != 0 })!
    var k = Int64(s[first * rec.channels]) - 1
    var mismatches = 0
    var gaps: [Int] = []
    var i = first
    var signal = 0
    while i <= last {
        if s[i * rec.channels] == 0 {
            var j = i
            while j <= last && s[j * rec.channels] == 0 { j += 1 }
            gaps.append(j - i)
            i = j
            // After a gap the ramp resumes where the writer was: re-synchronise on its value.
            k = Int64(s[i * rec.channels]) - 1 + Int64((Int(k) / 32767) * 32767)
            continue
        }
        for c in 0 ..< min(channels, rec.channels) {
            let expected: Int16 = c < sourceChannels ? rampValue(frame: k, channel: c) : 0
            if s[i * rec.channels + c] != expected { mismatches += 1 }
        }
        k += 1
        i += 1
        signal += 1
    }
    return (signal, mismatches, gaps)
}

/// Writes `seconds` of the ramp to an open device in periods; stops at the first fault.
func playRamp(
    _ device: ALSAOutputDevice, format: DeviceFormat, seconds: Double, start: inout Int64,
    onPeriod: ((ALSAOutputDevice) -> Void)? = nil
) -> DeviceFault? {
    let period = format.periodFrames
    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: period * format.channels)
    defer { buffer.deallocate() }
    let total = Int64(seconds * Double(format.sampleRate))
    var written: Int64 = 0
    while written < total {
        let n = Int(min(Int64(period), total - written))
        fillRamp(buffer, frames: n, channels: format.channels, start: start)
        if let fault = device.write(buffer, frames: n) { return fault }
        start += Int64(n)
        written += Int64(n)
        onPeriod?(device)
    }
    return nil
}
