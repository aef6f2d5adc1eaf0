import Foundation

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

/// `GET /admin/1/quotas`: the defaults and each container's own values, each with only what is set.
public struct QuotasResponse: Sendable, Hashable, Codable {
    public var defaults: Quotas
    public var containers: [String: Quotas]

    public init(defaults: Quotas, containers: [String: Quotas]) {
        self.defaults = defaults
        self.containers = containers
    }
}

/// `GET /admin/1/{container}/usage`: the quotas that hold for a container, its own values, and its databases as
/// last measured (the public ones and the largest users').
public struct StorageUsageResponse: Sendable, Hashable, Codable {
    /// The values that hold: the container's own, else the defaults'.
    public var quotas: Quotas
    public var own: Quotas
    public var databases: [DatabaseUsage]

    public init(quotas: Quotas, own: Quotas, databases: [DatabaseUsage]) {
        self.quotas = quotas
        self.own = own
        self.databases = databases
    }
}

/// One database's storage as last measured, against its quota.
public struct DatabaseUsage: Sendable, Hashable, Codable {
    /// `development` or `production`.
    public var environment: String
    /// `public` or `private`.
    public var database: String
    /// The user whose private database it is; `nil` for a public one.
    public var owner: String?
    public var records: Int64
    public var recordBytes: Int64
    public var assetBytes: Int64
    public var totalBytes: Int64
    /// `nil` when the database has no quota.
    public var quotaBytes: Int64?
    /// When it was measured, in milliseconds since 1970.
    public var measured: Int64

    public init(
        environment: String, database: String, owner: String?, records: Int64, recordBytes: Int64, assetBytes: Int64, totalBytes: Int64,
        quotaBytes: Int64?, measured: Int64
    ) {
        self.environment = environment
        self.database = database
        self.owner = owner
        self.records = records
        self.recordBytes = recordBytes
        self.assetBytes = assetBytes
        self.totalBytes = totalBytes
        self.quotaBytes = quotaBytes
        self.measured = measured
    }
}
