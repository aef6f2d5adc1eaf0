import Foundation
import GRDB
import StratusStore

/// Consistent copies of a live store's SQLite file, for online backups: a server (or several) may go on writing
/// while the copy is made, and the copy holds exactly the transactions committed when it began.
///
/// The copy is SQLite's `VACUUM INTO` inside one read transaction of the WAL database, so writers are never
/// blocked and every write acknowledged before the copy began is in it.
public enum SQLiteSnapshot {
    /// What a copy holds.
    public struct Summary: Sendable, Hashable {
        /// The migrations applied to the copied database, the last one naming its format.
        public var migrations: [String]
        /// Rows per table.
        public var rows: [String: Int]
        public var bytes: Int64
    }

    /// Writes a consistent copy of the database at `source` into the new file `destination`.
    /// - Throws: `StorageError` `invalidArgument` when `source` is not a Stratus database or `destination` exists;
    ///   `unavailable` when SQLite cannot read or write the files.
    public static func write(from source: String, to destination: String) throws -> Summary {
        guard FileManager.default.fileExists(atPath: source) else {
            throw StorageError(.invalidArgument, "\(source) does not exist")
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw StorageError(.invalidArgument, "\(destination) exists already; a snapshot is written to a new file")
        }
        do {
            var configuration = GRDB.Configuration()
            configuration.readonly = true
            configuration.busyMode = .timeout(30)
            let database = try DatabaseQueue(path: source, configuration: configuration)
            // VACUUM INTO is one read transaction of its own (it cannot run inside another).
            try database.inDatabase { db in
                guard try db.tableExists("grdb_migrations") else {
                    throw StorageError(.invalidArgument, "\(source) is not a Stratus database")
                }
                try db.execute(sql: "VACUUM INTO ?", arguments: [destination])
            }
            try database.close()
        } catch let error as StorageError {
            throw error
        } catch {
            try? FileManager.default.removeItem(atPath: destination)
            throw StorageError(.unavailable, "cannot copy \(source): \(error)", underlying: error)
        }
        return try verify(destination)
    }

    /// Checks a copy: SQLite's integrity check passes and it holds Stratus's tables; answers what it holds.
    /// - Throws: `StorageError` `invalidArgument` for a damaged file or one that is not a Stratus database.
    public static func verify(_ path: String) throws -> Summary {
        do {
            return try readOnly(path) { db in
                let check = try String.fetchAll(db, sql: "PRAGMA integrity_check")
                guard check == ["ok"] else {
                    throw StorageError(.invalidArgument, "\(path) is damaged: \(check.prefix(3).joined(separator: "; "))")
                }
                guard try db.tableExists("grdb_migrations") else {
                    throw StorageError(.invalidArgument, "\(path) is not a Stratus database")
                }
                let migrations = try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid")
                var rows: [String: Int] = [:]
                let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
                for table in tables {
                    rows[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\"") ?? 0
                }
                let bytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
                return Summary(migrations: migrations, rows: rows, bytes: bytes)
            }
        } catch let error as StorageError {
            throw error
        } catch {
            throw StorageError(.invalidArgument, "\(path) cannot be read as a SQLite database: \(error)", underlying: error)
        }
    }
}

extension SQLiteSnapshot {
    /// The IDs of the asset files that records of the copy at `path` hold: the blobs a backup must carry.
    public static func storedAssetIDs(in path: String) throws -> Set<String> {
        do {
            return try readOnly(path) { db in
                Set(try String.fetchAll(db, sql: "SELECT id FROM assets WHERE state = 1 AND ref_count > 0"))
            }
        } catch {
            throw StorageError(.invalidArgument, "\(path) cannot be read as a Stratus database: \(error)", underlying: error)
        }
    }

    /// Reads the database at `path` in one transaction, opened read-only.
    private static func readOnly<T>(_ path: String, _ body: (Database) throws -> T) throws -> T {
        var configuration = GRDB.Configuration()
        configuration.readonly = true
        let database = try DatabaseQueue(path: path, configuration: configuration)
        defer { try? database.close() }
        return try database.read(body)
    }
}
