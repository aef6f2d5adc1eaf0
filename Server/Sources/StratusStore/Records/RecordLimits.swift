import StratusModel

/// Size and count limits of CloudKit Web Services (`docs/protocol.md#limits`).
public enum RecordLimits {
    /// The largest a record's encoded fields may be, assets excluded: 1 MB.
    public static let maximumRecordBytes = 1_048_576
    /// The most operations in one `records/modify` or `zones/modify` request.
    public static let maximumOperations = 200
    /// The most operations in one `records/modify` request that asks for `atomic: true` in a custom zone: an atomic
    /// group larger than one ordinary batch is still one transaction (a Stratus addition).
    public static let maximumAtomicOperations = 2_000

    /// The most operations a `records/modify` request may carry.
    public static func maximumOperations(atomic: Bool?, zoneName: String?) -> Int {
        atomic == true && (zoneName ?? ZoneID.defaultZoneName) != ZoneID.defaultZoneName ? maximumAtomicOperations : maximumOperations
    }
    /// The most records one page or lookup may return, and the default page size.
    public static let maximumResults = 200
    /// The most records one delete may remove through `DELETE_SELF` references.
    public static let maximumCascade = 10_000
}
