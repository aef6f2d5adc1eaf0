/// Lists of values bound into one statement: `IN (?, ?, ...)`, at most ``chunkSize`` per statement.
enum SQLList {
    /// How many values one statement binds at most.
    static let chunkSize = 500

    /// `count` parameter placeholders, separated by commas.
    static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    /// `values` in slices of at most ``chunkSize``.
    static func chunks<T>(_ values: [T]) -> [ArraySlice<T>] {
        stride(from: 0, to: values.count, by: chunkSize).map { values[$0..<min($0 + chunkSize, values.count)] }
    }
}
