import Foundation
import GRDB
import Testing

/// The local store's first file format, for the test that a file kept in it opens in the current one.
enum LocalStoreFirstFormat {
    /// Rewrites a store file as the first format kept it: unsent record changes as rows of `unsent`, a record
    /// deleted here absent from `records`, whose table has no unsent mark, and `user_version` 0.
    static func rewrite(_ file: URL) throws {
        let database = try DatabaseQueue(path: file.path)
        try database.inTransaction { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO unsent (zone, owner, name, kind, number)
                    SELECT zone, owner, name, unsent, number FROM records WHERE unsent IS NOT NULL;
                DELETE FROM records WHERE unsent = 'delete';
                CREATE TABLE first_records (
                    zone TEXT NOT NULL, owner TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, body BLOB NOT NULL,
                    PRIMARY KEY (zone, owner, name)
                ) WITHOUT ROWID;
                INSERT INTO first_records SELECT zone, owner, name, type, body FROM records;
                DROP TABLE records;
                ALTER TABLE first_records RENAME TO records;
                CREATE INDEX records_by_type ON records (type);
                PRAGMA user_version = 0;
                """)
            return .commit
        }
        #expect(try database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM unsent WHERE kind IN ('save', 'delete')") } == 3)
    }
}
