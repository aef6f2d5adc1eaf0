import StratusModel

/// A Stratus account's claim to a user of the CloudKit container its public database was imported from: once made,
/// the records that CloudKit user created are the account's.
public struct CloudKitClaim: Sendable, Hashable {
    public var containerID: String
    /// The CloudKit user's record name, as the imported records name their creator.
    public var cloudKitUserRecordName: String
    public var userRecordName: String
    public var environment: Environment
    /// Public records whose creator (or last modifier) became the account.
    public var records: Int
    /// Whether the imported `Users` record's fields were given to the account's own, which had none.
    public var usersRecordFields: Bool
    /// Milliseconds since 1970.
    public var claimedAt: Int64

    public init(
        containerID: String, cloudKitUserRecordName: String, userRecordName: String, environment: Environment, records: Int,
        usersRecordFields: Bool, claimedAt: Int64
    ) {
        self.containerID = containerID
        self.cloudKitUserRecordName = cloudKitUserRecordName
        self.userRecordName = userRecordName
        self.environment = environment
        self.records = records
        self.usersRecordFields = usersRecordFields
        self.claimedAt = claimedAt
    }
}

/// Claims of imported CloudKit users, written once over any backend's tables (``SQLTables``).
extension AccountStore where Self: SQLTables {
    public func claimCloudKitUser(
        _ cloudKitUserRecordName: String, for userRecordName: String, containerID: String, environment: Environment, now: Int64, changeTag: String
    ) async throws -> CloudKitClaim {
        try await transaction { transaction in
            try await Self.requireLiveAccount(containerID: containerID, userRecordName: userRecordName, in: transaction)
            let inserted = try await transaction.rows("""
                INSERT INTO cloudkit_claims (container_id, cloudkit_user, user_record_name, environment, claimed_at)
                VALUES (\(.text(containerID)), \(.text(cloudKitUserRecordName)), \(.text(userRecordName)), \(.text(environment.rawValue)), \
                \(.integer(now)))
                ON CONFLICT DO NOTHING RETURNING 1 AS inserted
                """)
            if inserted.isEmpty {
                throw StorageError(.alreadyExists, "this CloudKit user was claimed already, or this account claimed another")
            }
            let publicZones: SQLFragment = """
                SELECT id FROM zones WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND scope = 'public'
                """
            // The account's own Users record takes the imported one's fields when it has none of its own.
            var usersRecordFields = false
            let imported = try await transaction.rows("""
                SELECT id, zone_id, fields FROM records WHERE zone_id IN (\(publicZones)) AND name = \(.text(cloudKitUserRecordName)) \
                AND type = 'Users' AND deleted = \(.bool(false))
                """).first
            let own = try await transaction.rows("""
                SELECT id, fields FROM records WHERE zone_id IN (\(publicZones)) AND name = \(.text(userRecordName)) AND type = 'Users' \
                AND deleted = \(.bool(false))
                """).first
            if let imported, let own, Self.holdsNoFields(try own.text("fields")) {
                let ownID = try own.integer("id")
                try await transaction.rows("""
                    UPDATE records SET fields = \(.text(try imported.text("fields"))), change_tag = \(.text(changeTag)), modified_at = \(.integer(now))
                    WHERE id = \(.integer(ownID))
                    """)
                try await transaction.rows("DELETE FROM field_index WHERE record_id = \(.integer(ownID))")
                try await transaction.rows("""
                    INSERT INTO field_index (zone_id, type, field, kind, value, extra, record_id)
                    SELECT zone_id, type, field, kind, value, extra, \(.integer(ownID)) FROM field_index WHERE record_id = \(.integer(try imported.integer("id")))
                    """)
                usersRecordFields = true
            }
            let modified = try await transaction.rows("""
                UPDATE records SET modified_by = \(.text(userRecordName)) WHERE zone_id IN (\(publicZones)) \
                AND modified_by = \(.text(cloudKitUserRecordName)) RETURNING id
                """)
            let created = try await transaction.rows("""
                UPDATE records SET created_by = \(.text(userRecordName)) WHERE zone_id IN (\(publicZones)) \
                AND created_by = \(.text(cloudKitUserRecordName)) RETURNING id
                """)
            let ids = Set(try (modified + created).map { try $0.integer("id") })
            try await transaction.rows("""
                UPDATE cloudkit_claims SET records = \(.integer(Int64(ids.count))), users_record_fields = \(.bool(usersRecordFields))
                WHERE container_id = \(.text(containerID)) AND cloudkit_user = \(.text(cloudKitUserRecordName))
                """)
            return CloudKitClaim(
                containerID: containerID, cloudKitUserRecordName: cloudKitUserRecordName, userRecordName: userRecordName, environment: environment,
                records: ids.count, usersRecordFields: usersRecordFields, claimedAt: now
            )
        }
    }

    public func cloudKitClaim(containerID: String, userRecordName: String) async throws -> CloudKitClaim? {
        try await rows("""
            SELECT cloudkit_user, user_record_name, environment, records, users_record_fields, claimed_at FROM cloudkit_claims
            WHERE container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName))
            """).first.map { row in
            CloudKitClaim(
                containerID: containerID, cloudKitUserRecordName: try row.text("cloudkit_user"), userRecordName: try row.text("user_record_name"),
                environment: Environment(rawValue: try row.text("environment")) ?? .development, records: Int(try row.integer("records")),
                usersRecordFields: try row.bool("users_record_fields"), claimedAt: try row.integer("claimed_at")
            )
        }
    }

    /// Whether a record's stored fields are empty.
    private static func holdsNoFields(_ fields: String) -> Bool {
        fields.allSatisfy { $0 == "{" || $0 == "}" || $0 == "[" || $0 == "]" || $0.isWhitespace }
    }
}
