import Foundation
import HapticALSATesting
import HapticEngineTesting
import HapticKit
import Testing

/// The audition tests' sound (noise hits at known times) and what they look for in a recording
/// of the audition: where the sound's pass starts, where the haptic's pass starts, the felt
/// onset (half of the Hilbert envelope) of each haptic hit and how strong it is.
enum AuditionRecording {
    static let rate = 48_000
    /// The hits' times in the sound (s) and its length.
    static let hitTimes = [0.3, 0.8, 1.3]
    static let length = 2.0

    /// A folder with `hits.wav`: mono, 2 s, a 6 ms burst of decaying noise at each hit time,
    /// each burst's first sample at full strength (so its onset in a recording is one sample).
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("studio-audition.\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        var samples = [Float](repeating: 0, count: Int(length * Double(rate)))
        var seed: UInt32 = 12345
        for t in hitTimes {
            let start = Int((t * Double(rate)).rounded())
            for i in 0..<(rate * 6 / 1000) {
                seed = seed &* 1_103_515_245 &+ 12345
                let noise = i == 0 ? 1 : Float(Int(seed >> 16) % 2001 - 1000) / 1000
                samples[start + i] = 0.8 * noise * expf(-Float(i) / Float(rate / 1000))
            }
        }
        let writer = try SoundFileWriter(path: url.appendingPathComponent("hits.wav").path, channels: 1, sampleRate: rate, sampleFormat: .float32)
        try writer.write(samples)
        try writer.finish()
        return url
    }

    /// Where the sound's pass starts in the left channel: the first hit's onset (searched from
    /// `from`) minus the hit's time.
    static func soundStart(_ left: [Float], from: Int = 0, threshold: Float = 0.05) -> Int? {
        guard let onset = RecordingAlignment.firstAbove(left, threshold, from: from) else { return nil }
        return onset - Int((hitTimes[0] * Double(rate)).rounded())
    }

    /// Where the haptic's pass starts in the haptic channel: the least-squares fit of its offline
    /// render within 10 ms of `guess`, with the residual's share of the reference's energy.
    static func hapticStart(_ haptic: [Float], reference: [Float], guess: Int) -> (index: Int, misfit: Double) {
        let fit = RecordingAlignment.bestLag(haptic, Array(reference.prefix(rate)), guess: guess, radius: rate / 100)
        return (fit.lag, fit.energy > 0 ? fit.residual / fit.energy : .infinity)
    }

    /// How far the haptic channel from `index` on is from `reference` over its first `seconds`:
    /// the squared difference as a share of the reference's energy (0: the same samples).
    static func misfit(_ haptic: [Float], _ reference: [Float], at index: Int, seconds: Double = 1.5) -> Double {
        let fit = RecordingAlignment.bestLag(haptic, Array(reference.prefix(Int(seconds * Double(rate)))), guess: index, radius: 0)
        return fit.energy > 0 ? fit.residual / fit.energy : .infinity
    }

    /// The felt onset of the haptic hit expected at `index`: where the Hilbert envelope of the
    /// window from 2 ms before it to 100 ms after first reaches half its peak, in ms from `index`.
    static func feltOnsetMs(_ haptic: [Float], at index: Int) -> Double {
        let start = max(0, index - rate / 500), end = min(haptic.count, index + rate / 10)
        guard end > start else { return .nan }
        let half = envelopeOnsets(hilbertEnvelope(Array(haptic[start..<end]))).half
        return Double(start + half - index) * 1000 / Double(rate)
    }

    /// The largest magnitude within 1 ms before and 50 ms after `index`.
    static func peak(_ haptic: [Float], at index: Int) -> Float {
        let start = max(0, index - rate / 1000), end = min(haptic.count, index + rate / 20)
        return end > start ? haptic[start..<end].map(abs).max() ?? 0 : 0
    }

    /// The offline render of one pass's haptic (what the engine should play from the pass's frame).
    static func reference(_ pattern: AHAPPattern, profile: ActuatorProfile = .bassShaker) throws -> [Float] {
        let prepared = try PreparedPattern(pattern, profile: profile, sampleRate: Double(rate))
        return OfflineRenderer.render(prepared, layout: .hapticMono).samples
    }

    static func ms(_ samples: Int) -> Double { Double(samples) * 1000 / Double(rate) }

