import Foundation
internal import StratusModel

/// Sync: what changed since a token.
extension Database {
    /// The zones that changed since a token (`CKFetchDatabaseChangesOperation`): modified ones, and deleted ones
    /// (in the shared database, also zones the user can no longer reach).
    public func databaseChanges(
        since token: SyncToken?, resultsLimit: Int = 200
    ) async throws -> (modifications: [Zone.ID], deletions: [Zone.ID], changeToken: SyncToken, moreComing: Bool) {
        var body: [String: JSONValue] = ["resultsLimit": .integer(Int64(resultsLimit))]
        if let token { body["syncToken"] = .string(token.rawValue) }
        let answer: [String: JSONValue]
        do {
            answer = try await container.post(databaseScope, "changes/database", .object(body))
        } catch let error as StratusError {
            throw Self.reportingStaleToken(error, sent: token)
        }
        var modified: [Zone.ID] = []
        var deleted: [Zone.ID] = []
        for item in answer["zones"]?.arrayValue ?? [] {
            let zoneID = Zone.ID(wire: item.objectValue?["zoneID"], currentUser: container.currentUserRecordName)
            if item.objectValue?["deleted"]?.boolValue == true { deleted.append(zoneID) } else { modified.append(zoneID) }
        }
        return (modified, deleted, SyncToken(answer["syncToken"]?.stringValue ?? ""), answer["moreComing"]?.boolValue ?? false)
    }

    /// The records of a zone that changed since a token, in commit order (`CKFetchRecordZoneChangesOperation`).
    public func recordZoneChanges(
        inZoneWith zoneID: Zone.ID, since token: SyncToken?, desiredKeys: [String]? = nil, resultsLimit: Int = 200
    ) async throws -> (
        modificationResultsByID: [Record.ID: Result<Record, any Error>], deletions: [(recordID: Record.ID, recordType: String)],
        changeToken: SyncToken, moreComing: Bool
    ) {
        var item: [String: JSONValue] = ["zoneID": zoneID.wire, "resultsLimit": .integer(Int64(resultsLimit))]
        if let token { item["syncToken"] = .string(token.rawValue) }
        if let desiredKeys { item["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        let answer = try await container.post(databaseScope, "changes/zone", .object(["zones": .array([.object(item)])]))
        guard let zone = answer["zones"]?.arrayValue?.first?.objectValue else {
            throw StratusError(.internalError, "changes/zone answered no zone")
        }
        if zone["serverErrorCode"] != nil { throw Self.reportingStaleToken(Container.error(from: zone, status: 200), sent: token) }
        var modifications: [Record.ID: Result<Record, any Error>] = [:]
        var deletions: [(recordID: Record.ID, recordType: String)] = []
        for change in zone["records"]?.arrayValue ?? [] {
            guard let object = change.objectValue, let name = object["recordName"]?.stringValue else { continue }
            let id = Record.ID(recordName: name, zoneID: zoneID)
            if object["deleted"]?.boolValue == true {
                deletions.append((id, object["recordType"]?.stringValue ?? ""))
            } else {
                modifications[id] = Result { try Record(wire: object, currentUser: container.currentUserRecordName) }
            }
        }
        return (modifications, deletions, SyncToken(zone["syncToken"]?.stringValue ?? ""), zone["moreComing"]?.boolValue ?? false)
    }

    /// A sync token the server refused (Stratus answers `BAD_REQUEST` naming the `syncToken`: one of a deleted
    /// zone, or damaged) as `changeTokenExpired`, CloudKit's code for it: the caller fetches again without a token.
    static func reportingStaleToken(_ error: StratusError, sent token: SyncToken?) -> StratusError {
        guard token != nil, error.code == .invalidArguments, error.reason.contains("syncToken") else { return error }
        var expired = error
        expired.code = .changeTokenExpired
        return expired
    }
}
