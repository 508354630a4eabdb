// What the professional tool itself gives: Meta Haptics Studio's audio analysis, written here
// from its published algorithm (facebook/meta-haptics-sdk, MIT: interfaces/studio/audio_analysis
// and core/dsp) for the evaluation only; nothing outside this benchmark uses it. It answers two
// questions the quality figures raise: how well does the tool that made the Meta clips agree
// with them at its own defaults, and how much of those clips is the tool and how much the
// designer's settings (each Meta clip records the settings it was analysed with).
//
// The steps, as the SDK does them:
//  - mono (channels averaged), mean removed, gain in dB (or the peak normalised; not by default);
//  - amplitude: a moving RMS over 0.1 ms, then an attack/hold/release follower (0.1 ms, 1.5 ms,
//    100 ms; exponential stages reaching 99 % in their time), read every 1 ms, at most 1;
//  - Visvalingam–Whyatt reduction in 1 s regions to the breakpoints-per-second budget, then
//    every triangle under 1e-8 removed; a breakpoint at time 0;
//  - spectral flux: 1024-point frames (Hann, n − 1 denominator) every 128 samples, the sum of
//    the magnitude changes of bins 0…511, negative sums 0, dated at the frame's centre;
//  - emphasis: a breakpoint that rose by more than `minimumRise` from the one before, that the
//    next does not exceed by a quarter of that rise (the plateau factor), `peakWindow` after the
//    last peak; then only the peaks whose interpolated flux is at or above the point the
//    sensitivity sets between the largest and smallest flux of all peaks (50 %: half way).

import Foundation
import HapticAnalysis

/// The settings of one Meta Haptics Studio analysis (its `OfflineAnalysisSettings` and
/// preprocessing, the parts that change transients and the amplitude envelope).
struct StudioSettings: Equatable {
    var gainDB = 0.0
    /// Normalise the peak to `normalizeLevelDB` instead of applying the gain.
    var normalize = false
    var normalizeLevelDB = -0.3
    var emphasisEnabled = true
    var breakpointsPerSecond = 40
    var sensitivity = 50.0
    var peakWindow = 0.020
    var minimumRise = 0.05
    var plateauFactor = 0.25
    var ducking = 0.5

    /// Meta Haptics Studio's defaults for a new clip (frontend/src/globals/AudioAnalyzerConfig.json).
    static let studioDefaults = StudioSettings()
}

enum StudioReplica {
    /// The analysis before emphasis is chosen: the reduced amplitude breakpoints and the flux.
    struct Prepared {
        var events: [(time: Double, value: Double)]
        var flux: [(time: Double, value: Double)]
        var duration: Double
    }

    static func prepare(_ input: [Float], sampleRate rate: Double, settings: StudioSettings) -> Prepared {
        guard !input.isEmpty else { return Prepared(events: [(0, 0)], flux: [], duration: 0) }
        let mean = input.reduce(0.0) { $0 + Double($1) } / Double(input.count)
        let peak = input.reduce(0.0) { max($0, abs(Double($1))) }
        let gain = settings.normalize ? pow(10, settings.normalizeLevelDB / 20) / max(peak - mean, 1e-30) : pow(10, settings.gainDB / 20)
        let x = input.map { (Double($0) - mean) * gain }
        var events = reduce(amplitude(x, rate), perRegion: settings.breakpointsPerSecond)
        if let first = events.first, first.time != 0 { events.insert((0, first.value), at: 0) }
        if events.isEmpty { events = [(0, 0)] }
        return Prepared(events: events, flux: spectralFlux(x, rate), duration: Double(x.count) / rate)
    }

    /// The clip the tool makes from a prepared analysis: amplitude breakpoints (emphasised ones
    /// ducked) and the emphasis times.
    static func clip(_ p: Prepared, settings: StudioSettings) -> Haptics {
        let emphasised = !settings.emphasisEnabled ? [] : emphasis(p.events, flux: p.flux, settings: settings)
        var ducked = p.events
        for i in emphasised { ducked[i].value *= 1 - settings.ducking }
        // `Haptics(envelope:)` takes intensities (√amplitude); give it the amplitude's square root.
        return Haptics(
            envelope: ducked.map { ($0.time, $0.value.squareRoot()) }, transients: emphasised.map { p.events[$0].time },
            duration: p.duration)
    }

    /// The clip the tool makes for `input` (mono) at `rate`.
    static func analyse(_ input: [Float], sampleRate rate: Double, settings: StudioSettings) -> Haptics {
        clip(prepare(input, sampleRate: rate, settings: settings), settings: settings)
    }

    /// The follower's level every millisecond.
    static func amplitude(_ x: [Double], _ rate: Double) -> [(time: Double, value: Double)] {
        let window = max(1, Int((0.0001 * rate).rounded()))
        let attack = pow(0.01, 1 / (0.0001 * rate)), release = pow(0.01, 1 / (0.1 * rate))
        let holdSamples = Int(0.0015 * rate)
        var sum = 0.0, level = 0.0, hold = 0
        var out: [(time: Double, value: Double)] = []
        var next = 0.001, index = 0
        while index < x.count {
            while index < x.count && Double(index) / rate < next {
                sum += x[index] * x[index]
                if index >= window { sum -= x[index - window] * x[index - window] }
                let rms = max(0, sum / Double(window)).squareRoot()
                if rms > level {
                    level = attack * (level - rms) + rms
                    hold = 0
                } else if hold < holdSamples {
                    hold += 1
                } else {
                    level = release * (level - rms) + rms
                }
                index += 1
            }
            out.append((Double(index) / rate, min(level, 1)))
            next += 0.001
        }
        return out
    }

