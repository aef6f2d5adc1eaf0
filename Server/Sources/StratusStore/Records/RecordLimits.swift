/// Size and count limits of CloudKit Web Services (`docs/protocol.md#limits`).
public enum RecordLimits {
    /// The largest a record's encoded fields may be, assets excluded: 1 MB.
    public static let maximumRecordBytes = 1_048_576
    /// The most operations in one `records/modify` or `zones/modify` request.
    public static let maximumOperations = 200
    /// The most records one page or lookup may return, and the default page size.
    public static let maximumResults = 200
    /// The most records one delete may remove through `DELETE_SELF` references.
    public static let maximumCascade = 10_000
}
