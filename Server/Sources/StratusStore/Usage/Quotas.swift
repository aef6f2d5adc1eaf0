import StratusModel

/// What one container (or, as defaults, every container) may use: storage and request rates.
///
/// A value of `nil` is not set: a container's falls back to the defaults', and a default's means no limit.
/// `0` means no limit, so that a container can lift a default.
public struct Quotas: Sendable, Hashable, Codable {
    /// Bytes of records and assets in the public database of each environment.
    public var publicStorageBytes: Int64?
    /// Bytes of records and assets in each user's private database (what they share with others included).
    public var userStorageBytes: Int64?
    /// Requests one signed-in user may send per minute.
    public var userRequestsPerMinute: Int64?
    /// Requests one server-to-server key may send per minute.
    public var keyRequestsPerMinute: Int64?
    /// Requests one client address may send per minute.
    public var addressRequestsPerMinute: Int64?

    /// The key of the row holding the defaults.
    public static let defaultsKey = "*"

    public init(
        publicStorageBytes: Int64? = nil, userStorageBytes: Int64? = nil, userRequestsPerMinute: Int64? = nil,
        keyRequestsPerMinute: Int64? = nil, addressRequestsPerMinute: Int64? = nil
    ) {
        self.publicStorageBytes = publicStorageBytes
        self.userStorageBytes = userStorageBytes
        self.userRequestsPerMinute = userRequestsPerMinute
        self.keyRequestsPerMinute = keyRequestsPerMinute
        self.addressRequestsPerMinute = addressRequestsPerMinute
    }

    /// These values, with those not set taken from `defaults`.
    public func filled(from defaults: Quotas) -> Quotas {
        Quotas(
            publicStorageBytes: publicStorageBytes ?? defaults.publicStorageBytes,
            userStorageBytes: userStorageBytes ?? defaults.userStorageBytes,
            userRequestsPerMinute: userRequestsPerMinute ?? defaults.userRequestsPerMinute,
            keyRequestsPerMinute: keyRequestsPerMinute ?? defaults.keyRequestsPerMinute,
            addressRequestsPerMinute: addressRequestsPerMinute ?? defaults.addressRequestsPerMinute
        )
    }

    /// A value as a limit: `nil` when it is not set or is `0`.
    public static func limit(_ value: Int64?) -> Int64? {
        guard let value, value > 0 else { return nil }
        return value
    }

    /// Whether nothing is set.
    public var isEmpty: Bool { self == Quotas() }
}

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
