import Foundation
import HapticAnalysis
import HapticRender
import Testing

@testable import HapticFollow

/// The analysis mode's processor alone: captured samples in, blocks as the engine's, the drive it
/// adds to a haptic bus out (before the protection chain, which every mode shares).
@Suite("Follower (analysis): the streaming analysis made into drive")
struct AnalysisVoiceTests {
    static let rate = 48_000

    /// Kick-like hits (55 Hz at 0.6 decaying over about 40 ms, a 3 ms 2 kHz click on top, as
    /// FollowRigTests' track) at irregular gaps of 250–450 ms from `first` s, `count` of them.
    static func hitTimes(first: Double, count: Int) -> [Double] {
        var t = first
        var times: [Double] = []
        var seed: UInt32 = 4242
        for _ in 0..<count {
            times.append(t)
            seed = seed &* 1_103_515_245 &+ 12345
            t += 0.25 + Double((seed >> 16) % 1000) / 1000 * 0.2
        }
        return times
    }

    static func addKicks(_ x: inout [Float], at times: [Double]) {
        for hit in times {
            let start = Int(hit * Double(rate))
            for k in 0..<Int(0.2 * Double(rate)) where start + k < x.count {
                let t = Double(k) / Double(rate)
                var v = 0.6 * exp(-t / 0.04) * sin(2 * Double.pi * 55 * t)
                if t < 0.003 { v += 0.3 * sin(2 * Double.pi * 2000 * t) }
                x[start + k] += Float(v)
            }
        }
    }

    /// A steady 800 Hz tone at 0.15 (music without bass) from `from` to `to` s, faded in and
    /// out over 300 ms (no onset of its own).
    static func addTone(_ x: inout [Float], from: Double, to: Double) {
        let a = Int(from * Double(rate)), b = min(x.count, Int(to * Double(rate)))
        let fade = 0.3 * Double(rate)
        for i in a..<b {
            let edge = min(Double(i - a), Double(b - i)) / fade
            x[i] += Float(0.15 * min(1, edge) * sin(2 * Double.pi * 800 * Double(i) / Double(rate)))
        }
    }

