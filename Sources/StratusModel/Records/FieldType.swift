/// The type of a single (non-list) field value.
public enum ScalarType: String, Sendable, Hashable, CaseIterable, Codable {
    case string = "STRING"
    case int64 = "INT64"
    case double = "DOUBLE"
    case bytes = "BYTES"
    case timestamp = "TIMESTAMP"
    case reference = "REFERENCE"
    case location = "LOCATION"
    case asset = "ASSETID"
    /// A real Boolean (`true`/`false`), which CloudKit lacks (its apps store INT64 0/1).
    case boolean = "BOOLEAN"
    /// Text in several languages: `{"en": "No Thanks", "es": "No, Gracias"}`.
    case localizedString = "LOCALIZED_STRING"
}

/// A field's type on the wire: a scalar type, or a list of one (`STRING_LIST`) (`docs/protocol.md#field-values`).
public struct FieldType: Sendable, Hashable {
    public var scalar: ScalarType
    public var isList: Bool

    public init(_ scalar: ScalarType, isList: Bool = false) {
        self.scalar = scalar
        self.isList = isList
    }

    /// The list type whose elements are `scalar`.
    public static func list(_ scalar: ScalarType) -> FieldType { FieldType(scalar, isList: true) }

    /// The wire name: `STRING`, `INT64_LIST`, `ASSETID`, ...
    public var wireName: String { isList ? scalar.rawValue + "_LIST" : scalar.rawValue }

    /// Parses a wire type name. `ASSET` is accepted as an alias of `ASSETID`.
    public init?(wireName: String) {
        var name = wireName
        var isList = false
        if name.hasSuffix("_LIST") {
            name.removeLast(5)
            isList = true
        }
        if name == "ASSET" { name = "ASSETID" }
        guard let scalar = ScalarType(rawValue: name) else { return nil }
        self.init(scalar, isList: isList)
    }
}

extension FieldType: CustomStringConvertible {
    public var description: String { wireName }
}

extension FieldType: Codable {
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let type = FieldType(wireName: name) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown field type \(name)"))
        }
        self = type
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wireName)
    }
}
