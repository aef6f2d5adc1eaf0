import Crypto
import Foundation
import HTTPTypes
import StratusModel
import Testing

/// Requests shaped as CloudKit Web Services clients written against Apple's server send them (CloudKit JS,
/// MistKit, OpenCloudKit, CloudyKit, CloudKitPy), and the answers those clients rely on.
@Suite struct CompatibilityAPITests {
    /// Registers a new key for the test container and answers it with its ID.
    static func registerKey(_ client: TestClient) async throws -> (P256.Signing.PrivateKey, String) {
        let key = P256.Signing.PrivateKey()
        let pem = try String(decoding: JSONEncoder().encode(key.publicKey.pemRepresentation), as: UTF8.self)
        let created = try await client.send(.post, "/admin/1/\(TestServer.container)/keys", body: #"{"publicKey":\#(pem)}"#, headers: client.admin)
        guard case .string(let keyID)? = created["keyID"] else { throw TestFailure("no key: \(created.json)") }
        return (key, keyID)
    }

    @Test("a signed key has the container's developer identity: users/caller answers it, and its writes name it")
    func serverToServerIdentity() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let (key, keyID) = try await Self.registerKey(client)
            let (otherKey, otherKeyID) = try await Self.registerKey(client)
            let callerPath = "/database/1/\(TestServer.container)/development/public/users/caller"
            // CloudKit JS's setUpAuth: GET with an empty body, its hash in the signed message.
            let caller = try await client.send(.get, callerPath, headers: try ServerKeyAPITests.signedHeaders(key: key, keyID: keyID, body: "", path: callerPath))
            #expect(caller.status == 200, "\(caller.json)")
            guard case .string(let developer)? = caller["userRecordName"] else { Issue.record("no identity: \(caller.json)"); return }
            #expect(developer.hasPrefix("_") && developer.count == 33)
            #expect(caller["users"]?.arrayValue?.first?.objectValue?["userRecordName"] == .string(developer))
            let current = "/database/1/\(TestServer.container)/development/public/users/current"
            let currentReply = try await client.send(.get, current, headers: try ServerKeyAPITests.signedHeaders(key: otherKey, keyID: otherKeyID, body: "", path: current))
            #expect(currentReply["userRecordName"] == .string(developer), "every key of a container acts as its developer")

            let modify = "/database/1/\(TestServer.container)/development/public/records/modify"
            let body = #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"x"}}}}]}"#
            let saved = try await client.send(.post, modify, body: body, headers: try ServerKeyAPITests.signedHeaders(key: key, keyID: keyID, body: body, path: modify))
            #expect(saved.records.first?["created"]?.objectValue?["userRecordName"] == .string(developer))
            #expect(saved.records.first?["modified"]?.objectValue?["userRecordName"] == .string(developer))
            // Nobody signs in as the developer.
            let signIn = try await client.send(
                .post, "/auth/1/\(TestServer.container)/development/signin?ckAPIToken=\(try await client.apiToken())",
                body: #"{"emailAddress":"","password":""}"#
            )
            #expect(signIn.status == 400)
        }
    }

    @Test("a signed request is accepted once: the same signature again is refused, a new one is not")
    func replay() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let (key, keyID) = try await Self.registerKey(client)
            let path = "/database/1/\(TestServer.container)/development/public/records/modify"
            let body = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"once"}}}}]}"#
            let headers = try ServerKeyAPITests.signedHeaders(key: key, keyID: keyID, body: body, path: path)
            let first = try await client.send(.post, path, body: body, headers: headers)
            #expect(first.status == 200 && first.records.first?["recordChangeTag"] != nil)
            let replayed = try await client.send(.post, path, body: body, headers: headers)
            #expect(replayed.status == 401 && replayed.errorCode == "AUTHENTICATION_FAILED")
            // The same signature in its raw form is the same signature.
            var raw = headers
            let der = Data(base64Encoded: headers[HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!]!)!
            raw[HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!] = try P256.Signing.ECDSASignature(derRepresentation: der).rawRepresentation.base64EncodedString()
            #expect(try await client.send(.post, path, body: body, headers: raw).status == 401)
            let signedAgain = try await client.send(.post, path, body: body, headers: try ServerKeyAPITests.signedHeaders(key: key, keyID: keyID, body: body, path: path))
            #expect(signedAgain.status == 200)
            let query = try await client.send(.post, "/database/1/\(TestServer.container)/development/public/records/query?ckAPIToken=\(try await client.apiToken())",
                body: #"{"query":{"recordType":"Note"}}"#)
            #expect(query.records.count == 2, "the replay made no record")
        }
    }

    @Test("a multipart/form-data upload stores the file part, not the envelope; raw bodies still work")
    func multipartUpload() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let file = AssetTestSupport.png(5_000, seed: 7)
            let boundary = "----CloudyKitBoundary7MA4YWxkTrZu0gW"
            var body = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\"photo.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
            body += file
            body += Array("\r\n--\(boundary)--\r\n".utf8)
            let path = try await alice.uploadPath(recordType: "Photo", field: "image")
            let (reply, _) = try await client.sendBytes(.post, path, body, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"])
            #expect(reply.status == 200, "\(reply.json)")
            #expect(reply["singleFile"]?.objectValue?["size"] == .integer(Int64(file.count)))
            #expect(reply["singleFile"]?.objectValue?["fileChecksum"] == .string(AssetTestSupport.checksum(file)))
            guard let single = reply["singleFile"] else { return }
            var writer = JSONWriter()
            single.write(to: &writer)
            _ = try await alice.create("p1", type: "Photo", fields: #"{"image":{"value":\#(writer.text)}}"#)
            let (download, bytes) = try await client.sendBytes(.get, try await alice.downloadPath(of: "p1", field: "image"))
            #expect(download.status == 200)
            #expect(bytes == file)
            #expect(download.headers[.contentType] == "image/png")

            let broken = Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nno closing boundary".utf8)
            let (refused, _) = try await client.sendBytes(.post, try await alice.uploadPath(recordType: "Photo", field: "image"), broken, headers: [.contentType: "multipart/form-data; boundary=\(boundary)"])
            #expect(refused.status == 400 && refused.errorCode == "BAD_REQUEST")
            let (noBoundary, _) = try await client.sendBytes(.post, try await alice.uploadPath(recordType: "Photo", field: "image"), file, headers: [.contentType: "multipart/form-data"])
            #expect(noBoundary.status == 400)
        }
    }

    @Test("sync tokens and continuation markers are standard padded base64; earlier base64url tokens still work")
    func tokenEncoding() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            try await alice.createZone("Notes")
            let operations = (0..<30).map { #"{"operationType":"create","record":{"recordName":"n\#($0)","recordType":"Note","fields":{"n":{"value":\#($0)}}}}"# }
            _ = try await alice.post("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[\#(operations.joined(separator: ","))]}"#)
            func isStandardBase64(_ value: JSONValue?) -> Bool {
                guard case .string(let text)? = value else { return false }
                return text.utf8.count % 4 == 0 && Data(base64Encoded: text) != nil
            }
            var tokens: [JSONValue?] = []
            let database = try await alice.post("private", "changes/database", "{}")
            tokens.append(database["syncToken"])
            let zone = try await alice.post("private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"},"resultsLimit":7}]}"#)
            let zoneToken = zone["zones"]?.arrayValue?.first?.objectValue?["syncToken"]
            tokens.append(zoneToken)
            let page = try await alice.post("private", "records/query", #"{"zoneID":{"zoneName":"Notes"},"resultsLimit":4,"query":{"recordType":"Note","sortBy":[{"fieldName":"n"}]}}"#)
            tokens.append(page["continuationMarker"])
            #expect(tokens.allSatisfy(isStandardBase64), "\(tokens)")

            // The same token as versions before this one wrote it: base64url, unpadded.
            guard case .string(let standard)? = zoneToken else { return }
            let legacy = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let next = try await alice.post("private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"},"syncToken":"\#(legacy)","resultsLimit":7}]}"#)
            let records = next["zones"]?.arrayValue?.first?.objectValue?["records"]?.arrayValue ?? []
            #expect(records.first?.objectValue?["recordName"] == .string("n7"))
        }
    }

    @Test("recordName filters take REFERENCE values, by systemFieldName and by ___recordID")
    func recordNameReferenceFilter() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            for name in ["a", "b", "c"] { try await alice.create(name, type: "Item", fields: #"{"title":{"value":"\#(name)"}}"#) }
            // OpenCloudKit's shape.
            let bySystemName = try await alice.post("public", "records/query", #"{"query":{"recordType":"Item","filterBy":[{"comparator":"EQUALS","systemFieldName":"recordName","fieldValue":{"value":{"recordName":"b","action":"NONE"},"type":"REFERENCE"}}]}}"#)
            #expect(bySystemName.status == 200, "\(bySystemName.json)")
            #expect(bySystemName.records.map { $0["recordName"] } == [.string("b")])
            // CloudKit's own framework's shape.
            let byField = try await alice.post("public", "records/query", #"{"query":{"recordType":"Item","filterBy":[{"comparator":"IN","fieldName":"___recordID","fieldValue":{"value":[{"recordName":"a"},{"recordName":"c"}],"type":"REFERENCE_LIST"}}]}}"#)
            #expect(byField.status == 200, "\(byField.json)")
            #expect(Set(byField.records.compactMap { $0["recordName"] }) == [.string("a"), .string("c")])
        }
    }

    @Test("a record type that is not valid, or not in production, answers NOT_FOUND as Apple's server does")
    func unknownRecordTypes() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let production = alice.inEnvironment("production")
            let saved = try await production.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"Nowhere"}}]}"#)
            #expect(saved.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
            let queried = try await production.post("public", "records/query", #"{"query":{"recordType":"Nowhere"}}"#)
            #expect(queried.status == 404 && queried.errorCode == "NOT_FOUND")
            let invalid = try await alice.post("public", "records/query", #"{"query":{"recordType":"no such type!"}}"#)
            #expect(invalid.status == 404 && invalid.errorCode == "NOT_FOUND")
            let invalidSave = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"9lives"}}]}"#)
            #expect(invalidSave.records.first?["serverErrorCode"] == .string("NOT_FOUND"))
        }
    }

    @Test("the environment in any case, tokens/create without a database segment, createShortGUID, zones/changes' syncToken")
    func pathsAndKeys() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            // CloudKitPy's constant.
            let upper = try await alice.inEnvironment("DEVELOPMENT").post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"u1","recordType":"Note"}}]}"#)
            #expect(upper.status == 200 && upper.records.first?["recordChangeTag"] != nil)
            let mixed = try await alice.inEnvironment("Development").post("public", "records/lookup", #"{"records":[{"recordName":"u1"}]}"#)
            #expect(mixed.records.first?["recordName"] == .string("u1"))

            let tokens = try await client.send(.post, "/database/1/\(TestServer.container)/development/tokens/create?\(alice.query)", body: #"{"apnsEnvironment":"development"}"#)
            #expect(tokens.status == 200 && tokens["webcourierURL"] != nil, "\(tokens.json)")

            try await alice.createZone("Docs")
            let withGUID = try await alice.save([#"{"recordName":"doc","recordType":"Doc","createShortGUID":true}"#], zone: "Docs")
            guard case .string(let guid)? = withGUID.records.first?["shortGUID"] else { Issue.record("no shortGUID: \(withGUID.json)"); return }
            #expect(guid.count >= 16)
            let looked = try await alice.post("private", "records/lookup", #"{"zoneID":{"zoneName":"Docs"},"records":[{"recordName":"doc"}]}"#)
            #expect(looked.records.first?["shortGUID"] == .string(guid))
            let share = try await alice.share("doc", zone: "Docs")
            #expect(share["shortGUID"] == .string(guid), "a shared root's share carries the root's shortGUID")
            let plain = try await alice.save([#"{"recordName":"plain","recordType":"Doc"}"#], zone: "Docs")
            #expect(plain.records.first?["shortGUID"] == nil)

            let legacy = try await alice.post("private", "zones/changes", "{}")
            #expect(legacy["syncToken"] != nil && legacy["syncToken"] == legacy["metaSyncToken"])
            guard case .string(let syncToken)? = legacy["syncToken"] else { return }
            let next = try await alice.post("private", "zones/changes", #"{"syncToken":"\#(syncToken)"}"#)
            #expect(next.status == 200 && next["zones"]?.arrayValue?.isEmpty == true, "\(next.json)")
        }
    }

    @Test("CloudKit JS's ckSession=null, undefined or empty is no session: public reads are served, private ones get 421")
    func nullSessions() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            _ = try await alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"hello","recordType":"Note","fields":{"title":{"value":"Hi"}}}}]}"#)
            for empty in ["null", "undefined", ""] {
                for name in ["ckSession", "ckWebAuthToken"] {
                    let base = "/database/1/\(TestServer.container)/development"
                    let lookup = try await client.send(.post, "\(base)/public/records/lookup?ckAPIToken=\(token)&\(name)=\(empty)", body: #"{"records":[{"recordName":"hello"}]}"#)
                    #expect(lookup.status == 200, "\(name)=\(empty) on a public read: \(lookup.status) \(lookup.json)")
                    let mine = try await client.send(.post, "\(base)/private/records/query?ckAPIToken=\(token)&\(name)=\(empty)", body: #"{"query":{"recordType":"Note"}}"#)
                    #expect(mine.status == 421 && mine.errorCode == "AUTHENTICATION_REQUIRED", "\(name)=\(empty) on a private read: \(mine.status) \(mine.json)")
                }
            }
            // A real session beside an empty one is used.
            let both = try await client.send(.post, "/database/1/\(TestServer.container)/development/private/records/query?\(alice.query)&ckSession=null", body: #"{"query":{"recordType":"Note"}}"#)
            #expect(both.status == 200, "\(both.json)")
        }
    }

    @Test("GET users/discover answers a CloudKit reply; users/lookup/id leaves out the email address")
    func userEndpoints() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            _ = try await client.send(.post, "/auth/1/\(TestServer.container)/development/discoverability?\(bob.query)", body: #"{"discoverable":true}"#)
            let all = try await alice.get("public", "users/discover")
            #expect(all.status == 200 && all["users"]?.arrayValue != nil, "\(all.json)")
            let anonymous = try await alice.anonymous.get("public", "users/discover")
            #expect(anonymous.status == 421 && anonymous.errorCode == "AUTHENTICATION_REQUIRED")
            let byID = try await alice.post("public", "users/lookup/id", #"{"users":[{"userRecordName":"\#(bob.userRecordName)"}]}"#)
            let user = byID["users"]?.arrayValue?.first?.objectValue
            #expect(user?["userRecordName"] == .string(bob.userRecordName))
            #expect(user?["emailAddress"] == nil)
            let byEmail = try await alice.post("public", "users/lookup/email", #"{"users":[{"emailAddress":"bob@example.com"}]}"#)
            #expect(byEmail["users"]?.arrayValue?.first?.objectValue?["emailAddress"] == .string("bob@example.com"))
        }
    }
}

extension TestClient {
    /// The test container's API token, read through the admin API.
    func apiToken() async throws -> String {
        let reply = try await send(.get, "/admin/1/containers", headers: admin)
        let container = reply["containers"]?.arrayValue?.compactMap(\.objectValue).first { $0["containerID"] == .string(TestServer.container) }
        guard case .string(let token)? = container?["apiToken"] else { throw TestFailure("no container: \(reply.json)") }
        return token
    }
}
