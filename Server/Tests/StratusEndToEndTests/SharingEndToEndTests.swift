import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Sharing through a real `stratus serve` process, as the README walks through it.
@Suite(.serialized) struct SharingEndToEndTests {
    static let container = "iCloud.com.example.Contacts"

    /// Signs up a user of a sharing container (password ``SignedInUser/password``).
    static func signUp(
        _ email: String, apiToken: String, on server: ServerProcess, container: String = SharingEndToEndTests.container
    ) async throws -> SignedInUser {
        try await SignedInUser.signUp(email, container: container, apiToken: apiToken, on: server)
    }

    static func value(_ field: String, of record: [String: Any]) -> Any? {
        ((record["fields"] as? [String: Any])?[field] as? [String: Any])?["value"]
    }

    @Test("the MyUser / PrivateInfo case: A shares contact details with B through a public profile, C is refused, B's access survives kill -9 and ends when A removes B")
    func contactDetails() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let apiToken = try await server.createContainer(Self.container)
        let alice = try await Self.signUp("alice@example.com", apiToken: apiToken, on: server)
        var bob = try await Self.signUp("bob@example.com", apiToken: apiToken, on: server)
        let carol = try await Self.signUp("carol@example.com", apiToken: apiToken, on: server)

        // A's private zone, the PrivateInfo record, and its share for B: one atomic batch.
        _ = try await alice.send("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Contact"}}}]}"#)
        let (status, saved) = try await alice.send("private", "records/modify", #"""
            {"zoneID":{"zoneName":"Contact"},"operations":[
              {"operationType":"create","record":{"recordName":"info","recordType":"PrivateInfo","fields":{"phoneNumber":{"value":"+1 555 0100"},"email":{"value":"alice@example.com"}}}},
              {"operationType":"create","record":{"recordName":"info-share","recordType":"cloudkit.share","forRecord":{"recordName":"info"},"publicPermission":"NONE",
                "participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"\#(bob.userRecordName)"}},"permission":"READ_ONLY"}]}}]}
            """#)
        guard status == 200, let share = (saved["records"] as? [[String: Any]])?.last, let url = share["url"] as? String else {
            throw E2EFailure("sharing answered \(status): \(saved)")
        }

        // A's public profile, with a thumbnail and the share URL.
        let (_, uploads) = try await alice.send("public", "assets/upload", #"{"tokens":[{"recordType":"MyUser","fieldName":"thumbnail"}]}"#)
        guard let uploadURL = ((uploads["tokens"] as? [[String: Any]])?.first)?["url"] as? String else { throw E2EFailure("\(uploads)") }
        var upload = URLRequest(url: URL(string: uploadURL)!)
        upload.httpMethod = "POST"
        upload.httpBody = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 500))
        let (uploaded, _) = try await URLSession.shared.data(for: upload)
        guard let singleFile = (try JSONSerialization.jsonObject(with: uploaded) as? [String: Any])?["singleFile"] else { throw E2EFailure("upload failed") }
        let file = String(decoding: try JSONSerialization.data(withJSONObject: singleFile), as: UTF8.self)
        _ = try await alice.record("public", "records/modify", #"""
            {"operations":[{"operationType":"create","record":{"recordName":"alice","recordType":"MyUser","fields":{
              "firstName":{"value":"Alice"},"lastName":{"value":"Liddell"},"thumbnail":{"value":\#(file)},"privateShareUrl":{"value":"\#(url)"}}}}]}
            """#)

        // B reads the profile, follows the link, accepts, and reads A's phone number and email.
        let profile = try await bob.record("public", "records/lookup", #"{"records":[{"recordName":"alice"}]}"#)
        guard let published = Self.value("privateShareUrl", of: profile) as? String, let guid = published.split(separator: "/").last.map(String.init) else {
            throw E2EFailure("\(profile)")
        }
        let (linkStatus, link) = try await server.send("GET", "/share/\(guid)")
        #expect(linkStatus == 200)
        #expect(link["containerIdentifier"] as? String == Self.container)
        #expect(try await bob.link("resolve", guid)["participantStatus"] as? String == "INVITED")
        #expect(try await bob.link("accept", guid)["participantStatus"] as? String == "ACCEPTED")
        let zone = #"{"zoneName":"Contact","ownerRecordName":"\#(alice.userRecordName)"}"#
        let lookup = #"{"zoneID":\#(zone),"records":[{"recordName":"info"}]}"#
        let info = try await bob.record("shared", "records/lookup", lookup)
        #expect(Self.value("phoneNumber", of: info) as? String == "+1 555 0100")
        #expect(Self.value("email", of: info) as? String == "alice@example.com")

        // C was not added: refused.
        #expect(try await carol.link("resolve", guid)["serverErrorCode"] as? String == "ACCESS_DENIED")
        #expect(try await carol.send("shared", "records/lookup", lookup).1["serverErrorCode"] as? String == "ZONE_NOT_FOUND")

        // B's acceptance is durable: it survives a crash.
        server.kill()
        server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        bob = bob.on(server)
        #expect(Self.value("email", of: try await bob.record("shared", "records/lookup", lookup)) as? String == "alice@example.com")

        // A removes B; B is refused from then on.
        let current = try await alice.on(server).record("private", "records/lookup", #"{"zoneID":{"zoneName":"Contact"},"records":[{"recordName":"info-share"}]}"#)
        guard let tag = current["recordChangeTag"] as? String else { throw E2EFailure("\(current)") }
        _ = try await alice.on(server).record("private", "records/modify", #"""
            {"zoneID":{"zoneName":"Contact"},"operations":[{"operationType":"update","record":{"recordName":"info-share","recordType":"cloudkit.share","recordChangeTag":"\#(tag)","participants":[]}}]}
            """#)
        #expect(try await bob.send("shared", "records/lookup", lookup).1["serverErrorCode"] as? String == "ZONE_NOT_FOUND")
        #expect(try await bob.link("resolve", guid)["serverErrorCode"] as? String == "ACCESS_DENIED")
    }
}

/// The sharing calls of the end-to-end tests.
extension SignedInUser {
    /// The first record of a records answer.
    func record(_ database: String, _ operation: String, _ body: String) async throws -> [String: Any] {
        let (status, json) = try await send(database, operation, body)
        guard status == 200, let record = (json["records"] as? [[String: Any]])?.first else { throw E2EFailure("\(operation) answered \(status): \(json)") }
        return record
    }

    /// The first result of `records/resolve` or `records/accept`.
    func link(_ operation: String, _ guid: String) async throws -> [String: Any] {
        let (status, json) = try await send("public", "records/\(operation)", #"{"shortGUIDs":[{"value":"\#(guid)","shouldFetchRootRecord":true}]}"#)
        guard status == 200, let result = (json["results"] as? [[String: Any]])?.first else { throw E2EFailure("\(operation) answered \(status): \(json)") }
        return result
    }
}
