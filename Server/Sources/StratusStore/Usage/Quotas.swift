import StratusModel

/// What one database holds, as last measured: live records (their fields) and the asset files they hold.
public struct StorageUsage: Sendable, Hashable {
    public var database: DatabaseRef
    public var records: Int64
    /// Bytes of the records' fields as stored.
    public var recordBytes: Int64
    /// Bytes of the asset files records of this database hold.
    public var assetBytes: Int64
    /// Milliseconds since 1970.
    public var measuredAt: Int64

    public init(database: DatabaseRef, records: Int64, recordBytes: Int64, assetBytes: Int64, measuredAt: Int64) {
        self.database = database
        self.records = records
        self.recordBytes = recordBytes
        self.assetBytes = assetBytes
        self.measuredAt = measuredAt
    }

    public var totalBytes: Int64 { recordBytes + assetBytes }

    /// Bytes in the largest fitting unit (1 KB = 1,024 bytes, as sizes are written in settings): `512 bytes`, `1.5 MB`.
    public static func describe(_ bytes: Int64) -> String {
        guard bytes >= 1024 else { return "\(bytes) bytes" }
        var value = Double(bytes)
        var unit = "bytes"
        for next in ["KB", "MB", "GB", "TB"] where value >= 1024 {
            value /= 1024
            unit = next
        }
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) \(unit)" : "\(rounded) \(unit)"
    }
}

/// Requests counted under one key (a user, a key, an address) in one window of time.
public struct RequestCount: Sendable, Hashable {
    public var key: String
    /// The window's start, in whole minutes since 1970.
    public var window: Int64
    public var count: Int64

    public init(key: String, window: Int64, count: Int64) {
        self.key = key
        self.window = window
        self.count = count
    }
}

/// Quotas, the storage each database uses and the requests each caller sent, kept for every node.
public protocol UsageStore: Sendable {
    /// Every quota set: the defaults under ``Quotas/defaultsKey``, containers under their ids.
    func quotas() async throws -> [String: Quotas]
    /// Sets a container's quotas (or, with `containerID` `nil`, the defaults); an empty set removes the row.
    func setQuotas(_ quotas: Quotas, containerID: String?) async throws
    /// Measures every database's records and assets and replaces the measurements; returns how many databases hold data.
    @discardableResult
    func measureStorage(now: Int64) async throws -> Int
    /// The last measurement of one database, or `nil` when it held nothing then.
    func storageUsage(of database: DatabaseRef) async throws -> StorageUsage?
    /// A container's databases as last measured, largest first, at most `limit` of them (the public ones always);
    /// users whose private database holds nothing come last, with nothing in it.
    func storageUsage(containerID: String, limit: Int) async throws -> [StorageUsage]
    /// Adds requests to their counts and returns the totals, for every node.
    func addRequestCounts(_ counts: [RequestCount]) async throws -> [RequestCount]
    /// The counts of `keys` in `windows`.
    func requestCounts(keys: [String], windows: [Int64]) async throws -> [RequestCount]
    /// Forgets counts of windows before `window`.
    func sweepRequestCounts(before window: Int64) async throws
}
