import Glibc
import HapticALSA
import HapticEngine
import HapticRender

/// A click track for the live follower (`follow`, `serve --follow`), shared by its rig tests and
/// `follow-bench`: kicks at irregular times over a steady tone above an actuator's band (music
/// without bass), played into one sink while a follower captures that sink's monitor and plays
/// on a second sink. `measure` plays it, records both monitors, and says which hits came out:
/// found on the first monitor as they were played (not assumed), matched to the bursts of drive
/// on the second, with each hit's latency from its onset to the drive's first sample and to the
/// half of its Hilbert envelope (felt onset), all on CLOCK_MONOTONIC.
public struct ClickTrack: Sendable {
    public static let sampleRate = 48_000
    /// Hit times (s from the track's start).
    public var hits: [Double]
    /// Whether the steady tone sounds under the kicks (false: the kicks alone, for a latency
    /// undisturbed by the analysis mode's steady vibration, which beats with each transient and
    /// moves its envelope's peak).
    public var tone: Bool

    public init(hits: [Double], tone: Bool = true) {
        self.hits = hits
        self.tone = tone
    }

    /// `count` hits 250–450 ms apart (a fixed pseudo-random sequence), the first at 0.6 s.
    public static func irregular(count: Int, seed: UInt32 = 12345) -> ClickTrack {
        var t = 0.6
        var times: [Double] = []
        var state = seed
        for _ in 0..<max(0, count) {
            times.append(t)
            state = state &* 1_103_515_245 &+ 12345
            t += 0.25 + Double(state >> 16 % 1000) / 1000 * 0.2
        }
        return ClickTrack(hits: times)
    }

    /// The samples: a 0.15-amplitude 800 Hz tone throughout (faded in and out over 300 ms: its
    /// start is no hit), and at each hit a kick: 55 Hz at 0.6 decaying over about 40 ms, with a
    /// 3 ms 2 kHz click on top.
    public var samples: [Float] {
        let rate = Double(Self.sampleRate)
        let length = Int(((hits.last ?? 0) + 0.8) * rate)
        var x = [Float](repeating: 0, count: length)
        let fade = 0.3 * rate
        for i in 0..<length where tone {
            let edge = min(1, Double(min(i, length - i)) / fade)
            x[i] = Float(0.15 * edge * sin(2 * Double.pi * 800 * Double(i) / rate))
        }
        for hit in hits {
            let start = Int(hit * rate)
            for k in 0..<Int(0.2 * rate) where start + k < length {
                let t = Double(k) / rate
                var v = 0.6 * exp(-t / 0.04) * sin(2 * Double.pi * 55 * t)
                if t < 0.003 { v += 0.3 * sin(2 * Double.pi * 2000 * t) }
                x[start + k] += Float(v)
            }
        }
        return x
    }

    /// What the second sink made of the track.
    public struct Outcome: Sendable {
        /// Hits found on the first monitor, and bursts of drive on the second.
        public var heard: Int
        public var bursts: Int
        /// Hits (0-based, as heard) without a burst within 200 ms after them.
        public var missed: [Int]
        /// Per matched hit (ms): onset → the drive's half-envelope (felt), and → its first
        /// sample above a twentieth of the loudest.
        public var latencies: [Double]
        public var firstSampleLatencies: [Double]
        /// The felt latencies as each frame's first stamp alone dates it (the recordings' read
        /// lateness left in), to show what the earliest bound changes.
        public var firstStampLatencies: [Double] = []
        /// Overruns in the two recordings (each would void the timing).
        public var overruns: Int
        /// Underruns of the track's player (a loaded machine; the first monitor shows what played).
        public var playerUnderruns: Int
        /// The drive's loudest envelope value.
        public var peak: Double
        /// Where each hit no burst matched, and each burst no hit claimed (invented), lay: for a
        /// failure's message.
        public var notes: [String] = []
        /// Of `bursts`, those after the track (from `measure`'s `afterTrack`).
        public var burstsAfterTrack = 0
        /// Playback-stream underruns the rig's server logged while the track played and was
        /// recorded (``RigServerLog``; nil outside a rig): silence the server put in a stream,
        /// the track's or the follower's, where neither wrote any.
        public var serverUnderruns: Int?
    }

