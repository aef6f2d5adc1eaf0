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
        let utf8 = value.utf8
        // Most strings need no escaping and are copied whole.
        if !utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            bytes.append(contentsOf: utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func integer(_ value: Int64) {
        bytes.append(contentsOf: String(value).utf8)
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
