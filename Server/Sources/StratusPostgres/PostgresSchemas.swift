import Foundation
import Logging
import PostgresNIO
import StratusModel
import StratusStore
import Synchronization

/// The committed schemas each node keeps in memory, with the version of the row each was read at.
///
/// Readers use the cached schema; a `schemaChanged` store event from any node empties the cache. Writers
/// read the row's version in their transaction and decode the body only when it moved, so they always
/// decide with the committed schema, and a concurrent schema change makes one of them run again.
final class PostgresSchemaCache: Sendable {
    private let schemas = Mutex<[SchemaKey: (schema: Schema, version: Int64)]>([:])

    func cached(_ key: SchemaKey) -> (schema: Schema, version: Int64)? {
        schemas.withLock { $0[key] }
    }

    func remember(_ key: SchemaKey, _ schema: Schema, version: Int64) {
        schemas.withLock { schemas in
            if let known = schemas[key], known.version > version { return }
            schemas[key] = (schema, version)
        }
    }

    func forgetAll() {
        schemas.withLock { $0.removeAll() }
    }

    /// The committed schema and its version (0 for a container environment with no schema row yet).
    func load(_ key: SchemaKey, connection: PostgresConnection, logger: Logger) async throws -> (schema: Schema, version: Int64) {
        let known = cached(key)
        let rows = try await connection.rows(
            LoadSchema.self, try binds(known?.version ?? -1, key.containerID, key.environment.rawValue), as: (Int64, String?).self, logger: logger
        )
        return try resolve(key, known: known, version: rows.first?.0, body: rows.first?.1)
    }

    /// The schema a read of its row found: `version` `nil` when there is no row, `body` `nil` when it is
    /// `known`, the version the read was given.
    func resolve(
        _ key: SchemaKey, known: (schema: Schema, version: Int64)?, version: Int64?, body: String?
    ) throws -> (schema: Schema, version: Int64) {
        guard let version else { return (.initial, 0) }
        if body == nil, let known { return known }
        let schema = try JSONDecoder().decode(Schema.self, from: Data((body ?? "").utf8))
        remember(key, schema, version: version)
        return (schema, version)
    }
}

extension PostgresWrite {
    /// The working schema of a container environment, read in this transaction on first use.
    func schema(_ key: SchemaKey, cache: PostgresSchemaCache) async throws -> Schema {
        if let working = schemas[key] { return working.schema }
        let loaded = try await cache.load(key, connection: connection, logger: logger)
        schemas[key] = loaded
        return loaded.schema
    }

    /// Replaces the working schema; stored at commit by ``storeSchemas(cache:)`` when it differs.
    func setSchema(_ schema: Schema, for key: SchemaKey) {
        guard let working = schemas[key], working.schema != schema else { return }
        schemas[key] = (schema, working.version)
        changedSchemas.insert(key)
    }

    /// Stores the changed schemas with their versions advanced, and emits their events. A schema is stored only
    /// at the version this transaction read; when another writer changed it meanwhile, this write runs again.
    func storeSchemas(cache: PostgresSchemaCache) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        for key in changedSchemas.sorted(by: { ($0.containerID, $0.environment.rawValue) < ($1.containerID, $1.environment.rawValue) }) {
            guard let working = schemas[key] else { continue }
            let body = String(decoding: try encoder.encode(working.schema), as: UTF8.self)
            let stored: Int
            if working.version == 0 {
                stored = try await connection.count(
                    """
                    INSERT INTO schemas (container_id, environment, body, version) VALUES (\(key.containerID), \(key.environment.rawValue), \(body), 1)
                    ON CONFLICT (container_id, environment) DO NOTHING RETURNING 1
                    """,
                    logger: logger
                )
            } else {
                stored = try await connection.count(
                    """
                    UPDATE schemas SET body = \(body), version = version + 1
                    WHERE container_id = \(key.containerID) AND environment = \(key.environment.rawValue) AND version = \(working.version)
                    RETURNING 1
                    """,
                    logger: logger
                )
            }
            guard stored == 1 else { throw StorageError.concurrentChange("the schema") }
            emit(.schemaChanged(containerID: key.containerID))
        }
    }
}

/// A schema's version, with its body only when it is not the version `$1` the caller knows.
private enum LoadSchema: PreparedText {
    static let name = "load_schema"
    static let sql = """
        SELECT version, CASE WHEN version = $1 THEN NULL ELSE body END FROM schemas WHERE container_id = $2 AND environment = $3
        """
}
