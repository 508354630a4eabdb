import Foundation
import HapticALSATesting
import HapticEngine
import HapticKit
import HapticTestSupport
import Testing

@testable import HapticALSA

/// `hapticsynth follow` end to end through the PulseAudio rig, built as a desktop is: a click
/// track (kick-like hits over a steady tone above the actuator's band) is played into the mono
/// sink, `follow` captures that sink's monitor and plays on the stereo sink B, and both
/// monitors are recorded. Every hit must come out on B (none missed), nothing else may (none
/// invented: the tone and the silence between hits stay below the threshold; in the analysis
/// mode the tone drives a steady vibration of its own, its loudness, and the threshold stands
/// that much higher; `follow` counts one transient per hit), and each hit's
/// latency — from its onset on the first monitor to the haptic's half-envelope on the second —
/// is printed (the figure against the issue's bound belongs to the benchmark).
@Suite("follow: live sound to haptics", .serialized, .enabled(if: Rig.isRunning, "needs scripts/rig.sh"))
struct FollowRigTests {
    static let rate = 48_000
    /// Hit times (s from the track's start): irregular gaps of 250–450 ms, 24 hits.
    static let hits: [Double] = {
        var t = 0.6
        var times: [Double] = []
        var seed: UInt32 = 12345
        for _ in 0..<24 {
            times.append(t)
            seed = seed &* 1_103_515_245 &+ 12345
            t += 0.25 + Double(seed >> 16 % 1000) / 1000 * 0.2
        }
        return times
    }()

    /// The track: a 0.15-amplitude 800 Hz tone throughout (music without bass; faded in and
    /// out over 300 ms: its start is no hit), and at each hit a kick: 55 Hz at 0.6 decaying over
    /// about 40 ms, with a 3 ms 2 kHz click on top.
    /// (`tone` false: the kicks alone, for a latency undisturbed by the analysis mode's steady
    /// vibration, which beats with each transient and moves its envelope's peak.)
    static func track(_ hits: [Double], tone: Bool = true) -> [Float] {
        let length = Int((hits.last! + 0.8) * Double(rate))
        var x = [Float](repeating: 0, count: length)
        let fade = 0.3 * Double(rate)
        for i in 0..<length where tone {
            let edge = min(1, Double(min(i, length - i)) / fade)
            x[i] = Float(0.15 * edge * sin(2 * Double.pi * 800 * Double(i) / Double(rate)))
        }
        for hit in hits {
            let start = Int(hit * Double(rate))
            for k in 0..<Int(0.2 * Double(rate)) where start + k < length {
                let t = Double(k) / Double(rate)
                var v = 0.6 * exp(-t / 0.04) * sin(2 * Double.pi * 55 * t)
                if t < 0.003 { v += 0.3 * sin(2 * Double.pi * 2000 * t) }
                x[start + k] += Float(v)
            }
        }
        return x
    }

    /// Frames where `level` first rises above `threshold` after at least `quiet` frames below it.
    static func onsets(_ level: (Int) -> Float, frames: Int, threshold: Float, quiet: Int) -> [Int] {
        var result: [Int] = []
        var below = quiet
        for i in 0..<frames {
            if level(i) > threshold {
                if below >= quiet { result.append(i) }
                below = 0
            } else {
                below += 1
            }
        }
        return result
    }

    /// What the haptic sink made of a click track played into the mono sink while `follow` runs.
    struct Outcome {
        var heard: Int
        var bursts: Int
        var missed: [Int]
        var latencies: [Double]
        var overruns: Int
    }

