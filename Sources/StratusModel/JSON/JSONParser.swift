/// Reads UTF-8 JSON text (RFC 8259) in one pass over the bytes.
///
/// Request bodies are read with it: the scan checks the whole text and records one small node per value
/// (``JSONDocument``), and ``JSONValueDecoder`` decodes from those nodes, making strings only for what it
/// reads. Numbers follow `JSONValue`'s rule: an integral number that fits in 64 bits is an integer, any other
/// a double.
///
/// ```swift
/// let value = try JSONParser.parse(Array(#"{"a": [1, 2.5, "x"]}"#.utf8))
/// ```
public struct JSONParser {
    /// Why text is not JSON, and the byte offset where that was found.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var reason: String
        public var offset: Int
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// How deep arrays and objects may nest, so that hostile input cannot exhaust the stack.
    public static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var nodes: [JSONNode] = []
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON value, with nothing but whitespace after it.
    public static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(Failure) in try scanDocument(buffer).value(at: 0) }
        }
        if let result { return try result.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(Failure) in try scanDocument(buffer).value(at: 0) }
    }

    /// Scans the text and hands its document to `read`; the document must not be kept after the call.
    /// Throws ``Failure`` when the text is not JSON, and whatever `read` throws.
    static func withDocument<T>(_ bytes: some Collection<UInt8>, _ read: (JSONDocument) throws -> T) throws -> T {
        if let result = try bytes.withContiguousStorageIfAvailable({ buffer in try read(try scanDocument(buffer)) }) {
            return result
        }
        return try Array(bytes).withUnsafeBufferPointer { buffer in try read(try scanDocument(buffer)) }
    }

    private static func scanDocument(_ buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONDocument {
        var parser = JSONParser(bytes: buffer)
        guard buffer.count < Int(UInt32.max) else { throw parser.failure("the text is longer than 4 GiB") }
        // Request bodies hold about one value per eight bytes; reserving that saves most regrowth.
        parser.nodes.reserveCapacity(max(4, buffer.count / 8))
        parser.skipWhitespace()
        try parser.value()
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.failure("unexpected text after the value") }
        return JSONDocument(bytes: buffer, nodes: parser.nodes)
    }

    // MARK: - Values

    private mutating func value() throws(Failure) {
        guard index < bytes.count else { throw failure("unexpected end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try container(closing: UInt8(ascii: "}"), kind: .object)
        case UInt8(ascii: "["): try container(closing: UInt8(ascii: "]"), kind: .array)
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true"); append(.bool, payload: 1)
        case UInt8(ascii: "f"): try literal("false"); append(.bool, payload: 0)
        case UInt8(ascii: "n"): try literal("null"); append(.null, payload: 0)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
        default: throw failure("unexpected character")
        }
    }

    /// An object or an array; its node is written first and completed once its contents are read.
    private mutating func container(closing: UInt8, kind: JSONNode.Kind) throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
        let position = nodes.count
        nodes.append(JSONNode(kind: kind, offset: index, payload: 0))
        index += 1
        var count = 0
        skipWhitespace()
        if try !consume(closing) {
            while true {
                skipWhitespace()
                if kind == .object {
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
                    try string()
                    skipWhitespace()
                    guard try consume(UInt8(ascii: ":")) else { throw failure("expected ':'") }
                    skipWhitespace()
                }
                try value()
                count += 1
                skipWhitespace()
                if try consume(UInt8(ascii: ",")) { continue }
                guard try consume(closing) else {
                    throw failure(kind == .object ? "expected ',' or '}'" : "expected ',' or ']'")
                }
                break
            }
        }
        nodes[position].payload = JSONNode.container(count: count, end: nodes.count)
        depth -= 1
    }

    private mutating func append(_ kind: JSONNode.Kind, payload: UInt64, at offset: Int? = nil) {
        nodes.append(JSONNode(kind: kind, offset: offset ?? index, payload: payload))
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end of text") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("unexpected character")
        }
        index += count
    }

    // MARK: - Strings

    /// A string; `index` is at its opening quote. Its escapes and its UTF-8 are checked here, and it is
    /// recorded by where it lies in the text.
    private mutating func string() throws(Failure) {
        index += 1
        let start = index
        var escaped = false
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                if !ascii, !Self.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[start..<index])) {
                    throw failure("a string is not valid UTF-8")
                }
                append(escaped ? .escapedString : .string, payload: UInt64(index), at: start)
                index += 1
                return
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                try escape()
                continue
            }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            if byte >= 0x80 { ascii = false }
            index += 1
        }
        throw failure("unterminated string")
    }

    /// Checks one escape; `index` is at its backslash.
    private mutating func escape() throws(Failure) {
        index += 1
        guard index < bytes.count else { throw failure("unterminated string") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return
        case UInt8(ascii: "u"):
            let first = try hexQuad()
            if (0xD800..<0xDC00).contains(first) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw failure("a lone surrogate in a \\u escape")
                }
                index += 2
                guard (0xDC00..<0xE000).contains(try hexQuad()) else { throw failure("a lone surrogate in a \\u escape") }
            } else if (0xDC00..<0xE000).contains(first) {
                throw failure("a lone surrogate in a \\u escape")
            }
        default:
            throw failure("unknown escape")
        }
    }

    private mutating func hexQuad() throws(Failure) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end of text") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard let digit = JSONStringEscapes.hexDigit(bytes[index]) else { throw failure("a \\u escape needs four hex digits") }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private static func isValidUTF8(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = text.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }

    // MARK: - Numbers

    private mutating func number() throws(Failure) {
        let start = index
        var integral = true
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits") }
        let digitsStart = index
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number must not start with 0") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let digitsEnd = index
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            integral = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits after '.'") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            integral = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits in its exponent") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        // Up to 18 digits always fit in 64 bits: the common case needs no text.
        if integral, digitsEnd - digitsStart <= 18 {
            var magnitude: Int64 = 0
            for position in digitsStart..<digitsEnd { magnitude = magnitude * 10 + Int64(bytes[position] - UInt8(ascii: "0")) }
            append(.integer, payload: UInt64(bitPattern: negative ? -magnitude : magnitude), at: start)
            return
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let integer = Int64(text) {
            append(.integer, payload: UInt64(bitPattern: integer), at: start)
            return
        }
        guard let double = Double(text), double.isFinite else { throw failure("a number is out of range") }
        // As JSONDecoder reads them: 1.0 and 1e3 are integers when they are whole and fit.
        if double == double.rounded(), double >= -0x1p63, double < 0x1p63 {
            append(.integer, payload: UInt64(bitPattern: Int64(double)), at: start)
        } else {
            append(.double, payload: double.bitPattern, at: start)
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    // MARK: - Scanning

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func consume(_ byte: UInt8) throws(Failure) -> Bool {
        guard index < bytes.count else { throw failure("unexpected end of text") }
        guard bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private func failure(_ reason: String) -> Failure {
        Failure(reason: reason, offset: index)
    }
}
