import CAllocationCounter
import Foundation
import HapticEngine
import HapticRender
import Testing

@testable import HapticFollow

/// The follower on an engine in pull drive: captured sound in (a scripted input, arriving in
/// fragments that do not match the engine's periods), the engine's output out, through the
/// profile's protection chain.
@Suite("Follower on the engine")
struct FollowerTests {
    static let rate = 48_000
    static let period = 256

    /// An engine pulling `follower`, hapticMono, bass shaker.
    static func engine(_ follower: CaptureFollower, layout: ChannelLayout = .hapticMono) throws -> HapticEngine {
        var base = HapticEngine.Configuration(
            layout: layout, profile: .bassShaker, sampleRate: rate, periodFrames: period, bufferPeriods: 3)
        base.liveInput = follower
        let engine = HapticEngine(pulling: .pulled(base))
        try engine.start()
        return engine
    }

    /// Pulls `seconds` of output (one channel of `channels`), letting captured frames arrive in
    /// fragments of `fragment` frames as the output's time passes.
    /// `captureRate`: the capture's clock against the output's (1.0005: 500 ppm fast);
    /// `afterPeriod` is called after each period with the output frames pulled so far.
    static func follow(_ input: ScriptedInput, _ engine: HapticEngine, seconds: Double, fragment: Int, channels: Int = 1,
                       captureRate: Double = 1, afterPeriod: (Int) -> Void = { _ in }) -> [Float] {
        let total = Int(seconds * Double(rate))
        var out = [Float](repeating: 0, count: total)
        var block = [Float](repeating: 0, count: period * channels)
        var arrived = 0
        var done = 0
        while done < total {
            // What the capture has captured by the end of this period, on its own clock.
            let due = (Int(Double(done + period) * captureRate) / fragment) * fragment
            if due > arrived {
                input.arrive(due - arrived)
                arrived = due
            }
            _ = block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: period) }
            for i in 0..<min(period, total - done) { out[done + i] = block[i * channels] }
            done += period
            afterPeriod(done)
        }
        return out
    }

    static func rms(_ x: ArraySlice<Float>) -> Float {
        (x.reduce(0) { $0 + $1 * $1 } / Float(max(1, x.count))).squareRoot()
    }

    static func sine(_ hz: Double, _ amplitude: Float) -> @Sendable (Int, Int) -> Float {
        { frame, _ in amplitude * Float(sin(2 * Double.pi * hz * Double(frame) / Double(rate))) }
    }

    @Test("drift: a capture 500 ppm fast or slow is followed at its rate, the queue's fill flat, nothing trimmed or torn",
          arguments: [1.0005, 0.9995])
    func drift(captureRate: Double) throws {
        let input = ScriptedInput(channels: 1, sample: Self.sine(40, 0.3))
        let follower = CaptureFollower(input: input, settings: FollowSettings(mode: .lowpass), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        let engine = try Self.engine(follower)
        // Per second of output: the mean fill of the queue after each period (the follower's
        // share of the latency; the lowest swings by a capture fragment with the fragments'
        // phase), and the counts at 60 s.
        var meanFill: [Double] = []
        var fillSum = 0, fillCount = 0
        var settled: FollowStatistics? = nil
        // Fragments of a quarter period, as the follower asks a capture for.
        let fragment = CaptureFollower.capturePeriod(forOutputPeriod: Self.period)
        let out = Self.follow(input, engine, seconds: 120, fragment: fragment, captureRate: captureRate) { done in
            let stats = follower.statistics
            fillSum += stats.queuedFrames
            fillCount += 1
            if done % Self.rate < Self.period {
                meanFill.append(Double(fillSum) / Double(fillCount))
                fillSum = 0
                fillCount = 0
            }
            if settled == nil && done >= 60 * Self.rate { settled = stats }
        }
        engine.stop()
        let end = follower.statistics
        let expected = (captureRate - 1) * 1e6
        let flat = meanFill.suffix(40)
        print(String(format: "follower drift %+.0f ppm: corrected by %+.1f ppm; mean fill per second over the last 40 s %.1f…%.1f frames; %@",
                     expected, end.captureRateCorrectionPPM, flat.min() ?? -1, flat.max() ?? -1, "\(end)"))
        #expect(abs(end.captureRateCorrectionPPM - expected) < 50, "the servo found the rate: \(end.captureRateCorrectionPPM) ppm")
        // Uncorrected, 500 ppm is 24 frames a second: 480 between the two halves of the 40 s.
        // Corrected, the fill swings by a capture fragment with the fragments' phase against
        // the periods (the queue's own test measures the latency itself), but does not trend.
        let halves = (flat.prefix(20).reduce(0, +) / 20, flat.suffix(20).reduce(0, +) / 20)
        #expect(abs(halves.1 - halves.0) <= 24, "the latency neither grows nor shrinks: \(Array(flat))")
        let before = try #require(settled)
        #expect(end.underruns == before.underruns && end.trimmedFrames == before.trimmedFrames,
                "nothing torn or trimmed once settled: \(before) → \(end)")
        #expect(abs(Self.rms(out[(60 * Self.rate)...]) - 0.150) < 0.02)
    }

    @Test("lowpass: a 40 Hz tone in the band comes out at the profile's level; 1 kHz is filtered away")
    func band() throws {
        var levels: [Float] = []
        for hz in [40.0, 1000.0] {
            let input = ScriptedInput(channels: 2, sample: Self.sine(hz, 0.3))
            let follower = CaptureFollower(
                input: input, settings: FollowSettings(mode: .lowpass), sampleRate: Self.rate, periodFrames: Self.period)
            try follower.open()
            let engine = try Self.engine(follower)
            let out = Self.follow(input, engine, seconds: 2, fragment: 480)
            engine.stop()
            levels.append(Self.rms(out[48_000...]))
            let stats = follower.statistics
            #expect(stats.framesFollowed > 90_000, "\(stats)")
            #expect(stats.underruns == 0, "fragments of 480 against periods of 256: \(stats)")
        }
        // 0.3 peak → 0.212 RMS, bass shaker output gain -3 dB → 0.150.
        print("follower band: 40 Hz → RMS \(levels[0]), 1 kHz → RMS \(levels[1])")
        #expect(abs(levels[0] - 0.150) < 0.02, "40 Hz: \(levels[0])")
        #expect(levels[1] < 0.0015, "1 kHz is out of the bass shaker's band: \(levels[1])")
    }

    @Test("--input-channels: only the channels named are followed")
    func channels() throws {
        // Tone on the second channel only.
        let tone: @Sendable (Int, Int) -> Float = { frame, channel in
            channel == 1 ? 0.3 * Float(sin(2 * Double.pi * 40 * Double(frame) / 48_000)) : 0
        }
        var levels: [Float] = []
        for chosen in [[0], [1]] {
            let input = ScriptedInput(channels: 2, sample: tone)
            let follower = CaptureFollower(
                input: input, settings: FollowSettings(inputChannels: chosen), sampleRate: Self.rate, periodFrames: Self.period)
            try follower.open()
            let engine = try Self.engine(follower)
            levels.append(Self.rms(Self.follow(input, engine, seconds: 1, fragment: 256)[24_000...]))
            engine.stop()
        }
        #expect(levels[0] == 0, "channel 1 is silent: \(levels[0])")
        #expect(levels[1] > 0.1, "channel 2 carries the tone: \(levels[1])")
    }

    @Test("a channel the capture does not have is refused at open, naming it 1-based")
    func missingChannel() {
        let input = ScriptedInput(channels: 2) { _, _ in 0 }
        let follower = CaptureFollower(
            input: input, settings: FollowSettings(inputChannels: [3]), sampleRate: Self.rate, periodFrames: Self.period)
        #expect(throws: DeviceOpenError.self) { try follower.open() }
        do { try follower.open() } catch {
            #expect(error.message.contains("channel 4 cannot be followed"), "\(error)")
        }
    }

    @Test("an overrun is counted and recovered in place; a lost capture leaves silence and is reopened")
    func faults() throws {
        let input = ScriptedInput(channels: 1, sample: Self.sine(40, 0.3))
        let follower = CaptureFollower(input: input, settings: FollowSettings(), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        let engine = try Self.engine(follower)
        _ = Self.follow(input, engine, seconds: 0.5, fragment: 256)
        input.faults = [.xrun]
        _ = Self.follow(input, engine, seconds: 0.5, fragment: 256)
        #expect(follower.statistics.overruns == 1)
        #expect(!follower.isLost)
        input.faults = [.gone("server gone")]
        _ = Self.follow(input, engine, seconds: 0.2, fragment: 256)
        #expect(follower.isLost)
        #expect(follower.statistics.captureLosses == 1)
        let servedWhileLost = input.framesServed
        _ = Self.follow(input, engine, seconds: 0.2, fragment: 256)
        #expect(input.framesServed == servedWhileLost, "a lost capture is left alone")
        input.refuseOpen = true
        #expect(!follower.reopenIfLost())
        input.refuseOpen = false
        #expect(follower.reopenIfLost())
        let out = Self.follow(input, engine, seconds: 1, fragment: 256)
        #expect(Self.rms(out[24_000...]) > 0.1, "following again after the reopen")
        #expect(follower.statistics.captureReopens == 1)
        engine.stop()
    }

    @Test("a capture that gives nothing for longer than the stall bound counts as lost (a dead server's plugin may not say)")
    func stall() throws {
        let input = ScriptedInput(channels: 1, sample: Self.sine(40, 0.3))
        let follower = CaptureFollower(
            input: input, settings: FollowSettings(), sampleRate: Self.rate, periodFrames: Self.period, stallSeconds: 0.5)
        try follower.open()
        let engine = try Self.engine(follower)
        defer { engine.stop() }
        _ = Self.follow(input, engine, seconds: 0.5, fragment: 256)
        var block = [Float](repeating: 0, count: Self.period)
        // 0.4 s without a frame: a gap, not yet a loss.
        for _ in 0..<75 { _ = block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: Self.period) } }
        #expect(!follower.isLost)
        for _ in 0..<25 { _ = block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: Self.period) } }
        #expect(follower.isLost, "0.53 s without a captured frame")
        #expect(follower.statistics.captureLosses == 1)
        #expect(follower.reopenIfLost())
        let out = Self.follow(input, engine, seconds: 1, fragment: 256)
        #expect(Self.rms(out[24_000...]) > 0.1, "following again after the reopen")
    }

    /// Kicks every 0.3 s (55 Hz decaying, a 2 kHz click) over a steady 800 Hz tone at 0.15.
    static let clicks: @Sendable (Int, Int) -> Float = { frame, _ in
        let hit = frame % 14_400
        let t = Double(hit) / Double(rate)
        var v = 0.15 * sin(2 * Double.pi * 800 * Double(frame) / Double(rate))
        if hit < 9600 { v += 0.6 * exp(-t / 0.04) * sin(2 * Double.pi * 55 * t) }
        if hit < 144 { v += 0.3 * sin(2 * Double.pi * 2000 * t) }
        return Float(v)
    }

    @Test("analysis: clicks over a steady tone through the engine, fragments not matching the periods: one transient per click")
    func analysisClicks() throws {
        let input = ScriptedInput(channels: 2, sample: Self.clicks)
        let follower = CaptureFollower(input: input, settings: FollowSettings(), sampleRate: Self.rate, periodFrames: Self.period)
        try follower.open()
        let engine = try Self.engine(follower)
        defer { engine.stop() }
        // The tone starts with the stream, with the first kick (at frame 0): a hit.
        let out = Self.follow(input, engine, seconds: 6.1, fragment: 480)
        let stats = follower.statistics
        // The frames taken from the stream (followed, or dropped by the queue: a few at its
        // start); the clicks that start at least 20 ms before their end were decided.
        let analysed = stats.framesFollowed + stats.trimmedFrames
        let clicks = (0..<100).filter { $0 * 14_400 + 960 <= analysed }.count
        print("follower (analysis) on the engine: \(stats.transients) transients for \(clicks) clicks; \(stats)")
        #expect(stats.transients == clicks, "\(stats)")
        #expect(stats.underruns == 0, "\(stats)")
        #expect(Self.rms(out[48_000...]) > 0.1, "drive made")
        // Every period's capture read was timed, against the period the engine renders.
        let reads = try #require(stats.captureReads)
        #expect(reads.periods >= engine.renderStatistics.periods && reads.periods > 1000, "\(reads)")  // (the first pull also renders the pre-roll)
        #expect(reads.meanSeconds > 0 && reads.meanSeconds <= engine.renderStatistics.meanSeconds, "\(reads)")
        #expect(reads.periodSeconds == Double(Self.period) / Double(Self.rate))
    }

    /// FollowRigTests' click track (kicks over a steady 800 Hz tone faded in from 0.3 s, silence
    /// before it), `count` kicks from 1 s, followed on an engine at `period` for `seconds`. The
    /// capture's frames arrive as `due(k, nominal, arrived)` says for period k (nominal: what a
    /// steady capture would have delivered by its end, in 480-frame fragments). Returns the
    /// engine's output, the follower's statistics and the kicks' times.
    static func followClickTrack(kicks count: Int, period: Int, seconds: Int, timing: FollowTiming = .earliest,
                                 due: (_ k: Int, _ nominal: Int, _ arrived: Int) -> Int) throws
        -> (out: [Float], stats: FollowStatistics, hits: [Double])
    {
        let rate = Self.rate
        var signal = [Float](repeating: 0, count: (seconds + 1) * rate)
        // (Silence first: the queue's priming trims the capture's first backlog, and a cut into
        // the tone's fade-in is a rise from nothing, which may be a hit, as at any stream's start.)
        AnalysisVoiceTests.addTone(&signal, from: 0.3, to: Double(seconds + 1))
        let hits = AnalysisVoiceTests.hitTimes(first: 1, count: count)
        AnalysisVoiceTests.addKicks(&signal, at: hits)
        let track = signal
        let input = ScriptedInput(channels: 1) { frame, _ in frame < track.count ? track[frame] : 0 }
        let follower = CaptureFollower(input: input, settings: FollowSettings(timing: timing), sampleRate: rate, periodFrames: period)
        try follower.open()
        var base = HapticEngine.Configuration(layout: .hapticMono, profile: .bassShaker, sampleRate: rate, periodFrames: period, bufferPeriods: 3)
        base.liveInput = follower
        let engine = HapticEngine(pulling: .pulled(base))
        try engine.start()
        defer { engine.stop() }
        let total = seconds * rate
        var out = [Float](repeating: 0, count: total)
        var block = [Float](repeating: 0, count: period)
        var arrived = 0, done = 0, k = 0
        while done < total {
            let next = due(k, ((done + period) / 480) * 480, arrived)
            if next > arrived { input.arrive(next - arrived); arrived = next }
            _ = block.withUnsafeMutableBufferPointer { engine.render(into: $0.baseAddress!, frames: period) }
            for i in 0..<min(period, total - done) { out[done + i] = block[i] }
            done += period
            k += 1
        }
        return (out, follower.statistics, hits)
    }

    /// The click track delivered as a loaded sound server does: 10 ms stalls every 0.4 s and,
    /// now and then, 1024 frames at once, at period 128. The stalls empty the queue; what the
    /// capture did not deliver in time is bridged, so the tone's vibration has no hole (a hole's
    /// edges are a knock of their own: each was a burst of drive in the rig's recordings) and
    /// every kick is still one transient.
    @Test("analysis: the capture's stalls leave no hole in the steady vibration, and every kick is one transient",
          arguments: FollowTiming.allCases)
    func underrunsAreBridged(timing: FollowTiming) throws {
        let rate = Self.rate
        let (out, stats, hits) = try Self.followClickTrack(kicks: 30, period: 128, seconds: 12, timing: timing) { k, nominal, arrived in
            if k % 150 >= 146 { return arrived }  // a 10 ms stall
            return k % 97 == 3 ? nominal + 1024 : nominal  // a burst ahead
        }
        #expect(stats.underruns >= 10, "the stalls starve the queue: \(stats)")
        // The vibration's envelope away from the kicks (from 10 ms before one to 250 ms after)
        // stays near its steady level: no hole, no swell.
        let envelope = hilbertEnvelope(out)
        let calm = envelope[(rate * 65 / 100)..<(rate * 95 / 100)].sorted()  // after the fade-in, before the kicks
        let steady = calm[calm.count / 2]
        var strays: [Double] = []
        for i in stride(from: rate, to: out.count, by: 48) where envelope[i] < 0.6 * steady || envelope[i] > 1.35 * steady {
            let t = Double(i) / Double(rate)
            if !hits.contains(where: { t >= $0 - 0.01 && t <= $0 + 0.25 }) { strays.append(t) }
        }
        print("follower (analysis, \(timing)) under stalls: \(stats.underruns) underruns, \(stats.transients) transients for \(hits.count) kicks; steady envelope \(steady); strays \(strays.count)")
        #expect(steady > 0.1, "the tone drives a steady vibration: \(steady)")
        #expect(strays.isEmpty, "the envelope leaves 0.6–1.35 × its steady level away from the kicks at (s) \(strays.prefix(20))")
        // The stream was taken (followed, or dropped by the queue) well past the last kick.
        #expect(Double(stats.framesFollowed + stats.trimmedFrames) / Double(rate) > hits.last! + 0.2, "\(stats)")
        #expect(stats.transients == hits.count, "\(stats.transients) transients for \(hits.count) kicks: \(stats)")
    }

    /// A capture that hands over 2048 frames at once in its first periods (a sound server's
    /// start), while the track's tone is fading in: the queue trims the backlog and cuts the
    /// sound where the analysis has hardly any level yet. The cut is a click as loud as the
    /// sound; with only the level before the cut to compare (near 0), it was a weak transient of
    /// its own (in 4 of these 4 starts; a fresh clone's rig run counted 25 for 24 hits once).
    @Test("a backlog trimmed while the sound fades in makes no transient of the cut (the steady timing, which follows the queue)", arguments: 0..<4)
    func trimDuringFadeIn(firstBurst: Int) throws {
        let (_, stats, hits) = try Self.followClickTrack(kicks: 8, period: 256, seconds: 4, timing: .steady) { k, nominal, _ in
            k == firstBurst || k % 47 == 5 ? nominal + 2048 : nominal
        }
        print("follower (analysis), a backlog at period \(firstBurst): \(stats.transients) transients for \(hits.count) kicks; \(stats)")
        #expect(stats.trimmedFrames > 1000, "the backlog was trimmed: \(stats)")
        #expect(Double(stats.framesFollowed + stats.trimmedFrames) / Double(Self.rate) > hits.last! + 0.2, "\(stats)")
        #expect(stats.transients == hits.count, "\(stats.transients) transients for \(hits.count) kicks: \(stats)")
    }

    /// The earliest timing plays a hit in the first period rendered after it was decided; the
    /// steady one a fixed delay after it, through the jitter queue (a period and its reserve
    /// later). Kicks over the steady tone, arriving in 480-frame fragments (10 ms, a sound
    /// server's) at period 256: felt as the rig measures it, on the engine's output. Either way no
    /// kick is felt much later than the others: while a burst sounds, the continuous layer takes
    /// its frequency (at two frequencies the two beat, and a notch 5–10 ms into the burst made
    /// every tenth kick felt some 18 ms later than the median).
    @Test("earliest timing: every kick felt sooner than with the steady timing, by half a period or more in the median; one transient per kick and no late one either way")
    func earliestTimingIsSooner() throws {
        var felt: [FollowTiming: [Double]] = [:]
        for timing in FollowTiming.allCases {
            let (out, stats, hits) = try Self.followClickTrack(kicks: 24, period: 256, seconds: 10, timing: timing) { _, nominal, _ in nominal }
            #expect(stats.transients == hits.count, "\(timing): \(stats.transients) transients for \(hits.count) kicks")
            felt[timing] = AnalysisVoiceTests.feltDelays(out, onsets: hits.map { Int($0 * Double(Self.rate)) }).sorted()
        }
        let earliest = try #require(felt[.earliest]), steady = try #require(felt[.steady])
        let halfPeriod = 128.0 * 1000 / Double(Self.rate)
        print(String(format: "follower on the engine, 480-frame fragments, period 256: kick → half-envelope median %.2f ms (max %.2f) earliest, %.2f ms (max %.2f) steady",
                     AnalysisVoiceTests.median(earliest), earliest.last!, AnalysisVoiceTests.median(steady), steady.last!))
        #expect(AnalysisVoiceTests.median(earliest) <= AnalysisVoiceTests.median(steady) - halfPeriod, "earliest \(earliest) ms; steady \(steady) ms")
        #expect(earliest.last! <= steady.last!, "earliest \(earliest) ms; steady \(steady) ms")
        // (The spread: the arrivals' 10 ms fragments and the period; the notch added 18 ms.)
        for (timing, delays) in felt {
            #expect(delays.last! <= AnalysisVoiceTests.median(delays) + 8, "\(timing): a kick felt late: \(delays) ms")
        }
    }

    /// A burst starts on its carrier's crest, and the vibration under it comes into step with it
    /// through a notch: how soon a kick is felt no longer depends on where in its cycle the
    /// vibration was when the hit was decided. (Started in step with the vibration, from whatever
    /// phase it had, a burst from a zero crossing rose with its quarter-period envelope: kicks
    /// were felt 0–5 ms after the hit, p90 4.7 ms, in this very run.) And the drive has no step:
    /// the vibration's phase changes at the bottom of the notch.
    @Test("earliest timing, period 128, 64-frame fragments: every kick felt within 3 ms of the soonest (p90), and no step in the drive")
    func feltWhateverTheVibrationsPhase() throws {
        let (out, stats, hits) = try Self.followClickTrack(kicks: 40, period: 128, seconds: 16) { k, _, _ in ((k + 1) * 128 / 64) * 64 }
        #expect(stats.transients == hits.count, "\(stats.transients) transients for \(hits.count) kicks")
        let felt = AnalysisVoiceTests.feltDelays(out, onsets: hits.map { Int($0 * Double(Self.rate)) }).sorted()
        let p90 = felt[felt.count * 9 / 10]
        // The largest change from one sample to the next, against the drive's peak.
        var largestStep: Float = 0, peak: Float = 0
        for i in 1..<out.count {
            largestStep = max(largestStep, abs(out[i] - out[i - 1]))
            peak = max(peak, abs(out[i]))
        }
        print(String(format: "follower, earliest timing, period 128, 64-frame fragments: felt soonest %.2f ms, median %.2f ms, p90 %.2f ms, max %.2f ms; largest step %.4f of a peak %.3f",
                     felt[0], AnalysisVoiceTests.median(felt), p90, felt.last!, largestStep, peak))
        #expect(p90 - felt[0] <= 3, "felt (ms): \(felt)")
        // (The carriers' own slopes and a growing burst's slew: 0.02–0.04 of the peak. With the
        // vibration's phase changed without the notch, a step of 0.65 of the peak.)
        #expect(largestStep <= 0.06 * peak, "a step of \(largestStep) in a drive peaking at \(peak)")
    }

    /// With the earliest timing the analysis reads the capture as it arrives, not through the
    /// queue: a capture clock 500 ppm off the output's can build up no latency (half a minute of
    /// it is 15 ms). The kicks' felt latency at the end is that of the first ones, within the
    /// spread the 10 ms fragments give (the kicks fall on other phases of them as the clocks slide).
    @Test("earliest timing: a capture 500 ppm fast or slow builds up no latency over half a minute", arguments: [1.0005, 0.9995])
    func earliestTimingUnderDrift(captureRate: Double) throws {
        let period = 256, seconds = 32
        let (out, stats, hits) = try Self.followClickTrack(kicks: 85, period: period, seconds: seconds) { k, _, _ in
            (Int(Double((k + 1) * period) * captureRate) / 480) * 480
        }
        // Each kick's onset on the output's timeline (the capture's frame c is heard c / rate on).
        let onsets = hits.map { Int($0 * Double(Self.rate) / captureRate) }.filter { $0 + 9600 < out.count }
        let felt = AnalysisVoiceTests.feltDelays(out, onsets: onsets)
        let first = Array(felt.prefix(25)).sorted(), last = Array(felt.suffix(25)).sorted()
        print(String(format: "follower, earliest timing, capture at %+.0f ppm: felt median %.2f ms over the first 25 kicks, %.2f ms over the last 25 (%d transients for %d kicks)",
                     (captureRate - 1) * 1e6, AnalysisVoiceTests.median(first), AnalysisVoiceTests.median(last), stats.transients, hits.count))
        #expect(stats.transients == hits.count, "\(stats.transients) transients for \(hits.count) kicks")
        #expect(abs(AnalysisVoiceTests.median(last) - AnalysisVoiceTests.median(first)) <= 4, "first \(first) ms; last \(last) ms")
    }

    @Test("the follower's render allocates nothing (capture read, queue, analysis or filters, mix)",
          arguments: [(FollowMode.analysis, FollowTiming.earliest), (.analysis, .steady), (.lowpass, .earliest)])
    func allocationFree(mode: FollowMode, timing: FollowTiming) throws {
        let input = ScriptedInput(channels: 2, sample: Self.clicks)
        let follower = CaptureFollower(
            input: input, settings: FollowSettings(mode: mode, inputChannels: [0, 1], timing: timing), sampleRate: Self.rate,
            periodFrames: Self.period)
        try follower.open()
        follower.prepare(sampleRate: Self.rate, periodFrames: Self.period, actuators: [.bassShaker, .voiceCoil])
        let frames = Self.period
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: frames * 4)
        defer { storage.deallocate() }
        var bus = MixBus(haptic: storage, audioLeft: storage + 2 * frames, audioRight: storage + 3 * frames, frames: frames)
        bus.hapticBusCount = 2
        bus.hapticStride = frames
        storage.initialize(repeating: 0, count: frames * 4)
        follower.render(into: bus)  // first use outside the count
        let arrivals = [480, 0, 96, 256]
        let tally = allocation_tally_open()
        #expect(tally > 0)
        allocation_tally_track_current_thread(tally)
        for i in 0..<2000 {
            input.arrive(arrivals[i % 4])
            follower.render(into: bus)
        }
        allocation_tally_track_current_thread(0)
        #expect(allocation_tally_count(tally) == 0, "allocations while following: \(allocation_tally_count(tally))")
        // 416,000 frames arrived; what the queue trimmed (its start, the standing excess) is not followed.
        let stats = follower.statistics
        #expect(stats.framesFollowed + stats.trimmedFrames > 410_000 && stats.framesFollowed > 380_000, "\(stats)")
        if mode == .analysis { #expect(stats.transients >= 26, "the clicks played as transients: \(stats)") }
    }
}