    /// Records both monitors, plays the click track of `hits` into the mono sink, waits until a
    /// second past its end is recorded on both, and matches the haptic's bursts to the hits.
    static func playAndFollow(_ hits: [Double], tone: Bool = true, label: String, period: Int, buffer: String) throws -> Outcome {
        let seconds = hits.last! + 3
        let source = ALSACaptureDevice(name: Rig.inputMono, channels: 1, sampleRate: 48_000, periodFrames: 256,
                                       bufferFrames: 8192, seconds: seconds + 10)
        let haptic = ALSACaptureDevice(name: Rig.inputB, channels: 2, sampleRate: 48_000, periodFrames: 256,
                                       bufferFrames: 8192, seconds: seconds + 10)
        try source.start()
        try haptic.start()
        try #require(source.waitForFrames(1, timeout: 10) && haptic.waitForFrames(1, timeout: 10), "the monitors record")
        // The track, played into the mono sink period by period (the writes are paced by the server).
        // A loaded machine may stall the server for a while: the player (the test's instrument)
        // keeps 170 ms queued, writes at a real-time priority, waits up to 2 s for room and
        // rides out an underrun (what the first monitor records is what was played, so the hits
        // are found there, not assumed; an underrun inside a hit could split it in two). It is
        // opened at that priority too, so that the sound server plugin's I/O thread, which the
        // open starts and which carries the writes to the server, inherits it (at normal
        // priority a loaded run starved it: the server played gaps the player never reported,
        // and the first monitor heard 26 hits of 24).
        var options = ALSAOutputDevice.Options()
        options.waitTimeoutMilliseconds = 2000
        let player = ALSAOutputDevice(name: Rig.outMono, options: options)
        let track = Self.track(hits, tone: tone)
        var written = 0
        var underruns = 0
        try withRealtimePriority(60) {
            let format = try player.open(requested: DeviceFormat(channels: 1, sampleRate: 48_000, periodFrames: 1024, bufferFrames: 8192))
            while written < track.count {
                let n = min(format.periodFrames, track.count - written)
                let fault = track.withUnsafeBufferPointer { player.write($0.baseAddress! + written, frames: n) }
                written += fault == nil ? n : player.framesWrittenBeforeFault
                if fault == .xrun, underruns < 20, player.recover(from: .xrun) {
                    underruns += 1
                    continue
                }
                try #require(fault == nil, "writing the track: \(String(describing: fault))")
            }
        }
        if underruns > 0 { print("follow rig (\(label)): the track's player underran \(underruns) times (a loaded machine)") }
        player.drain()
        player.close()
        // Both recordings until a second past the track's end (follow's output lags it).
        let heardAt = source.framesRecorded, hapticAt = haptic.framesRecorded
        #expect(source.waitForFrames(heardAt + 48_000, timeout: 30) && haptic.waitForFrames(hapticAt + 48_000, timeout: 30))
        let a = source.stop(), b = haptic.stop()

        // The hits as heard on the first monitor: the tone stays below 0.2, a hit rises above it.
        let heard = Self.onsets({ abs(a.floatSamples[$0]) }, frames: a.frames, threshold: 0.3, quiet: 4800)
        try #require(heard.count == hits.count, "\(label): the source monitor heard \(heard.count) of \(hits.count) hits")
        // The haptic: channel 0 of sink B (follow puts it on both channels of a stereo sink).
        let drive = (0..<b.frames).map { b.floatSamples[$0 * b.channels] }
        let envelope = hilbertEnvelope(drive)
        let peak = envelope.max() ?? 0
        try #require(peak > 0.1, "\(label): follow played the hits: peak \(peak)")
        // Bursts of drive: above the steady level (the median: silence in the lowpass mode, the
        // tone's vibration in the analysis mode) by a fifth of the loudest's rise over it,
        // apart by at least 100 ms of less.
        let steady = envelope.sorted()[envelope.count / 2]
        let bursts = Self.onsets(
            { Float(envelope[$0]) }, frames: envelope.count, threshold: Float(steady + 0.2 * (peak - steady)), quiet: 4800)
        var outcome = Outcome(heard: heard.count, bursts: bursts.count, missed: [], latencies: [], overruns: a.overruns + b.overruns)
        for (k, onset) in heard.enumerated() {
            guard let t0 = a.monotonicNanos(ofFrame: onset) else { outcome.missed.append(k); continue }
            // The haptic's burst for this hit: the first to start within 200 ms after the onset.
            let match = bursts.first { frame in
                guard let t = b.monotonicNanos(ofFrame: frame) else { return false }
                return t >= t0 - 5_000_000 && t <= t0 + 200_000_000
            }
            guard let start = match else {
                // Where the nearest burst was, for the failure's message.
                let nearest = bursts.compactMap { b.monotonicNanos(ofFrame: $0) }.min { abs($0 - t0) < abs($1 - t0) }
                print("follow rig (\(label)): hit \(k) unmatched; the nearest burst \(nearest.map { String(format: "%.1f ms", Double($0 - t0) / 1e6) } ?? "none") from its onset")
                outcome.missed.append(k)
                continue
            }
            // Its half-envelope: half way from the level before it (the steady vibration, or
            // silence) to its peak.
            let windowStart = max(0, start - 2400), windowEnd = min(envelope.count, start + 9600)
            let before = envelope[max(0, windowStart - 2400)..<windowStart]
            let level = before.isEmpty ? 0 : before.reduce(0, +) / Double(before.count)
            let (_, top) = envelopeOnsets(Array(envelope[windowStart..<windowEnd]))
            let halfWay = level + 0.5 * (envelope[windowStart + top] - level)
            let half = (windowStart..<windowEnd).first { envelope[$0] >= halfWay }.map { $0 - windowStart } ?? top
            guard let t1 = b.monotonicNanos(ofFrame: windowStart + half) else { outcome.missed.append(k); continue }
            outcome.latencies.append(Double(t1 - t0) / 1e6)
        }
        // Bursts no hit claimed (an invented one), and where they lie from the nearest hit.
        let onsetTimes = heard.compactMap { a.monotonicNanos(ofFrame: $0) }
        for frame in bursts {
            guard let t = b.monotonicNanos(ofFrame: frame) else { continue }
            guard !onsetTimes.contains(where: { t >= $0 - 5_000_000 && t <= $0 + 200_000_000 }) else { continue }
            let nearest = onsetTimes.min { abs($0 - t) < abs($1 - t) }
            print("follow rig (\(label)): a burst of drive at frame \(frame) of \(b.frames), \(nearest.map { String(format: "%.1f ms", Double(t - $0) / 1e6) } ?? "-") from the nearest hit's onset, envelope \(String(format: "%.3f", envelope[frame])) (steady \(String(format: "%.3f", steady)), peak \(String(format: "%.3f", peak)))")
        }
        print("follow rig (\(label)): \(heard.count) hits, \(bursts.count) bursts of drive, latency onset → half-envelope per hit (ms): "
              + outcome.latencies.map { String(format: "%.1f", $0) }.joined(separator: " "))
        if !outcome.latencies.isEmpty {
            let sorted = outcome.latencies.sorted()
            print(String(format: "follow rig (%@): latency median %.1f ms, max %.1f ms (period %d = %.1f ms; output %@)",
                         label, sorted[sorted.count / 2], sorted.last!, period, Double(period) * 1000 / Double(rate), buffer))
        }
        return outcome
    }