    /// One channel of a capture, with when each frame was captured.
    struct Track {
        var samples: [Float]
        /// When frame `f` was captured (ns, CLOCK_MONOTONIC, or the capture's own sample clock), nil where unknown.
        var nanos: (Int) -> Int64?
        /// The first frame captured after the play request.
        var from: Int?

        /// Channel `channel` of `recording`, dated by its capture's stamps (the earliest bound of
        /// the second after: a read comes late, never early), or with `sampleClock` by its frames
        /// (two channels of one capture compared to the sample).
        init(_ recording: ALSARecording, channels: Int, _ channel: Int, after request: Int64, sampleClock: Bool = false) {
            samples = RecordingAlignment.channel(recording.floatSamples, channels: channels, channel)
            nanos = sampleClock ? { Int64($0) * 1_000_000_000 / Int64(rate) } : { recording.monotonicNanos(ofFrame: $0, earliestWithin: 1) }
            from = firstFrame(of: recording, after: request)
        }
    }

    /// Sound − haptic skew (ms) of every hit of `passes` passes of the selection from `start`
    /// (seconds of the sound): each hit's onset turned into the time its pass started, by its
    /// track's dates. Sound: its first sample; haptic: the least-squares fit of `reference` (the
    /// whole sound's haptic render) from 1 ms before the pattern's hit `times`. Nil where a hit
    /// is not found.
    static func twoDeviceSkews(sound: Track, haptic: Track, reference: [Float], times: [Double],
                               start: Double, passFrames: Int, passes: Int) -> [Double?] {
        let left = sound.samples, h = haptic.samples
        func frames(_ t: Double) -> Int { Int((t * Double(rate)).rounded()) }
        // The passes are looked for from the play request on: a capture's first frames can hold
        // bursts that no play made (the monitor's earlier audio, at the start of a capture),
        // which taken for the first pass put every later pass off the grid.
        guard let soundFrom = sound.from, let hapticFrom = haptic.from,
              let first = firstPass(left, 0.05, from: soundFrom, hits: hitTimes), let felt = firstPass(h, 0.001, from: hapticFrom, hits: times),
              let refFirst = RecordingAlignment.firstAbove(reference, 0.001, from: frames(start)) else { return [] }
        let soundPass = first - frames(hitTimes[0] - start), hapticPass = felt - (refFirst - frames(start))
        var skews: [Double?] = []
        for k in 0..<passes {
            for (hit, t) in zip(hitTimes, times) {
                let due = soundPass + k * passFrames + frames(hit - start)
                let onset = RecordingAlignment.firstAbove(left, 0.05, from: due - rate / 50, to: due + rate / 50)
                let from = max(0, frames(t) - rate / 1000)
                let head = Array(reference[from...])
                let lag = RecordingAlignment.locate(h, reference: head, expected: [hapticPass + k * passFrames + from - frames(start)],
                                                    window: rate / 50, threshold: 0.001, radius: 16)[0]
                guard let onset, let lag, let ta = sound.nanos(onset), let th = haptic.nanos(lag) else { skews.append(nil); continue }
                skews.append((Double(ta) / 1e6 - (hit - start) * 1000) - (Double(th) / 1e6 - (Double(from) / Double(rate) - start) * 1000))
            }
        }
        return skews
    }

    /// Where the first whole pass begins in `samples` from `from`: the first burst followed by
    /// bursts where the pass's other hits fall (within 2 ms), so that a stray burst is not taken
    /// for it.
    static func firstPass(_ samples: [Float], _ threshold: Float, from: Int, hits: [Double]) -> Int? {
        let bursts = burstStarts(samples, threshold: threshold, from: from)
        let offsets = hits.dropFirst().map { Int((($0 - hits[0]) * Double(rate)).rounded()) }
        return bursts.first { b in offsets.allSatisfy { o in bursts.contains { abs($0 - (b + o)) <= rate / 500 } } }
    }

    /// The first frame `recording` captured at or after `nanos` (CLOCK_MONOTONIC), to a capture period.
    static func firstFrame(of recording: ALSARecording, after nanos: Int64) -> Int? {
        var frame = 0
        while frame < recording.frames {
            if let at = recording.monotonicNanos(ofFrame: frame), at >= nanos { return frame }
            frame += 256
        }
        return nil
    }

