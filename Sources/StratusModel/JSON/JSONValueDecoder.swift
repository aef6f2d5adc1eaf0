/// Decodes `Decodable` types from JSON text or from a parsed ``JSONValue``, throwing `DecodingError`s with
/// their coding paths as `JSONDecoder` does.
///
/// The server reads every request body with it: ``JSONParser`` makes one pass over the bytes, and the
/// containers here look keys up in the parsed objects without copying them or tracking paths until an error
/// needs one.
///
/// ```swift
/// let request = try JSONValueDecoder().decode(ModifyRecordsRequest.self, from: bodyBytes)
/// ```
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// Decodes `type` from JSON text. Text that is not JSON throws `DecodingError.dataCorrupted` with an
    /// empty coding path.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not valid JSON: \(error)", underlyingError: error))
        }
        return try decode(type, from: value)
    }

    /// Decodes `type` from a parsed value.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, parent: nil, key: nil).decodeValue(type)
    }
}

/// A decoder for one value of the document; its coding path is found through its parents when asked.
final class ValueDecoder: Decoder {
    let value: JSONValue
    private let parent: ValueDecoder?
    private let key: (any CodingKey)?

    init(value: JSONValue, parent: ValueDecoder?, key: (any CodingKey)?) {
        self.value = value
        self.parent = parent
        self.key = key
    }

    var codingPath: [any CodingKey] {
        var path: [any CodingKey] = []
        var decoder: ValueDecoder? = self
        while let current = decoder, let key = current.key {
            path.append(key)
            decoder = current.parent
        }
        return path.reversed()
    }

    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func child(_ value: JSONValue, key: any CodingKey) -> ValueDecoder {
        ValueDecoder(value: value, parent: self, key: key)
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw Self.mismatch([String: Any].self, path: codingPath, found: value)
        }
        return KeyedDecodingContainer(KeyedValueContainer<Key>(decoder: self, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw Self.mismatch([Any].self, path: codingPath, found: value)
        }
        return UnkeyedValueContainer(decoder: self, elements: elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }
}

// MARK: - Reading primitives

extension ValueDecoder {
    /// The value as `T`, one of the standard library's primitive types, or the error `JSONDecoder` gives.
    static func primitive<T>(_ type: T.Type, from value: JSONValue, path: @autoclosure () -> [any CodingKey]) throws -> T {
        switch value {
        case .null:
            throw DecodingError.valueNotFound(type, .init(codingPath: path(), debugDescription: "expected \(type), found null"))
        case .string(let string) where T.self == String.self:
            return string as! T
        case .bool(let bool) where T.self == Bool.self:
            return bool as! T
        case .integer(let integer):
            if let number = convert(integer, to: type) { return number }
            if isNumeric(type) {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "\(integer) does not fit in \(type)"))
            }
        case .double(let double):
            if T.self == Double.self { return double as! T }
            if T.self == Float.self { return Float(double) as! T }
            if isNumeric(type) {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "\(double) is not a whole number"))
            }
        default:
            break
        }
        throw mismatch(type, path: path(), found: value)
    }

    private static func convert<T>(_ integer: Int64, to type: T.Type) -> T? {
        switch type {
        case is Int.Type: Int(exactly: integer) as? T
        case is Int64.Type: integer as? T
        case is Int32.Type: Int32(exactly: integer) as? T
        case is Int16.Type: Int16(exactly: integer) as? T
        case is Int8.Type: Int8(exactly: integer) as? T
        case is UInt.Type: UInt(exactly: integer) as? T
        case is UInt64.Type: UInt64(exactly: integer) as? T
        case is UInt32.Type: UInt32(exactly: integer) as? T
        case is UInt16.Type: UInt16(exactly: integer) as? T
        case is UInt8.Type: UInt8(exactly: integer) as? T
        case is Double.Type: Double(integer) as? T
        case is Float.Type: Float(integer) as? T
        default: nil
        }
    }

    private static func isNumeric<T>(_ type: T.Type) -> Bool {
        type is any BinaryInteger.Type || type is any BinaryFloatingPoint.Type
    }

    /// A value of the wrong kind; `null` where a value is needed is `valueNotFound`, as `JSONDecoder` has it.
    static func mismatch(_ type: Any.Type, path: [any CodingKey], found value: JSONValue) -> DecodingError {
        if case .null = value {
            return DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
        }
        return DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(value.kindName)"))
    }
}

// MARK: - Containers

struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: ValueDecoder
    let object: [String: JSONValue]

    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { object.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func value(for key: Key) throws -> JSONValue {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .null = try value(for: key) { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try primitive(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try primitive(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try primitive(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try primitive(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try primitive(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try primitive(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try primitive(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try primitive(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try primitive(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try primitive(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try primitive(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try primitive(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try primitive(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try primitive(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.child(try value(for: key), key: key).decodeValue(type)
    }

    // One lookup each, where the protocol's defaults make three.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optionalPrimitive(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optionalPrimitive(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optionalPrimitive(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalPrimitive(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalPrimitive(type, key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = object[key.stringValue] else { return nil }
        if case .null = value { return nil }
        return try decoder.child(value, key: key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(try value(for: key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(try value(for: key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        decoder.child(object["super"] ?? .null, key: SuperKey())
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(object[key.stringValue] ?? .null, key: key)
    }

    private func primitive<T>(_ type: T.Type, _ key: Key) throws -> T {
        try ValueDecoder.primitive(type, from: try value(for: key), path: codingPath + [key])
    }

    private func optionalPrimitive<T>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let value = object[key.stringValue] else { return nil }
        if case .null = value { return nil }
        return try ValueDecoder.primitive(type, from: value, path: codingPath + [key])
    }
}

struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    let elements: [JSONValue]
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> (JSONValue, ElementKey) {
        let key = ElementKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [key], debugDescription: "the array has no more elements"))
        }
        currentIndex += 1
        return (elements[key.intValue!], key)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        if case .null = elements[currentIndex] {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try primitive(type) }
    mutating func decode(_ type: String.Type) throws -> String { try primitive(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try primitive(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try primitive(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try primitive(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try primitive(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, key) = try next(type)
        return try decoder.child(value, key: key).decodeValue(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, key) = try next([String: Any].self)
        return try decoder.child(value, key: key).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, key) = try next([Any].self)
        return try decoder.child(value, key: key).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, key) = try next(Any.self)
        return decoder.child(value, key: key)
    }

    private mutating func primitive<T>(_ type: T.Type) throws -> T {
        let (value, key) = try next(type)
        return try ValueDecoder.primitive(type, from: value, path: codingPath + [key])
    }
}

struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool {
        if case .null = decoder.value { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try primitive(type) }
    func decode(_ type: String.Type) throws -> String { try primitive(type) }
    func decode(_ type: Double.Type) throws -> Double { try primitive(type) }
    func decode(_ type: Float.Type) throws -> Float { try primitive(type) }
    func decode(_ type: Int.Type) throws -> Int { try primitive(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try primitive(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try primitive(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try primitive(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try primitive(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try primitive(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try primitive(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try primitive(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try primitive(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try primitive(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.decodeValue(type)
    }

    private func primitive<T>(_ type: T.Type) throws -> T {
        try ValueDecoder.primitive(type, from: decoder.value, path: codingPath)
    }
}

/// An array element's place in a coding path.
private struct ElementKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }

    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}
