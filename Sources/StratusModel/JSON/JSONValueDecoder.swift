/// Decodes `Decodable` types from JSON text or from a ``JSONValue``, throwing `DecodingError`s with their
/// coding paths as `JSONDecoder` does.
///
/// The server reads every request body with it: ``JSONParser`` scans the bytes once into a compact
/// ``JSONDocument``, and the containers here find keys in place, make strings only for what is decoded, and
/// build coding paths only when an error needs one.
///
/// ```swift
/// let request = try JSONValueDecoder().decode(ModifyRecordsRequest.self, from: bodyBytes)
/// ```
public struct JSONValueDecoder: Sendable {
    /// The most elements an array decoded as a Swift array may hold. A longer one is refused with
    /// `DecodingError.dataCorrupted` at its path before any element is decoded, so a body of a million small
    /// operations costs its scan, not a million decoded values. Values decoded as ``JSONValue`` (a field's
    /// value) are not limited by it.
    public var maximumArrayCount: Int

    public init(maximumArrayCount: Int = .max) {
        self.maximumArrayCount = maximumArrayCount
    }

    /// Decodes `type` from JSON text. Text that is not JSON throws `DecodingError.dataCorrupted` with an
    /// empty coding path.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        do {
            return try JSONParser.withDocument(bytes) { document in
                try ValueDecoder(document: document, index: 0, parent: nil, key: nil, maximumArrayCount: maximumArrayCount).decodeValue(type)
            }
        } catch let failure as JSONParser.Failure {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "not valid JSON: \(failure)", underlyingError: failure))
        }
    }

    /// Decodes `type` from a parsed value.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        var writer = JSONWriter()
        value.write(to: &writer)
        return try decode(type, from: writer.bytes)
    }
}

/// A decoder for one value of a document; its coding path is found through its parents when asked.
final class ValueDecoder: Decoder {
    let document: JSONDocument
    /// The index of the value's node in the document.
    let index: Int
    private let parent: ValueDecoder?
    private let key: (any CodingKey)?
    private let maximumArrayCount: Int

    init(document: JSONDocument, index: Int, parent: ValueDecoder?, key: (any CodingKey)?, maximumArrayCount: Int) {
        self.document = document
        self.index = index
        self.parent = parent
        self.key = key
        self.maximumArrayCount = maximumArrayCount
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
    var kind: JSONNode.Kind { document.nodes[index].kind }

    func child(at index: Int, key: any CodingKey) -> ValueDecoder {
        ValueDecoder(document: document, index: index, parent: self, key: key, maximumArrayCount: maximumArrayCount)
    }

    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return document.value(at: index) as! T }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard kind == .object else { throw Self.mismatch([String: Any].self, path: codingPath, found: kind) }
        return KeyedDecodingContainer(KeyedValueContainer<Key>(decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard kind == .array else { throw Self.mismatch([Any].self, path: codingPath, found: kind) }
        let count = document.nodes[index].count
        guard count <= maximumArrayCount else {
            throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(count) elements are more than the \(maximumArrayCount) allowed"))
        }
        return UnkeyedValueContainer(decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(decoder: self)
    }
}

// MARK: - Reading primitives

extension ValueDecoder {
    /// The value at `index` as `T`, one of the standard library's primitive types, or the error `JSONDecoder`
    /// gives.
    func primitive<T>(_ type: T.Type, at index: Int, path: @autoclosure () -> [any CodingKey]) throws -> T {
        let node = document.nodes[index]
        switch node.kind {
        case .null:
            throw DecodingError.valueNotFound(type, .init(codingPath: path(), debugDescription: "expected \(type), found null"))
        case .string, .escapedString:
            if T.self == String.self { return document.string(at: index) as! T }
        case .bool:
            if T.self == Bool.self { return (node.payload != 0) as! T }
        case .integer:
            let integer = Int64(bitPattern: node.payload)
            if let number = Self.convert(integer, to: type) { return number }
            if Self.isNumeric(type) {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "\(integer) does not fit in \(type)"))
            }
        case .double:
            let double = Double(bitPattern: node.payload)
            if T.self == Double.self { return double as! T }
            if T.self == Float.self { return Float(double) as! T }
            if Self.isNumeric(type) {
                throw DecodingError.dataCorrupted(.init(codingPath: path(), debugDescription: "\(double) is not a whole number"))
            }
        case .array, .object:
            break
        }
        throw Self.mismatch(type, path: path(), found: node.kind)
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
    static func mismatch(_ type: Any.Type, path: [any CodingKey], found kind: JSONNode.Kind) -> DecodingError {
        if kind == .null {
            return DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "expected \(type), found null"))
        }
        return DecodingError.typeMismatch(type, .init(codingPath: path, debugDescription: "expected \(type), found \(kind.name)"))
    }
}

// MARK: - Containers