    /// A failure of the measurement itself (a recording or the player), not of the follower.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Records `sourceMonitor` (mono) and `hapticMonitor` (`hapticChannels`, channel
    /// `hapticChannel` read), plays the track into `player` (mono) at a real-time priority, waits
    /// until a second past its end is recorded on both, and matches the haptic's bursts to the
    /// hits. `afterTrack`, when given, is called then (to play something else on the haptic's
    /// output: `serve --follow`'s OSC patterns), and the recording goes on 1.5 s longer; the
    /// bursts in that time are counted apart, judged by the loudest of the track's part.
    public func measure(player: String, sourceMonitor: String, hapticMonitor: String, hapticChannels: Int = 2,
                        hapticChannel: Int = 0, afterTrack: (() -> Void)? = nil) throws(Failure) -> Outcome {
        let seconds = (hits.last ?? 0) + 3
        let source = ALSACaptureDevice(name: sourceMonitor, channels: 1, sampleRate: Self.sampleRate, periodFrames: 256,
                                       bufferFrames: 8192, seconds: seconds + 10)
        let haptic = ALSACaptureDevice(name: hapticMonitor, channels: hapticChannels, sampleRate: Self.sampleRate,
                                       periodFrames: 256, bufferFrames: 8192, seconds: seconds + 10)
        do {
            try source.start()
            try haptic.start()
        } catch {
            throw Failure(description: "recording: \(error)")
        }
        guard source.waitForFrames(1, timeout: 10), haptic.waitForFrames(1, timeout: 10) else {
            _ = source.stop(); _ = haptic.stop()
            throw Failure(description: "the monitors record nothing")
        }
        let serverUnderrunsBefore = RigServerLog.underrunCount()
        let underruns: Int
        do {
            underruns = try play(into: player)
        } catch {
            _ = source.stop(); _ = haptic.stop()
            throw error
        }
        // Both recordings until a second past the track's end (the follower's output lags it).
        let heardAt = source.framesRecorded, hapticAt = haptic.framesRecorded
        var complete = source.waitForFrames(heardAt + Self.sampleRate, timeout: 30)
            && haptic.waitForFrames(hapticAt + Self.sampleRate, timeout: 30)
        let afterFrom = haptic.framesRecorded
        if let afterTrack, complete {
            afterTrack()
            complete = haptic.waitForFrames(afterFrom + 3 * Self.sampleRate / 2, timeout: 30)
        }
        let serverUnderruns = RigServerLog.underrunCount().flatMap { after in serverUnderrunsBefore.map { max(0, after - $0) } }
        let a = source.stop(), b = haptic.stop()
        guard complete else { throw Failure(description: "the recordings stopped short of the track's end") }
        var outcome = match(source: a, haptic: b, channel: hapticChannel, afterFrom: afterTrack == nil ? b.frames : afterFrom,
                            playerUnderruns: underruns)
        outcome.serverUnderruns = serverUnderruns
        return outcome
    }

    /// Plays the track period by period; returns the player's underruns. A loaded machine may
    /// stall the server: the player keeps 170 ms queued, writes at a real-time priority (opened
    /// at it too, so the sound server plugin's I/O thread, which the open starts, inherits it),
    /// waits up to 2 s for room and rides out an underrun (an underrun inside a hit could split
    /// it in two on the first monitor, which is why hits are found there).
    private func play(into name: String) throws(Failure) -> Int {
        var options = ALSAOutputDevice.Options()
        options.waitTimeoutMilliseconds = 2000
        let player = ALSAOutputDevice(name: name, options: options)
        let track = samples
        var written = 0
        var underruns = 0
        let thread = pthread_self()
        var policy: Int32 = 0
        var saved = sched_param()
        pthread_getschedparam(thread, &policy, &saved)
        var raised = sched_param(sched_priority: 60)
        let changed = pthread_setschedparam(thread, SCHED_FIFO, &raised) == 0
        defer { if changed { pthread_setschedparam(thread, policy, &saved) } }
        let format: DeviceFormat
        do {
            format = try player.open(requested: DeviceFormat(channels: 1, sampleRate: Self.sampleRate, periodFrames: 1024, bufferFrames: 8192))
        } catch {
            throw Failure(description: "the track's player: \(error)")
        }
        defer { player.close() }
        while written < track.count {
            let n = min(format.periodFrames, track.count - written)
            let fault = track.withUnsafeBufferPointer { player.write($0.baseAddress! + written, frames: n) }
            written += fault == nil ? n : player.framesWrittenBeforeFault
            if fault == .xrun, underruns < 20, player.recover(from: .xrun) {
                underruns += 1
                continue
            }
            if let fault { throw Failure(description: "writing the track: \(fault)") }
        }
        player.drain()
        return underruns
    }

