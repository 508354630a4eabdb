// Feature frames and hits in, `ConvertedHaptics` out, in one pass with bounded state:
// a short lookahead of frames (so a hit, decided a few hops after its sample, can still
// duck the frames after it), the current silent run (so a short gap does not split a
// stretch), and one region per breakpoint reducer. What grows is the result itself.

/// How the analysis becomes a pattern: breakpoint budget, ducking, silence.
public struct ConversionSettings: Sendable, Equatable {
    /// At most this many curve points per second, per curve (intensity, sharpness).
    public var breakpointsPerSecond: Double = 40
    /// Points whose removal changes the curve by less than this area (value × seconds) go
    /// even within the budget, so flat and straight stretches stay small.
    public var tolerance: Double = 0.0004
    /// How much the continuous layer gives way under a transient, 0…1, as a share of its
    /// amplitude (intensity², the `.haptic` amplitude of `HapticClipMapping`), as Meta Haptics
    /// Studio's ducking is: 0.5 halves the amplitude, so the intensity curve dips to √0.5 ≈ 0.71.
    public var ducking: Double = 0.5
    /// A gap of silence shorter than this does not end a stretch (s).
    public var silenceHangover: Double = 0.05

    public init() {}

    /// Why a value cannot be used.
    public func validated() throws(AnalysisSettings.Invalid) -> ConversionSettings {
        guard breakpointsPerSecond.isFinite, (2...1000).contains(breakpointsPerSecond) else {
            throw .init(setting: "breakpoints per second", message: "\(breakpointsPerSecond) is outside 2…1000")
        }
        guard tolerance.isFinite, (0...1).contains(tolerance) else {
            throw .init(setting: "tolerance", message: "\(tolerance) is outside 0…1")
        }
        guard ducking.isFinite, (0...1).contains(ducking) else {
            throw .init(setting: "ducking", message: "\(ducking) is outside 0…1")
        }
        guard silenceHangover.isFinite, (0...10).contains(silenceHangover) else {
            throw .init(setting: "silence hangover", message: "\(silenceHangover) s is outside 0…10 s")
        }
        return self
    }
}

/// The ducking dip under a transient: down in `duckAttack`, held, back up in `duckRelease`.
/// The point at the hit itself is not lowered (a transient takes the intensity control's
/// value at its onset, in Core Haptics as in our renderer). 26 ms in all, about a transient's
/// body: a longer dip (41 ms before) chopped the continuous layer of busy sounds and moved it
/// away from the tools' envelopes (Meta's analyser ducks only the emphasised breakpoint).
/// Computed (no lazy global initialisation): the live follower ducks on the render thread.
package var duckAttack: Double { @_noLocks @inline(__always) get { 0.001 } }
package var duckHold: Double { @_noLocks @inline(__always) get { 0.010 } }
package var duckRelease: Double { @_noLocks @inline(__always) get { 0.015 } }

/// The depth of the ducking dip `tau` seconds after a transient, for a ducking of `ducking`
/// (0…1): 0 before it and after it, `ducking` while held. `convert`'s curves and the live
/// follower's continuous layer give way by the same shape (`convert` takes it from the amplitude,
/// ``duckingIntensityGain(_:ducking:)``; the follower from its drive's amplitude).
@_noLocks @inline(__always)
package func duckingDepth(_ tau: Double, ducking d: Double) -> Double {
    if tau <= 0 || tau > duckAttack + duckHold + duckRelease { return 0 }
    if tau < duckAttack { return d * tau / duckAttack }
    if tau <= duckAttack + duckHold { return d }
    return d * (1 - (tau - duckAttack - duckHold) / duckRelease)
}

/// The intensity `convert`'s curve keeps `tau` seconds after a transient (1: no dip): the
/// ducking takes its share of the amplitude, intensity², so the intensity keeps the square root
/// of the rest.
@inline(__always)
package func duckingIntensityGain(_ tau: Double, ducking d: Double) -> Double {
    (1 - duckingDepth(tau, ducking: d)).squareRoot()
}

struct ConversionBuilder {
    let settings: ConversionSettings
    let sampleRate: Double
    let hop: Int
    let sharpnessLatency: Double

    private var pending: [FeatureFrame] = []
    private static let lookahead = 16
    private var hitTimes: [Double] = []  // hits whose dips may still reach frames not yet committed
    private var specials: [(time: Double, mandatory: Bool)] = []  // points to insert, sorted
    private(set) var transients: [ConvertedHaptics.Transient] = []

    private var inStretch = false
    private var stretchStart = 0.0
    private var silentRun: [FeatureFrame] = []
    /// The last point fed to the reducer, before ducking.
    private var lastPoint: CurvePoint?
    private var intensity: BreakpointReducer
    private var sharpness: BreakpointReducer
    private var lastSharpnessTime = -Double.infinity
    private var stretches: [ConvertedHaptics.Stretch] = []

    init(settings: ConversionSettings, sampleRate: Double, hop: Int, sharpnessLatency: Double) {
        self.settings = settings
        self.sampleRate = sampleRate
        self.hop = hop
        self.sharpnessLatency = sharpnessLatency
        let budget = Int(settings.breakpointsPerSecond.rounded(.down))
        intensity = BreakpointReducer(maxPerRegion: budget, tolerance: settings.tolerance)
        sharpness = BreakpointReducer(maxPerRegion: budget, tolerance: settings.tolerance)
    }

    mutating func add(_ frame: FeatureFrame) {
        pending.append(frame)
        if pending.count > Self.lookahead { commit(pending.removeFirst()) }
    }

