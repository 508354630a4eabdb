// The `.haptic` writer: the spec's key order, one breakpoint per line, numbers in Swift's
// shortest round-trip spelling (decode(encode(x)) == x exactly).

extension HapticClip {
    /// `.haptic` JSON text.
    public func encoded() -> String {
        var out = ""
        out.reserveCapacity(256 + (amplitude.count + frequency.count) * 48)
        out += "{\n  \"version\": { \"major\": \(version.major), \"minor\": \(version.minor), \"patch\": \(version.patch) },\n"
        out += "  \"metadata\": {"
        var fields: [String] = []
        func field(_ key: String, _ value: String?) {
            guard let value else { return }
            var text = "\n    \"\(key)\": "
            AHAPWriter.writeString(value, into: &text)
            fields.append(text)
        }
        field("author", metadata.author)
        field("editor", metadata.editor)
        field("source", metadata.source)
        field("project", metadata.project)
        if let tags = metadata.tags {
            var text = "\n    \"tags\": ["
            for (k, tag) in tags.enumerated() {
                if k > 0 { text += ", " }
                AHAPWriter.writeString(tag, into: &text)
            }
            fields.append(text + "]")
        }
        field("description", metadata.description)
        for (key, value) in metadata.other {
            var text = "\n    "
            AHAPWriter.writeString(key, into: &text)
            text += ": "
            AHAPWriter.writeValue(value, indent: 2, into: &text)
            fields.append(text)
        }
        out += fields.joined(separator: ",")
        out += fields.isEmpty ? "},\n" : "\n  },\n"
        out += "  \"signals\": {\n    \"continuous\": {\n      \"envelopes\": {\n        \"amplitude\": ["
        for (k, point) in amplitude.enumerated() {
            out += k == 0 ? "\n" : ",\n"
            out += "          { \"time\": \(number(point.time)), \"amplitude\": \(number(point.amplitude))"
            if let e = point.emphasis {
                out += ", \"emphasis\": { \"amplitude\": \(number(e.amplitude)), \"frequency\": \(number(e.frequency)) }"
            }
            out += " }"
        }
        out += amplitude.isEmpty ? "],\n" : "\n        ],\n"
        out += "        \"frequency\": ["
        for (k, point) in frequency.enumerated() {
            out += k == 0 ? "\n" : ",\n"
            out += "          { \"time\": \(number(point.time)), \"frequency\": \(number(point.frequency)) }"
        }
        out += frequency.isEmpty ? "]\n" : "\n        ]\n"
        out += "      }\n    }\n  }\n}\n"
        return out
    }

    /// Non-finite values cannot be written in JSON; they become `null`, which the reader refuses.
    private func number(_ value: Double) -> String { value.isFinite ? value.description : "null" }
}
