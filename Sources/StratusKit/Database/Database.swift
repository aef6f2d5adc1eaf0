import Foundation

/// One of a container's three databases (`CKDatabase`): records, zones, sync and subscriptions.
///
/// ```swift
/// let database = container.privateCloudDatabase
/// let zone = try await database.save(Zone(zoneName: "Notes"))
/// var note = Record(recordType: "Note", recordID: Record.ID(zoneID: zone.zoneID))
/// note["title"] = "Call Ann"
/// try await database.save(note)
/// let changes = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: savedToken)
/// ```
public struct Database: Sendable {
    /// Which database.
    public enum Scope: String, Sendable, Hashable {
        /// App-wide data, governed by the record types' security roles.
        case `public`
        /// The signed-in user's own data.
        case `private`
        /// Zones other users shared with the signed-in user.
        case shared
    }

    let container: Container
    public let databaseScope: Scope

    /// The identifier of the database's container (`iCloud.com.example.Notes`).
    public var containerIdentifier: String { container.identifier }
    /// The environment of the database's container.
    public var environment: Container.Environment { container.environment }

    init(container: Container, databaseScope: Scope) {
        self.container = container
        self.databaseScope = databaseScope
    }

    /// How a save treats the server's copy of a record (`CKModifyRecordsOperation.RecordSavePolicy`).
    public enum SavePolicy: Sendable, Hashable {
        /// Saves only if the server's record has the change tag the record was fetched with; new records are
        /// created. A stale record fails with `serverRecordChanged`.
        case ifServerRecordUnchanged
        /// Overwrites the fields that changed, whatever the server's record is.
        case changedKeys
        /// Overwrites the whole record.
        case allKeys
    }
}
