// Decodable types read from a parsed JSONValue (the project's scanner), so that the model and
// renderer need no Foundation JSONDecoder: the same `init(from:)`, the same `DecodingError`s
// (the standard library's), with document-ordered keys.

/// Decodes a `Decodable` value from a ``JSONValue``.
///
/// It throws what `JSONDecoder` throws, in the same cases: `keyNotFound` for a missing key,
/// `valueNotFound` for a null where a value belongs, `typeMismatch` for a value of another JSON
/// type, and `dataCorrupted` for a number that does not fit the integer type asked for; every
/// context carries the coding path. `allKeys` lists an object's keys in document order.
public enum JSONValueDecoder {
    /// `T` read from `value`.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }
}

/// A coding key for array positions and for any object key.
private struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}

private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw typeMismatch([String: JSONValue].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedContainer<Key>(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw typeMismatch([JSONValue].self, value, codingPath) }
        return UnkeyedContainer(items: items, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { SingleValue(value: value, codingPath: codingPath) }
}

private func describe(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
}

private func typeMismatch(_ type: Any.Type, _ value: JSONValue, _ path: [any CodingKey]) -> DecodingError {
    if case .null = value {
        return .valueNotFound(type, .init(codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
    }
    return .typeMismatch(type, .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(describe(value)) instead."))
}

/// The primitive decodes every container shares: a JSON value as Bool, String, or a number type.
private func primitive<T: Decodable>(_ type: T.Type, _ value: JSONValue, _ path: [any CodingKey]) throws -> T {
    switch value {
    case .bool(let b) where T.self == Bool.self: return b as! T
    case .string(let s) where T.self == String.self: return s as! T
    case .number(let d):
        if T.self == Double.self { return d as! T }
        if T.self == Float.self { return Float(d) as! T }
        if let integer = try integer(T.self, d, path) { return integer }
    default: break
    }
    if T.self == Bool.self || T.self == String.self || T.self == Double.self || T.self == Float.self || isInteger(T.self) {
        throw typeMismatch(T.self, value, path)
    }
    return try T(from: ValueDecoder(value: value, codingPath: path))
}

private func isInteger(_ type: Any.Type) -> Bool {
    type == Int.self || type == Int8.self || type == Int16.self || type == Int32.self || type == Int64.self
        || type == UInt.self || type == UInt8.self || type == UInt16.self || type == UInt32.self || type == UInt64.self
}

/// `d` as the integer type `T` (nil when `T` is no integer type); a fraction or an out-of-range
/// number is corrupt data, as JSONDecoder says.
private func integer<T>(_ type: T.Type, _ d: Double, _ path: [any CodingKey]) throws -> T? {
    func exact<I: BinaryInteger>(_: I.Type) throws -> I {
        guard let value = I(exactly: d) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "Parsed JSON number <\(d)> does not fit in \(I.self)."))
        }
        return value
    }
    switch type {
    case is Int.Type: return try exact(Int.self) as? T
    case is Int8.Type: return try exact(Int8.self) as? T
    case is Int16.Type: return try exact(Int16.self) as? T
    case is Int32.Type: return try exact(Int32.self) as? T
    case is Int64.Type: return try exact(Int64.self) as? T
    case is UInt.Type: return try exact(UInt.self) as? T
    case is UInt8.Type: return try exact(UInt8.self) as? T
    case is UInt16.Type: return try exact(UInt16.self) as? T
    case is UInt32.Type: return try exact(UInt32.self) as? T
    case is UInt64.Type: return try exact(UInt64.self) as? T
    default: return nil
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [(key: String, value: JSONValue)]
    let codingPath: [any CodingKey]

    /// The member `key` (the last one when given twice, as JSONValue's subscript).
    private func member(_ key: Key) -> JSONValue? { members.last(where: { $0.key == key.stringValue })?.value }

    var allKeys: [Key] { members.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool { member(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = member(key) else { throw notFound(key) }
        if case .null = value { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard let value = member(key) else { throw notFound(key) }
        return try primitive(T.self, value, codingPath + [key])
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = member(key) else { return nil }
        if case .null = value { return nil }
        return try primitive(T.self, value, codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        guard let value = member(key) else { throw notFound(key) }
        return try ValueDecoder(value: value, codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        guard let value = member(key) else { throw notFound(key) }
        return try ValueDecoder(value: value, codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(members), codingPath: codingPath) }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        ValueDecoder(value: member(key) ?? .null, codingPath: codingPath + [key])
    }

    private func notFound(_ key: Key) -> DecodingError {
        .keyNotFound(key, .init(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    init(items: [JSONValue], codingPath: [any CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    private mutating func next<T>(_ type: T.Type) throws -> (JSONValue, [any CodingKey]) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [IndexKey(intValue: currentIndex)],
                                                          debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], codingPath + [IndexKey(intValue: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if case .null = items[currentIndex] {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(T.self)
        return try primitive(T.self, value, path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: JSONValue].self)
        return try ValueDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([JSONValue].self)
        return try ValueDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(JSONValue.self)
        return ValueDecoder(value: value, codingPath: path)
    }
}

private struct SingleValue: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool {
        if case .null = value { return true }
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try primitive(T.self, value, codingPath) }
}
