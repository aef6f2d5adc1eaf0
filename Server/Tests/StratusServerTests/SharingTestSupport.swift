import Foundation
import StratusModel
import Testing

/// Client-side steps of sharing, as an app takes them without any user interface.
extension UserSession {
    /// The `{zoneName, ownerRecordName}` of one of this user's zones, as participants name it.
    func zoneID(_ zone: String) -> String {
        #"{"zoneName":"\#(zone)","ownerRecordName":"\#(userRecordName)"}"#
    }

    func createZone(_ zone: String) async throws {
        let reply = try await post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zone)"}}}]}"#)
        guard reply.status == 200, reply["zones"]?.arrayValue?.first?.objectValue?["serverErrorCode"] == nil else {
            throw TestFailure("zone creation failed: \(reply.json)")
        }
    }

    /// Saves records in one of this user's private zones: `records` is a list of record dictionaries (JSON text).
    func save(_ records: [String], zone: String, operation: String = "create") async throws -> Reply {
        let operations = records.map { #"{"operationType":"\#(operation)","record":\#($0)}"# }.joined(separator: ",")
        return try await post("private", "records/modify", #"{"zoneID":{"zoneName":"\#(zone)"},"operations":[\#(operations)]}"#)
    }

    /// Shares a record (or the whole zone, when `root` is nil) and answers the saved share record.
    func share(
        _ root: String?, zone: String, publicPermission: String = "NONE", participants: [String] = [], name: String = "share-1"
    ) async throws -> [String: JSONValue] {
        let recordName = root == nil ? ShareRecords.zoneShareName : name
        let forRecord = root.map { #","forRecord":{"recordName":"\#($0)"}"# } ?? ""
        let reply = try await save([
            #"{"recordName":"\#(recordName)","recordType":"cloudkit.share","publicPermission":"\#(publicPermission)","participants":[\#(participants.joined(separator: ","))],"fields":{"cloudkit.title":{"value":"Shared"}}\#(forRecord)}"#,
        ], zone: zone)
        guard let share = reply.records.first, share["shortGUID"] != nil else { throw TestFailure("sharing failed: \(reply.json)") }
        return share
    }

    /// Resolves or accepts share links; answers the per-link results.
    func shareResults(_ operation: String, _ guids: [String], fetchRoot: Bool = false) async throws -> [[String: JSONValue]] {
        let items = guids.map { #"{"value":"\#($0)","shouldFetchRootRecord":\#(fetchRoot)}"# }.joined(separator: ",")
        let reply = try await post("public", "records/\(operation)", #"{"shortGUIDs":[\#(items)]}"#)
        guard let results = reply["results"]?.arrayValue else { throw TestFailure("\(operation) failed: \(reply.status) \(reply.json)") }
        return results.compactMap(\.objectValue)
    }

    /// Looks records up in the shared database, in another user's zone.
    func sharedLookup(_ names: [String], zoneID: String) async throws -> Reply {
        let items = names.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ",")
        return try await post("shared", "records/lookup", #"{"zoneID":\#(zoneID),"records":[\#(items)]}"#)
    }

    /// Saves records in the shared database, in another user's zone.
    func sharedSave(_ records: [String], zoneID: String, operation: String = "create") async throws -> Reply {
        let operations = records.map { #"{"operationType":"\#(operation)","record":\#($0)}"# }.joined(separator: ",")
        return try await post("shared", "records/modify", #"{"zoneID":\#(zoneID),"operations":[\#(operations)]}"#)
    }
}

extension Reply {
    /// The `serverErrorCode` of each record result, `nil` for a success.
    var recordErrors: [String?] {
        records.map { record in
            if case .string(let code)? = record["serverErrorCode"] { return code }
            return nil
        }
    }
}

extension JSONValue {
    var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}

/// A participant dictionary for a share record.
func participant(userRecordName: String? = nil, email: String? = nil, phone: String? = nil, permission: String = "READ_ONLY") -> String {
    var info: [String] = []
    if let userRecordName { info.append(#""userRecordName":"\#(userRecordName)""#) }
    if let email { info.append(#""emailAddress":"\#(email)""#) }
    if let phone { info.append(#""phoneNumber":"\#(phone)""#) }
    return #"{"userIdentity":{"lookupInfo":{\#(info.joined(separator: ","))}},"permission":"\#(permission)"}"#
}
