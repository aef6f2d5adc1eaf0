import PostgresNIO
import StratusModel
import StratusStore

/// The prepared statements ``PostgresPlanApplier`` writes records with.
///
/// A single record's row and its index entries go in one statement with the values bound directly; several
/// records go as JSON arrays of rows (`jsonb_to_recordset`), one statement per table whatever their number.
enum RecordWriteStatements {
    /// The bindings of ``InsertRecord`` or ``UpdateRecord``: the row's values, then its index entries as arrays.
    /// - Parameter row: the new row's name (an insert) or the replaced row's id (an update).
    static func singleRecord(
        _ record: PlannedRecord, zoneID: Int64, row: any PostgresThrowingDynamicTypeEncodable
    ) throws -> PostgresBindings {
        var bindings = PostgresBindings()
        bindings.append(zoneID)
        try bindings.append(row)
        bindings.append(record.type)
        bindings.append(record.changeTag)
        bindings.append(record.sequence)
        bindings.append(record.fields.json)
        bindings.append(record.created.timestamp)
        bindings.append(record.created.userRecordName)
        bindings.append(record.created.deviceID)
        bindings.append(record.modified.timestamp)
        bindings.append(record.modified.userRecordName)
        bindings.append(record.modified.deviceID)
        bindings.append(record.parent)
        bindings.append(record.share)
        bindings.append(record.shortGUID)
        let entries = record.indexEntries
        bindings.append(entries.map(\.field))
        bindings.append(entries.map { Int16($0.kind.rawValue) })
        bindings.append(entries.map { ByteBuffer(bytes: $0.key.bytes) })
        bindings.append(entries.map(\.extra))
        bindings.append(entries.map { $0.key.number ?? 0 })
        bindings.append(entries.map { $0.key.number != nil })
        return bindings
    }

    /// A statement writing one record's row (`row`, which returns its `id`), then its index entries `$16`...`$21`
    /// for that row; it returns the row's id.
    fileprivate static func withEntries(_ row: String) -> String {
        """
        WITH r AS (
        \(row)
            RETURNING id
        ), e AS (
            INSERT INTO field_index (zone_id, type, field, kind, value, extra, record_id, number)
            SELECT $1, $3, v.field, v.kind, v.value, v.extra, r.id, CASE WHEN v.numbered THEN v.number END
            FROM r, unnest($16::text[], $17::smallint[], $18::bytea[], $19::float8[], $20::float8[], $21::bool[])
                AS v(field, kind, value, extra, number, numbered)
            ON CONFLICT DO NOTHING
        )
        SELECT id FROM r
        """
    }

    /// The columns of a record row as `jsonb_to_recordset` reads them.
    fileprivate static let rowColumns = """
        id bigint, zone_id bigint, name text, type text, change_tag text, seq bigint, fields text, created_at bigint, created_by text,
        created_device text, modified_at bigint, modified_by text, modified_device text, parent text, share_name text, short_guid text
        """
}

/// One new record and its index entries (``RecordWriteStatements/singleRecord(_:zoneID:row:)`` with its name);
/// returns the row's id.
enum InsertRecord: PreparedText {
    static let name = "insert_record"
    static let sql = RecordWriteStatements.withEntries("""
            INSERT INTO records (zone_id, name, type, change_tag, seq, fields, created_at, created_by, created_device,
                modified_at, modified_by, modified_device, parent, share_name, short_guid)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
        """)
}

/// A record's row replaced, and its new index entries (``RecordWriteStatements/singleRecord(_:zoneID:row:)``
/// with its row's id); its old entries were removed by ``RemoveHoldings``.
enum UpdateRecord: PreparedText {
    static let name = "update_record"
    static let sql = RecordWriteStatements.withEntries("""
            UPDATE records SET type = $3, change_tag = $4, seq = $5, deleted = false, fields = $6,
                created_at = $7, created_by = $8, created_device = $9, modified_at = $10, modified_by = $11, modified_device = $12,
                parent = $13, share_name = $14, short_guid = $15
            WHERE id = $2
        """)
}

/// New records from a JSON array of rows (`$1`); returns each one's id, zone and name.
enum InsertRecords: PreparedText {
    static let name = "insert_records"
    static let sql = """
        INSERT INTO records (zone_id, name, type, change_tag, seq, fields, created_at, created_by, created_device,
            modified_at, modified_by, modified_device, parent, share_name, short_guid)
        SELECT zone_id, name, type, change_tag, seq, fields, created_at, created_by, created_device,
            modified_at, modified_by, modified_device, parent, share_name, short_guid
        FROM jsonb_to_recordset($1::jsonb) AS v(\(RecordWriteStatements.rowColumns))
        RETURNING id, zone_id, name
        """
}

/// Records' rows replaced from a JSON array of rows with their ids (`$1`).
enum UpdateRecords: PreparedText {
    static let name = "update_records"
    static let sql = """
        UPDATE records r SET type = v.type, change_tag = v.change_tag, seq = v.seq, deleted = false, fields = v.fields,
            created_at = v.created_at, created_by = v.created_by, created_device = v.created_device,
            modified_at = v.modified_at, modified_by = v.modified_by, modified_device = v.modified_device,
            parent = v.parent, share_name = v.share_name, short_guid = v.short_guid
        FROM jsonb_to_recordset($1::jsonb) AS v(\(RecordWriteStatements.rowColumns))
        WHERE r.id = v.id
        """
}

/// Index entries from a JSON array (`$1`, see ``IndexEntryRows``); an entry already there is left as it is.
enum InsertIndexEntries: PreparedText {
    static let name = "insert_index_entries"
    static let sql = """
        INSERT INTO field_index (zone_id, type, field, kind, value, extra, record_id, number)
        SELECT zone_id, type, field, kind, decode(value, 'hex'), extra, record_id, number
        FROM jsonb_to_recordset($1::jsonb) AS v(
            zone_id bigint, type text, field text, kind smallint, value text, extra double precision, record_id bigint, number double precision
        )
        ON CONFLICT DO NOTHING
        """
}

/// References from a JSON array (`$1`).
enum InsertReferences: PreparedText {
    static let name = "insert_references"
    static let sql = """
        INSERT INTO record_refs (target_zone_id, target_name, source_id, action)
        SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(target_zone_id bigint, target_name text, source_id bigint, action smallint)
        ON CONFLICT DO NOTHING
        """
}

/// Asset holdings from a JSON array (`$1`).
enum InsertAssetHoldings: PreparedText {
    static let name = "insert_asset_holdings"
    static let sql = """
        INSERT INTO asset_refs (record_id, field, asset_id)
        SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(record_id bigint, field text, asset_id text)
        ON CONFLICT DO NOTHING
        """
}

/// Receipts marked used, from a JSON array (`$1`).
enum UseReceipts: PreparedText {
    static let name = "use_receipts"
    static let sql = """
        UPDATE asset_receipts a SET used_record_id = v.record_id, used_field = v.field
        FROM jsonb_to_recordset($1::jsonb) AS v(receipt text, record_id bigint, field text)
        WHERE a.receipt = v.receipt
        """
}

/// What the records `$1` (ids) held beside their rows: index entries, references and asset holdings, removed.
enum RemoveHoldings: PreparedText {
    static let name = "remove_holdings"
    static let sql = """
        WITH entries AS (DELETE FROM field_index WHERE record_id = ANY($1)),
            refs AS (DELETE FROM record_refs WHERE source_id = ANY($1))
        DELETE FROM asset_refs WHERE record_id = ANY($1)
        """
}
