import Foundation
internal import StratusModel

/// Sync: what changed since a token.
extension Database {
    /// The zones that changed since a token (`CKFetchDatabaseChangesOperation`): modified ones, and deleted ones
    /// (in the shared database, also zones the user can no longer reach).
    public func databaseChanges(
        since token: SyncToken?, resultsLimit: Int = 200
    ) async throws -> (modifications: [Zone.ID], deletions: [Zone.ID], changeToken: SyncToken, moreComing: Bool) {
        let answer: DatabaseChangesResponse
        do {
            let request = DatabaseChangesRequest(syncToken: token?.rawValue, resultsLimit: resultsLimit)
            answer = try await container.post(databaseScope, "changes/database", request, answer: DatabaseChangesResponse.self)
        } catch let error as StratusError {
            throw Self.reportingStaleToken(error, sent: token)
        }
        let user = container.currentUserRecordName
        let modified = answer.zones.filter { !$0.deleted }.map { Zone.ID(model: $0.zoneID, currentUser: user) }
        let deleted = answer.zones.filter(\.deleted).map { Zone.ID(model: $0.zoneID, currentUser: user) }
        return (modified, deleted, SyncToken(answer.syncToken), answer.moreComing)
    }

    /// The records of a zone that changed since a token, in commit order (`CKFetchRecordZoneChangesOperation`).
    /// Without a token, the zone's live records (no deletions). With `desiredRecordTypes`, only records of those
    /// types; the token still moves past the others. With `matching` (a Stratus addition), only records the query
    /// matches: one that stops matching comes as a deletion.
    public func recordZoneChanges(
        inZoneWith zoneID: Zone.ID, since token: SyncToken?, desiredKeys: [String]? = nil, desiredRecordTypes: Set<String>? = nil,
        matching query: Query? = nil, resultsLimit: Int = 200
    ) async throws -> (
        modificationResultsByID: [Record.ID: Result<Record, any Error>], deletions: [(recordID: Record.ID, recordType: String)],
        changeToken: SyncToken, moreComing: Bool
    ) {
        let request = ZoneChangesRequest(zones: [
            ZoneChangesRequest.Item(
                zoneID: zoneID.model, syncToken: token?.rawValue, resultsLimit: resultsLimit, desiredKeys: desiredKeys,
                desiredRecordTypes: desiredRecordTypes?.sorted(), query: query?.model
            ),
        ])
        let body = try await container.postForBody(databaseScope, "changes/zone", request)
        if let page = ZoneChangesPage(body, zoneID: zoneID, currentUser: container.currentUserRecordName) {
            return (page.modifications, page.deletions, page.changeToken, page.moreComing)
        }
        let answer = try Container.decode(body, as: ZoneChangesResponse.self, path: "changes/zone")
        let zone: ZoneChangesEntry
        switch answer.zones.first {
        case .changes(let changes)?:
            zone = changes
        case .failure(let failure)?:
            let error = StratusError(
                StratusError.code(forServerCode: failure.serverErrorCode, httpStatus: 200), failure.reason, serverErrorCode: failure.serverErrorCode
            )
            throw Self.reportingStaleToken(error, sent: token)
        case nil:
            throw StratusError(.internalError, "changes/zone answered no zone")
        }
        var modifications: [Record.ID: Result<Record, any Error>] = [:]
        var deletions: [(recordID: Record.ID, recordType: String)] = []
        for entry in zone.records {
            switch entry {
            case .record(let record):
                modifications[Record.ID(recordName: record.recordName, zoneID: zoneID)] = Result {
                    try Record(model: record, currentUser: container.currentUserRecordName)
                }
            case .deleted(let deletion):
                deletions.append((Record.ID(recordName: deletion.recordName, zoneID: zoneID), deletion.recordType ?? ""))
            case .failure(let failure):
                modifications[Record.ID(recordName: failure.recordName, zoneID: zoneID)] = .failure(try error(from: failure, sent: nil))
            }
        }
        return (modifications, deletions, SyncToken(zone.syncToken), zone.moreComing)
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
