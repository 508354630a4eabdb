// The analysis voice's transients: each actuator's band and its sounding bursts, started on
// their carrier's crest and growing with the sound's peak.

import HapticAnalysis
import HapticDSP
import HapticRender

extension AnalysisVoice {
    /// One actuator's synthesis: its tables and its oscillator's and bursts' state.
    struct Band {
        /// Sharpness → Hz (`renderTableSize + 1` entries, the profile's band on a log scale).
        let frequencyTable: UnsafeMutablePointer<Double>
        /// Intensity → amplitude by the profile's law (`renderTableSize + 1` entries).
        let amplitudeTable: UnsafeMutablePointer<Float>
        let rule: TransientRule
        /// The continuous oscillator: phase = phaseAnchor + (n - anchorSample) · inc.
        var phaseAnchor = 0.0
        var anchorSample: Int64 = 0
        var inc = -1.0
        /// The transients sounding.
        let bursts: UnsafeMutablePointer<Burst>
        var burstCount = 0
    }

    /// A sounding transient.
    struct Burst {
        var start: Int64
        var shape: TransientGeometry
        /// Its amplitude now, and the amplitude the sound's peak so far asks for.
        var amplitude: Float
        var target: Float
        /// The largest captured sample since the hit (linear), watched until `growUntil`.
        var peak: Float
        var growUntil: Int64
        /// The carrier's phase at the start (cycles): its crest on the first sample.
        var phase: Double
        /// The earliest placement: the serial of the ``Growth`` its amplitude follows (-1: none;
        /// the steady placement follows the captured samples aligned with its own).
        var growth: Int
    }

    /// A transient from sample `start` on, on every actuator, and the continuous layer's dip under it.
    @_noLocks
    func startHit(at start: Int64, intensity: Float, sharpness: Double, growth: Int) {
        duckStarts[duckNext] = start
        duckNext = duckNext + 1 == duckCapacity ? 0 : duckNext + 1
        transientsStarted &+= 1
        var longest: Int64 = 0
        for k in 0..<bandCount {
            let length = startBurst(bands + k, at: start, intensity: intensity, sharpness: sharpness, growth: growth)
            if length > longest { longest = length }
        }
        holdFrom = start
        holdUntil = start + longest
        heldSharpness = sharpness
    }

    /// A young burst's amplitude asks for the sound's peak `magnitude` (linear) when it is the
    /// largest yet: the intensity its square root is, through the profile's law (`table`).
    @_noLocks @inline(__always)
    func grow(_ burst: inout Burst, toPeak magnitude: Float, _ table: UnsafeMutablePointer<Float>) {
        guard magnitude > burst.peak else { return }
        burst.peak = magnitude
        burst.target = amplitude(squareRootFast(magnitude < 1 ? magnitude : 1), table)
    }

    /// Starts a burst on `band`; returns its length (samples).
    @_noLocks
    func startBurst(_ band: UnsafeMutablePointer<Band>, at start: Int64, intensity: Float, sharpness: Double, growth: Int) -> Int64 {
        let shape = TransientGeometry(
            sharpness: sharpness, frequencyTable: band.pointee.frequencyTable, sampleRate: sampleRate, rule: band.pointee.rule)
        let a = amplitude(intensity, band.pointee.amplitudeTable)
        // On its carrier's crest at the first sample (the carrier is taken at k + ½); the
        // continuous oscillator comes into step with it `notch` later (`bringInStep`).
        let phase = fractionalPart(0.25 - 0.5 * shape.inc)
        let burst = Burst(
            start: start, shape: shape, amplitude: a, target: a, peak: intensity * intensity,
            growUntil: growth < 0 ? start + Int64(4 * hop) : start, phase: phase, growth: growth)
        if band.pointee.burstCount < burstCapacity {
            band.pointee.bursts[band.pointee.burstCount] = burst
            band.pointee.burstCount += 1
            return shape.length
        }
        var oldest = 0
        for b in 1..<burstCapacity where band.pointee.bursts[b].start < band.pointee.bursts[oldest].start { oldest = b }
        band.pointee.bursts[oldest] = burst
        return shape.length
    }

    /// Adds the sounding bursts' samples of this block (`samples`: the captured ones, whose
    /// peak a young burst's amplitude follows); forgets those that ended.
    @_noLocks
    func renderBursts(
        _ band: UnsafeMutablePointer<Band>, _ samples: UnsafePointer<Float>, into out: UnsafeMutablePointer<Float>,
        blockStart: Int64, count n: Int
    ) {
        let table = band.pointee.amplitudeTable
        var b = 0
        while b < band.pointee.burstCount {
            var burst = band.pointee.bursts[b]
            let shape = burst.shape
            let end = burst.start &+ shape.length
            let from = burst.start > blockStart ? Int(burst.start - blockStart) : 0
            let to = end < blockStart + Int64(n) ? Int(end - blockStart) : n
            var j = from
            while j < to {
                let v = transientLanes(
                    blockStart + Int64(j) - burst.start, shape.length, shape.inc, shape.quarterPerSample, shape.decayRate, phase: burst.phase)
                let lanes = to - j < 8 ? to - j : 8
                for l in 0..<lanes {
                    // Per sample, so that the blocks do not matter.
                    if blockStart + Int64(j + l) < burst.growUntil {
                        let x = samples[j + l]
                        let magnitude = x < 0 ? -x : x
                        grow(&burst, toPeak: magnitude, table)
                    }
                    if burst.amplitude < burst.target {
                        let grown = burst.amplitude + growthPerSample
                        burst.amplitude = grown < burst.target ? grown : burst.target
                    }
                    out[j + l] += burst.amplitude * v[l]
                }
                j += 8
            }
            band.pointee.bursts[b] = burst
            if end <= blockStart + Int64(n) {
                band.pointee.burstCount -= 1
                band.pointee.bursts[b] = band.pointee.bursts[band.pointee.burstCount]
            } else {
                b += 1
            }
        }
    }
}
