/// A value a statement binds or a row holds, as both backends' drivers take it.
public enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case double(Double)
    case text(String)
    /// Bytes, such as an ``IndexKey``'s.
    case bytes([UInt8])
    case bool(Bool)
    case null
    /// Several values of one kind bound as one array (only dialects that bind arrays receive it).
    case array([SQLValue])

    /// `text`, or `NULL` for none.
    public init(_ text: String?) {
        self = text.map { .text($0) } ?? .null
    }

    /// `number`, or `NULL` for none.
    public init(_ number: Int64?) {
        self = number.map { .integer($0) } ?? .null
    }
}