    mutating func add(_ hit: Hit) {
        let t = Double(hit.sampleIndex) / sampleRate
        transients.append(.init(time: t, intensity: Double(hit.intensity), sharpness: Double(hit.sharpness)))
        hitTimes.append(t)
        var new = [(t, true)]
        if settings.ducking > 0 {
            new += [(t + duckAttack, true), (t + duckAttack + duckHold, true), (t + duckAttack + duckHold + duckRelease, true)]
        }
        specials += new
        specials.sort { $0.time < $1.time }
    }

    /// Commits everything and returns the result for a sound of `totalSamples` samples.
    mutating func finish(totalSamples: Int64) -> ConvertedHaptics {
        while !pending.isEmpty { commit(pending.removeFirst()) }
        if inStretch { endStretch(at: lastPoint?.time ?? stretchStart) }
        let sharpnessPoints = sharpness.finish()
        let duration = Double(totalSamples) / sampleRate
        var result = ConvertedHaptics(stretches: stretches, transients: transients, duration: duration)
        for k in result.stretches.indices {
            result.stretches[k].sharpness = Self.clip(sharpnessPoints, result.stretches[k].start, result.stretches[k].end)
        }
        return result
    }

    // MARK: committing frames in time order

    private mutating func commit(_ frame: FeatureFrame) {
        // Sharpness describes the sound `sharpnessLatency` before the frame's end.
        let ts = Double(frame.end) / sampleRate - sharpnessLatency
        if ts > lastSharpnessTime && ts >= 0 {
            sharpness.add(CurvePoint(time: ts, value: Double(frame.sharpness)))
            lastSharpnessTime = ts
        }
        if frame.sounding {
            if !inStretch {
                let start = Double(frame.end - Int64(hop)) / sampleRate
                startStretch(at: max(start, lastPoint.map { $0.time + 1 / sampleRate } ?? 0))
            } else {
                for quiet in silentRun { addFramePoint(quiet) }
            }
            silentRun.removeAll()
            addFramePoint(frame)
        } else if inStretch {
            silentRun.append(frame)
            let first = silentRun[0]
            if Double(frame.end - first.end) / sampleRate >= settings.silenceHangover {
                addFramePoint(first)
                endStretch(at: Double(first.peakIndex) / sampleRate)
                silentRun.removeAll()
            }
        }
    }

    private mutating func startStretch(at time: Double) {
        inStretch = true
        stretchStart = time
        // Special points that fell before the stretch (a hit found in the hop before it) go.
        specials.removeAll { $0.time < time }
        lastPoint = nil
        emit(CurvePoint(time: time, value: 0), mandatory: true)
    }

    private mutating func endStretch(at time: Double) {
        let end = max(time, (lastPoint?.time ?? stretchStart) + 1 / sampleRate)
        // Special points inside the stretch not reached yet are placed before the end.
        flushSpecials(before: end, next: CurvePoint(time: end, value: 0))
        emit(CurvePoint(time: end, value: 0), mandatory: true)
        stretches.append(.init(start: stretchStart, end: end, intensity: intensity.finish(), sharpness: []))
        inStretch = false
        specials.removeAll { $0.time <= end }
        hitTimes.removeAll { $0 + duckAttack + duckHold + duckRelease < end }
    }

    private mutating func addFramePoint(_ frame: FeatureFrame) {
        let t = Double(frame.peakIndex) / sampleRate
        guard t > (lastPoint?.time ?? -Double.infinity) else { return }
        let point = CurvePoint(time: t, value: Double(frame.intensity))
        flushSpecials(before: t, next: point)
        emit(point, mandatory: false)
    }

    /// Emits the special points before `time`, valued by interpolation between the last
    /// point and `next` (both before ducking).
    private mutating func flushSpecials(before time: Double, next: CurvePoint) {
        while let first = specials.first, first.time < time {
            specials.removeFirst()
            guard let previous = lastPoint, first.time > previous.time else { continue }
            let f = (first.time - previous.time) / (next.time - previous.time)
            emit(CurvePoint(time: first.time, value: previous.value + (next.value - previous.value) * f), mandatory: first.mandatory)
        }
    }

    /// Feeds the reducer with `point` (its value before ducking) ducked at its time.
    private mutating func emit(_ point: CurvePoint, mandatory: Bool) {
        lastPoint = point
        if hitTimes.count > 64 { hitTimes.removeFirst(hitTimes.count - 32) }
        intensity.add(CurvePoint(time: point.time, value: point.value * duckGain(at: point.time)), mandatory: mandatory)
    }

    /// The ducking gain at `time`: the deepest dip of the hits around it.
    private func duckGain(at time: Double) -> Double {
        let d = settings.ducking
        guard d > 0 else { return 1 }
        var gain = 1.0
        for t in hitTimes.reversed() {
            let tau = time - t
            if tau > duckAttack + duckHold + duckRelease { break }
            if tau <= 0 { continue }
            gain = min(gain, duckingIntensityGain(tau, ducking: d))
        }
        return gain
    }

    /// The points of `curve` within start…end, with the values at both ends interpolated.
    static func clip(_ curve: [CurvePoint], _ start: Double, _ end: Double) -> [CurvePoint] {
        guard let first = curve.first else { return [] }
        func value(at t: Double) -> Double {
            if t <= first.time { return first.value }
            var lo = 0, hi = curve.count - 1
            if t >= curve[hi].time { return curve[hi].value }
            while hi - lo > 1 {
                let mid = (lo + hi) / 2
                if curve[mid].time <= t { lo = mid } else { hi = mid }
            }
            let a = curve[lo], b = curve[hi]
            return b.time > a.time ? a.value + (b.value - a.value) * (t - a.time) / (b.time - a.time) : b.value
        }
        var out = [CurvePoint(time: start, value: value(at: start))]
        for p in curve where p.time > start && p.time < end { out.append(p) }
        if end > start { out.append(CurvePoint(time: end, value: value(at: end))) }
        return out
    }
}
