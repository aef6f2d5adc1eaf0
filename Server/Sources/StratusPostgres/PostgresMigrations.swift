import Foundation
import Logging
import PostgresNIO
import StratusStore

/// The PostgreSQL database's tables, as numbered migrations applied in order on start.
///
/// Servers starting at once against one database take turns: the migrations run in one transaction that
/// first takes an advisory lock, so the second server finds the tables made and applies nothing. A database
/// migrated by a newer version is refused, saying why, rather than written in a shape this one does not know.
enum PostgresMigrations {
    /// One step of the schema.
    struct Migration: Sendable {
        let version: Int
        let name: String
        let sql: String
    }

    /// The advisory lock key held while migrating ("stratus" in ASCII).
    static let lockKey: Int64 = 0x7374_7261_7475_73

    /// Every migration, oldest first; versions are consecutive from 1.
    static let all: [Migration] = [
        Migration(version: 1, name: "core", sql: coreSchema),
        Migration(version: 2, name: "settled-bound", sql: settledBoundFunction),
        Migration(version: 3, name: "sign-in-failures", sql: signInFailures),
        Migration(version: 4, name: "transfers", sql: transfers),
        Migration(version: 5, name: "account-lifecycle", sql: accountLifecycle),
        Migration(version: 6, name: "passkeys", sql: passkeys),
        Migration(version: 7, name: "identities", sql: identities),
        Migration(version: 8, name: "secrets", sql: secrets),
        Migration(version: 9, name: "cloudkit-claims", sql: cloudKitClaims),
        Migration(version: 10, name: "webhooks", sql: webhooks),
        Migration(version: 11, name: "functions", sql: functions),
        Migration(version: 12, name: "usage", sql: usage),
        Migration(version: 13, name: "telemetry", sql: telemetry),
        Migration(version: 14, name: "operators", sql: operators),
    ]

    /// The newest version this build knows.
    static var latestVersion: Int { all.last?.version ?? 0 }

