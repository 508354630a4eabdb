// The canonical AHAP writer: stable key order, two-space indentation, one event
// parameter or control point per line, waveform flags only when they differ from
// their defaults (as Core Haptics' own exporter does). Numbers are written with
// Swift's shortest round-trip spelling, so decode(encode(x)) == x exactly.

struct AHAPWriter {
    var output = ""

    mutating func write(_ pattern: AHAPPattern) {
        output.reserveCapacity(64 + pattern.elements.count * 160)
        output += "{\n"
        var members: [String] = []
        if let version = pattern.version { members.append("  \"Version\": \(number(version))") }
        if let metadata = pattern.metadata {
            var text = "  \"Metadata\": "
            Self.writeValue(metadata, indent: 1, into: &text)
            members.append(text)
        }
        for member in members { output += member + ",\n" }
        output += "  \"Pattern\": ["
        for (index, element) in pattern.elements.enumerated() {
            output += index == 0 ? "\n" : ",\n"
            write(element)
        }
        output += pattern.elements.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
    }

    private mutating func write(_ element: PatternElement) {
        switch element {
        case .event(let event):
            output += "    {\n      \"Event\": {\n"
            output += "        \"Time\": \(number(event.time)),\n"
            output += "        \"EventType\": \"\(event.type.rawValue)\""
            if let duration = event.duration { output += ",\n        \"EventDuration\": \(number(duration))" }
            if let path = event.waveformPath {
                output += ",\n        \"EventWaveformPath\": "
                Self.writeString(path, into: &output)
            }
            if !event.useVolumeEnvelope { output += ",\n        \"EventWaveformUseVolumeEnvelope\": false" }
            if event.loopEnabled { output += ",\n        \"EventWaveformLoopEnabled\": true" }
            output += ",\n        \"EventParameters\": ["
            for (k, parameter) in event.parameters.enumerated() {
                output += k == 0 ? "\n" : ",\n"
                output += "          { \"ParameterID\": \"\(parameter.id.rawValue)\", \"ParameterValue\": \(number(parameter.value)) }"
            }
            output += event.parameters.isEmpty ? "]\n" : "\n        ]\n"
            output += "      }\n    }"
        case .parameter(let parameter):
            output += "    {\n      \"Parameter\": {\n"
            output += "        \"ParameterID\": \"\(parameter.id.rawValue)\",\n"
            output += "        \"Time\": \(number(parameter.time)),\n"
            output += "        \"ParameterValue\": \(number(parameter.value))\n"
            output += "      }\n    }"
        case .curve(let curve):
            output += "    {\n      \"ParameterCurve\": {\n"
            output += "        \"ParameterID\": \"\(curve.id.rawValue)\",\n"
            output += "        \"Time\": \(number(curve.time)),\n"
            output += "        \"ParameterCurveControlPoints\": ["
            for (k, point) in curve.controlPoints.enumerated() {
                output += k == 0 ? "\n" : ",\n"
                output += "          { \"Time\": \(number(point.time)), \"ParameterValue\": \(number(point.value)) }"
            }
            output += curve.controlPoints.isEmpty ? "]\n" : "\n        ]\n"
            output += "      }\n    }"
        }
    }

    /// Shortest text that reads back as the same double. Non-finite values cannot be
    /// written in JSON; they become `null`, which the reader refuses (so a model built
    /// in code with a NaN time fails validation instead of silently changing).
    private func number(_ value: Double) -> String {
        value.isFinite ? value.description : "null"
    }

    static func writeValue(_ value: JSONValue, indent: Int, into out: inout String) {
        let pad = String(repeating: "  ", count: indent)
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += n.isFinite ? n.description : "null"
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty {
                out += "[]"
                return
            }
            out += "[\n"
            for (k, item) in items.enumerated() {
                out += pad + "  "
                writeValue(item, indent: indent + 1, into: &out)
                out += k == items.count - 1 ? "\n" : ",\n"
            }
            out += pad + "]"
        case .object(let members):
            if members.isEmpty {
                out += "{}"
                return
            }
            out += "{\n"
            for (k, member) in members.enumerated() {
                out += pad + "  "
                writeString(member.key, into: &out)
                out += ": "
                writeValue(member.value, indent: indent + 1, into: &out)
                out += k == members.count - 1 ? "\n" : ",\n"
            }
            out += pad + "}"
        }
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped.
    static func writeString(_ text: String, into out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}

extension JSONValue {
    /// Compact-ish JSON text of this value (the encoder's spelling).
    public var jsonText: String {
        var out = ""
        AHAPWriter.writeValue(self, indent: 0, into: &out)
        return out
    }
}
