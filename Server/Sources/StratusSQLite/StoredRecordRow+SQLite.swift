import GRDB
import StratusModel
import StratusStore

extension StoredRecordRow {
    /// Reads a row selected with ``StoredRecordRow/columns``, which must come first in the select list.
    init(row: Row) {
        self.init(
            id: row[0], name: row[1], type: row[2], changeTag: row[3], fieldsJSON: row[4],
            createdAt: row[5], createdBy: row[6], createdDevice: row[7], modifiedAt: row[8], modifiedBy: row[9], modifiedDevice: row[10],
            deleted: row[11], zoneID: row[12], parent: row[13], share: row[14], shortGUID: row[15]
        )
    }
}
