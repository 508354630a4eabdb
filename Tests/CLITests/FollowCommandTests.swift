import Foundation
import Testing

@testable import HapticCLI

/// `follow`'s bad input, before any sound server is needed: one line naming what and where,
/// a non-zero exit, no ready line.
@Suite("follow: bad input")
struct FollowCommandTests {
    @Test("one line and a non-zero exit", arguments: [
        (["follow", "-C", "hs_no_such_capture"], "capture hs_no_such_capture: snd_pcm_open (capture) failed", Int32(1)),
        (["follow", "-C", "x", "--input-channels", "0"], "--input-channels 0: \"0\" is not a channel number 1...64", 64),
        (["follow", "-C", "x", "--input-channels", "1,,2"], "--input-channels 1,,2: \"\" is not a channel number", 64),
        (["follow", "-C", "x", "--gain", "nan"], "--gain nan: expected -60...40 dB", 64),
        (["follow", "-C", "x", "--gain", "1e308"], "expected -60...40 dB", 64),
        (["follow", "-C", "x", "--profile", "nosuch"], "follow: --profile nosuch: no such built-in profile", 1),
        (["follow", "-C", "x", "--mode", "spectral"], "'spectral' is invalid for '--mode <mode>'", 64),
        (["follow", "-C", "x", "--sensitivity", "nan"], "--sensitivity nan: expected 0...100 %", 64),
        (["follow", "-C", "x", "--sensitivity", "1e308"], "--sensitivity 1e+308: expected 0...100 %", 64),
        (["follow", "-C", "x", "--sensitivity", "-5"], "--sensitivity -5.0: expected 0...100 %", 64),
        (["follow", "-C", "x", "--gate", "nan"], "--gate nan: expected -120...0 dBFS", 64),
        (["follow", "-C", "x", "--gate", "-1e308"], "--gate -1e+308: expected -120...0 dBFS", 64),
        (["follow", "-C", "x", "--gate", "6"], "--gate 6.0: expected -120...0 dBFS", 64),
        // -0 is a value in range (no gate above 0 dBFS, no hits): the capture is what fails.
        (["follow", "-C", "hs_no_such_capture", "--sensitivity", "-0", "--gate", "-0"], "capture hs_no_such_capture: snd_pcm_open (capture) failed", 1),
        (["follow"], "Missing expected argument '-C <capture>'", 64),
    ])
    func badInput(arguments: [String], message: String, status: Int32) throws {
        let run = try LiveProcess(arguments)
        let exit = run.waitForExit(timeout: 60)
        #expect(exit == status, "\(arguments): exit \(String(describing: exit)): \(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        #expect(!run.stderr.contains("follow: ready"))
    }
}

/// `serve --follow`'s bad input: one line naming what and where, a non-zero exit, no ready line
/// (the output is ALSA's `null` PCM: no sound server needed).
@Suite("serve --follow: bad input")
struct ServeFollowCommandTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static let base = ["serve", "-D", "null", "--osc-port", "0", "--haptics", repo + "/Haptics", "--assets", repo + "/Assets"]

    @Test("one line and a non-zero exit", arguments: [
        (["--follow", "hs_no_such_capture"], "serve: capture hs_no_such_capture: snd_pcm_open (capture) failed", Int32(1)),
        (["--follow", "x", "--follow-gain", "nan"], "--follow-gain nan: expected -60...40 dB", 64),
        (["--follow", "x", "--follow-gain", "-1e308"], "expected -60...40 dB", 64),
        (["--follow", "x", "--follow-ducking", "3"], "expected -60...0 dB", 64),
        (["--follow", "x", "--follow-ducking", "inf"], "expected -60...0 dB", 64),
        (["--follow", "x", "--follow-mode", "loud"], "'loud' is invalid for '--follow-mode <mode>'", 64),
        (["--follow", "x", "--input-channels", "0"], "--input-channels 0: \"0\" is not a channel number 1...64", 64),
        (["--follow-gain", "-6"], "need --follow CAPTURE", 64),
        (["--input-channels", "4"], "need --follow CAPTURE", 64),
        (["--follow", "x", "--follow-sensitivity", "nan"], "--follow-sensitivity nan: expected 0...100 %", 64),
        (["--follow", "x", "--follow-sensitivity", "-0.5"], "expected 0...100 %", 64),
        (["--follow", "x", "--follow-gate", "1e308"], "--follow-gate 1e+308: expected -120...0 dBFS", 64),
        (["--follow", "x", "--follow-timing", "late"], "'late' is invalid for '--follow-timing <timing>'", 64),
        (["--follow-timing", "steady"], "need --follow CAPTURE", 64),
        (["--follow-sensitivity", "0"], "need --follow CAPTURE", 64),
    ])
    func badInput(arguments: [String], message: String, status: Int32) throws {
        let run = try LiveProcess(Self.base + arguments)
        let exit = run.waitForExit(timeout: 60)
        #expect(exit == status, "\(arguments): exit \(String(describing: exit)): \(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.count == 1 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
        #expect(!run.stderr.contains("serve: ready"))
    }
}

/// `serve --follow`'s analysis settings: what the follower is given.
@Suite("serve --follow: the analysis settings")
struct ServeFollowSettingsTests {
    @Test("--follow-sensitivity, --follow-gate and --follow-timing reach the follower; without them, follow's defaults")
    func settingsReachTheFollower() throws {
        let set = try #require(try ServeFollowOptions.parse([
            "--follow", "mon", "--follow-mode", "analysis", "--follow-sensitivity", "80", "--follow-gate", "-40", "--follow-timing", "steady",
        ]).request?.settings)
        #expect(set.mode == .analysis && set.timing == .steady)
        #expect(abs(set.sensitivity - 0.8) < 1e-12 && abs(set.gate - 0.01) < 1e-12, "sensitivity \(set.sensitivity), gate \(set.gate)")
        let plain = try #require(try ServeFollowOptions.parse(["--follow", "mon"]).request?.settings)
        #expect(plain.timing == .earliest && abs(plain.sensitivity - 0.5) < 1e-12 && abs(plain.gate - 0.001) < 1e-12,
                "the follow verb's defaults: \(plain)")
    }
}