    /// Finds the hits on the first recording and the bursts on the second, and pairs them.
    private func match(source a: ALSARecording, haptic b: ALSARecording, channel: Int, afterFrom: Int, playerUnderruns: Int) -> Outcome {
        // A frame's time: the earliest bound the stamps of the second after it give. The first
        // stamp alone carries its reader's lateness (milliseconds; on a loaded machine, if more
        // than the follower's latency, a hit's onset would be dated after its haptic: a "miss").
        func time(_ recording: ALSARecording, _ frame: Int) -> Int64? {
            recording.monotonicNanos(ofFrame: frame, earliestWithin: Self.stampWindow)
        }
        // The hits as heard on the first monitor: the tone stays below 0.2, a hit rises above it.
        let heard = Self.onsets({ abs(a.floatSamples[$0]) }, frames: a.frames, threshold: 0.3, quiet: 4800)
        let drive = (0..<b.frames).map { b.floatSamples[$0 * b.channels + min(max(channel, 0), b.channels - 1)] }
        let envelope = hilbertEnvelope(drive)
        let peak = envelope[..<min(max(afterFrom, 0), envelope.count)].max() ?? 0
        var outcome = Outcome(heard: heard.count, bursts: 0, missed: [], latencies: [], firstSampleLatencies: [],
                              overruns: a.overruns + b.overruns, playerUnderruns: playerUnderruns, peak: peak)
        guard peak > 0.01 else {
            outcome.missed = Array(heard.indices)
            return outcome
        }
        // Bursts of drive: above the steady level (the median: silence in the lowpass mode, the
        // tone's vibration in the analysis mode) by a fifth of the loudest's rise over it, apart
        // by at least 100 ms of less.
        let steady = envelope.sorted()[envelope.count / 2]
        let bursts = Self.onsets(
            { Float(envelope[$0]) }, frames: envelope.count, threshold: Float(steady + 0.2 * (peak - steady)), quiet: 4800)
        outcome.bursts = bursts.count
        // Each burst's time, once (nil where no stamp covers it).
        let burstTimes = bursts.map { time(b, $0) }
        outcome.burstsAfterTrack = bursts.filter { $0 >= afterFrom }.count
        // Each hit's onset time, once.
        let heardTimes = heard.map { time(a, $0) }
        for (k, onset) in heard.enumerated() {
            guard let t0 = heardTimes[k] else { outcome.missed.append(k); continue }
            // The burst for this hit: the first to start within 200 ms after the onset.
            let match = bursts.indices.first { i in
                guard let t = burstTimes[i] else { return false }
                return t >= t0 - 5_000_000 && t <= t0 + 200_000_000
            }.map { bursts[$0] }
            guard let start = match else {
                let nearest = burstTimes.compactMap { $0 }.min { abs($0 - t0) < abs($1 - t0) }
                outcome.notes.append("hit \(k) unmatched; the nearest burst \(nearest.map { Self.ms($0 - t0) } ?? "none") from its onset")
                outcome.missed.append(k)
                continue
            }
            // Its half-envelope: half way from the level before it (the steady vibration, or
            // silence) to its peak; its first sample: a twentieth of the way.
            let windowStart = max(0, start - 2400), windowEnd = min(envelope.count, start + 9600)
            let before = envelope[max(0, windowStart - 2400)..<windowStart]
            let level = before.isEmpty ? 0 : before.reduce(0, +) / Double(before.count)
            let (_, top) = envelopeOnsets(Array(envelope[windowStart..<windowEnd]))
            let rise = envelope[windowStart + top] - level
            let half = (windowStart..<windowEnd).first { envelope[$0] >= level + 0.5 * rise } ?? windowStart + top
            // (The first sample on the drive itself: the Hilbert envelope, computed over the
            // whole recording, rises a little before the drive does.)
            let first = (windowStart..<windowEnd).first { Double(abs(drive[$0])) >= level + 0.05 * rise } ?? start
            guard let t1 = time(b, half) else { outcome.missed.append(k); continue }
            outcome.latencies.append(Double(t1 - t0) / 1e6)
            if let u0 = a.monotonicNanos(ofFrame: onset), let u1 = b.monotonicNanos(ofFrame: half) {
                outcome.firstStampLatencies.append(Double(u1 - u0) / 1e6)
            }
            if let t2 = time(b, first) { outcome.firstSampleLatencies.append(Double(t2 - t0) / 1e6) }
        }
        // How late the first stamps were where it mattered (corrected above), when it was much.
        let sourceLate = heard.compactMap { a.stampLateness(ofFrame: $0, window: Self.stampWindow) }.max() ?? 0
        let hapticLate = bursts.compactMap { b.stampLateness(ofFrame: $0, window: Self.stampWindow) }.max() ?? 0
        if max(sourceLate, hapticLate) > 2_000_000 {
            outcome.notes.append("the recordings' first stamps were late by up to \(Self.ms(sourceLate)) at the hits, \(Self.ms(hapticLate)) at the bursts (corrected)")
        }
        // Bursts no hit claimed (invented), and where they lie from the nearest hit.
        let onsetTimes = heardTimes.compactMap { $0 }
        for (frame, burstTime) in zip(bursts, burstTimes) where frame < afterFrom {
            guard let t = burstTime else { continue }
            guard !onsetTimes.contains(where: { t >= $0 - 5_000_000 && t <= $0 + 200_000_000 }) else { continue }
            let nearest = onsetTimes.min { abs($0 - t) < abs($1 - t) }
            outcome.notes.append("a burst of drive at frame \(frame) of \(b.frames), \(nearest.map { Self.ms(t - $0) } ?? "-") from the nearest hit's onset, envelope \(Self.rounded(envelope[frame])) (steady \(Self.rounded(steady)), peak \(Self.rounded(peak)))")
        }
        return outcome
    }

    /// The stamps a frame's time is bounded by: those of the second after it arrived.
    private static let stampWindow = 1.0

    private static func ms(_ nanos: Int64) -> String { "\((Double(nanos) / 1e5).rounded() / 10) ms" }
    private static func rounded(_ x: Double) -> String { "\((x * 1000).rounded() / 1000)" }

    /// Frames where `level` first rises above `threshold` after at least `quiet` frames below it.
    public static func onsets(_ level: (Int) -> Float, frames: Int, threshold: Float, quiet: Int) -> [Int] {
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
}
