import Foundation

/// A record's fields in their canonical stored form: the wire `fields` dictionary as compact JSON,
/// keys sorted, every field with its `type`.
///
/// Stores keep this text as it is and responses splice it in, so a record is encoded once when it is
/// written, not every time it is read.
public struct EncodedFields: Sendable, Hashable {
    /// The JSON text of the `fields` dictionary (written when first asked for, for fields made with
    /// ``init(keeping:)``).
    public var json: String { text ?? Self.text(of: values ?? [:]) }
    private var text: String?
    /// The values, when kept (a record a client decoded from an answer), so that ``decode()`` does not parse
    /// again what was just read, and nothing is written that nobody reads.
    private var values: [String: FieldValue]?

    public init(json: String) {
        text = json
    }

    /// Keeps decoded field values as they are: ``decode()`` answers them, ``json`` writes them when asked.
    public init(keeping fields: [String: FieldValue]) {
        values = fields
    }

    public static func == (lhs: EncodedFields, rhs: EncodedFields) -> Bool {
        lhs.json == rhs.json
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(json)
    }

    /// Encodes field values canonically.
    public init(_ fields: [String: FieldValue]) {
        text = Self.text(of: fields)
    }

    private static func text(of fields: [String: FieldValue]) -> String {
        var writer = JSONWriter(capacity: 64 * max(1, fields.count))
        write(fields, to: &writer, numbersAsStrings: false)
        return writer.text
    }

    /// The byte size of the encoded fields, which the record size limit counts.
    public var byteCount: Int { json.utf8.count }

    /// Whether any field holds an asset (`ASSETID` or `ASSETID_LIST`), found without decoding.
    public var containsAssets: Bool {
        var json = json
        return json.withUTF8 { bytes in
            let needle = Self.assetTypeTag
            guard bytes.count >= needle.count else { return false }
            var index = 0
            let last = bytes.count - needle.count
            while index <= last {
                if bytes[index] == needle[0] && bytes[index + 1] == needle[1] {
                    var matched = 2
                    while matched < needle.count && bytes[index + matched] == needle[matched] { matched += 1 }
                    if matched == needle.count { return true }
                }
                index += 1
            }
            return false
        }
    }

    /// How a canonical asset field starts: `writeField` writes the type first.
    private static let assetTypeTag = Array(#""type":"ASSETID"#.utf8)

    /// Decodes the stored text back into values.
    /// - Throws: ``ModelError`` when the text is not canonical field JSON.
    public func decode() throws -> [String: FieldValue] {
        if let values { return values }
        guard case .object(let stored) = try JSONParser.parse(json.utf8) else {
            throw ModelError(.invalidValue, "stored fields are not a JSON object")
        }
        return try Self.decode(stored)
    }

    /// Fields in the canonical shape (``write(_:to:numbersAsStrings:)``), parsed already: every field with its type.
    /// - Throws: ``ModelError`` naming a field without a known type, or whose value does not fit it.
    public static func decode(_ stored: [String: JSONValue]) throws -> [String: FieldValue] {
        var fields: [String: FieldValue] = [:]
        fields.reserveCapacity(stored.count)
        for (name, field) in stored {
            guard let type = field.objectValue?["type"]?.stringValue.flatMap(FieldType.init(wireName:)) else {
                throw ModelError(.invalidValue, "stored field \(name) has no known type")
            }
            fields[name] = try FieldValue(json: field.objectValue?["value"] ?? .null, as: type)
        }
        return fields
    }

    /// Fields as an answer writes them, parsed already: a `null` value is no field, and a missing type is the one
    /// the value's shape shows (as ``Record``'s decoding reads them).
    /// - Throws: ``ModelError`` naming a field whose type cannot be told or whose value does not fit it.
    public static func decodeAnswer(_ fields: [String: JSONValue]) throws -> [String: FieldValue] {
        var values: [String: FieldValue] = [:]
        values.reserveCapacity(fields.count)
        for (name, field) in fields {
            guard let parts = field.objectValue else { throw ModelError(.invalidValue, "field \(name) is not an object") }
            let value = parts["value"] ?? .null
            if value == .null { continue }
            let declared = parts["type"]?.stringValue
            guard let type = declared.map({ FieldType(wireName: $0) }) ?? FieldValue.inferredType(of: value) else {
                throw ModelError(.invalidValue, "field \(name) has no known type")
            }
            values[name] = try FieldValue(json: value, as: type)
        }
        return values
    }

    /// Writes `fields` as a `fields` dictionary, keys sorted.
    public static func write(_ fields: [String: FieldValue], to writer: inout JSONWriter, numbersAsStrings: Bool) {
        writer.beginObject()
        for name in fields.keys.sorted() {
            writer.key(name)
            fields[name]!.writeField(to: &writer, numbersAsStrings: numbersAsStrings)
        }
        writer.endObject()
    }
}
