import GRDB
import StratusStore

/// The SQLite file's tables, as named, ordered migrations.
enum SQLiteMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-core") { db in
            try db.execute(sql: """
                CREATE TABLE meta (key TEXT PRIMARY KEY, value BLOB NOT NULL);

                CREATE TABLE containers (
                    id TEXT PRIMARY KEY,
                    api_token TEXT NOT NULL UNIQUE,
                    created_at INTEGER NOT NULL
                );

                CREATE TABLE accounts (
                    container_id TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    email TEXT NOT NULL,
                    password_hash TEXT NOT NULL,
                    given_name TEXT,
                    family_name TEXT,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, user_record_name),
                    UNIQUE (container_id, email)
                );

                CREATE TABLE sessions (
                    id TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                );

                CREATE TABLE schemas (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    body TEXT NOT NULL,
                    PRIMARY KEY (container_id, environment)
                );

                -- A deleted zone keeps its row (deleted = 1) so that database change feeds report it.
                CREATE TABLE zones (
                    id INTEGER PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    name TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    deleted INTEGER NOT NULL DEFAULT 0
                );
                CREATE UNIQUE INDEX zones_live ON zones (container_id, environment, scope, owner, name) WHERE deleted = 0;
                CREATE INDEX zones_database ON zones (container_id, environment, scope, owner, seq);

                -- One row per record name; a deleted record keeps a tombstone row (deleted = 1) for change
                -- feeds. seq orders every change by commit (see ChangeSequence, migration v12).
                CREATE TABLE records (
                    id INTEGER PRIMARY KEY,
                    zone_id INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    type TEXT NOT NULL,
                    change_tag TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    deleted INTEGER NOT NULL DEFAULT 0,
                    fields TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    created_by TEXT NOT NULL,
                    created_device TEXT NOT NULL,
                    modified_at INTEGER NOT NULL,
                    modified_by TEXT NOT NULL,
                    modified_device TEXT NOT NULL
                );
                CREATE UNIQUE INDEX records_name ON records (zone_id, name);
                CREATE INDEX records_seq ON records (zone_id, seq);
                CREATE INDEX records_type ON records (zone_id, type, id) WHERE deleted = 0;
                CREATE INDEX records_type_created ON records (zone_id, type, created_at, id) WHERE deleted = 0;
                CREATE INDEX records_type_modified ON records (zone_id, type, modified_at, id) WHERE deleted = 0;

                -- Searchable keys of live records (see IndexEntry). value has no declared type, so SQLite
                -- keeps integers, reals and text exactly as bound.
                CREATE TABLE field_index (
                    zone_id INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    field TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    value NOT NULL,
                    extra REAL NOT NULL DEFAULT 0,
                    record_id INTEGER NOT NULL,
                    PRIMARY KEY (zone_id, type, field, kind, value, record_id, extra)
                ) WITHOUT ROWID;
                CREATE INDEX field_index_record ON field_index (record_id);

                -- DELETE_SELF and VALIDATE references, looked up from their target.
                CREATE TABLE record_refs (
                    target_zone_id INTEGER NOT NULL,
                    target_name TEXT NOT NULL,
                    source_id INTEGER NOT NULL,
                    action INTEGER NOT NULL,
                    PRIMARY KEY (target_zone_id, target_name, source_id, action)
                ) WITHOUT ROWID;
                CREATE INDEX record_refs_source ON record_refs (source_id);
                """)
        }
        migrator.registerMigration("v2-roles") { db in
            try db.execute(sql: """
                CREATE TABLE user_roles (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    roles TEXT NOT NULL,
                    PRIMARY KEY (container_id, environment, user_record_name)
                );
                """)
        }
        migrator.registerMigration("v3-server-keys") { db in
            try db.execute(sql: """
                CREATE TABLE server_keys (
                    id TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    public_key TEXT NOT NULL,
                    role TEXT,
                    created_at INTEGER NOT NULL,
                    revoked INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX server_keys_container ON server_keys (container_id);
                """)
        }
        migrator.registerMigration("v4-index-builds") { db in
            try db.execute(sql: """
                -- Indexes declared on types that held records, still being built over them (SQLiteStore+IndexBuilds).
                CREATE TABLE index_builds (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    record_type TEXT NOT NULL,
                    field TEXT NOT NULL,
                    next_record_id INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (container_id, environment, record_type, field)
                );
                """)
        }
        migrator.registerMigration("v5-assets") { db in
            try db.execute(sql: """
                -- Asset files (bytes in the blob store under id). state: 0 uploading, 1 stored, 2 being collected.
                -- An asset is collected when ref_count = 0 and hold_until (ms) has passed (SQLiteStore+Assets).
                CREATE TABLE assets (
                    id TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    state INTEGER NOT NULL DEFAULT 0,
                    size INTEGER NOT NULL DEFAULT 0,
                    checksum TEXT NOT NULL DEFAULT '',
                    content_type TEXT NOT NULL DEFAULT 'application/octet-stream',
                    hold_until INTEGER NOT NULL,
                    ref_count INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX assets_unreferenced ON assets (hold_until) WHERE ref_count = 0;

                -- What lets one record field take an asset; used_* name the field that took it.
                CREATE TABLE asset_receipts (
                    receipt TEXT PRIMARY KEY,
                    asset_id TEXT NOT NULL,
                    field TEXT,
                    expires_at INTEGER NOT NULL,
                    used_record_id INTEGER,
                    used_field TEXT
                );
                CREATE INDEX asset_receipts_asset ON asset_receipts (asset_id);
                CREATE INDEX asset_receipts_expiry ON asset_receipts (expires_at);

                -- Which live record fields hold which assets; the triggers keep assets.ref_count.
                CREATE TABLE asset_refs (
                    record_id INTEGER NOT NULL,
                    field TEXT NOT NULL,
                    asset_id TEXT NOT NULL,
                    PRIMARY KEY (record_id, field, asset_id)
                ) WITHOUT ROWID;
                CREATE INDEX asset_refs_asset ON asset_refs (asset_id);
                CREATE TRIGGER asset_refs_added AFTER INSERT ON asset_refs BEGIN
                    UPDATE assets SET ref_count = ref_count + 1 WHERE id = NEW.asset_id;
                END;
                CREATE TRIGGER asset_refs_removed AFTER DELETE ON asset_refs BEGIN
                    UPDATE assets SET ref_count = ref_count - 1 WHERE id = OLD.asset_id;
                END;
                """)
        }
        migrator.registerMigration("v6-subscriptions") { db in
            try db.execute(sql: """
                -- Subscriptions, per database and per subscribing user; body is the wire dictionary as JSON.
                CREATE TABLE subscriptions (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    db_owner TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    id TEXT NOT NULL,
                    body TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, environment, scope, db_owner, owner, id)
                );

                -- Notifications, one stream per user, ordered by id; payload is the APNs-style JSON.
                CREATE TABLE notifications (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    recipient TEXT NOT NULL,
                    subscription_id TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX notifications_recipient ON notifications (container_id, environment, recipient, id);
                CREATE INDEX notifications_created ON notifications (created_at);

                -- Web courier queues: cursor is the last notification delivered through the token.
                CREATE TABLE push_tokens (
                    token TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    apns_environment TEXT NOT NULL,
                    expires_at INTEGER NOT NULL,
                    cursor INTEGER NOT NULL
                );
                """)
        }
        migrator.registerMigration("v7-push-devices") { db in
            try db.execute(sql: """
                -- Devices registered for Apple's push service (tokens/register with an APNs device token).
                CREATE TABLE push_devices (
                    token TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    apns_environment TEXT NOT NULL
                );
                CREATE INDEX push_devices_user ON push_devices (container_id, environment, user_record_name);
                """)
        }
        migrator.registerMigration("v8-discoverability") { db in
            try db.execute(sql: """
                ALTER TABLE accounts ADD COLUMN phone_number TEXT;
                ALTER TABLE accounts ADD COLUMN discoverable INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX accounts_phone ON accounts (container_id, phone_number) WHERE phone_number IS NOT NULL;
                """)
        }
        migrator.registerMigration("v9-sharing") { db in
            try db.execute(sql: """
                -- parent: the record above in a share's hierarchy (same zone). share_name: on a shared root, its
                -- share record. short_guid: on shared roots and zone-wide shares; a root keeps it while it lives.
                ALTER TABLE records ADD COLUMN parent TEXT;
                ALTER TABLE records ADD COLUMN share_name TEXT;
                ALTER TABLE records ADD COLUMN short_guid TEXT;
                CREATE UNIQUE INDEX records_short_guid ON records (short_guid) WHERE short_guid IS NOT NULL;
                CREATE INDEX records_parent ON records (zone_id, parent) WHERE parent IS NOT NULL;

                -- One row per live share record (record_id); root_name is NULL for a zone-wide share.
                CREATE TABLE shares (
                    record_id INTEGER PRIMARY KEY,
                    zone_id INTEGER NOT NULL,
                    root_name TEXT,
                    public_permission TEXT NOT NULL
                );
                CREATE INDEX shares_zone ON shares (zone_id);

                -- Participants, the owner aside. A removed participant keeps its row (status REMOVED) so that
                -- the shared database's change feed reports the zone gone; seq orders those changes.
                CREATE TABLE share_participants (
                    share_record_id INTEGER NOT NULL,
                    zone_id INTEGER NOT NULL,
                    participant_id TEXT NOT NULL,
                    user_record_name TEXT,
                    email TEXT,
                    phone TEXT,
                    permission TEXT NOT NULL,
                    type TEXT NOT NULL,
                    status TEXT NOT NULL,
                    seq INTEGER NOT NULL,
                    PRIMARY KEY (share_record_id, participant_id)
                );
                CREATE INDEX share_participants_user ON share_participants (user_record_name, zone_id);
                CREATE INDEX share_participants_zone ON share_participants (zone_id);
                """)
        }
        migrator.registerMigration("v10-signatures") { db in
            try db.execute(sql: """
                -- Signatures of server-to-server requests seen while their date is acceptable, so that none is
                -- accepted twice (replay). expires_at: when the date falls out of the window.
                CREATE TABLE seen_signatures (
                    id TEXT PRIMARY KEY,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX seen_signatures_expiry ON seen_signatures (expires_at);
                """)
        }
        migrator.registerMigration("v11-index-keys") { db in
            // Keys become IndexKey bytes, compared bytewise, in one order defined in Swift for every backend
            // (before, SQLite's own order of untyped values). Compound index entries (kind 3) join them.
            try db.execute(sql: """
                CREATE TABLE field_index_keys (
                    zone_id INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    field TEXT NOT NULL,
                    kind INTEGER NOT NULL,
                    value BLOB NOT NULL,
                    extra REAL NOT NULL DEFAULT 0,
                    record_id INTEGER NOT NULL,
                    PRIMARY KEY (zone_id, type, field, kind, value, record_id, extra)
                ) WITHOUT ROWID;
                """)
            let insert = try db.makeStatement(sql: """
                INSERT OR IGNORE INTO field_index_keys (zone_id, type, field, kind, value, extra, record_id) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
            let rows = try Row.fetchCursor(db, sql: "SELECT zone_id, type, field, kind, value, extra, record_id FROM field_index")
            while let row = try rows.next() {
                let key: IndexEntry.Key
                switch (row["value"] as DatabaseValue).storage {
                case .int64(let number): key = .integer(number)
                case .double(let number): key = .double(number)
                case .string(let text): key = .text(text)
                case .blob, .null: continue
                }
                try insert.execute(arguments: [row["zone_id"], row["type"], row["field"], row["kind"], key.databaseValue, row["extra"], row["record_id"]])
            }
            try db.execute(sql: """
                DROP TABLE field_index;
                ALTER TABLE field_index_keys RENAME TO field_index;
                -- Per record: to remove a record's entries, and to check a filter on one record while walking another index.
                CREATE INDEX field_index_record ON field_index (record_id, field, kind);
                """)
        }
        migrator.registerMigration("v12-change-sequence") { db in
            // The change sequence moves from memory into the file, so that every process continues it (ChangeSequence).
            try db.execute(sql: """
                INSERT OR REPLACE INTO meta (key, value) SELECT 'change_seq', COALESCE(MAX(m), 0) FROM (
                    SELECT MAX(seq) AS m FROM records UNION ALL SELECT MAX(seq) FROM zones UNION ALL SELECT MAX(seq) FROM share_participants
                );
                """)
        }
        migrator.registerMigration("v13-events") { db in
            try db.execute(sql: """
                -- Store events (StoreEvent, JSON), written with the change they describe; every process reads them
                -- in id order (SQLiteEventLog). Kept for a while, then pruned.
                CREATE TABLE store_events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    body TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                -- Committed record changes waiting to be matched against subscriptions (RecordEvent, JSON).
                CREATE TABLE record_outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    body TEXT NOT NULL
                );
                -- Background jobs that must run in one process at a time.
                CREATE TABLE leases (
                    name TEXT PRIMARY KEY,
                    holder TEXT NOT NULL,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', 0);
                """)
        }
        migrator.registerMigration("v14-sign-in-failures") { db in
            try db.execute(sql: """
                -- Failed sign-ins per key (account and address, or address), for the sign-in throttle of every process.
                CREATE TABLE sign_in_failures (
                    key TEXT PRIMARY KEY,
                    count INTEGER NOT NULL,
                    last_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX sign_in_failures_last ON sign_in_failures (last_at);
                """)
        }
        migrator.registerMigration("v15-transfers") { db in
            try db.execute(sql: """
                -- The progress of imports and exports (TransferStatus, JSON), for the console.
                CREATE TABLE transfers (
                    container_id TEXT NOT NULL,
                    id TEXT NOT NULL,
                    body TEXT NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v16-notification-positions") { db in
            // Outbox entries and notifications take change positions from the change sequence (as on PostgreSQL),
            // so the sequence goes past every id they were given before.
            try db.execute(sql: """
                ALTER TABLE record_outbox RENAME COLUMN id TO position;
                INSERT INTO meta (key, value) VALUES ('\(ChangeSequence.metaKey)', (
                    SELECT MAX(COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = '\(ChangeSequence.metaKey)'), 0),
                        COALESCE((SELECT MAX(seq) FROM sqlite_sequence WHERE name IN ('notifications', 'record_outbox')), 0),
                        COALESCE((SELECT MAX(id) FROM notifications), 0), COALESCE((SELECT MAX(position) FROM record_outbox), 0))
                ))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value;
                """)
        }
        migrator.registerMigration("v17-account-lifecycle") { db in
            try db.execute(sql: """
                -- Each container's AccountSettings (JSON).
                ALTER TABLE containers ADD COLUMN account_settings TEXT NOT NULL DEFAULT '{}';
                ALTER TABLE accounts ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE accounts ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0;
                -- Set when the account's deletion starts; the account deleter finishes it, after a crash too.
                ALTER TABLE accounts ADD COLUMN deleting INTEGER NOT NULL DEFAULT 0;
                -- The second factor: the TOTP secret sealed with a server key, whether it is on, the last time step
                -- used (a code works once), and the recovery codes' keyed hashes (JSON).
                ALTER TABLE accounts ADD COLUMN totp_secret TEXT;
                ALTER TABLE accounts ADD COLUMN totp_enabled INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE accounts ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE accounts ADD COLUMN recovery_codes TEXT NOT NULL DEFAULT '[]';
                CREATE INDEX accounts_deleting ON accounts (deleting) WHERE deleting = 1;
                ALTER TABLE sessions ADD COLUMN device_name TEXT;
                ALTER TABLE sessions ADD COLUMN last_used_at INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX sessions_account ON sessions (container_id, user_record_name);
                -- Single-use codes and links mailed to account owners, as keyed hashes (AccountCode).
                CREATE TABLE account_codes (
                    id TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    purpose TEXT NOT NULL,
                    code_hash TEXT NOT NULL,
                    link_hash TEXT NOT NULL UNIQUE,
                    new_email TEXT,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL,
                    failed_attempts INTEGER NOT NULL DEFAULT 0
                ) WITHOUT ROWID;
                CREATE INDEX account_codes_account ON account_codes (container_id, user_record_name, purpose);
                CREATE INDEX account_codes_expiry ON account_codes (expires_at);
                -- Mail waiting to be sent, and a record of what was sent (bodies erased once sent).
                CREATE TABLE mail_queue (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    language TEXT NOT NULL,
                    recipient TEXT NOT NULL,
                    sender_address TEXT NOT NULL,
                    sender_name TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    text_body TEXT NOT NULL,
                    html_body TEXT,
                    status TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    queued_at INTEGER NOT NULL,
                    next_attempt_at INTEGER NOT NULL,
                    sent_at INTEGER,
                    last_error TEXT
                );
                CREATE INDEX mail_queue_due ON mail_queue (status, next_attempt_at);
                CREATE INDEX mail_queue_container ON mail_queue (container_id, id);
                -- Containers' own mail wording per kind and language (MailTemplate).
                CREATE TABLE mail_templates (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    kind TEXT NOT NULL,
                    language TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    text_body TEXT NOT NULL,
                    html_body TEXT,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, environment, kind, language)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v18-passkeys") { db in
            try db.execute(sql: """
                -- Accounts' passkeys: each WebAuthn credential's public key (COSE, base64url) and signature counter.
                CREATE TABLE passkeys (
                    container_id TEXT NOT NULL,
                    credential_id TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    public_key TEXT NOT NULL,
                    sign_count INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    backed_up INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL,
                    last_used_at INTEGER,
                    PRIMARY KEY (container_id, credential_id)
                ) WITHOUT ROWID;
                CREATE INDEX passkeys_account ON passkeys (container_id, user_record_name);
                -- Single-use challenges of passkey ceremonies (PasskeyChallenge).
                CREATE TABLE passkey_challenges (
                    challenge TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    purpose TEXT NOT NULL,
                    user_record_name TEXT,
                    details TEXT,
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);
                CREATE INDEX passkey_challenges_account ON passkey_challenges (container_id, user_record_name);
                """)
        }
        migrator.registerMigration("v19-identities") { db in
            try db.execute(sql: """
                -- Accounts may have no address (anonymous ones, and those a provider gave none): SQLite cannot drop a
                -- column's NOT NULL, so the table is made again with the same columns and indexes.
                CREATE TABLE accounts_next (
                    container_id TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    email TEXT,
                    password_hash TEXT NOT NULL,
                    given_name TEXT,
                    family_name TEXT,
                    created_at INTEGER NOT NULL,
                    phone_number TEXT,
                    discoverable INTEGER NOT NULL DEFAULT 0,
                    email_verified INTEGER NOT NULL DEFAULT 0,
                    disabled INTEGER NOT NULL DEFAULT 0,
                    deleting INTEGER NOT NULL DEFAULT 0,
                    totp_secret TEXT,
                    totp_enabled INTEGER NOT NULL DEFAULT 0,
                    totp_last_step INTEGER NOT NULL DEFAULT 0,
                    recovery_codes TEXT NOT NULL DEFAULT '[]',
                    -- Made for a device without asking anything, and nothing attached since (Account.isAnonymous).
                    anonymous INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (container_id, user_record_name),
                    UNIQUE (container_id, email)
                );
                INSERT INTO accounts_next (container_id, user_record_name, email, password_hash, given_name, family_name, created_at,
                    phone_number, discoverable, email_verified, disabled, deleting, totp_secret, totp_enabled, totp_last_step, recovery_codes)
                SELECT container_id, user_record_name, email, password_hash, given_name, family_name, created_at, phone_number, discoverable,
                    email_verified, disabled, deleting, totp_secret, totp_enabled, totp_last_step, recovery_codes FROM accounts;
                DROP TABLE accounts;
                ALTER TABLE accounts_next RENAME TO accounts;
                CREATE INDEX accounts_phone ON accounts (container_id, phone_number) WHERE phone_number IS NOT NULL;
                CREATE INDEX accounts_deleting ON accounts (deleting) WHERE deleting = 1;
                CREATE INDEX accounts_anonymous ON accounts (container_id, created_at) WHERE anonymous = 1;
                -- Accounts' identities at sign-in providers (AccountIdentity).
                CREATE TABLE account_identities (
                    container_id TEXT NOT NULL,
                    provider TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    email TEXT,
                    email_verified INTEGER NOT NULL DEFAULT 0,
                    private_email INTEGER NOT NULL DEFAULT 0,
                    sealed_refresh_token TEXT,
                    created_at INTEGER NOT NULL,
                    last_used_at INTEGER,
                    PRIMARY KEY (container_id, provider, subject)
                ) WITHOUT ROWID;
                CREATE INDEX account_identities_account ON account_identities (container_id, user_record_name);
                """)
        }
        migrator.registerMigration("v20-secrets") { db in
            try db.execute(sql: """
                -- Containers' secrets, sealed by the server with its secrets key (ContainerSecret).
                CREATE TABLE container_secrets (
                    container_id TEXT NOT NULL,
                    name TEXT NOT NULL,
                    sealed_value TEXT NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, name)
                ) WITHOUT ROWID;
                -- Provider tokens to revoke after their account's deletion (PendingRevocation).
                CREATE TABLE pending_revocations (
                    container_id TEXT NOT NULL,
                    provider TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    sealed_token TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    last_error TEXT,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, provider, subject)
                ) WITHOUT ROWID;
                CREATE INDEX pending_revocations_due ON pending_revocations (next_attempt_at);
                """)
        }
        migrator.registerMigration("v21-cloudkit-claims") { db in
            try db.execute(sql: """
                -- Accounts' claims to users of the CloudKit container their public database was imported from (CloudKitClaim).
                CREATE TABLE cloudkit_claims (
                    container_id TEXT NOT NULL,
                    cloudkit_user TEXT NOT NULL,
                    user_record_name TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    records INTEGER NOT NULL DEFAULT 0,
                    users_record_fields INTEGER NOT NULL DEFAULT 0,
                    claimed_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, cloudkit_user),
                    UNIQUE (container_id, user_record_name)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v22-webhooks") { db in
            try db.execute(sql: """
                -- Where container environments send their events (WebhookEndpoint); lists are JSON arrays.
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    url TEXT NOT NULL,
                    description TEXT NOT NULL DEFAULT '',
                    event_types TEXT NOT NULL DEFAULT '[]',
                    databases TEXT NOT NULL DEFAULT '[]',
                    zone_names TEXT NOT NULL DEFAULT '[]',
                    record_types TEXT NOT NULL DEFAULT '[]',
                    sealed_secrets TEXT NOT NULL,
                    enabled INTEGER NOT NULL DEFAULT 1,
                    disabled_reason TEXT,
                    failing_since INTEGER,
                    created_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX webhook_endpoints_container ON webhook_endpoints (container_id, environment);
                -- One event for one endpoint (WebhookDelivery); ids are change positions.
                CREATE TABLE webhook_deliveries (
                    id INTEGER PRIMARY KEY,
                    endpoint_id TEXT NOT NULL,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    ordering_key TEXT NOT NULL,
                    event_id TEXT NOT NULL,
                    event_type TEXT NOT NULL,
                    body TEXT NOT NULL,
                    status TEXT NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    delivered_at INTEGER,
                    last_status INTEGER,
                    last_response TEXT,
                    last_latency INTEGER
                );
                CREATE INDEX webhook_deliveries_line ON webhook_deliveries (endpoint_id, ordering_key, id) WHERE status = 'pending';
                CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
                CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
                """)
        }
        migrator.registerMigration("v23-functions") { db in
            try db.execute(sql: """
                -- WebAssembly modules of container environments (StoredFunctionModule); entries is a JSON array.
                CREATE TABLE function_modules (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    name TEXT NOT NULL,
                    bytes BLOB NOT NULL,
                    digest TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    entries TEXT NOT NULL DEFAULT '[]',
                    uploaded_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, environment, name)
                ) WITHOUT ROWID;
                -- Functions: a module's entry bound to a trigger (FunctionBinding); lists are JSON arrays, limits a JSON object.
                CREATE TABLE function_bindings (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    name TEXT NOT NULL,
                    module TEXT NOT NULL,
                    entry TEXT NOT NULL,
                    trigger TEXT NOT NULL,
                    record_types TEXT NOT NULL DEFAULT '[]',
                    databases TEXT NOT NULL DEFAULT '[]',
                    event_types TEXT NOT NULL DEFAULT '[]',
                    run_as_role TEXT,
                    grants TEXT NOT NULL DEFAULT '[]',
                    limits TEXT NOT NULL DEFAULT '{}',
                    enabled INTEGER NOT NULL DEFAULT 1,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, environment, name)
                ) WITHOUT ROWID;
                -- Jobs run on a schedule (ScheduledJob) and their runs (ScheduledJobRun), one per job and due time.
                CREATE TABLE scheduled_jobs (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    name TEXT NOT NULL,
                    schedule TEXT NOT NULL,
                    time_zone TEXT NOT NULL DEFAULT 'UTC',
                    target TEXT NOT NULL,
                    missed_runs TEXT NOT NULL,
                    enabled INTEGER NOT NULL DEFAULT 1,
                    next_run_at INTEGER NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, environment, name)
                ) WITHOUT ROWID;
                CREATE INDEX scheduled_jobs_due ON scheduled_jobs (next_run_at) WHERE enabled = 1;
                CREATE TABLE scheduled_job_runs (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    job TEXT NOT NULL,
                    scheduled_for INTEGER NOT NULL,
                    started_at INTEGER NOT NULL,
                    finished_at INTEGER,
                    node TEXT NOT NULL,
                    status TEXT NOT NULL,
                    result TEXT NOT NULL DEFAULT '',
                    missed INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (container_id, environment, job, scheduled_for)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("v24-usage") { db in
            try db.execute(sql: """
                -- Quotas (Quotas) per container; container_id '*' holds the defaults. NULL is not set.
                CREATE TABLE quotas (
                    container_id TEXT PRIMARY KEY,
                    public_storage_bytes INTEGER,
                    user_storage_bytes INTEGER,
                    user_requests_per_minute INTEGER,
                    key_requests_per_minute INTEGER,
                    address_requests_per_minute INTEGER
                ) WITHOUT ROWID;
                -- The last measurement of each database holding data (StorageUsage), replaced whole each time.
                CREATE TABLE storage_usage (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    scope TEXT NOT NULL,
                    owner TEXT NOT NULL,
                    records INTEGER NOT NULL,
                    record_bytes INTEGER NOT NULL,
                    asset_bytes INTEGER NOT NULL,
                    measured_at INTEGER NOT NULL,
                    PRIMARY KEY (container_id, environment, scope, owner)
                ) WITHOUT ROWID;
                -- Requests per key (user, server-to-server key, address) and minute, added to by every node.
                CREATE TABLE request_counts (
                    key TEXT NOT NULL,
                    window_start INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (key, window_start)
                ) WITHOUT ROWID;
                CREATE INDEX request_counts_window ON request_counts (window_start);
                """)
        }
        migrator.registerMigration("v25-telemetry") { db in
            try db.execute(sql: """
                -- Per-minute figures of each node for each container environment (TelemetryMinute); error_codes is a JSON
                -- object of counts, latency `bucket:count` pairs (LatencyHistogram).
                CREATE TABLE telemetry_minutes (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    minute INTEGER NOT NULL,
                    node TEXT NOT NULL,
                    requests INTEGER NOT NULL,
                    errors INTEGER NOT NULL,
                    error_codes TEXT NOT NULL DEFAULT '{}',
                    latency TEXT NOT NULL DEFAULT '',
                    notifications INTEGER NOT NULL DEFAULT 0,
                    PRIMARY KEY (container_id, environment, minute, node)
                ) WITHOUT ROWID;
                CREATE INDEX telemetry_minutes_minute ON telemetry_minutes (minute);
                -- The users who sent requests each day (whole days since 1970).
                CREATE TABLE active_users (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    day INTEGER NOT NULL,
                    user_record_name TEXT NOT NULL,
                    PRIMARY KEY (container_id, environment, day, user_record_name)
                ) WITHOUT ROWID;
                CREATE INDEX active_users_day ON active_users (day);
                -- Each container environment's storage at each measurement (StorageSample).
                CREATE TABLE storage_history (
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    measured_at INTEGER NOT NULL,
                    public_bytes INTEGER NOT NULL,
                    private_bytes INTEGER NOT NULL,
                    users INTEGER NOT NULL,
                    PRIMARY KEY (container_id, environment, measured_at)
                ) WITHOUT ROWID;
                CREATE INDEX storage_history_time ON storage_history (measured_at);
                -- Answered requests (RequestLogEntry); record_types is ",A,B," so that LIKE '%,A,%' finds one.
                CREATE TABLE request_log (
                    id INTEGER PRIMARY KEY,
                    container_id TEXT NOT NULL,
                    environment TEXT NOT NULL,
                    time INTEGER NOT NULL,
                    node TEXT NOT NULL,
                    method TEXT NOT NULL,
                    operation TEXT NOT NULL,
                    status INTEGER NOT NULL,
                    error_code TEXT,
                    user_record_name TEXT,
                    record_types TEXT NOT NULL DEFAULT '',
                    microseconds INTEGER NOT NULL,
                    address TEXT NOT NULL DEFAULT ''
                );
                CREATE INDEX request_log_container ON request_log (container_id, id);
                CREATE INDEX request_log_time ON request_log (time);
                """)
        }
        migrator.registerMigration("v26-operators") { db in
            try db.execute(sql: """
                -- People who run the server (OperatorAccount): a password and an authenticator app (totp_secret sealed).
                CREATE TABLE operators (
                    id TEXT PRIMARY KEY,
                    email TEXT NOT NULL UNIQUE,
                    name TEXT NOT NULL DEFAULT '',
                    password_hash TEXT NOT NULL,
                    totp_secret TEXT,
                    totp_enabled INTEGER NOT NULL DEFAULT 0,
                    totp_last_step INTEGER NOT NULL DEFAULT 0,
                    administrator INTEGER NOT NULL DEFAULT 0,
                    disabled INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                -- Each operator's role (owner, developer, viewer) per container.
                CREATE TABLE operator_roles (
                    operator_id TEXT NOT NULL,
                    container_id TEXT NOT NULL,
                    role TEXT NOT NULL,
                    PRIMARY KEY (operator_id, container_id)
                ) WITHOUT ROWID;
                -- Admin actions (AuditEntry); ids order them by time.
                CREATE TABLE audit_log (
                    id TEXT PRIMARY KEY,
                    time INTEGER NOT NULL,
                    actor TEXT NOT NULL,
                    container_id TEXT,
                    action TEXT NOT NULL,
                    status INTEGER NOT NULL,
                    address TEXT NOT NULL DEFAULT ''
                ) WITHOUT ROWID;
                CREATE INDEX audit_log_container ON audit_log (container_id, id);
                """)
        }
        return migrator
    }
}
