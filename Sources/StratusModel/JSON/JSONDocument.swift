/// Scanned JSON text: the text itself and one 16-byte node per value, in document order.
///
/// A container's node comes first, then its contents; it records how many elements or members it has and
/// where its contents end, so a reader can step over it without looking inside. Strings stay in the text
/// until they are asked for. A request body of records costs about twice its text while it is decoded (a body of
/// nothing but tiny numbers, at most eight times), where a tree of dictionaries and strings costs many times more.
struct JSONDocument {
    /// The text; valid while the document is read (see ``JSONParser/withDocument(_:_:)``).
    let bytes: UnsafeBufferPointer<UInt8>
    let nodes: [JSONNode]

    /// The index of the node after the value at `index` and everything inside it.
    func next(after index: Int) -> Int {
        let node = nodes[index]
        return node.kind.isContainer ? node.end : index + 1
    }

    /// The string at `index`, whose node is a string.
    func string(at index: Int) -> String {
        let text = rawText(of: index)
        if nodes[index].kind == .escapedString { return JSONStringEscapes.unescape(text) }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether the string at `index` equals `key`; compares the bytes in place when it has no escapes.
    func string(at index: Int, equals key: String) -> Bool {
        let node = nodes[index]
        if node.kind == .escapedString { return string(at: index) == key }
        let text = rawText(of: index)
        var key = key
        return key.withUTF8 { utf8 in utf8.elementsEqual(text) }
    }

    /// The bytes between a string's quotes, escapes as written.
    private func rawText(of index: Int) -> UnsafeBufferPointer<UInt8> {
        let node = nodes[index]
        return UnsafeBufferPointer(rebasing: bytes[node.offset..<node.stringEnd])
    }

    /// The value at `index` and everything inside it, as a ``JSONValue``.
    func value(at index: Int) -> JSONValue {
        let node = nodes[index]
        switch node.kind {
        case .null: return .null
        case .bool: return .bool(node.payload != 0)
        case .integer: return .integer(Int64(bitPattern: node.payload))
        case .double: return .double(Double(bitPattern: node.payload))
        case .string, .escapedString: return .string(string(at: index))
        case .array:
            var elements: [JSONValue] = []
            elements.reserveCapacity(node.count)
            var element = index + 1
            for _ in 0..<node.count {
                elements.append(value(at: element))
                element = next(after: element)
            }
            return .array(elements)
        case .object:
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(node.count)
            var member = index + 1
            for _ in 0..<node.count {
                // The first of repeated names wins, as with the decoder's containers.
                let name = string(at: member)
                if members[name] == nil { members[name] = value(at: member + 1) }
                member = next(after: member + 1)
            }
            return .object(members)
        }
    }
}

/// One value of a ``JSONDocument``: its kind, where it starts in the text, and a payload whose meaning
/// depends on the kind (a number's bits, a string's end offset, a container's count and end node).
struct JSONNode {
    enum Kind: UInt8 {
        case null, bool, integer, double, string, escapedString, array, object

        var isContainer: Bool { self == .array || self == .object }

        /// A short name for the JSON kind, used in error messages.
        var name: String {
            switch self {
            case .null: "null"
            case .bool: "a boolean"
            case .integer, .double: "a number"
            case .string, .escapedString: "a string"
            case .array: "an array"
            case .object: "an object"
            }
        }
    }

    var kind: Kind
    private var start: UInt32
    var payload: UInt64

    init(kind: Kind, offset: Int, payload: UInt64) {
        self.kind = kind
        self.start = UInt32(truncatingIfNeeded: offset)
        self.payload = payload
    }

    /// The byte offset of the value; for a string, of its first byte after the opening quote.
    var offset: Int { Int(start) }
    /// The byte offset of a string's closing quote.
    var stringEnd: Int { Int(payload) }
    /// How many elements an array has, or members an object has.
    var count: Int { Int(payload >> 32) }
    /// The index of the first node after a container's contents.
    var end: Int { Int(payload & 0xFFFF_FFFF) }

    static func container(count: Int, end: Int) -> UInt64 {
        UInt64(count) << 32 | UInt64(end)
    }
}
