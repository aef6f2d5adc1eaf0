/// One of the tables every backend keeps, as ``StoreCopier`` copies it from one backend to another: its columns
/// in a few portable kinds, the key it is read in order of, and which columns hold change positions.
///
/// Backends lay these tables out alike (SQLite's and PostgreSQL's migrations create the same tables); the copy
/// keeps every row's identity (zone and record ids) and change position, so sync tokens, query cursors and
/// notification cursors issued before a copy mean the same after it.
public struct CopyTable: Sendable, Hashable {
    /// How a column's values are stored; each backend maps the kind to its own type.
    public enum Kind: Sendable, Hashable {
        /// A 64-bit integer.
        case integer
        /// A flag: 0 or 1 in ``CopyValue/integer(_:)`` (SQLite `INTEGER`, PostgreSQL `BOOLEAN`).
        case boolean
        case real
        case text
        case blob
    }

    public struct Column: Sendable, Hashable {
        public let name: String
        public let kind: Kind
    }

    public let name: String
    public let columns: [Column]
    /// The columns of the table's primary key, in order: rows are read in this order, compared bytewise.
    public let key: [String]
    /// Columns holding change positions (or notification ids): the target's new positions must come after them.
    public let positions: [String]
    /// How many rows one read or write carries.
    public let pageSize: Int

    init(_ name: String, _ columns: [(String, Kind)], key: [String], positions: [String] = [], pageSize: Int = 1000) {
        self.name = name
        self.columns = columns.map { Column(name: $0.0, kind: $0.1) }
        self.key = key
        self.positions = positions
        self.pageSize = pageSize
        precondition(key.allSatisfy { column in self.columns.contains { $0.name == column } }, "\(name): key columns must be columns")
    }

    /// The index of a column in ``columns``.
    public func index(of column: String) -> Int? {
        columns.firstIndex { $0.name == column }
    }

    /// The indexes of the key columns in ``columns``.
    public var keyIndexes: [Int] { key.compactMap(index(of:)) }

    /// The tables every backend keeps that a copy leaves behind, with why. Each backend's own bookkeeping in `meta`
    /// (``CopyableStore/ownMetaKeys``) is not copied either.
    public static let notCopied: [String: String] = [
        "store_events": "the running servers' events: the copy's servers start their own",
        "leases": "the running servers' leases: the copy's servers take their own",
        "storage_usage": "measured again by the copy's servers",
        "request_counts": "counted again by the copy's servers",
        "sign_in_failures": "counted again by the copy's servers",
        "telemetry_minutes": "telemetry: the copy's charts start afresh",
        "active_users": "telemetry: the copy's charts start afresh",
        "storage_history": "telemetry: the copy's charts start afresh",
        "request_log": "the request log starts afresh",
    ]

