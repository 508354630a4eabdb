// Breakpoint reduction (Visvalingam–Whyatt, as Meta Haptics Studio's analyser does it):
// points arrive in time order and are reduced one region (one second) at a time, so memory
// is one region's points however long the sound. In a region, the point whose triangle with
// its neighbours has the smallest area goes first, until at most `maxPerRegion` remain, and
// then while that smallest area is under `tolerance` (flat or straight stretches keep only
// their ends). Mandatory points (a hit, the edges of a ducking dip) are never removed. The
// last point kept in a region starts the next, so the reduced curve is continuous.

struct BreakpointReducer {
    let regionSeconds: Double
    let maxPerRegion: Int
    let tolerance: Double

    /// Points kept so far (the reduced curve).
    private(set) var output: [CurvePoint] = []
    /// The current region's points; `region[0]` is the anchor (already in `output`) except
    /// for the very first region.
    private var region: [CurvePoint] = []
    private var mandatory: [Bool] = []
    private var regionStart = 0.0
    private var anchored = false

    init(regionSeconds: Double = 1, maxPerRegion: Int, tolerance: Double) {
        self.regionSeconds = regionSeconds
        self.maxPerRegion = max(2, maxPerRegion)
        self.tolerance = tolerance
    }

    /// Adds the next point (times must not decrease).
    mutating func add(_ point: CurvePoint, mandatory isMandatory: Bool = false) {
        if region.isEmpty {
            regionStart = point.time
        } else if point.time >= regionStart + regionSeconds && region.count >= 2 {
            reduceRegion()
            regionStart = region[0].time
        }
        region.append(point)
        mandatory.append(isMandatory)
    }

    /// Reduces what is left and returns the whole reduced curve; the reducer is empty after.
    mutating func finish() -> [CurvePoint] {
        if !region.isEmpty {
            reduceRegion()
            if !anchored, let only = region.first { output.append(only) }
        }
        region.removeAll()
        mandatory.removeAll()
        anchored = false
        let result = output
        output = []
        return result
    }

    /// Reduces `region`, appends what it keeps to `output` (all but an anchor already there),
    /// and leaves the last kept point as the anchor of the next region.
    private mutating func reduceRegion() {
        let kept = Self.reduce(region, mandatory: mandatory, maxCount: maxPerRegion + (anchored ? 1 : 0), tolerance: tolerance)
        for (i, index) in kept.enumerated() where !(anchored && i == 0) {
            output.append(region[index])
        }
        let last = region[kept[kept.count - 1]]
        region = [last]
        mandatory = [true]
        anchored = true
    }

    /// Indices of the points kept (ascending): the two ends and every mandatory point
    /// always; others by Visvalingam–Whyatt down to `maxCount`, then below `tolerance`.
    static func reduce(_ points: [CurvePoint], mandatory: [Bool], maxCount: Int, tolerance: Double) -> [Int] {
        let n = points.count
        if n <= 2 { return Array(0..<n) }
        var previous = (0..<n).map { $0 - 1 }
        var next = (0..<n).map { $0 + 1 }
        var removed = [Bool](repeating: false, count: n)
        var heap = TriangleHeap(capacity: n * 3)
        func area(_ a: Int, _ b: Int, _ c: Int) -> Double {
            let pa = points[a], pb = points[b], pc = points[c]
            return abs((pa.time - pb.time) * (pc.value - pb.value) - (pc.time - pb.time) * (pa.value - pb.value)) / 2
        }
        for i in 1..<(n - 1) where !mandatory[i] {
            heap.push(.init(area: area(i - 1, i, i + 1), middle: i, left: i - 1, right: i + 1))
        }
        var count = n
        while let smallest = heap.pop() {
            let m = smallest.middle
            if removed[m] || previous[m] != smallest.left || next[m] != smallest.right { continue }
            if count <= maxCount && smallest.area >= tolerance { break }
            removed[m] = true
            count -= 1
            let l = previous[m], r = next[m]
            next[l] = r
            previous[r] = l
            // (The two neighbours one at a time: a literal array here was an allocation per point.)
            if l > 0 && !mandatory[l] {
                heap.push(.init(area: area(previous[l], l, next[l]), middle: l, left: previous[l], right: next[l]))
            }
            if r < n - 1 && !mandatory[r] {
                heap.push(.init(area: area(previous[r], r, next[r]), middle: r, left: previous[r], right: next[r]))
            }
        }
        return (0..<n).filter { !removed[$0] }
    }
}

/// A binary min-heap of triangles by area (ties: earlier middle first, so results are
/// deterministic). Package-wide: convert-bench's replica of Meta's reduction orders by it too.
package struct TriangleHeap {
    package struct Triangle {
        package var area: Double
        package var middle: Int
        package var left: Int
        package var right: Int
        package init(area: Double, middle: Int, left: Int, right: Int) {
            self.area = area
            self.middle = middle
            self.left = left
            self.right = right
        }
        func precedes(_ other: Triangle) -> Bool {
            area < other.area || (area == other.area && middle < other.middle)
        }
    }
    private var items: [Triangle] = []

    package init(capacity: Int) { items.reserveCapacity(capacity) }

    /// The smallest triangle, left in the heap.
    package var smallest: Triangle? { items.first }

    package mutating func push(_ t: Triangle) {
        items.append(t)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            if items[i].precedes(items[parent]) {
                items.swapAt(i, parent)
                i = parent
            } else {
                break
            }
        }
    }

    package mutating func pop() -> Triangle? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            while true {
                let l = 2 * i + 1, r = l + 1
                var best = i
                if l < items.count && items[l].precedes(items[best]) { best = l }
                if r < items.count && items[r].precedes(items[best]) { best = r }
                if best == i { break }
                items.swapAt(i, best)
                i = best
            }
        }
        return top
    }
}