struct KeyedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Objects with more members than this are looked up through a dictionary, so that hostile bodies with
    /// huge objects cost linear time; smaller ones are searched in place.
    static var indexedMemberCount: Int { 16 }

    let decoder: ValueDecoder
    private let memberCount: Int
    /// The value index of each member name, for large objects; the first of repeated names wins.
    private let index: [String: Int]?

    init(decoder: ValueDecoder) {
        self.decoder = decoder
        memberCount = decoder.document.nodes[decoder.index].count
        guard memberCount > Self.indexedMemberCount else {
            index = nil
            return
        }
        var index: [String: Int] = [:]
        index.reserveCapacity(memberCount)
        var member = decoder.index + 1
        for _ in 0..<memberCount {
            let name = decoder.document.string(at: member)
            if index[name] == nil { index[name] = member + 1 }
            member = decoder.document.next(after: member + 1)
        }
        self.index = index
    }

    var codingPath: [any CodingKey] { decoder.codingPath }

    var allKeys: [Key] {
        var keys: [Key] = []
        var member = decoder.index + 1
        for _ in 0..<memberCount {
            if let key = Key(stringValue: decoder.document.string(at: member)) { keys.append(key) }
            member = decoder.document.next(after: member + 1)
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { valueIndex(for: key) != nil }

    /// The node index of the member's value, if the object has it; the first of repeated names wins, as
    /// `JSONDecoder` has it.
    private func valueIndex(for key: Key) -> Int? {
        let name = key.stringValue
        if let index { return index[name] }
        var member = decoder.index + 1
        for _ in 0..<memberCount {
            if decoder.document.string(at: member, equals: name) { return member + 1 }
            member = decoder.document.next(after: member + 1)
        }
        return nil
    }

    private func requiredIndex(for key: Key) throws -> Int {
        guard let index = valueIndex(for: key) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for \(key.stringValue)"))
        }
        return index
    }

    /// The member's value index, or nil when it is missing or null.
    private func presentIndex(for key: Key) -> Int? {
        guard let index = valueIndex(for: key), decoder.document.nodes[index].kind != .null else { return nil }
        return index
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.document.nodes[try requiredIndex(for: key)].kind == .null
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
        try decoder.child(at: try requiredIndex(for: key), key: key).decodeValue(type)
    }

    // One lookup each, where the protocol's defaults make three.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try optionalPrimitive(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try optionalPrimitive(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try optionalPrimitive(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalPrimitive(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalPrimitive(type, key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let index = presentIndex(for: key) else { return nil }
        return try decoder.child(at: index, key: key).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.child(at: try requiredIndex(for: key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.child(at: try requiredIndex(for: key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        guard let superKey = Key(stringValue: "super"), let index = valueIndex(for: superKey) else {
            throw DecodingError.keyNotFound(SuperKey(), .init(codingPath: codingPath, debugDescription: "no value for super"))
        }
        return decoder.child(at: index, key: SuperKey())
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.child(at: try requiredIndex(for: key), key: key)
    }

    private func primitive<T>(_ type: T.Type, _ key: Key) throws -> T {
        try decoder.primitive(type, at: try requiredIndex(for: key), path: codingPath + [key])
    }

    private func optionalPrimitive<T>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let index = presentIndex(for: key) else { return nil }
        return try decoder.primitive(type, at: index, path: codingPath + [key])
    }
}

struct UnkeyedValueContainer: UnkeyedDecodingContainer {
    let decoder: ValueDecoder
    private let elementCount: Int
    /// The node of the next element.
    private var element: Int
    private(set) var currentIndex = 0

    init(decoder: ValueDecoder) {
        self.decoder = decoder
        elementCount = decoder.document.nodes[decoder.index].count
        element = decoder.index + 1
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }

    private mutating func next(_ type: Any.Type) throws -> (Int, ElementKey) {
        let key = ElementKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [key], debugDescription: "the array has no more elements"))
        }
        let index = element
        element = decoder.document.next(after: index)
        currentIndex += 1
        return (index, key)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, decoder.document.nodes[element].kind == .null else { return false }
        _ = try next(Any.self)
        return true
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
        let (index, key) = try next(type)
        return try decoder.child(at: index, key: key).decodeValue(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (index, key) = try next([String: Any].self)
        return try decoder.child(at: index, key: key).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (index, key) = try next([Any].self)
        return try decoder.child(at: index, key: key).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (index, key) = try next(Any.self)
        return decoder.child(at: index, key: key)
    }

    private mutating func primitive<T>(_ type: T.Type) throws -> T {
        let (index, key) = try next(type)
        return try decoder.primitive(type, at: index, path: codingPath + [key])
    }
}

struct SingleValueContainer: SingleValueDecodingContainer {
    let decoder: ValueDecoder

    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.kind == .null }

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
        try decoder.primitive(type, at: decoder.index, path: codingPath)
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