    /// Every table that holds data, in the order it is copied (``notCopied`` names the others).
    ///
    /// This is the one definition of the tables: each backend's tests check that its migrations make exactly these
    /// tables and columns, of these kinds (`TableDefinitionCheck`).
    public static let all: [CopyTable] = [
        CopyTable("meta", [("key", .text), ("value", .blob)], key: ["key"]),
        CopyTable("containers", [("id", .text), ("api_token", .text), ("created_at", .integer), ("account_settings", .text)], key: ["id"]),
        CopyTable(
            "accounts",
            [
                ("container_id", .text), ("user_record_name", .text), ("email", .text), ("password_hash", .text), ("given_name", .text),
                ("family_name", .text), ("phone_number", .text), ("discoverable", .boolean), ("created_at", .integer),
                ("email_verified", .boolean), ("disabled", .boolean), ("deleting", .boolean), ("totp_secret", .text),
                ("totp_enabled", .boolean), ("totp_last_step", .integer), ("recovery_codes", .text), ("anonymous", .boolean),
            ],
            key: ["container_id", "user_record_name"]
        ),
        CopyTable(
            "sessions",
            [
                ("id", .text), ("container_id", .text), ("user_record_name", .text), ("created_at", .integer), ("expires_at", .integer),
                ("device_name", .text), ("last_used_at", .integer),
            ],
            key: ["id"]
        ),
        CopyTable(
            "account_codes",
            [
                ("id", .text), ("container_id", .text), ("user_record_name", .text), ("purpose", .text), ("code_hash", .text),
                ("link_hash", .text), ("new_email", .text), ("created_at", .integer), ("expires_at", .integer), ("failed_attempts", .integer),
            ],
            key: ["id"]
        ),
        CopyTable(
            "passkeys",
            [
                ("container_id", .text), ("credential_id", .text), ("user_record_name", .text), ("public_key", .text), ("sign_count", .integer),
                ("name", .text), ("backed_up", .boolean), ("created_at", .integer), ("last_used_at", .integer),
            ],
            key: ["container_id", "credential_id"]
        ),
        CopyTable(
            "account_identities",
            [
                ("container_id", .text), ("provider", .text), ("subject", .text), ("user_record_name", .text), ("email", .text),
                ("email_verified", .boolean), ("private_email", .boolean), ("sealed_refresh_token", .text), ("created_at", .integer),
                ("last_used_at", .integer),
            ],
            key: ["container_id", "provider", "subject"]
        ),
        CopyTable(
            "webhook_endpoints",
            [
                ("id", .text), ("container_id", .text), ("environment", .text), ("url", .text), ("description", .text), ("event_types", .text),
                ("databases", .text), ("zone_names", .text), ("record_types", .text), ("sealed_secrets", .text), ("enabled", .boolean),
                ("disabled_reason", .text), ("failing_since", .integer), ("created_at", .integer),
            ],
            key: ["id"]
        ),
        CopyTable(
            "webhook_deliveries",
            [
                ("id", .integer), ("endpoint_id", .text), ("container_id", .text), ("environment", .text), ("ordering_key", .text), ("event_id", .text),
                ("event_type", .text), ("body", .text), ("status", .text), ("attempts", .integer), ("next_attempt_at", .integer),
                ("created_at", .integer), ("delivered_at", .integer), ("last_status", .integer), ("last_response", .text), ("last_latency", .integer),
            ],
            key: ["id"], positions: ["id"]
        ),
        CopyTable(
            "function_modules",
            [
                ("container_id", .text), ("environment", .text), ("name", .text), ("bytes", .blob), ("digest", .text), ("size", .integer),
                ("entries", .text), ("uploaded_at", .integer),
            ],
            key: ["container_id", "environment", "name"], pageSize: 20
        ),
        CopyTable(
            "function_bindings",
            [
                ("container_id", .text), ("environment", .text), ("name", .text), ("module", .text), ("entry", .text), ("trigger", .text),
                ("record_types", .text), ("databases", .text), ("event_types", .text), ("run_as_role", .text), ("grants", .text),
                ("limits", .text), ("enabled", .boolean), ("created_at", .integer), ("updated_at", .integer),
            ],
            key: ["container_id", "environment", "name"]
        ),
        CopyTable(
            "scheduled_jobs",
            [
                ("container_id", .text), ("environment", .text), ("name", .text), ("schedule", .text), ("time_zone", .text), ("target", .text),
                ("missed_runs", .text), ("enabled", .boolean), ("next_run_at", .integer), ("created_at", .integer), ("updated_at", .integer),
            ],
            key: ["container_id", "environment", "name"]
        ),
        CopyTable(
            "scheduled_job_runs",
            [
                ("container_id", .text), ("environment", .text), ("job", .text), ("scheduled_for", .integer), ("started_at", .integer),
                ("finished_at", .integer), ("node", .text), ("status", .text), ("result", .text), ("missed", .integer),
            ],
            key: ["container_id", "environment", "job", "scheduled_for"]
        ),
        CopyTable(
            "quotas",
            [
                ("container_id", .text), ("public_storage_bytes", .integer), ("user_storage_bytes", .integer),
                ("user_requests_per_minute", .integer), ("key_requests_per_minute", .integer), ("address_requests_per_minute", .integer),
            ],
            key: ["container_id"]
        ),
        CopyTable(
            "operators",
            [
                ("id", .text), ("email", .text), ("name", .text), ("password_hash", .text), ("totp_secret", .text), ("totp_enabled", .boolean),
                ("totp_last_step", .integer), ("administrator", .boolean), ("disabled", .boolean), ("created_at", .integer),
            ],
            key: ["id"]
        ),
        CopyTable("operator_roles", [("operator_id", .text), ("container_id", .text), ("role", .text)], key: ["operator_id", "container_id"]),
        CopyTable(
            "audit_log",
            [("id", .text), ("time", .integer), ("actor", .text), ("container_id", .text), ("action", .text), ("status", .integer), ("address", .text)],
            key: ["id"]
        ),
        CopyTable(
            "cloudkit_claims",
            [
                ("container_id", .text), ("cloudkit_user", .text), ("user_record_name", .text), ("environment", .text), ("records", .integer),
                ("users_record_fields", .boolean), ("claimed_at", .integer),
            ],
            key: ["container_id", "cloudkit_user"]
        ),
        CopyTable(
            "container_secrets", [("container_id", .text), ("name", .text), ("sealed_value", .text), ("updated_at", .integer)],
            key: ["container_id", "name"]
        ),
        CopyTable(
            "pending_revocations",
            [
                ("container_id", .text), ("provider", .text), ("subject", .text), ("sealed_token", .text), ("attempts", .integer),
                ("next_attempt_at", .integer), ("last_error", .text), ("created_at", .integer),
            ],
            key: ["container_id", "provider", "subject"]
        ),
        CopyTable(
            "passkey_challenges",
            [
                ("challenge", .text), ("container_id", .text), ("purpose", .text), ("user_record_name", .text), ("details", .text),
                ("created_at", .integer), ("expires_at", .integer),
            ],
            key: ["challenge"]
        ),
        CopyTable(
            "mail_queue",
            [
                ("id", .integer), ("container_id", .text), ("environment", .text), ("kind", .text), ("language", .text), ("recipient", .text),
                ("sender_address", .text), ("sender_name", .text), ("subject", .text), ("text_body", .text), ("html_body", .text),
                ("status", .text), ("attempts", .integer), ("queued_at", .integer), ("next_attempt_at", .integer), ("sent_at", .integer),
                ("last_error", .text),
            ],
            key: ["id"]
        ),
        CopyTable(
            "mail_templates",
            [
                ("container_id", .text), ("environment", .text), ("kind", .text), ("language", .text), ("subject", .text),
                ("text_body", .text), ("html_body", .text), ("updated_at", .integer),
            ],
            key: ["container_id", "environment", "kind", "language"]
        ),
        CopyTable(
            "transfers", [("container_id", .text), ("id", .text), ("body", .text), ("updated_at", .integer)], key: ["container_id", "id"]
        ),
        CopyTable(
            "user_roles", [("container_id", .text), ("environment", .text), ("user_record_name", .text), ("roles", .text)],
            key: ["container_id", "environment", "user_record_name"]
        ),
        CopyTable(
            "server_keys",
            [("id", .text), ("container_id", .text), ("public_key", .text), ("role", .text), ("created_at", .integer), ("revoked", .boolean)],
            key: ["id"]
        ),
        CopyTable("seen_signatures", [("id", .text), ("expires_at", .integer)], key: ["id"]),
        CopyTable("schemas", [("container_id", .text), ("environment", .text), ("body", .text)], key: ["container_id", "environment"]),
        CopyTable(
            "zones",
            [
                ("id", .integer), ("container_id", .text), ("environment", .text), ("scope", .text), ("owner", .text), ("name", .text),
                ("seq", .integer), ("deleted", .boolean),
            ],
            key: ["id"], positions: ["seq"]
        ),
        CopyTable(
            "records",
            [
                ("id", .integer), ("zone_id", .integer), ("name", .text), ("type", .text), ("change_tag", .text), ("seq", .integer),
                ("deleted", .boolean), ("fields", .text), ("created_at", .integer), ("created_by", .text), ("created_device", .text),
                ("modified_at", .integer), ("modified_by", .text), ("modified_device", .text), ("parent", .text), ("share_name", .text),
                ("short_guid", .text),
            ],
            // A record holds up to a megabyte of fields.
            key: ["id"], positions: ["seq"], pageSize: 200
        ),
        CopyTable(
            "field_index",
            [
                ("zone_id", .integer), ("type", .text), ("field", .text), ("kind", .integer), ("value", .blob), ("extra", .real),
                ("record_id", .integer),
            ],
            key: ["zone_id", "type", "field", "kind", "value", "record_id", "extra"], pageSize: 4000
        ),
        CopyTable(
            "record_refs", [("target_zone_id", .integer), ("target_name", .text), ("source_id", .integer), ("action", .integer)],
            key: ["target_zone_id", "target_name", "source_id", "action"], pageSize: 4000
        ),
        CopyTable(
            "index_builds",
            [("container_id", .text), ("environment", .text), ("record_type", .text), ("field", .text), ("next_record_id", .integer)],
            key: ["container_id", "environment", "record_type", "field"]
        ),
        CopyTable(
            "assets",
            [
                ("id", .text), ("container_id", .text), ("environment", .text), ("scope", .text), ("owner", .text), ("state", .integer),
                ("size", .integer), ("checksum", .text), ("content_type", .text), ("hold_until", .integer), ("ref_count", .integer),
            ],
            key: ["id"]
        ),
        CopyTable(
            "asset_receipts",
            [
                ("receipt", .text), ("asset_id", .text), ("field", .text), ("expires_at", .integer), ("used_record_id", .integer),
                ("used_field", .text),
            ],
            key: ["receipt"]
        ),
        CopyTable("asset_refs", [("record_id", .integer), ("field", .text), ("asset_id", .text)], key: ["record_id", "field", "asset_id"]),
        CopyTable(
            "subscriptions",
            [
                ("container_id", .text), ("environment", .text), ("scope", .text), ("db_owner", .text), ("owner", .text), ("id", .text),
                ("body", .text), ("created_at", .integer),
            ],
            key: ["container_id", "environment", "scope", "db_owner", "owner", "id"]
        ),
        CopyTable(
            "notifications",
            [
                ("id", .integer), ("container_id", .text), ("environment", .text), ("recipient", .text), ("subscription_id", .text),
                ("payload", .text), ("created_at", .integer),
            ],
            key: ["id"], positions: ["id"]
        ),
        CopyTable(
            "push_tokens",
            [
                ("token", .text), ("container_id", .text), ("environment", .text), ("user_record_name", .text), ("apns_environment", .text),
                ("expires_at", .integer), ("cursor", .integer),
            ],
            key: ["token"]
        ),
        CopyTable(
            "push_devices",
            [("token", .text), ("container_id", .text), ("environment", .text), ("user_record_name", .text), ("apns_environment", .text)],
            key: ["token"]
        ),
        CopyTable("shares", [("record_id", .integer), ("zone_id", .integer), ("root_name", .text), ("public_permission", .text)], key: ["record_id"]),
        CopyTable(
            "share_participants",
            [
                // The order participants were added in (SQLite's rowid).
                ("ordinal", .integer), ("share_record_id", .integer), ("zone_id", .integer), ("participant_id", .text),
                ("user_record_name", .text), ("email", .text), ("phone", .text), ("permission", .text), ("type", .text), ("status", .text),
                ("seq", .integer),
            ],
            key: ["share_record_id", "participant_id"], positions: ["seq"]
        ),
        // Record changes not yet matched against subscriptions, so that their notifications are still sent.
        CopyTable("record_outbox", [("position", .integer), ("body", .text)], key: ["position"], positions: ["position"]),
    ]

    /// The table named `name`.
    public static func named(_ name: String) -> CopyTable? {
        all.first { $0.name == name }
    }
}
