// Dense, overlapping patterns that keep the protection limiter working all the time: what the
// limiter's sub-band tests (HapticRenderTests) and bench/limiter-bench render. Generated from
// fixed seeds, so every run renders the same patterns; several kinds and seeds, so that nothing
// is tuned to one file.

import HapticPattern

/// A generated dense pattern: many events at full or near-full intensity sounding together, so
/// that the summed drive is many times the ceiling and the limiter never rests.
public enum DensePattern: String, CaseIterable, Sendable, CustomStringConvertible {
    /// 1,000 overlapping continuous events of 0.5-4 s, random intensity, sharpness and envelope.
    case continuous
    /// 1,000 continuous events at full intensity sounding together from start to end, random
    /// sharpness: the heaviest load (the drive is some 70 times the ceiling).
    case stacked
    /// 4,000 transients, random intensity and sharpness, several sounding at every moment.
    case transients
    /// 400 continuous events and 2,500 transients, with intensity and sharpness curves.
    case mixed
    /// 1,000 continuous events at sharpness 0-0.2 sounding together: the band's low edge, next
    /// to the high-pass.
    case low
    /// 1,000 continuous events whose frequencies glide (sharpness curves) while they overlap.
    case glides
    /// 1,000 overlapping continuous events in bursts: the load rises and falls every few seconds
    /// (the limiter's gain moves over a wide range, never resting).
    case swells

    public var description: String {
        switch self {
        case .continuous: return "1,000 overlapping continuous events, random sharpness and intensity"
        case .stacked: return "1,000 continuous events sounding together at full intensity, random sharpness"
        case .transients: return "4,000 overlapping transients, random sharpness and intensity"
        case .mixed: return "400 continuous events, 2,500 transients, intensity and sharpness curves"
        case .low: return "1,000 continuous events together at sharpness 0-0.2 (the band's low edge)"
        case .glides: return "1,000 overlapping continuous events under sharpness curves (gliding frequencies)"
        case .swells: return "1,000 continuous events in swells (the load rises and falls)"
        }
    }

    /// The patterns' nominal length in seconds (the bench's; the tests take shorter ones).
    public static let seconds = 20.0

    /// The pattern for `seed` (the same seed gives the same pattern), about `length` seconds
    /// long (at least 6) with the same number of events whatever the length, times `density`
    /// (in (0, 1]: the debug-build tests render a fraction of the events, still many times the
    /// ceiling; the bench all of them).
    public func pattern(seed: UInt64, length: Double = DensePattern.seconds, density: Double = 1) -> AHAPPattern {
        var g = SeededRandom(seed: seed &* 0x9E37_79B9 &+ UInt64(DensePattern.allCases.firstIndex(of: self)!))
        let length = max(6, length)
        let density = density > 0 && density < 1 ? density : 1
        func count(_ n: Int) -> Int { max(1, Int((Double(n) * density).rounded())) }
        func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &g) }
        func continuous(sharpness: ClosedRange<Double>, durations: ClosedRange<Double>, at start: Double? = nil) -> PatternElement {
            let duration = uniform(durations)
            let at = start ?? uniform(0...(length - duration))
            var extra: [EventParameter] = []
            // Some events with their own envelope, so the sum does not only switch on and off.
            if uniform(0...1) < 0.3 { extra.append(EventParameter(.attackTime, uniform(0...1))) }
            if uniform(0...1) < 0.3 { extra.append(EventParameter(.releaseTime, uniform(0...1))) }
            if uniform(0...1) < 0.2 {
                extra.append(EventParameter(.sustained, 0))
                extra.append(EventParameter(.decayTime, uniform(0...1)))
            }
            return .event(.continuous(at: at, duration: duration, intensity: uniform(0.5...1), sharpness: uniform(sharpness), extra: extra))
        }
        func transient(at start: Double? = nil) -> PatternElement {
            .event(.transient(at: start ?? uniform(0...length), intensity: uniform(0.6...1), sharpness: uniform(0...1)))
        }
        func curve(_ id: DynamicParameterID, _ values: ClosedRange<Double>, points: Int) -> PatternElement {
            let step = length / Double(points - 1)
            return .curve(ParameterCurve(id, time: 0, points: (0..<points).map { .init(Double($0) * step, uniform(values)) }))
        }
        switch self {
        case .continuous:
            return AHAPPattern(elements: (0..<count(1_000)).map { _ in continuous(sharpness: 0...1, durations: 0.5...4) })
        case .stacked:
            return AHAPPattern(elements: (0..<count(1_000)).map { _ in
                .event(.continuous(at: uniform(0...0.5), duration: length - 0.5, intensity: 1, sharpness: uniform(0...1)))
            })
        case .transients:
            return AHAPPattern(elements: (0..<count(4_000)).map { _ in transient() })
        case .mixed:
            let events = (0..<count(400)).map { _ in continuous(sharpness: 0...1, durations: 0.2...3) } + (0..<count(2_500)).map { _ in transient() }
            return AHAPPattern(elements: events + [
                curve(.hapticIntensityControl, 0.4...1, points: 16), curve(.hapticSharpnessControl, -0.3...0.3, points: 12),
            ])
        case .low:
            return AHAPPattern(elements: (0..<count(1_000)).map { _ in
                .event(.continuous(at: uniform(0...0.5), duration: length - 0.5, intensity: uniform(0.3...1), sharpness: uniform(0...0.2)))
            })
        case .glides:
            // Curves are pattern-wide: the whole sum glides while its events overlap. Each
            // curve is short, so several follow one another.
            var elements = (0..<count(1_000)).map { _ in continuous(sharpness: 0...1, durations: 1...6) }
            var t = 0.0
            while t < length {
                let points = (0..<5).map { ParameterCurve.ControlPoint(Double($0) * 0.5, uniform(-0.5...0.5)) }
                elements.append(.curve(ParameterCurve(.hapticSharpnessControl, time: t, points: points)))
                t += 2
            }
            return AHAPPattern(elements: elements)
        case .swells:
            // Ten swells of a tenth of the events each, evenly spread, overlapping the next.
            let spacing = (length - 2) / 9
            let events = count(1_000), perSwell = max(1, events / 10)
            return AHAPPattern(elements: (0..<events).map { i in
                let center = Double(min(9, i / perSwell)) * spacing + 0.5
                return continuous(sharpness: 0...1, durations: 0.5...2.5, at: max(0, center + uniform(-0.4...0.4)))
            })
        }
    }
}