    /// Visvalingam–Whyatt in 1 s regions, down to `perRegion` points, then no triangle under 1e-8.
    static func reduce(_ points: [(time: Double, value: Double)], perRegion: Int) -> [(time: Double, value: Double)] {
        var result: [(time: Double, value: Double)] = []
        var start = 0
        var regionEnd = (points.first?.time ?? 0) + 1
        while start < points.count {
            var end = start
            while end < points.count && points[end].time < regionEnd { end += 1 }
            result += reduceRegion(Array(points[start..<end]), keep: perRegion)
            regionEnd += 1
            start = end
        }
        return result
    }

    private static func reduceRegion(_ p: [(time: Double, value: Double)], keep: Int) -> [(time: Double, value: Double)] {
        let n = p.count
        guard n > 2 else { return p }
        func area(_ l: Int, _ m: Int, _ r: Int) -> Double {
            abs((p[l].time - p[m].time) * (p[r].value - p[m].value) - (p[r].time - p[m].time) * (p[l].value - p[m].value))
        }
        var left = Array(-1..<n - 1), right = Array(1...n), alive = [Bool](repeating: true, count: n)
        // (The SDK's score is twice the triangle's area.)
        var heap = TriangleHeap(capacity: 3 * n)
        for m in 1..<n - 1 { heap.push(.init(area: area(m - 1, m, m + 1), middle: m, left: m - 1, right: m + 1)) }
        var count = n
        while count > keep, let t = heap.pop() {
            guard alive[t.middle], left[t.middle] == t.left, right[t.middle] == t.right else { continue }
            alive[t.middle] = false
            right[t.left] = t.right
            left[t.right] = t.left
            count -= 1
            for m in [t.left, t.right] where left[m] >= 0 && right[m] < n {
                heap.push(.init(area: area(left[m], m, right[m]), middle: m, left: left[m], right: right[m]))
            }
        }
        // (As the SDK does: every entry under the minimum goes, stale ones' middles included.)
        while let t = heap.smallest, t.area < 1e-8 {
            alive[t.middle] = false
            _ = heap.pop()
        }
        return p.indices.filter { alive[$0] }.map { p[$0] }
    }

    /// Spectral flux per frame (time, flux).
    static func spectralFlux(_ x: [Double], _ rate: Double) -> [(time: Double, value: Double)] {
        let n = 1024, hop = 128
        let fft = RealFFT(size: n)
        defer { fft.deallocate() }
        let window = (0..<n).map { Float(0.5 * (1 - cos(2 * Double.pi * Double($0) / Double(n - 1)))) }
        var frame = [Float](repeating: 0, count: n)
        var power = [Float](repeating: 0, count: n / 2 + 1)
        var previous = [Float](repeating: 0, count: n / 2)
        var out: [(time: Double, value: Double)] = []
        var k = hop
        while k <= x.count + n / 2 {
            // The n samples before input index k (zeros before the start and after the end).
            for i in 0..<n {
                let s = k - n + i
                frame[i] = s >= 0 && s < x.count ? Float(x[s]) : 0
            }
            frame.withUnsafeBufferPointer { f in
                window.withUnsafeBufferPointer { w in
                    power.withUnsafeMutableBufferPointer { fft.powerSpectrum(f.baseAddress!, window: w.baseAddress!, $0.baseAddress!) }
                }
            }
            var change = 0.0
            for b in 0..<n / 2 {
                let m = power[b].squareRoot()
                change += Double(m - previous[b])
                previous[b] = m
            }
            out.append((Double(k) / rate - Double(n / 2) / rate, max(0, change)))
            k += hop
        }
        return out
    }

    /// The indices of the emphasised breakpoints.
    static func emphasis(
        _ events: [(time: Double, value: Double)], flux: [(time: Double, value: Double)], settings: StudioSettings
    ) -> [Int] {
        func fluxAt(_ t: Double) -> Double {
            guard let first = flux.first, let last = flux.last else { return 0 }
            if t < first.time { return first.value }
            if t >= last.time { return last.value }
            var lo = 0, hi = flux.count - 1
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if flux[mid].time <= t { lo = mid } else { hi = mid }
            }
            let a = flux[lo], b = flux[hi]
            return a.value + (b.value - a.value) * (t - a.time) / (b.time - a.time)
        }
        var peaks: [(index: Int, flux: Double)] = []
        var previous = 0.0
        var lastPeak: Double?
        for i in 0..<max(0, events.count - 1) {
            let a = events[i].value, next = events[i + 1].value, rise = a - previous
            if rise > settings.minimumRise && (a > next || next < a + rise * settings.plateauFactor)
                && (lastPeak == nil || events[i].time - lastPeak! >= settings.peakWindow)
            {
                peaks.append((i, fluxAt(events[i].time)))
                lastPeak = events[i].time
            }
            previous = a
        }
        guard let low = peaks.map(\.flux).min(), let high = peaks.map(\.flux).max() else { return [] }
        let top = high + (high - low) * 1e-3
        let threshold = top + (low - top) * settings.sensitivity / 100
        return peaks.filter { $0.flux >= threshold }.map(\.index)
    }
}
