import PostgresNIO
import StratusStore

extension StorageError {
    /// Translates an error thrown by a PostgreSQL access into the store's error, exactly once: an unreachable
    /// or restarting database is `unavailable` (the server answers 503 with `retryAfter`), never a crash.
    static func translating(_ error: any Error) -> StorageError {
        if let storageError = error as? StorageError { return storageError }
        if let transaction = error as? PostgresTransactionError {
            // The error that matters: the closure's, else whichever step of the transaction failed.
            if let first = transaction.closureError ?? transaction.beginError ?? transaction.commitError ?? transaction.rollbackError {
                return translating(first)
            }
        }
        if let psql = error as? PSQLError {
            if let state = psql.serverInfo?[.sqlState] {
                switch state {
                case "23505":
                    return StorageError(.alreadyExists, "it exists already", underlying: psql)
                case "40001", "40P01":
                    return StorageError(.unavailable, "the database chose this write to retry; send it again", underlying: psql)
                case "53300", "57P01", "57P02", "57P03", "08000", "08003", "08006":
                    return StorageError(.unavailable, "the database is restarting or full of connections", underlying: psql)
                case "22021", "22P05":
                    // PostgreSQL's text holds no U+0000 (NUL); SQLite's does. The client's data, not the server, is at fault.
                    return StorageError(.invalidArgument, "text may not contain the character U+0000", underlying: psql)
                case "28P01", "28000":
                    return StorageError(.internalFailure, "the database refused the user name or password", underlying: psql)
                case "3D000":
                    return StorageError(.internalFailure, "the database named in the URL does not exist", underlying: psql)
                case "53100":
                    return StorageError(.unavailable, "the database's disk is full", underlying: psql)
                default:
                    return StorageError(.internalFailure, "the database refused a statement (\(state))", underlying: psql)
                }
            }
            // No answer from the server: it could not be reached, the connection broke, or the pool timed out.
            return StorageError(.unavailable, "the database cannot be reached", underlying: psql)
        }
        if error is CancellationError {
            return StorageError(.unavailable, "the request was cancelled while waiting for the database", underlying: error)
        }
        return StorageError(.internalFailure, "the store failed", underlying: error)
    }
}

extension StorageError {
    /// Whether PostgreSQL refused the write because of a concurrent one, so that running it again can succeed.
    var isWriteConflict: Bool {
        if underlying is ConcurrentChange { return true }
        guard let psql = underlying as? PSQLError, let state = psql.serverInfo?[.sqlState] else { return false }
        return ["40001", "40P01", "23505"].contains(state)
    }
}

/// A row a write read changed before the write could lock it: the write runs again.
struct ConcurrentChange: Error {
    var what: String
}

extension StorageError {
    /// The error for a ``ConcurrentChange``; it is retried, and reaches a client only after many attempts.
    static func concurrentChange(_ what: String) -> StorageError {
        StorageError(.unavailable, "\(what) changed while this write ran; send it again", underlying: ConcurrentChange(what: what))
    }
}