    /// Now on CLOCK_MONOTONIC (the capture stamps' clock), in nanoseconds.
    static func monotonicNanos() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Where bursts begin in `samples` from `from`: a sample above `threshold` after at least
    /// `quiet` frames at or below it (ClickTrack's onsets of the magnitude).
    static func burstStarts(_ samples: [Float], threshold: Float, from: Int = 0, quiet: Int = rate / 100) -> [Int] {
        let from = min(max(0, from), samples.count)
        return ClickTrack.onsets({ abs(samples[from + $0]) }, frames: samples.count - from, threshold: threshold, quiet: quiet).map { $0 + from }
    }

    /// The checks both audition tests make on a recording of a loop of the whole sound, with the
    /// second hit deleted between `passesBeforeEdit` and `passesAfterEdit` passes scheduled:
    /// the first pass's sound and haptic start within 1 ms of each other and its hits are felt
    /// at their times; the last pass scheduled before the edit plays `before`, the first one
    /// scheduled after it plays `after` (`tolerance`: the misfit allowed, S16 sinks round).
    static func checkLoop(left: [Float], haptic: [Float], times: [Double], before: [Float], after: [Float],
                          passesBeforeEdit: Int, passesAfterEdit: Int, label: String, tolerance: Double) throws {
        // (Not #require(soundStart(left)): its failure would print the whole recording.)
        guard let start = soundStart(left) else { Issue.record("\(label): the sound is not in the recording (\(left.count) frames)"); return }
        let fit = hapticStart(haptic, reference: before, guess: start)
        let skew = fit.index - start
        let felt = times.map { feltOnsetMs(haptic, at: start + Int(($0 * Double(rate)).rounded())) }
        // Each haptic hit's felt onset after the sound's own hit (its first sample) in the recording.
        let afterSound = hitTimes.map { feltOnsetMs(haptic, at: start + Int(($0 * Double(rate)).rounded())) }
        print("\(label): haptic − sound start \(skew) samples (\(ms(skew)) ms, fit misfit \(fit.misfit)); "
              + "felt onsets after the pattern's hit times \(felt.map { String(format: "%.2f", $0) }) ms, "
              + "after the sound's hits \(afterSound.map { String(format: "%.2f", $0) }) ms")
        #expect(fit.misfit < tolerance, "the first pass's haptic is the pattern's render: misfit \(fit.misfit)")
        #expect(abs(skew) <= rate / 1000, "sound and haptic in lockstep within 1 ms: \(skew) samples")
        #expect(felt.allSatisfy { $0 > -1 && $0 < 5 }, "each hit felt at the pattern's time: \(felt) ms")
        #expect(afterSound.allSatisfy { abs($0) < 5 }, "each hit felt with the sound's: \(afterSound) ms")

        let pass = Int((length * Double(rate)).rounded())
        let old = start + (passesBeforeEdit - 1) * pass, new = start + passesAfterEdit * pass
        guard let found = soundStart(left, from: new - rate / 100) else {
            Issue.record("\(label): pass \(passesAfterEdit + 1) is not in the recording (\(left.count) frames, the pass due at \(new))")
            return
        }
        #expect(found == new, "the passes are exactly one selection apart: pass \(passesAfterEdit + 1) \(found - new) samples off")
        let oldPeaks = times.map { peak(haptic, at: old + Int(($0 * Double(rate)).rounded())) }
        let newPeaks = times.map { peak(haptic, at: new + Int(($0 * Double(rate)).rounded())) }
        let (edited, unedited) = (misfit(haptic, after, at: new), misfit(haptic, before, at: new))
        print("\(label): edit between passes \(passesBeforeEdit) and \(passesAfterEdit + 1); hit peaks \(oldPeaks) then \(newPeaks); "
              + "pass \(passesAfterEdit + 1) against the edited render \(edited), the unedited \(unedited)")
        #expect(misfit(haptic, before, at: old) < tolerance, "pass \(passesBeforeEdit) plays the pattern as it was")
        #expect(edited < tolerance && unedited > 0.1, "the first pass after the edit plays the edited pattern: misfit \(edited), against the unedited \(unedited)")
        #expect(newPeaks[1] < 0.5 * oldPeaks[1], "the deleted hit is gone")
        #expect(newPeaks[0] > 0.8 * oldPeaks[0] && newPeaks[2] > 0.8 * oldPeaks[2], "the other hits stay")
    }
}
