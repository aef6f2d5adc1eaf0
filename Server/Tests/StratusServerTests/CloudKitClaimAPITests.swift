import Foundation
import StratusModel
import StratusStore
@testable import StratusServer
import StratusServices
import StratusTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Claiming a CloudKit identity, with a second Stratus server on loopback as the CloudKit source (as the import's own
/// tests use one): its users' web auth tokens prove who they were there.
@Suite struct CloudKitClaimAPITests {
    static let source = "iCloud.com.example.Source"

    /// A user signed up on the source: their record name there and their web auth token.
    static func sourceUser(_ email: String, on server: LiveTestServer, apiToken: String) async throws -> (userRecordName: String, token: String) {
        var request = URLRequest(url: server.url.appendingPathComponent("auth/1/\(source)/development/signup").appending(queryItems: [
            URLQueryItem(name: "ckAPIToken", value: apiToken)
        ]))
        request.httpMethod = "POST"
        request.httpBody = Data(#"{"emailAddress":"\#(email)","password":"correct horse battery"}"#.utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        guard let user = answer["userRecordName"] as? String, let token = answer["ckWebAuthToken"] as? String else {
            throw TestFailure("sign-up at the source: \(answer)")
        }
        return (user, token)
    }

    static func claimBody(_ token: String) throws -> String { try PasskeyAPITests.json(CloudKitClaimRequest(cloudKitWebAuthToken: token)) }

    @Test("a user's CloudKit token gives their account the records that user created, once; forged, expired and claimed tokens are refused")
    func claim() async throws {
        try await LiveTestServer.run { sourceServer in
            let sourceToken = try await sourceServer.admin.createContainer(Self.source)
            let ann = try await Self.sourceUser("ann@example.com", on: sourceServer, apiToken: sourceToken)
            let carl = try await Self.sourceUser("carl@example.com", on: sourceServer, apiToken: sourceToken)
            try await TestServer.run { client in
                let token = try await client.createContainer()
                // What `stratus import cloudkit` wrote: Ann's Users record and posts, and another user's post.
                let stamp = RecordStamp(timestamp: 1_700_000_000_000, userRecordName: ann.userRecordName, deviceID: "")
                let other = RecordStamp(timestamp: 1_700_000_000_000, userRecordName: "_someone-else", deviceID: "")
                let imported = ImportRecordsRequest(records: [
                    ImportedRecord(recordName: ann.userRecordName, recordType: "Users", fields: ["nickname": FieldInput(value: .string("annie"))], created: stamp, modified: stamp),
                    ImportedRecord(recordName: "post-1", recordType: "Post", fields: ["title": FieldInput(value: .string("Hello"))], created: stamp, modified: stamp),
                    ImportedRecord(recordName: "post-2", recordType: "Post", fields: [:], created: other, modified: stamp),
                    ImportedRecord(recordName: "post-3", recordType: "Post", fields: [:], created: other, modified: other),
                ])
                let written = try await client.send(
                    .post, "/admin/1/\(TestServer.container)/development/records/import", body: try PasskeyAPITests.json(imported), headers: client.admin
                )
                #expect(written.status == 200, "\(written.json)")
                let settings = """
                    {"cloudKitSource":{"url":"\(sourceServer.url.absoluteString)","containerID":"\(Self.source)","environment":"development","apiToken":"\(sourceToken)"}}
                    """
                let saved = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: settings, headers: client.admin)
                #expect(saved.status == 200, "\(saved.json)")

                let bea = try await client.auth("signup", #"{"emailAddress":"bea@example.com","password":"correct horse battery"}"#, token: token)
                let beaUser = try #require(bea.string("userRecordName"))
                let beaSession = try #require(bea.string("ckWebAuthToken"))

                let forged = try await client.auth("account/claim/cloudkit", try Self.claimBody("forged-token"), token: token, session: beaSession)
                #expect(forged.status == 401 && forged.string("serverErrorCode") == "AUTHENTICATION_FAILED", "\(forged.json)")

                let claimed = try await client.auth("account/claim/cloudkit", try Self.claimBody(ann.token), token: token, session: beaSession)
                #expect(claimed.status == 200 && claimed.string("cloudKitUserRecordName") == ann.userRecordName, "\(claimed.json)")
                #expect(claimed["records"] == .integer(3) && claimed["usersRecordFields"] == .bool(true), "\(claimed.json)")
                let zone = DatabaseRef.publicDatabase(TestServer.container, .development).zone(ZoneID.defaultZoneName)
                let records = try await client.parts.store.lookupRecords(["post-1", "post-2", "post-3", beaUser], in: zone)
                #expect(records["post-1"]?.created.userRecordName == beaUser && records["post-2"]?.modified.userRecordName == beaUser)
                #expect(records["post-2"]?.created.userRecordName == "_someone-else" && records["post-3"]?.created.userRecordName == "_someone-else")
                #expect(records[beaUser]?.fields.json.contains("annie") == true, "\(String(describing: records[beaUser]))")
                let shown = try await client.authGet("account/claim/cloudkit", token: token, session: beaSession)
                #expect(shown.status == 200 && shown.string("cloudKitUserRecordName") == ann.userRecordName, "\(shown.json)")

                // Bea now owns Ann's post: she may change it.
                let edit = try await client.send(
                    .post, "/database/1/\(TestServer.container)/development/public/records/modify?ckAPIToken=\(token)&ckWebAuthToken=\(beaSession.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)",
                    body: #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"post-1","recordType":"Post","fields":{"title":{"value":"Edited"}}}}]}"#
                )
                #expect(edit.status == 200 && !"\(edit.json)".contains("serverErrorCode"), "\(edit.json)")

                // Once: not again by another account, and not a second user for Bea.
                let dan = try await client.auth("signup", #"{"emailAddress":"dan@example.com","password":"correct horse battery"}"#, token: token)
                let danSession = try #require(dan.string("ckWebAuthToken"))
                let again = try await client.auth("account/claim/cloudkit", try Self.claimBody(ann.token), token: token, session: danSession)
                #expect(again.status == 409, "\(again.json)")
                let second = try await client.auth("account/claim/cloudkit", try Self.claimBody(carl.token), token: token, session: beaSession)
                #expect(second.status == 409, "\(second.json)")

                // An expired token: Carl signed out at the source.
                var signOut = URLRequest(url: sourceServer.url.appendingPathComponent("auth/1/\(Self.source)/development/signout").appending(queryItems: [
                    URLQueryItem(name: "ckAPIToken", value: sourceToken), URLQueryItem(name: "ckWebAuthToken", value: carl.token),
                ]))
                signOut.httpMethod = "POST"
                signOut.httpBody = Data("{}".utf8)
                _ = try await URLSession.shared.data(for: signOut)
                let expired = try await client.auth("account/claim/cloudkit", try Self.claimBody(carl.token), token: token, session: danSession)
                #expect(expired.status == 401, "\(expired.json)")
                let none = try await client.authGet("account/claim/cloudkit", token: token, session: danSession)
                #expect(none.status == 404, "\(none.json)")
            }
        }
    }
}
