import Foundation
import GRDB
import StratusModel
import StratusStore
import Synchronization

/// The committed schemas, kept in memory so that reads and writes do not load them per request.
///
/// Writers publish a schema only after the transaction that changed it has committed. Another process's
/// change reaches the cache as a store event, which empties it (``forgetAll()``); the writer also compares
/// the file's schema version when its transaction begins, so it never writes with a schema another process
/// replaced. A load that raced with a change is not kept: each change bumps a generation, and a load is kept
/// only if the generation did not move while it read.
final class SchemaCache: Sendable {
    private struct State {
        var schemas: [SchemaKey: Schema] = [:]
        var generation: UInt64 = 0
        /// The file's `schema_version` the cache agrees with, as last seen by the writer.
        var version: Int64?
    }

    private let state = Mutex(State())

    /// The cached schema, if loaded.
    func cached(_ key: SchemaKey) -> Schema? {
        state.withLock { $0.schemas[key] }
    }

    /// The schema, loaded through `db` on first use.
    func schema(_ key: SchemaKey, db: Database) throws -> Schema {
        let generation = state.withLock { $0.generation }
        if let schema = cached(key) { return schema }
        let schema = try Self.load(key, db: db)
        state.withLock { state in
            if state.generation == generation, state.schemas[key] == nil { state.schemas[key] = schema }
        }
        return schema
    }

    /// Publishes schemas the writer committed, and the file's schema version they make.
    func publish(_ changed: [SchemaKey: Schema], version: Int64) {
        state.withLock { state in
            state.generation &+= 1
            state.schemas.merge(changed) { _, new in new }
            state.version = version
        }
    }

    /// Forgets every schema: another process changed some.
    func forgetAll() {
        state.withLock { state in
            state.generation &+= 1
            state.schemas.removeAll()
            state.version = nil
        }
    }

    /// Called by the writer under the file's write lock: forgets every schema unless the cache agrees with
    /// the file's `schema_version`, and returns that version.
    func synchronize(db: Database) throws -> Int64 {
        let version = try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = 'schema_version'")) ?? 0
        state.withLock { state in
            guard state.version != version else { return }
            state.generation &+= 1
            state.schemas.removeAll()
            state.version = version
        }
        return version
    }

    static func load(_ key: SchemaKey, db: Database) throws -> Schema {
        let body = try String.fetchOne(
            db, sql: "SELECT body FROM schemas WHERE container_id = ? AND environment = ?",
            arguments: [key.containerID, key.environment.rawValue]
        )
        guard let body else { return .initial }
        return try JSONDecoder().decode(Schema.self, from: Data(body.utf8))
    }

    static func save(_ schema: Schema, for key: SchemaKey, db: Database) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let body = String(decoding: try encoder.encode(schema), as: UTF8.self)
        try db.execute(
            sql: "INSERT INTO schemas (container_id, environment, body) VALUES (?, ?, ?) "
                + "ON CONFLICT (container_id, environment) DO UPDATE SET body = excluded.body",
            arguments: [key.containerID, key.environment.rawValue, body]
        )
    }
}
