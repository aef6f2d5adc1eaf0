import GRDB

extension Database {
    /// Runs `body` in a savepoint, released when it returns `true` and rolled back when it returns
    /// `false` or throws.
    ///
    /// The savepoint statements are cached, so the writer does not parse them again for every job.
    func withSavepoint(named name: String, _ body: () throws -> Bool) throws {
        try cachedStatement(sql: "SAVEPOINT \(name)").execute()
        let keep: Bool
        do {
            keep = try body()
        } catch {
            try cachedStatement(sql: "ROLLBACK TO SAVEPOINT \(name)").execute()
            try cachedStatement(sql: "RELEASE SAVEPOINT \(name)").execute()
            throw error
        }
        if !keep {
            try cachedStatement(sql: "ROLLBACK TO SAVEPOINT \(name)").execute()
        }
        try cachedStatement(sql: "RELEASE SAVEPOINT \(name)").execute()
    }
}
