// cairo names SVG elements after process-wide counters (`surface5`, `image12`): the second
// picture drawn in one process would differ from the first in its ids alone. They are
// renumbered here in order of first appearance, so equal pictures are equal bytes.

enum SVGIdentifiers {
    /// The prefixes of the ids cairo numbers (its glyph ids are per document already).
    static let prefixes: [[UInt8]] = ["surface", "image", "source", "pattern", "clip", "mask"].map { Array($0.utf8) }

    /// `svg` with every `PREFIXnumber` id, after `id="` or `#`, renumbered per prefix from 1 in
    /// order of first appearance.
    static func renumbered(_ svg: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(svg.count)
        var numbers: [[UInt8]: [ArraySlice<UInt8>: Int]] = [:]
        let idOpen = Array("id=\"".utf8)
        let hash = UInt8(ascii: "#")
        var i = 0
        while i < svg.count {
            var start = -1
            if svg[i] == hash {
                start = i + 1
            } else if svg[i] == idOpen[0], i + idOpen.count <= svg.count, Array(svg[i..<(i + idOpen.count)]) == idOpen {
                start = i + idOpen.count
            }
            guard start >= 0 else {
                out.append(svg[i])
                i += 1
                continue
            }
            out.append(contentsOf: svg[i..<start])
            i = start
            guard let prefix = prefixes.first(where: { p in
                i + p.count < svg.count && Array(svg[i..<(i + p.count)]) == p && isDigit(svg[i + p.count])
            }) else { continue }
            var end = i + prefix.count
            while end < svg.count && isDigit(svg[end]) { end += 1 }
            let number = svg[(i + prefix.count)..<end]
            var table = numbers[prefix, default: [:]]
            let renumbered = table[number] ?? table.count + 1
            table[number] = renumbered
            numbers[prefix] = table
            out.append(contentsOf: prefix)
            out.append(contentsOf: Array(String(renumbered).utf8))
            i = end
        }
        return out
    }

    private static func isDigit(_ b: UInt8) -> Bool { b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
}