/// The jitter queue alone.
@Suite("Capture queue")
struct CaptureQueueTests {
    @Test("primes, gives periods, counts an underrun and grows its reserve, trims a standing excess")
    func queue() {
        var queue = CaptureQueue(period: 256, window: 4096)
        defer { queue.deallocate() }
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 4096)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { input.deallocate(); out.deallocate() }
        for i in 0..<4096 { input[i] = Float(i + 1) }
        queue.append(input, 256)
        #expect(queue.take(into: out, 256) == 0, "not primed: a period and its reserve (64) first")
        queue.append(input + 256, 256)
        #expect(queue.take(into: out, 256) == 256)
        #expect(out[0] == 193 && out[255] == 448, "in order, the oldest 192 of 512 dropped when it primed at 320")
        #expect(queue.trimmedFrames == 192)
        #expect(queue.take(into: out, 256) == 64 && out[0] == 449 && out[63] == 512 && out[64] == 0, "the rest, then silence")
        #expect(queue.underruns == 1)
        #expect(queue.reserve == 128, "the reserve grew by a quarter period")
        // A standing excess: ten periods at once, then one per take; it is trimmed to the reserve.
        queue.append(input, 2560)
        for _ in 0..<40 {
            queue.append(input, 256)
            _ = queue.take(into: out, 256)
        }
        #expect(queue.trimmedFrames > 192 + 2560 - 128 - 256, "the standing excess beyond the reserve: \(queue.trimmedFrames)")
        #expect(queue.count <= queue.reserve + 256 + 128, "latency trimmed back: \(queue.count) queued")
    }

    @Test("drift: uncorrected, a fast capture is trimmed and a slow one underruns; corrected, neither, and the latency stays flat",
          arguments: [1.0005, 0.9995])
    func driftControl(captureRate: Double) {
        // Each captured frame carries its own index, so what comes out says which captured
        // frame is playing: the latency of output frame t is t − index / captureRate (output
        // frames), exactly, whatever the queue's fill looks like between arrivals.
        func run(correcting: Bool) -> (underruns: Int, trimmed: Int, ratio: Double, latency: [Double]) {
            let period = 256
            var queue = CaptureQueue(period: period, window: 12_000, correctsDrift: correcting)
            defer { queue.deallocate() }
            let fragment = period / 4
            let input = UnsafeMutablePointer<Float>.allocate(capacity: fragment)
            let out = UnsafeMutablePointer<Float>.allocate(capacity: period)
            defer { input.deallocate(); out.deallocate() }
            var arrived = 0
            var counted = (underruns: 0, trimmed: 0)
            var latencySum = 0.0, latencyCount = 0
            var latency: [Double] = []  // mean per second
            let periods = 120 * 48_000 / period
            for k in 0..<periods {
                let due = (Int(Double((k + 1) * period) * captureRate) / fragment) * fragment
                while arrived < due {
                    for i in 0..<fragment { input[i] = Float(arrived + i) }
                    queue.append(input, fragment)
                    arrived += fragment
                }
                if queue.take(into: out, period) == period {
                    latencySum += Double(k * period) - Double(out[0]) / captureRate
                    latencyCount += 1
                }
                if (k + 1) * period % 48_000 < period {
                    latency.append(latencySum / Double(max(1, latencyCount)))
                    latencySum = 0
                    latencyCount = 0
                }
                if k == periods / 4 { counted = (queue.underruns, queue.trimmedFrames) }
            }
            return (queue.underruns - counted.underruns, queue.trimmedFrames - counted.trimmed,
                    1 + queue.learntRateDifference, latency)
        }
        let plain = run(correcting: false), corrected = run(correcting: true)
        let settled = corrected.latency.suffix(90)
        print(String(format: "queue drift %+.0f ppm: ratio learnt %+.1f ppm; latency per second over the last 90 s %.1f…%.1f frames (uncorrected %.1f…%.1f)",
                     (captureRate - 1) * 1e6, (corrected.ratio - 1) * 1e6, settled.min() ?? -1, settled.max() ?? -1,
                     plain.latency.suffix(90).min() ?? -1, plain.latency.suffix(90).max() ?? -1))
        #expect(plain.underruns + plain.trimmed > 0, "uncorrected, the drift shows in the last 90 s: \(plain.underruns), \(plain.trimmed)")
        #expect(corrected.underruns == 0 && corrected.trimmed == 0, "corrected: \(corrected.underruns), \(corrected.trimmed)")
        #expect(abs(corrected.ratio - captureRate) < 25e-6, "the ratio is the capture's rate: \(corrected.ratio)")
        // The issue's bound: the drift corrected to within ±1 ms (48 frames) over the whole run.
        #expect((settled.max() ?? .infinity) - (settled.min() ?? 0) <= 48, "the latency stays flat: \(Array(settled))")
    }

    @Test("drift correction on one clock: jittered arrivals and a backlog do not teach it a rate")
    func driftServoIgnoresJitterAndBacklogs() {
        let period = 256, fragment = 64
        var queue = CaptureQueue(period: period, window: 12_000, correctsDrift: true)
        defer { queue.deallocate() }
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 48_000)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: period)
        defer { input.deallocate(); out.deallocate() }
        input.initialize(repeating: 0.5, count: 48_000)
        var arrived = 0
        var seed: UInt32 = 7
        var learnt: [Double] = []  // ppm, once a second
        let periods = 60 * 48_000 / period
        for k in 0..<periods {
            // A sound server's fragments come up to two fragments late at random; at 20 s a
            // backlog of 200 frames comes at once and stays (less than the trims take: the
            // servo slews it away, which must not teach it a rate).
            seed = seed &* 1_103_515_245 &+ 12345
            let late = Int(seed >> 16) % 3 * fragment
            let due = max(0, (((k + 1) * period - late) / fragment) * fragment) + (k >= 3750 ? 200 : 0)
            if arrived < due {
                queue.append(input, due - arrived)
                queue.noteArrival(fragment)
                arrived = due
            }
            _ = queue.take(into: out, period)
            if (k + 1) * period % 48_000 < period { learnt.append(queue.learntRateDifference * 1e6) }
        }
        let worst = learnt.map(abs).max() ?? .infinity
        print(String(format: "queue on one clock, jittered, a 200-frame backlog at 20 s: rate learnt at most %.1f ppm (per second: %@); underruns %d, trimmed %d",
                     worst, learnt.map { String(format: "%.0f", $0) }.joined(separator: " "), queue.underruns, queue.trimmedFrames))
        #expect(worst < 30, "no rate learnt from jitter or the backlog: \(learnt) ppm")
    }

    @Test("the reserve an underrun grew shrinks back after a calm spell, and the latency with it")
    func reserveShrinksWhenCalm() {
        let period = 256, fragment = 64
        var queue = CaptureQueue(period: period, window: 12_000, correctsDrift: true)
        defer { queue.deallocate() }
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 48_000)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: period)
        defer { input.deallocate(); out.deallocate() }
        input.initialize(repeating: 0.5, count: 48_000)
        let first = queue.reserve
        var arrived = 0
        var grown = 0
        var fillAfterStalls = 0, fillAtEnd = 0
        let periods = 150 * 48_000 / period
        for k in 0..<periods {
            // Three stalls of 20 ms in the first 10 s (a loaded spell), then 140 s of calm.
            let stalled = k % 600 < 4 && k < 1875 && k > 100
            let due = (((k + 1) * period) / fragment) * fragment
            if !stalled && arrived < due {
                queue.append(input, due - arrived)
                queue.noteArrival(due - arrived)
                arrived = due
            }
            _ = queue.take(into: out, period)
            if k == 2000 { grown = queue.reserve; fillAfterStalls = queue.count }
            fillAtEnd = queue.count
        }
        print("queue reserve: \(first) → \(grown) after \(queue.underruns) underruns → \(queue.reserve) after the calm; fill \(fillAfterStalls) → \(fillAtEnd)")
        #expect(queue.underruns >= 2 && grown > first, "the stalls grew the reserve: \(grown)")
        #expect(queue.reserve == first, "back to its first size: \(queue.reserve)")
        #expect(fillAtEnd < fillAfterStalls - 64, "the latency came down with it: \(fillAfterStalls) → \(fillAtEnd)")
    }

    @Test("a burst larger than its room pushes the oldest frames out, not the newest")
    func overflow() {
        var queue = CaptureQueue(period: 256, capacityPeriods: 4, window: 4096)
        defer { queue.deallocate() }
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 2048)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { input.deallocate(); out.deallocate() }
        for i in 0..<2048 { input[i] = Float(i + 1) }
        queue.append(input, 600)
        queue.append(input + 600, 600)  // 1200 into 1024
        #expect(queue.count == 1024 && queue.overflowFrames == 176)
        queue.append(input, 2048)  // more than the whole queue
        #expect(queue.count == 1024 && queue.overflowFrames == 176 + 1024 + 1024)
        // Primes (dropping what lies beyond a period and its reserve) and gives the newest.
        #expect(queue.take(into: out, 256) == 256)
        #expect(out[255] == 2048 - 64, "the newest frames, the reserve's 64 kept after them: \(out[255])")
    }
}
