// The loudness envelope: the mean square smoothed over a couple of milliseconds (its
// square root scaled so that a sine reads its peak), then an attack/hold/release follower.
// The hold bridges the gaps between a low tone's half-cycles, so a 30 Hz rumble gives a
// steady envelope rather than a buzz; the release lets a hit ring out the way it is felt.

import HapticDSP

struct LoudnessFollower {
    private var meanSquare: Float = 0
    private var envelope: Float = 0
    private var holdLeft = 0
    /// Per-sample weights: mean-square smoothing (1 − e^(−1/τfs)), and the attack and
    /// release coefficients (the share of the distance kept per sample: 99 % covered in
    /// the stage's time).
    private let rmsWeight: Float
    private let attackKeep: Float
    private let releaseKeep: Float
    private let holdSamples: Int

    init(_ settings: AnalysisSettings) {
        let fs = settings.sampleRate
        func keep(_ seconds: Double) -> Float {
            let samples = seconds * fs
            return samples < 1 ? 0 : Float(powDouble(0.01, 1 / samples))
        }
        let tau = settings.rmsTime * fs
        rmsWeight = tau < 1 ? 1 : Float(1 - exp2Double(-1.4426950408889634 / tau))
        attackKeep = keep(settings.attack)
        releaseKeep = keep(settings.release)
        holdSamples = Int(roundFast(settings.hold * fs))
    }

    /// Takes `count` samples (finite, |x| <= 64) and raises `peak` to their envelope's largest
    /// value, setting `peakAt` to its index when it does (the first of equal values). In three
    /// passes, so the square roots run eight at a time (the 8-lane root gives the scalar's value
    /// to the bit, so the envelope is the same as a sample at a time); `scratch` holds `count`.
    @_noLocks @inline(__always)
    mutating func process(
        _ x: UnsafePointer<Float>, count: Int, scratch level: UnsafeMutablePointer<Float>, peak: inout Float, peakAt: inout Int
    ) {
        for j in 0..<count { level[j] = meanSquareStep(x[j]) }
        let raw = UnsafeMutableRawPointer(level)
        var j = 0
        while j + 8 <= count {
            let offset = j * MemoryLayout<Float>.stride
            let ms = raw.loadUnaligned(fromByteOffset: offset, as: SIMD8<Float>.self)
            raw.storeBytes(of: squareRootFast(ms + ms), toByteOffset: offset, as: SIMD8<Float>.self)
            j += 8
        }
        while j < count {
            level[j] = squareRootFast(level[j] + level[j])
            j += 1
        }
        for j in 0..<count {
            let e = follow(level[j])
            if e > peak {
                peak = e
                peakAt = j
            }
        }
    }

    /// The smoothed mean square after one more sample.
    @_noLocks @inline(__always)
    private mutating func meanSquareStep(_ x: Float) -> Float {
        var ms = meanSquare + (x * x - meanSquare) * rmsWeight
        if ms < 1e-24 { ms = 0 }  // no subnormals in long silences
        meanSquare = ms
        return ms
    }

    /// The attack/hold/release follower after one more level (√(2·ms): a sine's peak).
    @_noLocks @inline(__always)
    private mutating func follow(_ level: Float) -> Float {
        var e = envelope
        if level > e {
            e = level + (e - level) * attackKeep
            holdLeft = holdSamples
        } else if holdLeft > 0 {
            holdLeft -= 1
        } else {
            e = level + (e - level) * releaseKeep
            if e < 1e-12 { e = 0 }
        }
        envelope = e
        return e
    }
}
