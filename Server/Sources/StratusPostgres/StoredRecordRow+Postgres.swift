import PostgresNIO
import StratusModel
import StratusStore

extension StoredRecordRow {
    /// Reads a row whose first columns are ``StoredRecordRow/columns``.
    init(row: PostgresRow) throws {
        var cells = row.makeIterator()
        func next<T: PostgresDecodable>(_ type: T.Type) throws -> T {
            guard let cell = cells.next() else { throw StorageError(.internalFailure, "a record row has too few columns") }
            return try cell.decode(T.self)
        }
        self.init(
            id: try next(Int64.self), name: try next(String.self), type: try next(String.self), changeTag: try next(String.self),
            fieldsJSON: try next(String.self), createdAt: try next(Int64.self), createdBy: try next(String.self),
            createdDevice: try next(String.self), modifiedAt: try next(Int64.self), modifiedBy: try next(String.self),
            modifiedDevice: try next(String.self), deleted: try next(Bool.self), zoneID: try next(Int64.self),
            parent: try next(String?.self), share: try next(String?.self), shortGUID: try next(String?.self)
        )
    }
}
