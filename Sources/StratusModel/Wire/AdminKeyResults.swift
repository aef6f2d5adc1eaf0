/// `GET /admin/1/admin-key`: whether the server's shared admin key is in use, and its last change through the admin
/// API (none while it is the key the server was started with). The key itself is never answered here.
public struct AdminKeyStateResponse: Sendable, Hashable, Codable {
    public var enabled: Bool
    /// Whether it was rotated or turned off through the admin API.
    public var rotated: Bool
    /// Milliseconds since 1970.
    public var changedAt: Int64?
    /// An operator's address, or `admin key`.
    public var changedBy: String?

    public init(enabled: Bool, rotated: Bool, changedAt: Int64? = nil, changedBy: String? = nil) {
        self.enabled = enabled
        self.rotated = rotated
        self.changedAt = changedAt
        self.changedBy = changedBy
    }
}

/// `POST /admin/1/admin-key/rotate`: the new key, answered this once.
public struct AdminKeyRotationResponse: Sendable, Hashable, Codable {
    public var adminKey: String

    public init(adminKey: String) {
        self.adminKey = adminKey
    }
}
