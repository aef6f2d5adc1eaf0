/// Rules for names chosen by clients: record names, zone names, record types and field names.
public enum RecordNames {
    /// The most characters a record or zone name may have.
    public static let maximumNameLength = 255

    /// Whether `name` is acceptable as a record name or zone name.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumNameLength && !name.contains(where: { $0.isNewline || $0 == "\0" })
    }

    /// Whether `name` is acceptable as a record type or field name: `[A-Za-z][A-Za-z0-9_]*`, at most 255 characters.
    ///
    /// Names that start with an underscore are reserved for system types and fields.
    public static func isValidIdentifier(_ name: String) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= maximumNameLength else { return false }
        guard (first >= 65 && first <= 90) || (first >= 97 && first <= 122) else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 48 && byte <= 57) || (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122) || byte == 95
        }
    }
}
