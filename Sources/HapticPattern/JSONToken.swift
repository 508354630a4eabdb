// What the JSON scanner hands out: the kind of the next value, and a string's raw bytes.

/// The kind of the next JSON value, judged from its first byte.
enum JSONKind: Equatable {
    case object, array, string, number, bool, null, invalid

    var noun: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "true or false"
        case .null: "null"
        case .invalid: "something that is not JSON"
        }
    }
}

/// The raw bytes of a string (between the quotes) and whether it holds escapes.
struct JSONStringToken {
    var start: Int
    var end: Int
    var hasEscapes: Bool
}
