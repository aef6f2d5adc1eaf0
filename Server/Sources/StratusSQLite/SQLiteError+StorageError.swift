import GRDB
import StratusStore

extension StorageError {
    /// Translates an error thrown inside a SQLite access into the store's error, exactly once.
    static func translating(_ error: any Error) -> StorageError {
        if let storageError = error as? StorageError { return storageError }
        if let databaseError = error as? DatabaseError {
            switch databaseError.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                return StorageError(.unavailable, "the store is busy", underlying: databaseError)
            case .SQLITE_FULL:
                return StorageError(.unavailable, "the disk is full", underlying: databaseError)
            case .SQLITE_CONSTRAINT:
                return StorageError(.alreadyExists, "it exists already", underlying: databaseError)
            default:
                break
            }
        }
        return StorageError(.internalFailure, "the store failed", underlying: error)
    }
}
