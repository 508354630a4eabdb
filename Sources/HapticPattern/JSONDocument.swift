// Plain JSON documents (actuator profiles, cue sheets) read with the AHAP reader's
// scanner: the same depth and number-size bounds, errors with line and column, and
// duplicate keys found (Foundation's decoders silently keep one of them).

extension JSONValue {
    /// Parses a whole JSON document (UTF-8, optional BOM, trailing commas accepted).
    /// Errors are `.syntax` with line and column.
    public static func parse(_ bytes: [UInt8]) throws(AHAPError) -> JSONValue {
        let result: Result<JSONValue, AHAPError> = bytes.withUnsafeBufferPointer { buffer in
            let bom = buffer.count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF
            var scanner = JSONScanner(bytes: buffer, start: bom ? 3 : 0)
            do throws(AHAPError) {
                scanner.skipWhitespace()
                if scanner.atEnd { throw scanner.fail("empty file: no JSON value") }
                let value = try scanner.readValue()
                scanner.skipWhitespace()
                if !scanner.atEnd { throw scanner.fail("unexpected \(scanner.describeCurrent()) after the end of the document") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The first key given twice in one object, as a dotted path (`protection.order`,
    /// `cues[3].sound`), or nil when every object's keys are distinct.
    public var firstDuplicateKey: String? { firstDuplicateKey(under: "") }

    private func firstDuplicateKey(under base: String) -> String? {
        switch self {
        case .object(let members):
            var seen: Set<String> = []
            for member in members {
                let path = base.isEmpty ? member.key : "\(base).\(member.key)"
                if !seen.insert(member.key).inserted { return path }
                if let found = member.value.firstDuplicateKey(under: path) { return found }
            }
            return nil
        case .array(let items):
            for (index, item) in items.enumerated() {
                if let found = item.firstDuplicateKey(under: "\(base)[\(index)]") { return found }
            }
            return nil
        default:
            return nil
        }
    }

    /// The member `key` of an object (the last one when given twice), else nil.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.last(where: { $0.key == key })?.value
    }
}
