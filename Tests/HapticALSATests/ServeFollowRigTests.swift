import Foundation
import HapticALSATesting
import HapticEngine
import HapticTestSupport
import Testing

/// `hapticsynth serve --follow` through the PulseAudio rig: the follower is one more voice of
/// serve's engine. A click track played into the mono sink is followed from its monitor onto
/// sink B while a transient sent over OSC (with `hapticsynth send`, as a script would) plays on
/// the same engine; both are recorded from sink B's monitor. The click track, its matching and
/// the latency figures are FollowRigTests'.
@Suite("serve --follow: live sound and OSC patterns on one engine", .serialized, .enabled(if: Rig.isRunning, "needs scripts/rig.sh"))
struct ServeFollowRigTests {
    /// Sink B is stereo: serve, which carries sound too, puts the haptic on FR (channel 1).
    static let hapticChannel = 1

    /// `serve --follow` from the mono sink's monitor, its output on sink B; and its OSC port.
    static func startServe(period: Int = 256) throws -> (ToolProcess, Int) {
        let root = LiveCLI.repository.path
        let serve = try LiveCLI.run([
            "serve", "-D", Rig.outB, "--period", String(period), "--buffer-periods", "2", "--osc-port", "0",
            "--haptics", root + "/Haptics", "--assets", root + "/Assets", "--follow", Rig.inputMono,
            "--follow-mode", "lowpass",  // as these tests were written for (analysis is the default)
        ])
        try #require(serve.waitForReady("serve") && serve.isRunning, "serve: not ready: \(serve.stderr)")
        let port = serve.stdout.firstMatch(of: /listening on [0-9.]+:(\d+)/).flatMap { Int($0.1) }
        return (serve, try #require(port, "the port: \(serve.stdout)"))
    }

    /// `hapticsynth send ADDRESS ARGS --port PORT`; true when it exits 0.
    static func send(_ port: Int, _ arguments: [String]) throws -> Bool {
        let send = try LiveCLI.run(["send"] + arguments + ["--port", String(port)])
        return send.waitForExit(timeout: ToolProcess.generousSeconds) != nil && send.process.terminationStatus == 0
    }

    /// Ends serve with SIGTERM; its summary line.
    static func stop(_ serve: ToolProcess) -> String {
        serve.signal(SIGTERM)
        let ended = serve.waitForExit(timeout: ToolProcess.generousSeconds)
        #expect(ended != nil && serve.process.terminationStatus == 0, "serve exits 0 on SIGTERM: \(serve.stderr)")
        return serve.stdout.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test("every hit of a click track is followed, none invented, and a transient sent over OSC plays on the same output")
    func clickTrackAndPattern() throws {
        let (serve, port) = try Self.startServe()
        defer { serve.kill() }
        // The follower's controls answer over OSC (a unit gain, unmuted: what it follows with).
        #expect(try Self.send(port, ["/hapticsynth/follow/gain", "0"]) && Self.send(port, ["/hapticsynth/follow/mute", "0"])
                && Self.send(port, ["/hapticsynth/follow/mode", "lowpass"]))
        var sent = false
        let outcome = try FollowRigTests.playAndFollow(
            FollowRigTests.hits, label: "serve --follow", period: 256, buffer: "buffer 2 periods", hapticChannel: Self.hapticChannel
        ) { sent = (try? Self.send(port, ["/hapticsynth/transient", "0.8", "0.5"])) ?? false }
        let summary = Self.stop(serve)
        print("serve follow rig: \(summary)")
        #expect(sent, "the transient was sent")
        FollowRigTests.expectFollowed(outcome, "serve --follow")
        #expect(outcome.burstsAfterTrack == 1, "the OSC transient recorded after the track: \(outcome.burstsAfterTrack) bursts")
        #expect(summary.contains("followed") && summary.contains(Rig.inputMono), "the summary names what was followed: \(summary)")
    }

    @Test("a sound-server restart under serve --follow: the output and the capture both come back, reported and counted, and the hits after it are followed")
    func serverRestart() throws {
        let (serve, port) = try Self.startServe()
        defer { serve.kill() }
        try Rig.control("stop-server")
        let lost = serve.waitForLine(timeout: 30) { $0.contains("serve: \(Rig.outB) lost") } != nil
        try Rig.control("start-server")
        #expect(lost, "the output's loss is reported: \(serve.stderr)")
        let outputBack = serve.waitForLine(timeout: 30) { $0.contains("serve: \(Rig.outB) is back") } != nil
        let captureBack = serve.waitForLine(timeout: 30) { $0.contains("serve: capture \(Rig.inputMono) is back") } != nil
        try #require(outputBack && captureBack, "both come back: \(serve.stderr)")
        #expect(serve.stderr.contains("serve: capture \(Rig.inputMono) lost; reopening"), "the capture's loss is reported: \(serve.stderr)")
        var sent = false
        let outcome = try FollowRigTests.playAndFollow(
            Array(FollowRigTests.hits.prefix(8)), label: "serve --follow after a server restart", period: 256,
            buffer: "buffer 2 periods", hapticChannel: Self.hapticChannel
        ) { sent = (try? Self.send(port, ["/hapticsynth/transient", "0.8", "0.5"])) ?? false }
        let summary = Self.stop(serve)
        print("serve follow rig: \(summary)\nserve follow rig: \(serve.stderr)")
        #expect(summary.contains("reopened 1") || summary.contains("reopened 2"), "the capture reopened: \(summary)")
        #expect(sent)
        FollowRigTests.expectFollowed(outcome, "serve --follow after a server restart")
        #expect(outcome.burstsAfterTrack == 1, "an OSC transient after the restart recorded: \(outcome.burstsAfterTrack)")
    }
}
