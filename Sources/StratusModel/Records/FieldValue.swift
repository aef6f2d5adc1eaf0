import Foundation

/// The value of one record field (`docs/protocol.md#field-values`).
///
/// Lists carry their element type so that an empty list keeps its type.
public enum FieldValue: Sendable, Hashable {
    case string(String)
    case int64(Int64)
    case double(Double)
    case bytes(Data)
    /// Milliseconds since 1970-01-01.
    case timestamp(Int64)
    case reference(Reference)
    case location(Location)
    case asset(Asset)
    case boolean(Bool)
    /// Text by language tag (`en`, `es`, `pt-BR`).
    case localizedString([String: String])
    indirect case list(ScalarType, [FieldValue])

    /// The value's wire type.
    public var type: FieldType {
        switch self {
        case .string: FieldType(.string)
        case .int64: FieldType(.int64)
        case .double: FieldType(.double)
        case .bytes: FieldType(.bytes)
        case .timestamp: FieldType(.timestamp)
        case .reference: FieldType(.reference)
        case .location: FieldType(.location)
        case .asset: FieldType(.asset)
        case .boolean: FieldType(.boolean)
        case .localizedString: FieldType(.localizedString)
        case .list(let element, _): FieldType.list(element)
        }
    }

    /// The elements of a list value, or the value itself as a one-element array.
    public var elements: [FieldValue] {
        if case .list(_, let values) = self { return values }
        return [self]
    }
}