    /// The drive of `count` samples made block by block: `render(bus, done, n)` adds block
    /// `done ..< done + n` (sizes taken in turn from `blocks`) into one haptic bus, at `done`.
    static func drive(count: Int, blocks: [Int], _ render: (_ bus: MixBus, _ done: Int, _ n: Int) -> Void) -> [Float] {
        var drive = [Float](repeating: 0, count: count)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4)
        defer { scratch.deallocate() }
        drive.withUnsafeMutableBufferPointer { out in
            var done = 0, b = 0
            while done < count {
                let n = min(blocks[b % blocks.count], count - done)
                b += 1
                var bus = MixBus(haptic: out.baseAddress!, audioLeft: scratch, audioRight: scratch, frames: n)
                bus.hapticBusCount = 1
                render(bus, done, n)
                done += n
            }
        }
        return drive
    }

    /// Runs `voice` over `input` in blocks (sizes taken in turn from `blocks`); returns the
    /// drive and the samples each transient started on.
    static func run(_ voice: AnalysisVoice, _ input: [Float], blocks: [Int] = [256]) -> (drive: [Float], starts: [Int64]) {
        var starts: [Int64] = []
        let drive = input.withUnsafeBufferPointer { source in
            Self.drive(count: input.count, blocks: blocks) { bus, done, n in
                voice.render(source.baseAddress! + done, count: n, into: bus, at: done)
                for hit in voice.analyzer.hits { starts.append(hit.decidedAt) }
            }
        }
        return (drive, starts)
    }

    /// Runs `voice` with the earliest placement: the input arrives in lumps (sizes taken in turn
    /// from `arrivals`) before each block of `block` frames, as a sound server hands a capture
    /// over; returns the drive (one sample per block sample, as the engine plays it).
    static func runEarliest(_ voice: AnalysisVoice, _ input: [Float], block: Int = 256, arrivals: [Int]) -> [Float] {
        var arrived = 0, a = 0
        return input.withUnsafeBufferPointer { source in
            Self.drive(count: input.count, blocks: [block]) { bus, done, n in
                let lump = min(arrivals[a % arrivals.count], input.count - arrived)
                a += 1
                if lump > 0 { voice.analyse(source.baseAddress! + arrived, count: lump) }
                arrived += lump
                voice.renderEarliest(count: n, into: bus, at: done)
            }
        }
    }

    static func voice(_ decision: HitDecision = .onRise, maxBlock: Int = 256, profile: ActuatorProfile = .bassShaker,
                      staggered: Bool = true) throws -> AnalysisVoice {
        var analysis = FollowSettings().analysisSettings(sampleRate: Double(rate))
        analysis.hitDecision = decision
        return try AnalysisVoice(analysis: analysis, maxBlock: maxBlock, actuators: [profile], staggered: staggered)
    }

    static func median(_ x: [Double]) -> Double { x.sorted()[x.count / 2] }

    /// Felt as the rig measures it, per onset (ms): from the onset to half way from the level
    /// before it (100–50 ms before) to the peak of the drive's Hilbert envelope in the 200 ms after.
    static func feltDelays(_ drive: [Float], onsets: [Int]) -> [Double] {
        let envelope = hilbertEnvelope(drive)
        return onsets.map { onset in
            let before = envelope[(onset - 4800)..<(onset - 2400)]
            let level = before.reduce(0, +) / Double(before.count)
            let window = onset..<min(envelope.count, onset + 9600)
            let top = window.max { envelope[$0] < envelope[$1] }!
            let half = window.first { envelope[$0] >= level + 0.5 * (envelope[top] - level) }!
            return Double(half - onset) * 1000 / Double(rate)
        }
    }

    @Test("a click track over a steady tone: one transient per click, near it; none in the tone or the silence")
    func clickTrack() throws {
        // 0–1 s silence, the tone from 1 s to 9 s, the clicks from 2 s to about 7.5 s, silence after 9 s.
        var x = [Float](repeating: 0, count: 10 * Self.rate)
        Self.addTone(&x, from: 1, to: 9)
        let times = Self.hitTimes(first: 2, count: 16)
        Self.addKicks(&x, at: times)
        let voice = try Self.voice()
        let (drive, starts) = Self.run(voice, x)
        let onsets = times.map { Int64($0 * Double(Self.rate)) }
        var delays: [Double] = []
        for onset in onsets {
            let near = starts.filter { $0 >= onset && $0 <= onset + 960 }  // within 20 ms after it
            #expect(near.count == 1, "click at \(onset): transients at \(near)")
            if let s = near.first { delays.append(Double(s - onset) * 1000 / Double(Self.rate)) }
        }
        #expect(starts.count == onsets.count, "transients \(starts) for \(onsets.count) clicks: none invented")
        #expect(voice.transientsStarted == onsets.count)
        print("analysis voice: \(starts.count) transients for \(onsets.count) clicks; onset → transient start (ms): "
              + delays.map { String(format: "%.2f", $0) }.joined(separator: " "))
        // The tone alone drives a steady vibration (its loudness), the silences nothing.
        let second = Self.rate
        #expect(drive[0..<second].allSatisfy { $0 == 0 }, "silence drives nothing")
        #expect(drive[(9 * second + second / 4)...].allSatisfy { abs($0) < 1e-6 }, "silence after the tone drives nothing")
        let toneAlone = drive[(1 * second + second / 2)..<(2 * second - 2400)]
        let toneLevel = toneAlone.map { abs($0) }.max() ?? 0
        #expect(toneLevel > 0.2 && toneLevel < 0.5, "the tone (0.15: intensity 0.39) drives a steady layer: peak \(toneLevel)")
    }

    @Test("latency: onset → transient start and → the drive's half-envelope, decided on the rise vs after the peak; lowpass for comparison")
    func latency() throws {
        var x = [Float](repeating: 0, count: 8 * Self.rate)
        let times = Self.hitTimes(first: 0.5, count: 20)
        Self.addKicks(&x, at: times)
        let onsets = times.map { Int($0 * Double(Self.rate)) }

        func halfEnvelopeDelays(_ drive: [Float]) -> [Double] {
            onsets.map { onset in
                let window = Array(drive[onset..<min(drive.count, onset + 9600)])
                let (half, _) = envelopeOnsets(hilbertEnvelope(window))
                return Double(half) * 1000 / Double(Self.rate)
            }
        }
        var medians: [String: (start: Double, half: Double)] = [:]
        for decision in [HitDecision.onRise, .afterPeak] {
            let (drive, starts) = Self.run(try Self.voice(decision), x)
            try #require(starts.count == onsets.count, "\(decision): \(starts.count) transients for \(onsets.count) kicks")
            let startDelays = zip(starts, onsets).map { Double(Int($0) - $1) * 1000 / Double(Self.rate) }
            let half = halfEnvelopeDelays(drive)
            medians[decision.rawValue] = (Self.median(startDelays), Self.median(half))
            // The burst's amplitude grows with the kick's peak: no hit is felt late because
            // its transient started small and the continuous layer's swell outgrew it.
            #expect(half.max()! < 8, "\(decision): onset → half-envelope per kick \(half)")
            print(String(
                format: "analysis voice (%@): onset → transient start median %.2f ms (max %.2f), → half-envelope median %.2f ms (max %.2f)",
                decision.rawValue, Self.median(startDelays), startDelays.max()!, Self.median(half), half.max()!))
        }
        // The lowpass mode's crossover on the same kicks (its drive's own shape).
        var filter = CrossoverFilter(profile: .bassShaker, sampleRate: Double(Self.rate))
        var low = x
        low.withUnsafeMutableBufferPointer { filter.process($0.baseAddress!, $0.count) }
        let lowHalf = halfEnvelopeDelays(low)
        print(String(format: "lowpass crossover: onset → half-envelope median %.2f ms (max %.2f)", Self.median(lowHalf), lowHalf.max()!))
        let rise = try #require(medians["onRise"]), peak = try #require(medians["afterPeak"])
        #expect(rise.start < peak.start, "deciding on the rise is earlier: \(rise.start) vs \(peak.start) ms")
        // A hop is 2.7 ms: the hit is decided at the end of the first hop whose window holds
        // the kick's rise, or the next.
        #expect(rise.start <= 5.4, "onset → transient start on the rise: \(rise.start) ms")
        #expect(rise.half < Self.median(lowHalf), "analysis felt sooner than the crossover: \(rise.half) vs \(Self.median(lowHalf)) ms")
    }

    /// Over a steady vibration (the tone's), the vibration comes into step with a hit's burst
    /// half a millisecond in: the two add up as the burst rises, so the hit is felt as soon as on
    /// silence. (A burst whose phase was left to chance beat against the vibration from its first
    /// cycle: a quarter of the kicks were felt 10–12 ms late, the median 4.8 ms.) Felt as the rig
    /// measures it: half way from the level before the hit to the peak of the Hilbert envelope.
    @Test("over a steady vibration a hit is felt as soon as on silence: the vibration comes into step with its burst")
    func burstInStepWithTheVibration() throws {
        let times = Self.hitTimes(first: 2, count: 24)
        let onsets = times.map { Int($0 * Double(Self.rate)) }
        func feltDelays(_ drive: [Float]) -> [Double] { Self.feltDelays(drive, onsets: onsets) }
        var kicks = [Float](repeating: 0, count: 12 * Self.rate)
        Self.addKicks(&kicks, at: times)
        var overTone = kicks
        Self.addTone(&overTone, from: 0.5, to: 12)
        let (alone, aloneStarts) = Self.run(try Self.voice(), kicks)
        let (withTone, toneStarts) = Self.run(try Self.voice(), overTone)
        try #require(aloneStarts.count == onsets.count && toneStarts.count == onsets.count,
                     "one transient per kick: \(aloneStarts.count) alone, \(toneStarts.count) over the tone, for \(onsets.count)")
        let silent = feltDelays(alone).sorted(), steady = feltDelays(withTone).sorted()
        print(String(format: "analysis voice: onset → half-envelope over silence median %.2f ms (max %.2f), over the tone median %.2f ms (max %.2f)",
                     Self.median(silent), silent.last!, Self.median(steady), steady.last!))
        #expect(Self.median(steady) <= Self.median(silent) + 1, "over the tone: \(steady) ms; over silence: \(silent) ms")
        #expect(steady.last! < 6, "every kick felt within 6 ms over the tone: \(steady) ms")
    }

    /// The earliest placement, fed in lumps that do not match the blocks (a server's fragments,
    /// now and then two at once, now and then none): one transient per kick over the tone, the
    /// drive as strong as the steady placement's, and every kick felt within the lumps' reach.
    @Test("earliest placement, lumpy arrivals: one transient per kick, as strong as the steady placement's, felt within 30 ms")
    func earliestPlacement() throws {
        let times = Self.hitTimes(first: 2, count: 16)
        var x = [Float](repeating: 0, count: 9 * Self.rate)
        Self.addTone(&x, from: 1, to: 9)
        // Kicks whose body swells over 8 ms after the click: decided on the click, a hit's burst
        // starts weak and must grow to the body's peak.
        for hit in times {
            let start = Int(hit * Double(Self.rate))
            for k in 0..<Int(0.2 * Double(Self.rate)) {
                let t = Double(k) / Double(Self.rate)
                var v = 0.7 * min(1, t / 0.008) * exp(-max(0, t - 0.008) / 0.04) * sin(2 * Double.pi * 55 * t)
                if t < 0.003 { v += 0.2 * sin(2 * Double.pi * 2000 * t) }
                x[start + k] += Float(v)
            }
        }
        let earliest = try Self.voice()
        let drive = Self.runEarliest(earliest, x, arrivals: [480, 0, 96, 512, 0, 0, 960, 0])  // 8 blocks' worth
        let (steadyDrive, _) = Self.run(try Self.voice(), x)
        #expect(earliest.transientsStarted == times.count, "\(earliest.transientsStarted) transients for \(times.count) kicks")
        let onsets = times.map { Int($0 * Double(Self.rate)) }
        func peaks(_ d: [Float]) -> [Float] { onsets.map { o in d[o..<(o + 4800)].map { abs($0) }.max()! } }
        let ratios = zip(peaks(drive), peaks(steadyDrive)).map { $0 / $1 }
        print("analysis voice, earliest placement: kick peaks against the steady placement's: " + ratios.map { String(format: "%.2f", $0) }.joined(separator: " "))
        #expect(ratios.allSatisfy { $0 > 0.85 && $0 < 1.18 }, "each kick's drive peaks as the steady placement's: \(ratios)")
        let felt = Self.feltDelays(drive, onsets: onsets)
        #expect(felt.allSatisfy { $0 < 30 }, "felt within 30 ms of each kick (the lumps reach 20 ms): \(felt)")
    }

    /// The earliest placement's staggered analyser: the sound arrives in 64-frame fragments
    /// that end half a hop into the analyser's hops when a 128-frame block is rendered (a
    /// capture's fragments and the output's periods keep no phase with the hops). One analyser
    /// has only the hops before the fragment's last half-hop; the staggered one's hops end there.
    /// Every kick starts no later with the staggered analyser, some a whole block sooner (5 of
    /// these 24), and each is one transient either way.
    @Test("earliest placement: the staggered analyser starts kicks no later, some a block sooner, one transient each")
    func staggeredAnalyserDecidesSooner() throws {
        let times = Self.hitTimes(first: 1, count: 24)
        var x = [Float](repeating: 0, count: Int((times.last! + 1) * Double(Self.rate)))
        Self.addKicks(&x, at: times)
        let onsets = times.map { Int($0 * Double(Self.rate)) }
        func starts(staggered: Bool) throws -> [Int] {
            let voice = try Self.voice(maxBlock: 128, staggered: staggered)
            // (The first fragment half a hop, then a hop per block: each block's sound ends half a hop in.)
            let drive = Self.runEarliest(voice, x, block: 128, arrivals: [64] + [Int](repeating: 128, count: 4095))
            #expect(voice.transientsStarted == times.count, "staggered \(staggered): \(voice.transientsStarted) transients for \(times.count) kicks")
            // Over silence a kick's burst is the first drive after its onset.
            return onsets.map { o in (o..<(o + 4800)).first { abs(drive[$0]) > 1e-4 } ?? Int.max }
        }
        let single = try starts(staggered: false), staggered = try starts(staggered: true)
        // (Sooner: a block or more. In the same block a burst of another intensity may cross the
        // detection level a sample or two apart.)
        let sooner = zip(single, staggered).filter { $1 <= $0 - 64 }.count
        print("analysis voice, earliest placement, fragments half a hop into the hops: onset → first drive median "
              + String(format: "%.2f ms with one analyser, %.2f ms with the staggered one; %d of %d kicks sooner",
                       Self.median(zip(single, onsets).map { Double($0 - $1) / 48 }), Self.median(zip(staggered, onsets).map { Double($0 - $1) / 48 }),
                       sooner, onsets.count))
        #expect(zip(single, staggered).allSatisfy { $1 <= $0 + 8 }, "single \(single), staggered \(staggered)")
        #expect(sooner >= onsets.count / 6, "\(sooner) of \(onsets.count) kicks sooner")
    }

    /// A kick whose body swells for 8 ms after its click is decided on the click, weak: its
    /// burst must grow with the body's peak. With the earliest placement the burst starts before
    /// the body has arrived; the peak is watched as the sound arrives, and the burst grows as the
    /// steady placement's does.
    @Test("earliest placement: a burst decided on the rise grows with the sound's peak arriving after it", arguments: [64, 128, 256])
    func earliestBurstGrows(lump: Int) throws {
        var x = [Float](repeating: 0, count: Self.rate)
        let onset = Self.rate / 2
        for k in 0..<Int(0.2 * Double(Self.rate)) {
            let t = Double(k) / Double(Self.rate)
            var v = 0.7 * min(1, t / 0.008) * exp(-max(0, t - 0.008) / 0.04) * sin(2 * Double.pi * 55 * t)
            if t < 0.003 { v += 0.2 * sin(2 * Double.pi * 2000 * t) }
            x[onset + k] = Float(v)
        }
        // Both placements up to 40 ms after the onset, the burst still sounding.
        let end = onset + Self.rate / 25
        let steady = try Self.voice(), earliest = try Self.voice()
        _ = Self.run(steady, Array(x[..<end]))
        var first: Float = 0  // the earliest burst's target on the block that started it
        x.withUnsafeBufferPointer { source in
            var arrived = 0
            _ = Self.drive(count: end / 256 * 256, blocks: [256]) { bus, done, n in
                while arrived + lump <= done + n {  // what has arrived by this block's render
                    earliest.analyse(source.baseAddress! + arrived, count: lump)
                    arrived += lump
                }
                let before = earliest.transientsStarted
                earliest.renderEarliest(count: n, into: bus, at: done)
                if earliest.transientsStarted > before { first = earliest.strongestBurstTarget(actuator: 0) }
            }
        }
        let grown = earliest.strongestBurstTarget(actuator: 0), reference = steady.strongestBurstTarget(actuator: 0)
        print(String(format: "analysis voice, earliest placement, %d-frame arrivals: burst target %.3f at its start, %.3f grown; steady placement %.3f",
                     lump, first, grown, reference))
        #expect(earliest.transientsStarted == 1 && steady.transientsStarted == 1)
        #expect(grown >= 1.2 * first, "the burst grew with the body's peak: \(first) → \(grown)")
        #expect(abs(grown - reference) <= 0.05 * reference, "as the steady placement's: \(grown) vs \(reference)")
    }

    @Test("a tone burst's envelope is followed (a hit only where a swell leaves silence)")
    func toneBurst() throws {
        // A 150 Hz tone swelling over 400 ms, held, falling over 600 ms, twice.
        let seconds = 4.0
        var x = [Float](repeating: 0, count: Int(seconds * Double(Self.rate)))
        var envelope = [Double](repeating: 0, count: x.count)
        for (start, peak) in [(0.3, 0.5), (2.0, 0.2)] {
            for i in x.indices {
                let t = Double(i) / Double(Self.rate) - start
                let e: Double
                if t < 0 { e = 0 } else if t < 0.4 { e = t / 0.4 } else if t < 0.8 { e = 1 } else if t < 1.4 { e = 1 - (t - 0.8) / 0.6 } else { e = 0 }
                envelope[i] += peak * e
            }
        }
        for i in x.indices { x[i] = Float(envelope[i] * sin(2 * Double.pi * 150 * Double(i) / Double(Self.rate))) }
        let voice = try Self.voice()
        let (drive, starts) = Self.run(voice, x)
        // A sound that leaves silence may be a hit; nothing later in a swell is.
        let swellStarts = [0.3, 2.0].map { Int64($0 * Double(Self.rate)) }
        #expect(starts.allSatisfy { s in swellStarts.contains { s >= $0 && s <= $0 + 2400 } }, "transients at \(starts)")
        // 10 ms steps: the drive's Hilbert envelope against the intensity the burst's level maps to.
        let driveEnvelope = hilbertEnvelope(drive)
        let step = Self.rate / 100
        let expected = stride(from: 0, to: x.count, by: step).map { envelope[$0].squareRoot() }
        let followed = stride(from: 0, to: x.count, by: step).map { driveEnvelope[$0] }
        let correlation = try #require(pearsonCorrelation(expected, followed))
        print(String(format: "analysis voice: tone-burst envelope correlation %.4f", correlation))
        #expect(correlation > 0.97, "the drive's envelope follows the burst's: \(correlation)")
    }

    @Test("a bridge carries the steady layer over a gap in the capture (held 30 ms, then faded); the sound resumes after it")
    func bridge() throws {
        let rate = Self.rate
        var input = [Float](repeating: 0, count: 4 * rate)
        Self.addTone(&input, from: 0, to: 4)
        let voice = try Self.voice(maxBlock: 128)
        // 2 s of the tone, then 20 ms and (after 1 s more) 200 ms bridged, then the rest.
        let gaps = [(at: 2 * rate, frames: 960), (at: 3 * rate, frames: 9600)]
        var drive: [Float] = []
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: 4)
        let block = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { scratch.deallocate(); block.deallocate() }
        func render(_ n: Int, _ body: (MixBus) -> Void) {
            block.update(repeating: 0, count: n)
            var bus = MixBus(haptic: block, audioLeft: scratch, audioRight: scratch, frames: n)
            bus.hapticBusCount = 1
            body(bus)
            drive.append(contentsOf: UnsafeBufferPointer(start: block, count: n))
        }
        var done = 0
        var g = 0
        input.withUnsafeBufferPointer { source in
            while done < input.count {
                if g < gaps.count && done == gaps[g].at {
                    var left = gaps[g].frames
                    while left > 0 { let n = min(128, left); render(n) { voice.bridge(count: n, into: $0, at: 0) }; left -= n }
                    g += 1
                }
                let n = min(128, input.count - done, g < gaps.count ? gaps[g].at - done : Int.max)
                render(n) { voice.render(source.baseAddress! + done, count: n, into: $0, at: 0) }
                done += n
            }
        }
        func peak(_ from: Int, _ to: Int) -> Float { drive[from..<to].map { abs($0) }.max() ?? 0 }
        let steady = peak(rate, 2 * rate)
        let shortGap = peak(2 * rate, 2 * rate + 960)
        // The long gap starts 1 s and 960 frames later in the drive: held for 30 ms, faded over a hop.
        let long = 3 * rate + 960
        let held = peak(long, long + rate / 50)
        let faded = peak(long + rate / 10, long + 9600)
        let resumed = peak(long + 9600 + rate / 2, long + 9600 + rate)
        print("analysis voice bridge: steady \(steady), 20 ms bridged \(shortGap), 200 ms bridged: first 20 ms \(held), after 100 ms \(faded), resumed \(resumed); transients \(voice.transientsStarted)")
        #expect(steady > 0.2)
        #expect(shortGap > 0.9 * steady && shortGap < 1.1 * steady, "a short gap is carried over at the steady level")
        #expect(held > 0.9 * steady, "held at first")
        #expect(faded < 0.01 * steady, "a long gap fades out")
        #expect(resumed > 0.9 * steady && resumed < 1.1 * steady, "the sound resumes after it")
        #expect(voice.transientsStarted == 0, "no hit is made of a gap or of the sound's return")
    }

    @Test("the drive does not depend on how the sound is cut into blocks")
    func blockSizes() throws {
        var x = [Float](repeating: 0, count: 3 * Self.rate)
        Self.addTone(&x, from: 0.2, to: 2.8)
        Self.addKicks(&x, at: Self.hitTimes(first: 0.5, count: 6))
        let whole = Self.run(try Self.voice(maxBlock: 256), x, blocks: [256])
        let cut = Self.run(try Self.voice(maxBlock: 512), x, blocks: [37, 512, 1, 128, 300, 64])
        #expect(whole.starts == cut.starts)
        var largest: Float = 0
        for i in x.indices { largest = max(largest, abs(whole.drive[i] - cut.drive[i])) }
        #expect(largest == 0, "largest difference \(largest)")
    }
}
