// How a converted clip is compared with a reference: the intensity envelope on a 5 ms grid
// (Pearson correlation), the transients (precision, recall, F-measure within a tolerance,
// matched one to one, nearest first), and the timing error of the matched ones.

import HapticAnalysis
import HapticKit

/// What a clip gives the comparison: its intensity envelope and its transients.
struct Haptics {
    /// (time, amplitude) breakpoints of the continuous layer (`.haptic` amplitude).
    var amplitude: [(time: Double, value: Double)]
    var transients: [Double]
    var duration: Double
    var breakpoints: Int

    init(clip: HapticClip) {
        amplitude = clip.amplitude.map { ($0.time, $0.amplitude) }
        transients = clip.amplitude.filter { $0.emphasis != nil }.map(\.time)
        duration = clip.duration
        breakpoints = clip.amplitude.count + clip.frequency.count
    }

    init(envelope: [(time: Double, value: Double)], transients: [Double], duration: Double) {
        amplitude = envelope.map { ($0.time, $0.value * $0.value) }
        self.transients = transients
        self.duration = duration
        breakpoints = envelope.count
    }

    /// Intensity (√amplitude, the AHAP scale) at each grid time.
    func intensity(on grid: [Double]) -> [Double] {
        var k = 0
        return grid.map { t in
            guard let first = amplitude.first, let last = amplitude.last, t >= first.time, t <= last.time else { return 0 }
            while k + 1 < amplitude.count && amplitude[k + 1].time <= t { k += 1 }
            let a = amplitude[k]
            guard k + 1 < amplitude.count else { return a.value.squareRoot() }
            let b = amplitude[k + 1]
            let v = b.time > a.time ? a.value + (b.value - a.value) * (t - a.time) / (b.time - a.time) : b.value
            return max(0, v).squareRoot()
        }
    }
}

/// Transient agreement within a tolerance.
struct TransientScore {
    var matched = 0
    var found = 0
    var reference = 0
    /// Signed errors (found − reference, s) of the matched pairs.
    var errors: [Double] = []

    init(found: [Double], reference: [Double], tolerance: Double) {
        self.found = found.count
        self.reference = reference.count
        // All pairs within the tolerance, nearest first; each side used once.
        var pairs: [(d: Double, i: Int, j: Int)] = []
        var j0 = 0
        for (i, f) in found.enumerated() {
            while j0 < reference.count && reference[j0] < f - tolerance { j0 += 1 }
            var j = j0
            while j < reference.count && reference[j] <= f + tolerance {
                pairs.append((abs(f - reference[j]), i, j))
                j += 1
            }
        }
        pairs.sort { $0.d < $1.d }
        var usedFound = Set<Int>(), usedReference = Set<Int>()
        for p in pairs where !usedFound.contains(p.i) && !usedReference.contains(p.j) {
            usedFound.insert(p.i)
            usedReference.insert(p.j)
            errors.append(found[p.i] - reference[p.j])
        }
        matched = errors.count
    }

    /// Both empty: agreement (1); one empty: 0.
    var precision: Double { found == 0 ? (reference == 0 ? 1 : 0) : Double(matched) / Double(found) }
    var recall: Double { reference == 0 ? (found == 0 ? 1 : 0) : Double(matched) / Double(reference) }
    var f: Double {
        if found == 0 && reference == 0 { return 1 }
        let p = precision, r = recall
        return p + r > 0 ? 2 * p * r / (p + r) : 0
    }
}

/// One file's comparison.
struct FileScore {
    var name: String
    var family: String
    var kind: String
    var seconds: Double
    var correlation: Double?
    var f50: TransientScore
    var f20: TransientScore
    var breakpointsPerSecond: Double
    var referenceBreakpointsPerSecond: Double

    init(name: String, family: String, kind: String, ours: Haptics, reference: Haptics, soundSeconds: Double) {
        self.name = name
        self.family = family
        self.kind = kind
        seconds = soundSeconds
        let end = max(reference.duration, ours.duration, soundSeconds)
        let grid = stride(from: 0.0, through: end, by: 0.005).map { $0 }
        correlation = pearsonCorrelation(ours.intensity(on: grid), reference.intensity(on: grid))
        f50 = TransientScore(found: ours.transients, reference: reference.transients, tolerance: 0.05)
        f20 = TransientScore(found: ours.transients, reference: reference.transients, tolerance: 0.02)
        breakpointsPerSecond = Double(ours.breakpoints) / max(soundSeconds, 0.001)
        referenceBreakpointsPerSecond = Double(reference.breakpoints) / max(reference.duration, 0.001)
    }
}

func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let s = values.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func mean(_ values: [Double]) -> Double? { values.isEmpty ? nil : values.reduce(0, +) / Double(values.count) }

func pooledF(_ scores: [TransientScore]) -> Double {
    let m = scores.reduce(0) { $0 + $1.matched }, f = scores.reduce(0) { $0 + $1.found }, r = scores.reduce(0) { $0 + $1.reference }
    if f == 0 && r == 0 { return 1 }
    let p = f > 0 ? Double(m) / Double(f) : 0, rc = r > 0 ? Double(m) / Double(r) : 0
    return p + rc > 0 ? 2 * p * rc / (p + rc) : 0
}
