// The designer's edits, kept as a layer over the analysis rather than as a copy of its result:
// moving a setting re-analyses the sound and the layer is laid over the new result, so edits
// survive re-analysis. An edit of an analysed element names it by its time in the analysis (a
// hit, a curve point); after re-analysis it applies to the element within `matchTolerance` of
// that time, and one whose element is gone is kept but not applied (an orphan: it applies
// again if the element comes back, as a hit does when the sensitivity returns).

import HapticKit

/// Which curve of the continuous layer.
public enum CurveName: String, Codable, Sendable, CaseIterable { case intensity, sharpness }

/// A transient or curve point's values as the designer set them (times in seconds from the
/// converted range's start; values 0…1).
public struct EditedTransient: Codable, Sendable, Equatable {
    public var time: Double
    public var intensity: Double
    public var sharpness: Double
}

public struct EditedPoint: Codable, Sendable, Equatable {
    public var time: Double
    public var value: Double
}

/// The edits over one sound's analysis.
public struct EditLayer: Codable, Sendable, Equatable {
    /// Analysed hits deleted (their analysed times).
    public var deletedTransients: [Double] = []
    /// Analysed hits changed: the analysed time and the new values.
    public var changedTransients: [Change<EditedTransient>] = []
    /// Hits the designer added.
    public var addedTransients: [EditedTransient] = []
    public var deletedPoints: [CurvePointKey] = []
    public var changedPoints: [Change<EditedPoint>] = []
    public var addedPoints: [AddedPoint] = []

    public struct Change<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
        /// The analysed element's time (and curve, for a point).
        public var original: Double
        public var curve: CurveName?
        public var value: Value
    }

    public struct CurvePointKey: Codable, Sendable, Equatable {
        public var curve: CurveName
        public var original: Double
    }

    public struct AddedPoint: Codable, Sendable, Equatable {
        public var curve: CurveName
        public var point: EditedPoint
    }

    public init() {}

    /// How many edits the layer holds.
    public var count: Int {
        deletedTransients.count + changedTransients.count + addedTransients.count + deletedPoints.count + changedPoints.count
            + addedPoints.count
    }

    /// Two analysed times are the same element within this (s): a tenth of the shortest gap.
    static let matchTolerance = 0.001
}

/// Where a shown element comes from: the analysis (its analysed time) or the designer.
public enum ElementOrigin: Sendable, Equatable {
    case analysed(Double)
    case added(Int)
}

/// The analysis with the layer laid over it: what is drawn, saved and played.
public struct EditedHaptics: Sendable {
    public var haptics: ConvertedHaptics
    /// Per transient shown (in time order), where it comes from and whether an edit touched it.
    public var transientOrigins: [ElementOrigin]
    /// Per curve, per point shown (all stretches in time order), where it comes from.
    public var pointOrigins: [CurveName: [ElementOrigin]]
    /// Edits whose analysed element is not in this analysis.
    public var orphans: Int
}

extension EditLayer {
    /// `analysis` with the layer laid over it.
    public func applied(to analysis: ConvertedHaptics) -> EditedHaptics {
        var orphans = 0
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= Self.matchTolerance }

        // Transients: the analysed ones (deleted ones out, changed ones changed), then the added.
        var transients: [(ConvertedHaptics.Transient, ElementOrigin)] = []
        for hit in analysis.transients {
            if deletedTransients.contains(where: { near($0, hit.time) }) { continue }
            if let change = changedTransients.last(where: { near($0.original, hit.time) }) {
                let v = change.value
                transients.append((.init(time: v.time, intensity: v.intensity, sharpness: v.sharpness), .analysed(hit.time)))
            } else {
                transients.append((hit, .analysed(hit.time)))
            }
        }
        orphans += deletedTransients.filter { t in !analysis.transients.contains { near($0.time, t) } }.count
        orphans += changedTransients.filter { c in !analysis.transients.contains { near($0.time, c.original) } }.count
        for (index, added) in addedTransients.enumerated() {
            transients.append((.init(time: added.time, intensity: added.intensity, sharpness: added.sharpness), .added(index)))
        }
        transients.sort { $0.0.time < $1.0.time }

        // Curve points: per stretch, likewise; an added point goes into the stretch it falls in.
        var stretches = analysis.stretches
        var pointOrigins: [CurveName: [ElementOrigin]] = [:]
        for curve in CurveName.allCases {
            var origins: [ElementOrigin] = []
            var placed = Set<Int>()
            for s in stretches.indices {
                let analysed = curve == .intensity ? stretches[s].intensity : stretches[s].sharpness
                var points: [(CurvePoint, ElementOrigin)] = []
                for point in analysed {
                    if deletedPoints.contains(where: { $0.curve == curve && near($0.original, point.time) }) { continue }
                    if let change = changedPoints.last(where: { $0.curve == curve && near($0.original, point.time) }) {
                        let time = min(max(change.value.time, stretches[s].start), stretches[s].end)
                        points.append((CurvePoint(time: time, value: change.value.value), .analysed(point.time)))
                    } else {
                        points.append((point, .analysed(point.time)))
                    }
                }
                for (index, added) in addedPoints.enumerated() where added.curve == curve && !placed.contains(index) {
                    guard added.point.time >= stretches[s].start && added.point.time <= stretches[s].end else { continue }
                    placed.insert(index)
                    points.append((CurvePoint(time: added.point.time, value: added.point.value), .added(index)))
                }
                points.sort { $0.0.time < $1.0.time }
                // A curve's times increase: of two points at one time, the later edit's is kept.
                var kept: [(CurvePoint, ElementOrigin)] = []
                for point in points {
                    if let last = kept.last, point.0.time <= last.0.time { kept[kept.count - 1] = point } else { kept.append(point) }
                }
                if curve == .intensity { stretches[s].intensity = kept.map(\.0) } else { stretches[s].sharpness = kept.map(\.0) }
                origins += kept.map(\.1)
            }
            orphans += addedPoints.indices.filter { addedPoints[$0].curve == curve && !placed.contains($0) }.count
            pointOrigins[curve] = origins
        }
        for key in deletedPoints {
            let analysed = analysis.stretches.flatMap { key.curve == .intensity ? $0.intensity : $0.sharpness }
            if !analysed.contains(where: { near($0.time, key.original) }) { orphans += 1 }
        }
        for change in changedPoints {
            let analysed = analysis.stretches.flatMap { change.curve == .intensity ? $0.intensity : $0.sharpness }
            if !analysed.contains(where: { near($0.time, change.original) }) { orphans += 1 }
        }

        var haptics = analysis
        haptics.transients = transients.map(\.0)
        haptics.stretches = stretches
        return EditedHaptics(haptics: haptics, transientOrigins: transients.map(\.1), pointOrigins: pointOrigins, orphans: orphans)
    }
}
