import Foundation
import GRDB
import StratusModel
import StratusStore
import Synchronization

/// Names one container environment's schema.
struct SchemaKey: Hashable, Sendable {
    var containerID: String
    var environment: Environment
}

/// The committed schemas, kept in memory so that reads and writes do not load them per request.
///
/// Writers publish a schema only after the transaction that changed it has committed.
final class SchemaCache: Sendable {
    private let schemas = Mutex<[SchemaKey: Schema]>([:])

    /// The cached schema, if loaded.
    func cached(_ key: SchemaKey) -> Schema? {
        schemas.withLock { $0[key] }
    }

    /// The schema, loaded through `db` on first use.
    func schema(_ key: SchemaKey, db: Database) throws -> Schema {
        if let schema = cached(key) { return schema }
        let schema = try Self.load(key, db: db)
        schemas.withLock { cache in
            if cache[key] == nil { cache[key] = schema }
        }
        return schema
    }

    func publish(_ changed: [SchemaKey: Schema]) {
        guard !changed.isEmpty else { return }
        schemas.withLock { cache in cache.merge(changed) { _, new in new } }
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
