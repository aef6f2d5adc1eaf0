/// Parses UTF-8 JSON text into a ``JSONValue``, byte by byte (RFC 8259).
///
/// Request bodies are read with it: it does one pass over the bytes and builds the values directly, where
/// `JSONDecoder` builds a map first and then boxes a container per object. Numbers follow `JSONValue`'s rule:
/// an integral number that fits in 64 bits is ``JSONValue/integer(_:)``, any other is ``JSONValue/double(_:)``.
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
    private var index = 0
    private var depth = 0

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Parses one JSON value, with nothing but whitespace after it.
    public static func parse(_ bytes: some Collection<UInt8>) throws(Failure) -> JSONValue {
        let result: Result<JSONValue, Failure>? = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(Failure) in try parse(buffer: buffer) }
        }
        if let result { return try result.get() }
        return try Array(bytes).withUnsafeBufferPointer { buffer throws(Failure) in try parse(buffer: buffer) }
    }

    private static func parse(buffer: UnsafeBufferPointer<UInt8>) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes: buffer)
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == buffer.count else { throw parser.failure("unexpected text after the value") }
        return value
    }

    // MARK: - Values

    private mutating func value() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw failure("unexpected character")
        }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try enter()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if try consume(UInt8(ascii: "}")) {
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard try consume(UInt8(ascii: ":")) else { throw failure("expected ':'") }
            skipWhitespace()
            members[key] = try value()
            skipWhitespace()
            if try consume(UInt8(ascii: ",")) { continue }
            guard try consume(UInt8(ascii: "}")) else { throw failure("expected ',' or '}'") }
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if try consume(UInt8(ascii: "]")) {
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            if try consume(UInt8(ascii: ",")) { continue }
            guard try consume(UInt8(ascii: "]")) else { throw failure("expected ',' or ']'") }
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw failure("nested deeper than \(Self.maximumDepth) levels") }
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

    /// A string; `index` is at its opening quote. Runs without escapes are copied whole.
    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = try decodeUTF8(from: start, to: index)
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try escapedString(from: start) }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            index += 1
        }
        throw failure("unterminated string")
    }

    /// The rest of a string that holds escapes, from its first byte at `start`.
    private mutating func escapedString(from start: Int) throws(Failure) -> String {
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: scalars, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"): scalars.append(contentsOf: try unicodeEscape().utf8)
                default: throw failure("unknown escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("control character in a string") }
                scalars.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    /// `\uXXXX`, or a surrogate pair of two; `index` is after the `u`.
    private mutating func unicodeEscape() throws(Failure) -> String {
        let first = try hexQuad()
        var scalarValue = UInt32(first)
        if (0xD800..<0xDC00).contains(first) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a lone surrogate in a \\u escape")
            }
            index += 2
            let second = try hexQuad()
            guard (0xDC00..<0xE000).contains(second) else { throw failure("a lone surrogate in a \\u escape") }
            scalarValue = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else { throw failure("a lone surrogate in a \\u escape") }
        return String(Character(scalar))
    }

    private mutating func hexQuad() throws(Failure) -> UInt16 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end of text") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    private func decodeUTF8(from start: Int, to end: Int) throws(Failure) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[start..<end])
        // ASCII, the common case, needs no validation beyond the control characters already refused.
        var ascii = true
        for byte in slice where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: slice, as: UTF8.self) }
        guard let text = String(validating: slice, as: UTF8.self) else { throw failure("a string is not valid UTF-8") }
        return text
    }

    // MARK: - Numbers

    private mutating func number() throws(Failure) -> JSONValue {
        let start = index
        var integral = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("a number needs digits") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("a number must not start with 0") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
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
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if integral, let integer = Int64(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else { throw failure("a number is out of range") }
        // As JSONDecoder reads them: 1.0 and 1e3 are integers when they are whole and fit.
        if double == double.rounded(), double >= -0x1p63, double < 0x1p63 { return .integer(Int64(double)) }
        return .double(double)
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