    /// Checks that every hit was followed and none invented.
    static func expectFollowed(_ outcome: Outcome, _ label: String) {
        #expect(outcome.missed.isEmpty, "\(label): hits not followed: \(outcome.missed)")
        #expect(outcome.bursts == outcome.heard, "\(label): bursts of drive \(outcome.bursts) for \(outcome.heard) hits: none may be invented")
        #expect(outcome.overruns == 0, "\(label): whole recordings: \(outcome.overruns) overruns")
    }

    /// `follow` from the mono sink's monitor to sink B at `period` in `mode` (nil: the default,
    /// analysis), its output buffer its default.
    static func startFollow(period: Int, mode: String? = nil) throws -> ToolProcess {
        let follow = try LiveCLI.run(["follow", "-C", Rig.inputMono, "-D", Rig.outB, "--period", String(period)] + (mode.map { ["--mode", $0] } ?? []))
        try #require(follow.waitForReady("follow") && follow.isRunning, "follow: not ready: \(follow.stderr)")
        return follow
    }

    /// The output buffer `follow` says it runs with ("buffer N periods"), for the latency lines.
    static func bufferNote(_ follow: ToolProcess) -> String {
        guard let range = follow.stdout.range(of: #"buffer \d+ periods"#, options: .regularExpression) else { return "buffer ?" }
        return String(follow.stdout[range])
    }

    @Test("every hit of a click track is followed, none invented; latency per hit printed",
          arguments: [(256, "analysis", true), (128, "analysis", true), (256, "analysis", false), (128, "analysis", false),
                      (256, "lowpass", true), (128, "lowpass", true)])
    func clickTrack(period: Int, mode: String, tone: Bool) throws {
        let follow = try Self.startFollow(period: period, mode: mode)
        defer { follow.kill() }
        let label = "click track\(tone ? "" : " (kicks alone)"), \(mode), period \(period)"
        let outcome = try Self.playAndFollow(Self.hits, tone: tone, label: label, period: period, buffer: Self.bufferNote(follow))
        follow.signal(SIGTERM)
        let ended = follow.waitForExit(timeout: ToolProcess.generousSeconds)
        #expect(ended != nil && follow.process.terminationStatus == 0, "follow exits 0 on SIGTERM: \(follow.stderr)")
        #expect(follow.stdout.contains("stopped; followed"), "a summary: \(follow.stdout)")
        let summary = follow.stdout.split(separator: "\n").last.map(String.init) ?? ""
        print("follow rig: \(summary)")
        Self.expectFollowed(outcome, label)
        if mode == "analysis" {
            // One transient per hit, and none for the tone or the silences (the whole run).
            #expect(summary.contains("(transients \(outcome.heard),"), "\(label): \(summary)")
        }
    }

    @Test("a sound-server restart under follow: the output and the capture both come back, and the hits after it are followed")
    func serverRestart() throws {
        let follow = try Self.startFollow(period: 256)
        defer { follow.kill() }
        try Rig.control("stop-server")
        // The output's loss shows first (the render thread, which reads the capture, stops with it).
        let lost = follow.waitForLine(timeout: 30) { $0.contains("follow: \(Rig.outB) lost") } != nil
        try Rig.control("start-server")
        #expect(lost, "the output's loss is reported: \(follow.stderr)")
        let outputBack = follow.waitForLine(timeout: 30) { $0.contains("follow: \(Rig.outB) is back") } != nil
        let captureBack = follow.waitForLine(timeout: 30) { $0.contains("follow: capture \(Rig.inputMono) is back") } != nil
        try #require(outputBack && captureBack, "both come back: \(follow.stderr)")
        #expect(follow.stderr.contains("follow: capture \(Rig.inputMono) lost; reopening"), "the capture's loss is reported: \(follow.stderr)")
        let outcome = try Self.playAndFollow(
            Array(Self.hits.prefix(8)), label: "after a server restart", period: 256, buffer: Self.bufferNote(follow))
        follow.signal(SIGTERM)
        let ended = follow.waitForExit(timeout: ToolProcess.generousSeconds)
        #expect(ended != nil && follow.process.terminationStatus == 0, "follow exits 0 on SIGTERM: \(follow.stderr)")
        let summary = follow.stdout.split(separator: "\n").last.map(String.init) ?? ""
        print("follow rig: \(summary)\nfollow rig: \(follow.stderr)")
        #expect(summary.contains("reopened 1") || summary.contains("reopened 2"), "the capture reopened: \(summary)")
        Self.expectFollowed(outcome, "after a server restart")
    }
}