    /// Brings the database up to ``latestVersion``.
    /// - Returns: the versions applied (empty when the database was up to date).
    /// - Throws: ``StorageError/Code/internalFailure`` for a database migrated by a newer version.
    /// - Parameter started: called once a connection is had.
    static func migrate(_ client: PostgresClient, logger: Logger, started: @Sendable () throws -> Void = {}) async throws -> [Int] {
        try await client.withTransaction(logger: logger) { connection in
            try started()
            try await connection.run("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.run(
                """
                CREATE TABLE IF NOT EXISTS stratus_migrations (
                    version INTEGER PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """,
                logger: logger
            )
            let current = try await connection.all("SELECT COALESCE(MAX(version), 0) FROM stratus_migrations", as: Int.self, logger: logger)
                .first ?? 0
            guard current <= latestVersion else {
                throw StorageError(
                    .internalFailure,
                    "the database was migrated by a newer version of Stratus (schema version \(current); this version knows up to \(latestVersion)): run that version or a newer one"
                )
            }
            var applied: [Int] = []
            for migration in all where migration.version > current {
                for statement in statements(of: migration.sql) {
                    try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.run(
                    "INSERT INTO stratus_migrations (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger
                )
                applied.append(migration.version)
            }
            return applied
        }
    }

    /// The statements of a migration's SQL, one at a time (a prepared statement holds one): split at each `;`
    /// outside `$$` bodies and `--` comments.
    static func statements(of sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var inBody = false
        var inComment = false
        var previous: Character = " "
        for character in sql {
            if inComment {
                if character == "\n" { inComment = false }
                current.append(character)
            } else if character == "-" && previous == "-" && !inBody {
                inComment = true
                current.append(character)
            } else if character == "$" && previous == "$" {
                inBody.toggle()
                current.append(character)
            } else if character == ";" && !inBody {
                let statement = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if !statement.isEmpty { statements.append(statement) }
                current = ""
            } else {
                current.append(character)
            }
            previous = character
        }
        let last = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !last.isEmpty { statements.append(last) }
        return statements
    }

    /// Version 1: every table. Change positions (`seq`, `position`) come from ``ChangePosition``: a
    /// transaction's id shifted left, plus a counter, so that readers can tell which changes are settled.
    static let coreSchema = """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value BYTEA NOT NULL);

        CREATE TABLE containers (
            id TEXT PRIMARY KEY,
            api_token TEXT NOT NULL UNIQUE,
            created_at BIGINT NOT NULL
        );

        CREATE TABLE accounts (
            container_id TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            email TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            given_name TEXT,
            family_name TEXT,
            phone_number TEXT,
            discoverable BOOLEAN NOT NULL DEFAULT false,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, user_record_name),
            UNIQUE (container_id, email)
        );
        CREATE INDEX accounts_phone ON accounts (container_id, phone_number) WHERE phone_number IS NOT NULL;

        CREATE TABLE sessions (
            id TEXT PRIMARY KEY,
            container_id TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        );
        CREATE INDEX sessions_expiry ON sessions (expires_at);

        CREATE TABLE user_roles (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            roles TEXT NOT NULL,
            PRIMARY KEY (container_id, environment, user_record_name)
        );

        CREATE TABLE server_keys (
            id TEXT PRIMARY KEY,
            container_id TEXT NOT NULL,
            public_key TEXT NOT NULL,
            role TEXT,
            created_at BIGINT NOT NULL,
            revoked BOOLEAN NOT NULL DEFAULT false
        );
        CREATE INDEX server_keys_container ON server_keys (container_id);

        -- Signatures of server-to-server requests seen while their date is acceptable (replay protection).
        CREATE TABLE seen_signatures (
            id TEXT PRIMARY KEY,
            expires_at BIGINT NOT NULL
        );
        CREATE INDEX seen_signatures_expiry ON seen_signatures (expires_at);

        -- The schema of each container environment, as the schema language's text; version grows on each change.
        CREATE TABLE schemas (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            body TEXT NOT NULL,
            version BIGINT NOT NULL DEFAULT 1,
            PRIMARY KEY (container_id, environment)
        );

        -- A deleted zone keeps its row (deleted) so that database change feeds report it.
        CREATE TABLE zones (
            id BIGSERIAL PRIMARY KEY,
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            scope TEXT NOT NULL,
            owner TEXT NOT NULL,
            name TEXT NOT NULL,
            seq BIGINT NOT NULL,
            deleted BOOLEAN NOT NULL DEFAULT false
        );
        CREATE UNIQUE INDEX zones_live ON zones (container_id, environment, scope, owner, name) WHERE NOT deleted;
        CREATE INDEX zones_database ON zones (container_id, environment, scope, owner, seq);

        -- One row per record name; a deleted record keeps a tombstone row for change feeds.
        CREATE TABLE records (
            id BIGSERIAL PRIMARY KEY,
            zone_id BIGINT NOT NULL,
            name TEXT NOT NULL,
            type TEXT NOT NULL,
            change_tag TEXT NOT NULL,
            seq BIGINT NOT NULL,
            deleted BOOLEAN NOT NULL DEFAULT false,
            fields TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            created_by TEXT NOT NULL,
            created_device TEXT NOT NULL,
            modified_at BIGINT NOT NULL,
            modified_by TEXT NOT NULL,
            modified_device TEXT NOT NULL,
            parent TEXT,
            share_name TEXT,
            short_guid TEXT
        );
        CREATE UNIQUE INDEX records_name ON records (zone_id, name);
        CREATE INDEX records_seq ON records (zone_id, seq);
        CREATE INDEX records_type_created ON records (zone_id, type, created_at, id) WHERE NOT deleted;
        CREATE INDEX records_type_modified ON records (zone_id, type, modified_at, id) WHERE NOT deleted;
        CREATE UNIQUE INDEX records_short_guid ON records (short_guid) WHERE short_guid IS NOT NULL;
        CREATE INDEX records_parent ON records (zone_id, parent) WHERE parent IS NOT NULL;

        -- The distance in metres between two points on the Earth, as the model's Location.distance computes it.
        CREATE FUNCTION stratus_distance(lat1 double precision, lon1 double precision, lat2 double precision, lon2 double precision)
        RETURNS double precision LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
            SELECT 2 * 6371008.8 * asin(least(1, sqrt(
                sin(radians(lat2 - lat1) / 2) * sin(radians(lat2 - lat1) / 2)
                + cos(radians(lat1)) * cos(radians(lat2)) * sin(radians(lon2 - lon1) / 2) * sin(radians(lon2 - lon1) / 2)
            )))
        $$;

        -- Searchable keys of live records: IndexKey bytes, compared bytewise (the engine's one sort order).
        CREATE TABLE field_index (
            zone_id BIGINT NOT NULL,
            type TEXT NOT NULL,
            field TEXT NOT NULL,
            kind SMALLINT NOT NULL,
            value BYTEA NOT NULL,
            extra DOUBLE PRECISION NOT NULL DEFAULT 0,
            record_id BIGINT NOT NULL,
            -- The key as a number, when it is one (a LOCATION's latitude, for distances).
            number DOUBLE PRECISION,
            PRIMARY KEY (zone_id, type, field, kind, value, record_id, extra)
        );
        CREATE INDEX field_index_record ON field_index (record_id, field, kind);

        -- DELETE_SELF and VALIDATE references, looked up from their target.
        CREATE TABLE record_refs (
            target_zone_id BIGINT NOT NULL,
            target_name TEXT NOT NULL,
            source_id BIGINT NOT NULL,
            action SMALLINT NOT NULL,
            PRIMARY KEY (target_zone_id, target_name, source_id, action)
        );
        CREATE INDEX record_refs_source ON record_refs (source_id);

        -- Indexes declared on types that held records, still being built over them.
        CREATE TABLE index_builds (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            record_type TEXT NOT NULL,
            field TEXT NOT NULL,
            next_record_id BIGINT NOT NULL DEFAULT 0,
            PRIMARY KEY (container_id, environment, record_type, field)
        );

        -- Asset files (bytes in the blob store under id). state: 0 uploading, 1 stored, 2 being collected.
        CREATE TABLE assets (
            id TEXT PRIMARY KEY,
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            scope TEXT NOT NULL,
            owner TEXT NOT NULL,
            state SMALLINT NOT NULL DEFAULT 0,
            size BIGINT NOT NULL DEFAULT 0,
            checksum TEXT NOT NULL DEFAULT '',
            content_type TEXT NOT NULL DEFAULT 'application/octet-stream',
            hold_until BIGINT NOT NULL,
            ref_count BIGINT NOT NULL DEFAULT 0
        );
        CREATE INDEX assets_unreferenced ON assets (hold_until) WHERE ref_count = 0;

        CREATE TABLE asset_receipts (
            receipt TEXT PRIMARY KEY,
            asset_id TEXT NOT NULL,
            field TEXT,
            expires_at BIGINT NOT NULL,
            used_record_id BIGINT,
            used_field TEXT
        );
        CREATE INDEX asset_receipts_asset ON asset_receipts (asset_id);
        CREATE INDEX asset_receipts_expiry ON asset_receipts (expires_at);

        -- Which live record fields hold which assets; the triggers keep assets.ref_count.
        CREATE TABLE asset_refs (
            record_id BIGINT NOT NULL,
            field TEXT NOT NULL,
            asset_id TEXT NOT NULL,
            PRIMARY KEY (record_id, field, asset_id)
        );
        CREATE INDEX asset_refs_asset ON asset_refs (asset_id);
        CREATE FUNCTION asset_refs_count() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE assets SET ref_count = ref_count + 1 WHERE id = NEW.asset_id;
            ELSE
                UPDATE assets SET ref_count = ref_count - 1 WHERE id = OLD.asset_id;
            END IF;
            RETURN NULL;
        END $$;
        CREATE TRIGGER asset_refs_counted AFTER INSERT OR DELETE ON asset_refs FOR EACH ROW EXECUTE FUNCTION asset_refs_count();

        CREATE TABLE subscriptions (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            scope TEXT NOT NULL,
            db_owner TEXT NOT NULL,
            owner TEXT NOT NULL,
            id TEXT NOT NULL,
            body TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, environment, scope, db_owner, owner, id)
        );

        -- Notifications, one stream per user, ordered by their change position.
        CREATE TABLE notifications (
            id BIGINT PRIMARY KEY,
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            recipient TEXT NOT NULL,
            subscription_id TEXT NOT NULL,
            payload TEXT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX notifications_recipient ON notifications (container_id, environment, recipient, id);
        CREATE INDEX notifications_created ON notifications (created_at);

        CREATE TABLE push_tokens (
            token TEXT PRIMARY KEY,
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            apns_environment TEXT NOT NULL,
            expires_at BIGINT NOT NULL,
            cursor BIGINT NOT NULL
        );

        CREATE TABLE push_devices (
            token TEXT PRIMARY KEY,
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            apns_environment TEXT NOT NULL
        );
        CREATE INDEX push_devices_user ON push_devices (container_id, environment, user_record_name);

        -- One row per live share record; root_name is NULL for a zone-wide share.
        CREATE TABLE shares (
            record_id BIGINT PRIMARY KEY,
            zone_id BIGINT NOT NULL,
            root_name TEXT,
            public_permission TEXT NOT NULL
        );
        CREATE INDEX shares_zone ON shares (zone_id);

        -- Participants, the owner aside; a removed one keeps its row (status REMOVED) for the shared feed.
        CREATE TABLE share_participants (
            ordinal BIGSERIAL,
            share_record_id BIGINT NOT NULL,
            zone_id BIGINT NOT NULL,
            participant_id TEXT NOT NULL,
            user_record_name TEXT,
            email TEXT,
            phone TEXT,
            permission TEXT NOT NULL,
            type TEXT NOT NULL,
            status TEXT NOT NULL,
            seq BIGINT NOT NULL,
            PRIMARY KEY (share_record_id, participant_id)
        );
        CREATE INDEX share_participants_user ON share_participants (user_record_name, zone_id);
        CREATE INDEX share_participants_zone ON share_participants (zone_id);

        -- Store events (StoreEvent, JSON), written with the change they describe; every node reads them in
        -- position order once settled, woken by NOTIFY stratus_events.
        CREATE TABLE store_events (
            position BIGINT PRIMARY KEY,
            body TEXT NOT NULL,
            created_at BIGINT NOT NULL
        );

        -- Committed record changes waiting to be matched against subscriptions (RecordEvent, JSON).
        CREATE TABLE record_outbox (
            position BIGINT PRIMARY KEY,
            body TEXT NOT NULL
        );

        -- Background jobs that must run on one node at a time.
        CREATE TABLE leases (
            name TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            expires_at BIGINT NOT NULL
        );
        """

    /// Version 2: the settled bound of ``ChangePosition`` as a function. Every change feed and every request's
    /// event catch-up asks for it; as one SQL expression (`pg_stat_activity` is a view of several joins) planning it
    /// cost more than running it, while a PL/pgSQL function plans its statements once per connection. `STABLE`, so
    /// that it reads the calling statement's snapshot.
    static let settledBoundFunction = """
        CREATE FUNCTION stratus_settled_bound(position_offset bigint) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
        DECLARE
            snapshot pg_snapshot := pg_current_snapshot();
            oldest bigint;
        BEGIN
            -- The oldest transaction still running in this database (transactions of other databases left out).
            SELECT MIN(x::text::bigint) INTO oldest FROM pg_snapshot_xip(snapshot) AS x
            WHERE x::text::bigint NOT IN (
                SELECT a.backend_xid::text::bigint FROM pg_stat_get_activity(NULL) AS a
                WHERE a.backend_xid IS NOT NULL
                    AND a.datid IS DISTINCT FROM (SELECT d.oid FROM pg_database d WHERE d.datname = current_database()));
            RETURN (LEAST(pg_snapshot_xmax(snapshot)::text::bigint, COALESCE(oldest, pg_snapshot_xmax(snapshot)::text::bigint))
                + position_offset) << 20;
        END $$;
        """

    /// Version 3: failed sign-ins per key (account and address, or address), so that the sign-in throttle counts
    /// the attempts sent to every node.
    static let signInFailures = """
        CREATE TABLE sign_in_failures (
            key TEXT PRIMARY KEY,
            count BIGINT NOT NULL,
            last_at BIGINT NOT NULL
        );
        CREATE INDEX sign_in_failures_last ON sign_in_failures (last_at);
        """

    /// Version 4: the progress of imports and exports (`TransferStatus`, JSON), for the console of every node.
    static let transfers = """
        CREATE TABLE transfers (
            container_id TEXT NOT NULL,
            id TEXT NOT NULL,
            body TEXT NOT NULL,
            updated_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, id)
        );
        """

    /// Version 5: account settings per container, verified and disabled accounts, sessions' devices and last use,
    /// single-use codes (as keyed hashes), the mail queue and containers' mail templates.
    static let accountLifecycle = """
        ALTER TABLE containers ADD COLUMN account_settings TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE accounts ADD COLUMN email_verified BOOLEAN NOT NULL DEFAULT FALSE;
        ALTER TABLE accounts ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT FALSE;
        ALTER TABLE accounts ADD COLUMN deleting BOOLEAN NOT NULL DEFAULT FALSE;
        ALTER TABLE accounts ADD COLUMN totp_secret TEXT;
        ALTER TABLE accounts ADD COLUMN totp_enabled BOOLEAN NOT NULL DEFAULT FALSE;
        ALTER TABLE accounts ADD COLUMN totp_last_step BIGINT NOT NULL DEFAULT 0;
        ALTER TABLE accounts ADD COLUMN recovery_codes TEXT NOT NULL DEFAULT '[]';
        CREATE INDEX accounts_deleting ON accounts (deleting) WHERE deleting;
        ALTER TABLE sessions ADD COLUMN device_name TEXT;
        ALTER TABLE sessions ADD COLUMN last_used_at BIGINT NOT NULL DEFAULT 0;
        CREATE INDEX sessions_account ON sessions (container_id, user_record_name);
        CREATE TABLE account_codes (
            id TEXT PRIMARY KEY,
            container_id TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            purpose TEXT NOT NULL,
            code_hash TEXT NOT NULL,
            link_hash TEXT NOT NULL UNIQUE,
            new_email TEXT,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            failed_attempts BIGINT NOT NULL DEFAULT 0
        );
        CREATE INDEX account_codes_account ON account_codes (container_id, user_record_name, purpose);
        CREATE INDEX account_codes_expiry ON account_codes (expires_at);
        CREATE TABLE mail_queue (
            id BIGSERIAL PRIMARY KEY,
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
            attempts BIGINT NOT NULL DEFAULT 0,
            queued_at BIGINT NOT NULL,
            next_attempt_at BIGINT NOT NULL,
            sent_at BIGINT,
            last_error TEXT
        );
        CREATE INDEX mail_queue_due ON mail_queue (status, next_attempt_at);
        CREATE INDEX mail_queue_container ON mail_queue (container_id, id);
        CREATE TABLE mail_templates (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            kind TEXT NOT NULL,
            language TEXT NOT NULL,
            subject TEXT NOT NULL,
            text_body TEXT NOT NULL,
            html_body TEXT,
            updated_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, environment, kind, language)
        );
        """

    /// Version 6: accounts' passkeys (WebAuthn credentials' public keys and counters) and the single-use challenges
    /// of their ceremonies.
    static let passkeys = """
        CREATE TABLE passkeys (
            container_id TEXT NOT NULL,
            credential_id TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            public_key TEXT NOT NULL,
            sign_count BIGINT NOT NULL,
            name TEXT NOT NULL,
            backed_up BOOLEAN NOT NULL DEFAULT FALSE,
            created_at BIGINT NOT NULL,
            last_used_at BIGINT,
            PRIMARY KEY (container_id, credential_id)
        );
        CREATE INDEX passkeys_account ON passkeys (container_id, user_record_name);
        CREATE TABLE passkey_challenges (
            challenge TEXT PRIMARY KEY,
            container_id TEXT NOT NULL,
            purpose TEXT NOT NULL,
            user_record_name TEXT,
            details TEXT,
            created_at BIGINT NOT NULL,
            expires_at BIGINT NOT NULL
        );
        CREATE INDEX passkey_challenges_expiry ON passkey_challenges (expires_at);
        CREATE INDEX passkey_challenges_account ON passkey_challenges (container_id, user_record_name);
        """

    /// Version 7: accounts without an address (anonymous ones, and those a provider gave none), and accounts'
    /// identities at sign-in providers.
    static let identities = """
        ALTER TABLE accounts ALTER COLUMN email DROP NOT NULL;
        ALTER TABLE accounts ADD COLUMN anonymous BOOLEAN NOT NULL DEFAULT FALSE;
        CREATE INDEX accounts_anonymous ON accounts (container_id, created_at) WHERE anonymous;
        CREATE TABLE account_identities (
            container_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            email TEXT,
            email_verified BOOLEAN NOT NULL DEFAULT FALSE,
            private_email BOOLEAN NOT NULL DEFAULT FALSE,
            sealed_refresh_token TEXT,
            created_at BIGINT NOT NULL,
            last_used_at BIGINT,
            PRIMARY KEY (container_id, provider, subject)
        );
        CREATE INDEX account_identities_account ON account_identities (container_id, user_record_name);
        """

    /// Version 8: containers' secrets, sealed by the server with its secrets key, and provider tokens to revoke after
    /// their account's deletion.
    static let secrets = """
        CREATE TABLE container_secrets (
            container_id TEXT NOT NULL,
            name TEXT NOT NULL,
            sealed_value TEXT NOT NULL,
            updated_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, name)
        );
        CREATE TABLE pending_revocations (
            container_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            subject TEXT NOT NULL,
            sealed_token TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at BIGINT NOT NULL,
            last_error TEXT,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, provider, subject)
        );
        CREATE INDEX pending_revocations_due ON pending_revocations (next_attempt_at);
        """

    /// Version 9: accounts' claims to users of the CloudKit container their public database was imported from.
    static let cloudKitClaims = """
        CREATE TABLE cloudkit_claims (
            container_id TEXT NOT NULL,
            cloudkit_user TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            environment TEXT NOT NULL,
            records BIGINT NOT NULL DEFAULT 0,
            users_record_fields BOOLEAN NOT NULL DEFAULT FALSE,
            claimed_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, cloudkit_user),
            UNIQUE (container_id, user_record_name)
        );
        """

    /// Version 10: webhook endpoints and their deliveries (ids are change positions).
    static let webhooks = """
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
            enabled BOOLEAN NOT NULL DEFAULT TRUE,
            disabled_reason TEXT,
            failing_since BIGINT,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX webhook_endpoints_container ON webhook_endpoints (container_id, environment);
        CREATE TABLE webhook_deliveries (
            id BIGINT PRIMARY KEY,
            endpoint_id TEXT NOT NULL,
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            ordering_key TEXT NOT NULL,
            event_id TEXT NOT NULL,
            event_type TEXT NOT NULL,
            body TEXT NOT NULL,
            status TEXT NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            next_attempt_at BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            delivered_at BIGINT,
            last_status INTEGER,
            last_response TEXT,
            last_latency BIGINT
        );
        CREATE INDEX webhook_deliveries_line ON webhook_deliveries (endpoint_id, ordering_key, id) WHERE status = 'pending';
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
        CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);
        """

    /// Version 11: functions' modules and bindings, scheduled jobs and their runs.
    static let functions = """
        -- WebAssembly modules of container environments (StoredFunctionModule); entries is a JSON array.
        CREATE TABLE function_modules (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            name TEXT NOT NULL,
            bytes BYTEA NOT NULL,
            digest TEXT NOT NULL,
            size INTEGER NOT NULL,
            entries TEXT NOT NULL DEFAULT '[]',
            uploaded_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, environment, name)
        );
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
            enabled BOOLEAN NOT NULL DEFAULT TRUE,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, environment, name)
        );
        -- Jobs run on a schedule (ScheduledJob) and their runs (ScheduledJobRun), one per job and due time.
        CREATE TABLE scheduled_jobs (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            name TEXT NOT NULL,
            schedule TEXT NOT NULL,
            time_zone TEXT NOT NULL DEFAULT 'UTC',
            target TEXT NOT NULL,
            missed_runs TEXT NOT NULL,
            enabled BOOLEAN NOT NULL DEFAULT TRUE,
            next_run_at BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, environment, name)
        );
        CREATE INDEX scheduled_jobs_due ON scheduled_jobs (next_run_at) WHERE enabled;
        CREATE TABLE scheduled_job_runs (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            job TEXT NOT NULL,
            scheduled_for BIGINT NOT NULL,
            started_at BIGINT NOT NULL,
            finished_at BIGINT,
            node TEXT NOT NULL,
            status TEXT NOT NULL,
            result TEXT NOT NULL DEFAULT '',
            missed INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (container_id, environment, job, scheduled_for)
        );
        """

    /// Version 12: quotas, storage measurements and request counts.
    static let usage = """
        -- Quotas (Quotas) per container; container_id '*' holds the defaults. NULL is not set.
        CREATE TABLE quotas (
            container_id TEXT PRIMARY KEY,
            public_storage_bytes BIGINT,
            user_storage_bytes BIGINT,
            user_requests_per_minute BIGINT,
            key_requests_per_minute BIGINT,
            address_requests_per_minute BIGINT
        );
        -- The last measurement of each database holding data (StorageUsage), replaced whole each time.
        CREATE TABLE storage_usage (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            scope TEXT NOT NULL,
            owner TEXT NOT NULL,
            records BIGINT NOT NULL,
            record_bytes BIGINT NOT NULL,
            asset_bytes BIGINT NOT NULL,
            measured_at BIGINT NOT NULL,
            PRIMARY KEY (container_id, environment, scope, owner)
        );
        -- Requests per key (user, server-to-server key, address) and minute, added to by every node.
        CREATE TABLE request_counts (
            key TEXT NOT NULL,
            window_start BIGINT NOT NULL,
            count BIGINT NOT NULL,
            PRIMARY KEY (key, window_start)
        );
        CREATE INDEX request_counts_window ON request_counts (window_start);
        """

    /// Version 13: per-minute telemetry, active users, storage over time and the request log.
    static let telemetry = """
        -- Per-minute figures of each node for each container environment (TelemetryMinute); error_codes is a JSON
        -- object of counts, latency `bucket:count` pairs (LatencyHistogram).
        CREATE TABLE telemetry_minutes (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            minute BIGINT NOT NULL,
            node TEXT NOT NULL,
            requests BIGINT NOT NULL,
            errors BIGINT NOT NULL,
            error_codes TEXT NOT NULL DEFAULT '{}',
            latency TEXT NOT NULL DEFAULT '',
            notifications BIGINT NOT NULL DEFAULT 0,
            PRIMARY KEY (container_id, environment, minute, node)
        );
        CREATE INDEX telemetry_minutes_minute ON telemetry_minutes (minute);
        -- The users who sent requests each day (whole days since 1970).
        CREATE TABLE active_users (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            day BIGINT NOT NULL,
            user_record_name TEXT NOT NULL,
            PRIMARY KEY (container_id, environment, day, user_record_name)
        );
        CREATE INDEX active_users_day ON active_users (day);
        -- Each container environment's storage at each measurement (StorageSample).
        CREATE TABLE storage_history (
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            measured_at BIGINT NOT NULL,
            public_bytes BIGINT NOT NULL,
            private_bytes BIGINT NOT NULL,
            users BIGINT NOT NULL,
            PRIMARY KEY (container_id, environment, measured_at)
        );
        CREATE INDEX storage_history_time ON storage_history (measured_at);
        -- Answered requests (RequestLogEntry); record_types is ",A,B," so that LIKE '%,A,%' finds one.
        CREATE TABLE request_log (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            container_id TEXT NOT NULL,
            environment TEXT NOT NULL,
            time BIGINT NOT NULL,
            node TEXT NOT NULL,
            method TEXT NOT NULL,
            operation TEXT NOT NULL,
            status BIGINT NOT NULL,
            error_code TEXT,
            user_record_name TEXT,
            record_types TEXT NOT NULL DEFAULT '',
            microseconds BIGINT NOT NULL,
            address TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX request_log_container ON request_log (container_id, id);
        CREATE INDEX request_log_time ON request_log (time);
        """

    /// Version 14: operators, their roles per container, and the audit log.
    static let operators = """
        -- People who run the server (OperatorAccount): a password and an authenticator app (totp_secret sealed).
        CREATE TABLE operators (
            id TEXT PRIMARY KEY,
            email TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL DEFAULT '',
            password_hash TEXT NOT NULL,
            totp_secret TEXT,
            totp_enabled BOOLEAN NOT NULL DEFAULT FALSE,
            totp_last_step BIGINT NOT NULL DEFAULT 0,
            administrator BOOLEAN NOT NULL DEFAULT FALSE,
            disabled BOOLEAN NOT NULL DEFAULT FALSE,
            created_at BIGINT NOT NULL
        );
        -- Each operator's role (owner, developer, viewer) per container.
        CREATE TABLE operator_roles (
            operator_id TEXT NOT NULL,
            container_id TEXT NOT NULL,
            role TEXT NOT NULL,
            PRIMARY KEY (operator_id, container_id)
        );
        -- Admin actions (AuditEntry); ids order them by time.
        CREATE TABLE audit_log (
            id TEXT PRIMARY KEY,
            time BIGINT NOT NULL,
            actor TEXT NOT NULL,
            container_id TEXT,
            action TEXT NOT NULL,
            status BIGINT NOT NULL,
            address TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX audit_log_container ON audit_log (container_id, id);
        """
}
