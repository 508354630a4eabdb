/// Locates a known signal in a recording (the rig's monitor captures): a coarse position
/// from the first sample over a threshold, refined by least squares against the offline
/// render. Used by the lockstep tests and rhythm-bench.
public enum RecordingAlignment {
    /// The lag (recording index of reference index 0) in `guess ± radius` that minimises the
    /// squared difference between `recording` and `reference`, with the residual and the
    /// reference's energy (residual/energy near 0: a real match).
    public static func bestLag(_ recording: [Float], _ reference: [Float], guess: Int, radius: Int)
        -> (lag: Int, residual: Double, energy: Double)
    {
        var best = (lag: guess, residual: Double.infinity, energy: 0.0)
        recording.withUnsafeBufferPointer { rec in
            reference.withUnsafeBufferPointer { ref in
                var energy = 0.0
                for r in ref { energy += Double(r) * Double(r) }
                for lag in (guess - radius)...(guess + radius) {
                    var ssd = 0.0
                    for i in 0..<ref.count {
                        let j = lag + i
                        let x = j >= 0 && j < rec.count ? Double(rec[j]) : 0
                        let d = x - Double(ref[i])
                        ssd += d * d
                    }
                    if ssd < best.residual { best = (lag, ssd, energy) }
                }
            }
        }
        return best
    }

    /// The first index in `from..<to` whose magnitude exceeds `threshold`.
    public static func firstAbove(_ x: [Float], _ threshold: Float, from: Int = 0, to: Int? = nil) -> Int? {
        let end = min(to ?? x.count, x.count)
        var i = max(0, from)
        while i < end {
            if abs(x[i]) > threshold { return i }
            i += 1
        }
        return nil
    }

    /// One channel of interleaved samples.
    public static func channel(_ samples: [Float], channels: Int, _ c: Int) -> [Float] {
        stride(from: c, to: samples.count, by: channels).map { samples[$0] }
    }

    /// Float samples as a 16-bit sink stores them (×32768, rounded, clipped), for fitting S16 captures.
    public static func s16(_ x: [Float]) -> [Float] {
        x.map { Float(min(32767, max(-32768, ($0 * 32768).rounded()))) / 32768 }
    }

    /// Finds one onset per expected position: `expected[k]` is where reference index 0 should
    /// be (± `window`); returns the least-squares lag of each (nil where nothing is found).
    /// Only the first `fitFrames` of the reference are fitted (later beats may overlap its tail).
    public static func locate(_ recording: [Float], reference: [Float], expected: [Int], window: Int = 4_800,
                              threshold: Float = 0.01, fitFrames: Int = 2_400, radius: Int = 8) -> [Int?] {
        let head = Array(reference.prefix(fitFrames))
        guard let refFirst = firstAbove(reference, threshold) else { return expected.map { _ in nil } }
        return expected.map { e in
            guard let coarse = firstAbove(recording, threshold, from: e - window + refFirst, to: e + window + refFirst) else { return nil }
            return bestLag(recording, head, guess: coarse - refFirst, radius: radius).lag
        }
    }
}

extension RecordingAlignment {
    /// Like ``locate(_:reference:expected:window:threshold:fitFrames:radius:)`` for a sequence of
    /// onsets whose device frames are known (`frames`): the first is searched from `start`, each
    /// next one where the previous one's recording offset puts it — so an underrun that shifts
    /// the recording against the device frames moves the search along with it.
    public static func track(_ recording: [Float], reference: [Float], frames: [Int64?], start: Int = 0,
                             threshold: Float = 0.01, window: Int = 2_400, radius: Int = 16) -> [Int?] {
        guard let refFirst = firstAbove(reference, threshold),
              let coarse = firstAbove(recording, threshold, from: start) else { return frames.map { _ in nil } }
        var offset: Int? = nil
        var found: [Int?] = []
        for frame in frames {
            guard let frame else { found.append(nil); continue }
            let expected = offset.map { Int(frame) + $0 } ?? (coarse - refFirst)
            let hit = locate(recording, reference: reference, expected: [expected], window: window, threshold: threshold,
                             radius: radius)[0]
            if let hit { offset = hit - Int(frame) }
            found.append(hit)
        }
        return found
    }
}
