import Foundation

/// The value of one record field, of any field type Stratus stores.
public enum FieldValue: Sendable, Hashable {
    case string(String)
    case int64(Int64)
    case double(Double)
    /// Stratus's real Boolean (CloudKit apps often keep 0 and 1 in an INT64 field instead; both read as `Bool`).
    case bool(Bool)
    case date(Date)
    case bytes(Data)
    case location(Location)
    case reference(Record.Reference)
    case asset(Asset)
    case localizedString(LocalizedString)
    /// A list; its elements share one type.
    case list([FieldValue])
}

/// A Swift type a record field can hold (`CKRecordValue`): `String`, `Int`, `Int64`, `Double`, `Bool`, `Date`,
/// `Data`, ``Location``, ``Record/Reference``, ``Asset``, ``LocalizedString``, and arrays of them.
public protocol RecordValue: Sendable {
    init?(fieldValue: FieldValue)
    var fieldValue: FieldValue { get }
}

extension String: RecordValue {
    public init?(fieldValue: FieldValue) {
        guard case .string(let value) = fieldValue else { return nil }
        self = value
    }
    public var fieldValue: FieldValue { .string(self) }
}

extension Int64: RecordValue {
    public init?(fieldValue: FieldValue) {
        switch fieldValue {
        case .int64(let value): self = value
        case .bool(let value): self = value ? 1 : 0
        default: return nil
        }
    }
    public var fieldValue: FieldValue { .int64(self) }
}

extension Int: RecordValue {
    public init?(fieldValue: FieldValue) {
        guard let value = Int64(fieldValue: fieldValue), let fitting = Int(exactly: value) else { return nil }
        self = fitting
    }
    public var fieldValue: FieldValue { .int64(Int64(self)) }
}

extension Double: RecordValue {
    public init?(fieldValue: FieldValue) {
        switch fieldValue {
        case .double(let value): self = value
        case .int64(let value): self = Double(value)
        default: return nil
        }
    }
    public var fieldValue: FieldValue { .double(self) }
}

extension Bool: RecordValue {
    /// Reads a BOOLEAN field, or an INT64 field holding 0 or 1.
    public init?(fieldValue: FieldValue) {
        switch fieldValue {
        case .bool(let value): self = value
        case .int64(0): self = false
        case .int64(1): self = true
        default: return nil
        }
    }
    public var fieldValue: FieldValue { .bool(self) }
}

extension Date: RecordValue {
    public init?(fieldValue: FieldValue) {
        guard case .date(let value) = fieldValue else { return nil }
        self = value
    }
    public var fieldValue: FieldValue { .date(self) }
}

extension Data: RecordValue {
    public init?(fieldValue: FieldValue) {
        guard case .bytes(let value) = fieldValue else { return nil }
        self = value
    }
    public var fieldValue: FieldValue { .bytes(self) }
}

extension Location: RecordValue {
    public init?(fieldValue: FieldValue) {
        guard case .location(let value) = fieldValue else { return nil }
        self = value
    }
    public var fieldValue: FieldValue { .location(self) }
}

extension Record.Reference: RecordValue {
    public init?(fieldValue: FieldValue) {
        guard case .reference(let value) = fieldValue else { return nil }
        self = value
    }
    public var fieldValue: FieldValue { .reference(self) }
}

extension Asset: RecordValue {
    public init?(fieldValue: FieldValue) {
        guard case .asset(let value) = fieldValue else { return nil }
        self = value
    }
    public var fieldValue: FieldValue { .asset(self) }
}

extension LocalizedString: RecordValue {
    public init?(fieldValue: FieldValue) {
        guard case .localizedString(let value) = fieldValue else { return nil }
        self = value
    }
    public var fieldValue: FieldValue { .localizedString(self) }
}

extension Array: RecordValue where Element: RecordValue {
    /// Reads a list whose every element has the element type.
    public init?(fieldValue: FieldValue) {
        guard case .list(let values) = fieldValue else { return nil }
        var elements: [Element] = []
        for value in values {
            guard let element = Element(fieldValue: value) else { return nil }
            elements.append(element)
        }
        self = elements
    }
    public var fieldValue: FieldValue { .list(map(\.fieldValue)) }
}
