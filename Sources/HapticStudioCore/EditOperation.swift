// One edit as the page sends it, against what the page shows (a transient or curve point by its
// index in the shown, edited list), turned into a change of the layer. Every value is checked
// first: a bad edit is refused with a message and changes nothing.

import HapticKit

/// An edit of the shown haptics.
public struct EditOperation: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case addTransient, changeTransient, deleteTransient, addPoint, changePoint, deletePoint
    }

    public var op: Kind
    /// The shown transient's or point's index (change, delete).
    public var index: Int?
    /// The curve (points).
    public var curve: CurveName?
    /// New values (add; change: those given change, the rest stay).
    public var time: Double?
    public var intensity: Double?
    public var sharpness: Double?
    public var value: Double?

    public init(op: Kind, index: Int? = nil, curve: CurveName? = nil, time: Double? = nil, intensity: Double? = nil, sharpness: Double? = nil, value: Double? = nil) {
        self.op = op
        self.index = index
        self.curve = curve
        self.time = time
        self.intensity = intensity
        self.sharpness = sharpness
        self.value = value
    }

    /// The layer with this edit, against `shown` (the layer's current result over the analysis
    /// of a range `duration` seconds long).
    func applied(to layer: EditLayer, shown: EditedHaptics, duration: Double) throws(StudioError) -> EditLayer {
        func checked(_ name: String, _ v: Double?, _ range: ClosedRange<Double>, unit: String = "") throws(StudioError) -> Double? {
            guard let v else { return nil }
            guard v.isFinite, range.contains(v) else {
                throw .bad("\(name) \(v): expected \(StudioSettings.number(range.lowerBound))-\(StudioSettings.number(range.upperBound))\(unit)")
            }
            return v + 0  // (-0 as 0)
        }
        let time = try checked("time", self.time, 0...max(duration, 0), unit: " s")
        let intensity = try checked("intensity", self.intensity, 0...1)
        let sharpness = try checked("sharpness", self.sharpness, 0...1)
        let value = try checked("value", self.value, 0...1)
        var layer = layer
        switch op {
        case .addTransient:
            guard let time else { throw .bad("addTransient: needs a time") }
            layer.addedTransients.append(.init(time: time, intensity: intensity ?? 1, sharpness: sharpness ?? 0.5))
        case .changeTransient, .deleteTransient:
            let hits = shown.haptics.transients
            guard let index, hits.indices.contains(index) else {
                throw .bad("\(op.rawValue): index \(index.map(String.init) ?? "missing"): the pattern shows \(hits.count) transients")
            }
            let hit = hits[index]
            let edited = EditedTransient(time: time ?? hit.time, intensity: intensity ?? hit.intensity, sharpness: sharpness ?? hit.sharpness)
            switch (op, shown.transientOrigins[index]) {
            case (.deleteTransient, .analysed(let original)):
                layer.changedTransients.removeAll { abs($0.original - original) <= EditLayer.matchTolerance }
                layer.deletedTransients.append(original)
            case (.deleteTransient, .added(let k)):
                layer.addedTransients.remove(at: k)
            case (_, .analysed(let original)):
                layer.changedTransients.removeAll { abs($0.original - original) <= EditLayer.matchTolerance }
                layer.changedTransients.append(.init(original: original, curve: nil, value: edited))
            case (_, .added(let k)):
                layer.addedTransients[k] = edited
            }
        case .addPoint:
            guard let curve, let time, let value else { throw .bad("addPoint: needs a curve (intensity or sharpness), a time and a value") }
            guard shown.haptics.stretches.contains(where: { $0.start <= time && time <= $0.end }) else {
                throw .bad("addPoint: time \(time) s is outside every stretch where the sound sounds; a curve point goes within one")
            }
            layer.addedPoints.append(.init(curve: curve, point: .init(time: time, value: value)))
        case .changePoint, .deletePoint:
            guard let curve else { throw .bad("\(op.rawValue): needs a curve (intensity or sharpness)") }
            let points = shown.haptics.stretches.flatMap { curve == .intensity ? $0.intensity : $0.sharpness }
            let origins = shown.pointOrigins[curve] ?? []
            guard let index, points.indices.contains(index), origins.indices.contains(index) else {
                throw .bad("\(op.rawValue): index \(index.map(String.init) ?? "missing"): the \(curve.rawValue) curve shows \(points.count) points")
            }
            let edited = EditedPoint(time: time ?? points[index].time, value: value ?? points[index].value)
            switch (op, origins[index]) {
            case (.deletePoint, .analysed(let original)):
                layer.changedPoints.removeAll { $0.curve == curve && abs($0.original - original) <= EditLayer.matchTolerance }
                layer.deletedPoints.append(.init(curve: curve, original: original))
            case (.deletePoint, .added(let k)):
                layer.addedPoints.remove(at: k)
            case (_, .analysed(let original)):
                layer.changedPoints.removeAll { $0.curve == curve && abs($0.original - original) <= EditLayer.matchTolerance }
                layer.changedPoints.append(.init(original: original, curve: curve, value: edited))
            case (_, .added(let k)):
                layer.addedPoints[k].point = edited
            }
        }
        return layer
    }
}

/// Undo and redo over a sound's layers: every edit pushes the layer before it.
public struct EditHistory: Sendable {
    public private(set) var layer = EditLayer()
    private var past: [EditLayer] = []
    private var future: [EditLayer] = []
    /// The steps kept (the oldest are forgotten).
    static let depth = 500

    public init(layer: EditLayer = EditLayer()) { self.layer = layer }

    public var canUndo: Bool { !past.isEmpty }
    public var canRedo: Bool { !future.isEmpty }

    public mutating func record(_ next: EditLayer) {
        past.append(layer)
        if past.count > Self.depth { past.removeFirst() }
        future.removeAll()
        layer = next
    }

    public mutating func undo() throws(StudioError) {
        guard let previous = past.popLast() else { throw .bad("undo: nothing to undo") }
        future.append(layer)
        layer = previous
    }

    public mutating func redo() throws(StudioError) {
        guard let next = future.popLast() else { throw .bad("redo: nothing to redo") }
        past.append(layer)
        layer = next
    }
}
