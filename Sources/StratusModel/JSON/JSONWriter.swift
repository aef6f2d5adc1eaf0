/// A small, fast writer of compact JSON text into a byte buffer.
///
/// Responses that carry many records are built with it, so that stored field JSON can be
/// spliced in without decoding and re-encoding.
///
/// ```swift
/// var writer = JSONWriter()
/// writer.beginObject()
/// writer.key("recordName"); writer.string("A")
/// writer.endObject()
/// let text = writer.text // {"recordName":"A"}
/// ```
public struct JSONWriter: Sendable {
    /// The bytes written so far (UTF-8).
    public private(set) var bytes: [UInt8]
    private var needsComma: [Bool] = []

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The bytes written so far, as a string.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma.removeLast()
    }

    public mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma.removeLast()
    }

    /// Writes an object key and its colon; a value must follow.
    public mutating func key(_ key: String) {
        separate()
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Marks the start of an array element; a value must follow.
    public mutating func arrayElement() {
        separate()
    }

    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        // Native strings are contiguous UTF-8 already; others are made so once.
        value.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends string bytes, escaped; runs that need no escaping (nearly all text) are copied whole.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        for index in 0..<utf8.count {
            let byte = utf8[index]
            guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            runStart = index + 1
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            default:
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, Self.hexDigit(byte >> 4), Self.hexDigit(byte & 0xF)])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 + nibble : UInt8(ascii: "a") + nibble - 10
    }

    public mutating func integer(_ value: Int64) {
        guard value != 0 else { return bytes.append(UInt8(ascii: "0")) }
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // Digits from the last, into a fixed buffer: no string is made.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        var rest = value.magnitude
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                count += 1
                buffer[buffer.count - count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: buffer[(buffer.count - count)...])
        }
    }

    /// Writes a finite double in its shortest round-trip form; non-finite values are written as `null`.
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return null() }
        bytes.append(contentsOf: value.description.utf8)
    }

    public mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    public mutating func null() {
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes `"key": [elements...]`, each element written by `element`.
    public mutating func array<Elements: Sequence>(
        _ key: String, _ elements: Elements, _ element: (inout JSONWriter, Elements.Element) -> Void
    ) {
        self.key(key)
        beginArray()
        for item in elements {
            arrayElement()
            element(&self, item)
        }
        endArray()
    }

    /// Writes a whole object whose members `body` writes.
    public static func object(capacity: Int = 256, _ body: (inout JSONWriter) -> Void) -> JSONWriter {
        var writer = JSONWriter(capacity: capacity)
        writer.beginObject()
        body(&writer)
        writer.endObject()
        return writer
    }

    /// Appends text that is already valid JSON (a stored value), as one value.
    public mutating func raw(_ json: String) {
        bytes.append(contentsOf: json.utf8)
    }

    private mutating func separate() {
        guard !needsComma.isEmpty else { return }
        if needsComma[needsComma.count - 1] {
            bytes.append(UInt8(ascii: ","))
        } else {
            needsComma[needsComma.count - 1] = true
        }
    }
}
