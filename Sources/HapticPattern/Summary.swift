// Facts about a pattern that the CLI (`info`), the renderer and the pattern library
// need without walking the elements themselves.

/// The range of values a parameter takes in a pattern, and how often it appears.
public struct ValueRange: Sendable, Equatable {
    public var min: Double
    public var max: Double
    /// How many values were seen (entries, or control points for curves).
    public var count: Int
    public init(min: Double, max: Double, count: Int) {
        self.min = min
        self.max = max
        self.count = count
    }

    mutating func include(_ value: Double) {
        min = Swift.min(min, value)
        max = Swift.max(max, value)
        count += 1
    }
}

/// The curves of one dynamic parameter in a pattern.
public struct CurveSummary: Sendable, Equatable {
    public var id: DynamicParameterID
    /// Number of `ParameterCurve` elements for this parameter.
    public var curves: Int
    /// Total and largest number of control points over those curves.
    public var controlPoints: Int
    public var maxControlPoints: Int
    /// First curve start and last absolute control-point time, in seconds.
    public var start: Double
    public var end: Double
    public init(id: DynamicParameterID, curves: Int, controlPoints: Int, maxControlPoints: Int, start: Double, end: Double) {
        self.id = id
        self.curves = curves
        self.controlPoints = controlPoints
        self.maxControlPoints = maxControlPoints
        self.start = start
        self.end = end
    }
}

/// A pattern's duration, contents and references.
public struct AHAPSummary: Sendable, Equatable {
    /// Seconds from 0 to the last thing that happens: the latest event end (time +
    /// duration; a transient or an AudioCustom event without duration counts at its
    /// start, since its length belongs to the actuator or the sound file), parameter
    /// time or last curve point.
    public var duration: Double
    /// Event counts by type, for every type (zero when absent).
    public var eventCounts: [EventType: Int]
    /// Number of `Parameter` elements and of `ParameterCurve` elements.
    public var parameterCount: Int
    public var curveCount: Int
    /// `EventWaveformPath`s, each once, in order of first appearance.
    public var audioFiles: [String]
    /// Ranges of the event parameter values the file gives (absent ones are not counted).
    public var eventParameterRanges: [EventParameterID: ValueRange]
    /// Ranges of dynamic parameter values (`Parameter` elements and curve points).
    public var dynamicParameterRanges: [DynamicParameterID: ValueRange]
    /// Curves by parameter, in `DynamicParameterID.allCases` order.
    public var curves: [CurveSummary]

    /// Total number of events.
    public var eventCount: Int { eventCounts.values.reduce(0, +) }
}

extension AHAPPattern {
    /// The end of an event in seconds (see `AHAPSummary.duration`).
    public static func end(of event: Event) -> Double {
        event.time + (event.duration ?? 0)
    }

    /// The pattern's duration in seconds (see `AHAPSummary.duration`).
    public var duration: Double {
        var end = 0.0
        for element in elements {
            switch element {
            case .event(let event): end = max(end, AHAPPattern.end(of: event))
            case .parameter(let parameter): end = max(end, parameter.time)
            case .curve(let curve):
                end = max(end, curve.time + (curve.controlPoints.map(\.time).max() ?? 0))
            }
        }
        return end
    }

    /// Referenced audio files (`EventWaveformPath` of AudioCustom events), each once.
    public var audioFiles: [String] {
        var seen = Set<String>()
        var list: [String] = []
        for case .event(let event) in elements {
            if event.type == .audioCustom, let path = event.waveformPath, seen.insert(path).inserted {
                list.append(path)
            }
        }
        return list
    }

    /// All events, in file order.
    public var events: [Event] {
        elements.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    /// Counts, ranges, curves and references in one pass.
    public var summary: AHAPSummary {
        var counts: [EventType: Int] = [:]
        for type in EventType.allCases { counts[type] = 0 }
        var eventRanges: [EventParameterID: ValueRange] = [:]
        var dynamicRanges: [DynamicParameterID: ValueRange] = [:]
        var curveTable: [DynamicParameterID: CurveSummary] = [:]
        var parameters = 0
        var curves = 0
        func include(_ id: DynamicParameterID, _ value: Double) {
            dynamicRanges[id, default: ValueRange(min: value, max: value, count: 0)].include(value)
        }
        for element in elements {
            switch element {
            case .event(let event):
                counts[event.type, default: 0] += 1
                for parameter in event.parameters {
                    eventRanges[parameter.id, default: ValueRange(min: parameter.value, max: parameter.value, count: 0)]
                        .include(parameter.value)
                }
            case .parameter(let parameter):
                parameters += 1
                include(parameter.id, parameter.value)
            case .curve(let curve):
                curves += 1
                for point in curve.controlPoints { include(curve.id, point.value) }
                let end = curve.time + (curve.controlPoints.map(\.time).max() ?? 0)
                var entry = curveTable[curve.id] ?? CurveSummary(
                    id: curve.id, curves: 0, controlPoints: 0, maxControlPoints: 0, start: curve.time, end: end)
                entry.curves += 1
                entry.controlPoints += curve.controlPoints.count
                entry.maxControlPoints = max(entry.maxControlPoints, curve.controlPoints.count)
                entry.start = min(entry.start, curve.time)
                entry.end = max(entry.end, end)
                curveTable[curve.id] = entry
            }
        }
        return AHAPSummary(
            duration: duration, eventCounts: counts, parameterCount: parameters, curveCount: curves,
            audioFiles: audioFiles, eventParameterRanges: eventRanges, dynamicParameterRanges: dynamicRanges,
            curves: DynamicParameterID.allCases.compactMap { curveTable[$0] })
    }
}
