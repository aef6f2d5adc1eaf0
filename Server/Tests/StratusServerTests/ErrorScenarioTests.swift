import Foundation
import HTTPTypes
import StratusModel
import Testing

/// Requests that must fail, with the status and code each must fail with.
@Suite struct ErrorScenarioTests {
    struct Scenario: Sendable, CustomStringConvertible {
        var name: String
        var method: HTTPRequest.Method = .post
        /// `{T}` is the API token, `{W}` the web auth token, `{C}` the container.
        var path: String
        var body: String? = nil
        var status: Int
        var code: String
        var reasonContains: String? = nil
        var description: String { name }
    }

    static let db = "/database/1/{C}/development"
    static let auth = "ckAPIToken={T}&ckWebAuthToken={W}"

    static let scenarios: [Scenario] = [
        Scenario(name: "no API token", path: "\(db)/public/records/query", body: #"{"query":{"recordType":"A"}}"#, status: 401, code: "AUTHENTICATION_FAILED"),
        Scenario(name: "wrong API token", path: "\(db)/public/records/query?ckAPIToken=abc", body: #"{"query":{"recordType":"A"}}"#, status: 401, code: "AUTHENTICATION_FAILED"),
        Scenario(name: "unknown container", path: "/database/1/iCloud.nope/development/public/records/query?ckAPIToken={T}", body: "{}", status: 404, code: "NOT_FOUND"),
        Scenario(name: "unknown environment", path: "/database/1/{C}/staging/public/records/query?ckAPIToken={T}", body: "{}", status: 400, code: "BAD_REQUEST"),
        Scenario(name: "unknown database", path: "\(db)/secret/records/query?ckAPIToken={T}", body: "{}", status: 400, code: "BAD_REQUEST"),
        Scenario(name: "unknown endpoint", path: "\(db)/public/records/teleport?\(auth)", body: "{}", status: 404, code: "NOT_FOUND"),
        Scenario(name: "private database without a user", path: "\(db)/private/records/query?ckAPIToken={T}", body: #"{"query":{"recordType":"A"}}"#, status: 421, code: "AUTHENTICATION_REQUIRED"),
        Scenario(name: "shared database without a user", method: .get, path: "\(db)/shared/zones/list?ckAPIToken={T}", status: 421, code: "AUTHENTICATION_REQUIRED"),
        Scenario(name: "anonymous public write", path: "\(db)/public/records/modify?ckAPIToken={T}", body: #"{"operations":[{"operationType":"create","record":{"recordType":"A"}}]}"#, status: 421, code: "AUTHENTICATION_REQUIRED"),
        Scenario(name: "malformed JSON", path: "\(db)/private/records/modify?\(auth)", body: #"{"operations": ["#, status: 400, code: "BAD_REQUEST", reasonContains: "JSON"),
        Scenario(name: "operations of the wrong type", path: "\(db)/private/records/modify?\(auth)", body: #"{"operations":"all"}"#, status: 400, code: "BAD_REQUEST", reasonContains: "operations"),
        Scenario(name: "missing operations", path: "\(db)/private/records/modify?\(auth)", body: "{}", status: 400, code: "BAD_REQUEST", reasonContains: "operations is required"),
        Scenario(name: "unknown operationType", path: "\(db)/private/records/modify?\(auth)", body: #"{"operations":[{"operationType":"explode","record":{"recordName":"a"}}]}"#, status: 400, code: "BAD_REQUEST", reasonContains: "operationType"),
        Scenario(name: "update without recordName", path: "\(db)/private/records/modify?\(auth)", body: #"{"operations":[{"operationType":"update","record":{"recordType":"A"}}]}"#, status: 400, code: "BAD_REQUEST", reasonContains: "recordName"),
        Scenario(name: "two operations on one record", path: "\(db)/private/records/modify?\(auth)", body: #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"A"}},{"operationType":"forceDelete","record":{"recordName":"a"}}]}"#, status: 400, code: "BAD_REQUEST"),
        Scenario(name: "unknown zone", path: "\(db)/private/records/modify?\(auth)", body: #"{"zoneID":{"zoneName":"Nowhere"},"operations":[{"operationType":"create","record":{"recordType":"A"}}]}"#, status: 404, code: "ZONE_NOT_FOUND"),
        Scenario(name: "query of an unknown zone", path: "\(db)/private/records/query?\(auth)", body: #"{"zoneID":{"zoneName":"Nowhere"},"query":{"recordType":"A"}}"#, status: 404, code: "ZONE_NOT_FOUND"),
        Scenario(name: "query without a record type", path: "\(db)/public/records/query?\(auth)", body: #"{"query":{}}"#, status: 400, code: "BAD_REQUEST", reasonContains: "recordType"),
        Scenario(name: "query with an unknown comparator", path: "\(db)/public/records/query?\(auth)", body: #"{"query":{"recordType":"Item","filterBy":[{"comparator":"LIKE","fieldName":"n","fieldValue":{"value":1}}]}}"#, status: 400, code: "BAD_REQUEST", reasonContains: "LIKE"),
        Scenario(name: "query with a forged continuation marker", path: "\(db)/public/records/query?\(auth)", body: #"{"query":{"recordType":"Item"},"continuationMarker":"bogus"}"#, status: 400, code: "BAD_REQUEST", reasonContains: "continuationMarker"),
        Scenario(name: "sync with a forged token", path: "\(db)/private/records/changes?\(auth)", body: #"{"zoneID":{"zoneName":"_defaultZone"},"syncToken":"bogus"}"#, status: 400, code: "BAD_REQUEST", reasonContains: "syncToken"),
        Scenario(name: "another user's zone", path: "\(db)/private/records/lookup?\(auth)", body: #"{"zoneID":{"zoneName":"_defaultZone","ownerRecordName":"_ffffffffffffffffffffffffffffffff"},"records":[{"recordName":"a"}]}"#, status: 404, code: "ZONE_NOT_FOUND"),
        Scenario(name: "unknown zone operation", path: "\(db)/private/zones/modify?\(auth)", body: #"{"operations":[{"operationType":"explode","zone":{"zoneID":{"zoneName":"A"}}}]}"#, status: 400, code: "BAD_REQUEST"),
        Scenario(name: "a wrong web auth token", path: "\(db)/private/records/query?ckAPIToken={T}&ckWebAuthToken=v1.x.y.99999999999999.zz", body: "{}", status: 401, code: "AUTHENTICATION_FAILED"),
    ]

    @Test("bad requests get a CloudKit error body with the right status", arguments: scenarios)
    func scenario(_ scenario: Scenario) async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Item","fields":{"n":{"value":1}}}}]}"#)
            let path = scenario.path
                .replacingOccurrences(of: "{C}", with: TestServer.container)
                .replacingOccurrences(of: "{T}", with: token)
                .replacingOccurrences(of: "{W}", with: alice.webAuthToken!.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
            let reply = try await client.send(scenario.method, path, body: scenario.body)
            #expect(reply.status == scenario.status, "\(reply.json)")
            #expect(reply.errorCode == scenario.code, "\(reply.json)")
            guard case .string(let reason)? = reply["reason"], case .string? = reply["uuid"] else {
                Issue.record("no reason or uuid in \(reply.json)")
                return
            }
            if let expected = scenario.reasonContains {
                #expect(reason.contains(expected), "reason: \(reason)")
            }
            if scenario.status == 421 {
                #expect(reply["redirectURL"] != nil)
            }
        }
    }

    @Test("limits: 200 operations per request (2,000 atomic in a custom zone), and bodies over the limit are refused before they are read")
    func limits() async throws {
        try await TestServer.run(configure: { $0.maximumRequestBytes = 2 * 1024 * 1024 }) { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let operations = (0..<201).map { #"{"operationType":"create","record":{"recordName":"r\#($0)","recordType":"A"}}"# }
            let tooMany = try await alice.post("private", "records/modify", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
            #expect(tooMany.status == 400 && tooMany.errorCode == "BAD_REQUEST")
            // An atomic request in a custom zone may carry up to 2,000: an atomic group larger than a batch.
            _ = try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Lists"}}}]}"#)
            func atomic(_ count: Int, zone: String) -> String {
                let operations = (0..<count).map { #"{"operationType":"create","record":{"recordName":"g\#($0)","recordType":"A"}}"# }
                return #"{"zoneID":{"zoneName":"\#(zone)"},"atomic":true,"operations":[\#(operations.joined(separator: ","))]}"#
            }
            let group = try await alice.post("private", "records/modify", atomic(2_000, zone: "Lists"))
            #expect(group.status == 200)
            if case .array(let records)? = group["records"] { #expect(records.count == 2_000) } else { Issue.record("no records: \(group.status)") }
            let tooManyAtomic = try await alice.post("private", "records/modify", atomic(2_001, zone: "Lists"))
            #expect(tooManyAtomic.status == 400 && tooManyAtomic.errorCode == "BAD_REQUEST")
            let defaultZone = try await alice.post("private", "records/modify", atomic(201, zone: "_defaultZone"))
            #expect(defaultZone.status == 400 && defaultZone.errorCode == "BAD_REQUEST")
            let big = String(repeating: "x", count: 3 * 1024 * 1024)
            let tooLarge = try await alice.post("private", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"A","fields":{"s":{"value":"\#(big)"}}}}]}"#)
            #expect(tooLarge.status == 413 && tooLarge.errorCode == "QUOTA_EXCEEDED", "\(tooLarge.json)")
            guard case .string(let reason)? = tooLarge["reason"] else { Issue.record("no reason"); return }
            #expect(reason.contains("larger than the limit"))
        }
    }
}
