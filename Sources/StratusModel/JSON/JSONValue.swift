import Foundation

/// A JSON value of any shape, used where the wire format is dynamic (a field's `value`).
///
/// Integers that fit in 64 bits are kept exactly as ``integer(_:)``; other numbers are ``double(_:)``.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value as a dictionary, when it is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The value as a string, when it is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The value as a whole number, when it is one.
    public var integerValue: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }

    /// A short name for the JSON kind, used in error messages.
    public var kindName: String { kind.name }

    /// The kind of a scanned value this is; the names of kinds live there.
    var kind: JSONNode.Kind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .integer: .integer
        case .double: .double
        case .string: .string
        case .array: .array
        case .object: .object
        }
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        // Each failed attempt throws (and costs an error), so the most common shapes of field values
        // come first: strings, then integers.
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let object = try? container.decode([String: JSONValue].self) {
            self = .object(object)
        } else {
            self = .array(try container.decode([JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue {
    /// Writes the value as compact JSON with sorted object keys.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .integer(let value): writer.integer(value)
        case .double(let value): writer.double(value)
        case .string(let value): writer.string(value)
        case .array(let values):
            writer.beginArray()
            for value in values {
                writer.arrayElement()
                value.write(to: &writer)
            }
            writer.endArray()
        case .object(let object):
            writer.beginObject()
            for key in object.keys.sorted() {
                writer.key(key)
                object[key]!.write(to: &writer)
            }
            writer.endObject()
        }
    }
}
