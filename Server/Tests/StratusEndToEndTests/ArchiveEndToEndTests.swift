import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stratus export` and `stratus import archive` between two real servers on different backends: everything a
/// container holds answers the same afterwards.
@Suite(.serialized) struct ArchiveEndToEndTests {
    static let container = "iCloud.com.example.Archive"

    static let schema = """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Note (title STRING QUERYABLE, rank INT64 QUERYABLE SORTABLE, photo ASSET,
                GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world");
            RECORD TYPE Folder (name STRING, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world");
        """

    /// The source's data: three users (Alice an Editor), public notes (one with a file), Alice's private zones with
    /// a folder hierarchy shared with Bob (accepted) and Carol (invited), a zone shared through its link (Carol
    /// joined), and subscriptions. Answers the users and the file.
    static func populate(_ server: ServerProcess) async throws -> (alice: SignedInUser, bob: SignedInUser, carol: SignedInUser, photo: Data) {
        let apiToken = try await server.createContainer(container)
        try await server.admin.importSchema(schema, container: container)
        try await server.admin.deploy(container: container)
        // Development goes on past production.
        try await server.admin.importSchema(schema.replacingOccurrences(of: "photo ASSET,", with: "photo ASSET, extra STRING,"), container: container)
        let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: server, container: container)
        let bob = try await SharingEndToEndTests.signUp("bob@example.com", apiToken: apiToken, on: server, container: container)
        let carol = try await SharingEndToEndTests.signUp("carol@example.com", apiToken: apiToken, on: server, container: container)
        try await server.admin.setRoles(["Editor"], of: alice.userRecordName, container: container)

        let photo = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let publicFile = try await upload(photo, as: alice, database: "public", zone: nil, on: server)
        var notes: [String] = []
        for number in 0..<6 {
            let photoField = number == 0 ? #","photo":{"value":\#(publicFile)}"# : ""
            notes.append(#"{"operationType":"create","record":{"recordName":"note-\#(number)","recordType":"Note","fields":{"title":{"value":"note \#(number)"},"rank":{"value":\#(number * 10)}\#(photoField)}}}"#)
        }
        try await expectSaved(alice.send("public", "records/modify", #"{"operations":[\#(notes.joined(separator: ","))]}"#))

        for zone in ["Work", "Home"] {
            try await expectSaved(alice.send("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(zone)"}}}]}"#), key: "zones")
        }
        let privateFile = try await upload(Data(photo.reversed()), as: alice, database: "private", zone: "Work", on: server)
        try await expectSaved(alice.send("private", "records/modify", #"""
            {"zoneID":{"zoneName":"Work"},"operations":[
              {"operationType":"create","record":{"recordName":"folder","recordType":"Folder","fields":{"name":{"value":"Plans"}}}},
              {"operationType":"create","record":{"recordName":"plan-1","recordType":"Note","parent":{"recordName":"folder"},"fields":{"title":{"value":"first"},"photo":{"value":\#(privateFile)}}}},
              {"operationType":"create","record":{"recordName":"plan-2","recordType":"Note","parent":{"recordName":"plan-1"},"fields":{"title":{"value":"second"}}}},
              {"operationType":"create","record":{"recordName":"folder-share","recordType":"cloudkit.share","forRecord":{"recordName":"folder"},"publicPermission":"NONE",
                "participants":[{"userIdentity":{"lookupInfo":{"userRecordName":"\#(bob.userRecordName)"}},"permission":"READ_WRITE"},
                                {"userIdentity":{"lookupInfo":{"emailAddress":"carol@example.com"}},"permission":"READ_ONLY"}]}}]}
            """#))
        try await expectSaved(alice.send("private", "records/modify", #"""
            {"zoneID":{"zoneName":"Home"},"operations":[
              {"operationType":"create","record":{"recordName":"list","recordType":"Note","fields":{"title":{"value":"groceries"}}}},
              {"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","publicPermission":"READ_ONLY"}}]}
            """#))
        let shares = try await lookup(["folder", "cloudkit.zoneshare"], database: "private", zones: ["Work", "Home"], user: alice.userRecordName, on: server)
        _ = try await bob.link("accept", try #require(shares["folder"]?["shortGUID"] as? String))
        _ = try await carol.link("accept", try #require(shares["cloudkit.zoneshare"]?["shortGUID"] as? String))

        try await expectSaved(bob.send("public", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"new-notes","subscriptionType":"query","query":{"recordType":"Note"},"firesOn":["create"]}}]}"#), key: "subscriptions")
        try await expectSaved(alice.send("private", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"work","subscriptionType":"zone","zoneID":{"zoneName":"Work"}}}]}"#), key: "subscriptions")
        return (alice, bob, carol, photo)
    }

    @Test("a user's own export (account/export) imports into another server: their private records and files answer the same")
    func userExportImports() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = ServerProcess(dataFolder: folder + "/source", arguments: ["--quiet"])
        let target = ServerProcess(dataFolder: folder + "/target", arguments: ["--quiet"])
        try await source.start()
        defer { source.stop() }
        try await target.start()
        defer { target.stop() }
        let (alice, _, _, _) = try await Self.populate(source)

        var request = URLRequest(url: URL(string: "\(source.baseURL)/auth/1/\(Self.container)/development/account/export?\(alice.query)")!)
        request.httpMethod = "GET"
        let (tar, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 200)
        let archive = folder + "/alice.tar"
        try tar.write(to: URL(fileURLWithPath: archive))
        let (imported, importOutput) = try await EndToEndTests.run(["import", "archive", archive, "--url", target.baseURL, "--admin-key", ServerProcess.adminKey])
        #expect(imported == 0, "\(importOutput)")
        // A user's export carries no API token: the import says which one apps need here.
        #expect(importOutput.contains("API token of \(Self.container) here: \(try await target.admin.apiToken(for: Self.container))"), "\(importOutput)")

        let names = ["folder", "plan-1", "plan-2", "list"]
        let before = try await Self.lookup(names, database: "private", zones: ["Work", "Home"], user: alice.userRecordName, on: source)
        let after = try await Self.lookup(names, database: "private", zones: ["Work", "Home"], user: alice.userRecordName, on: target)
        #expect(before.count == names.count)
        for name in names {
            #expect(Self.comparable(before[name]) == Self.comparable(after[name]), "\(name):\n\(String(describing: before[name]))\n\(String(describing: after[name]))")
        }
        // The export carries no password hash: the copy signs in only after a reset.
        let (signIn, _) = try await target.send(
            "POST", "/auth/1/\(Self.container)/development/signin?ckAPIToken=\(try await target.admin.apiToken(for: Self.container))",
            body: #"{"emailAddress":"alice@example.com","password":"\#(SignedInUser.password)"}"#
        )
        #expect(signIn == 401)
    }

    @Test("export, import into a server on the other backend: lookups, queries, sync, shares, sign-ins, roles, subscriptions and files answer the same")
    func roundTrip() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = ServerProcess(dataFolder: folder + "/source", arguments: ["--quiet"])
        let other: StoreFactory = StoreFactory.current.name == "sqlite" ? .postgres : .sqlite
        let target = ServerProcess(dataFolder: folder + "/target", arguments: ["--quiet"], backend: other)
        try await source.start()
        defer { source.stop() }
        try await target.start()
        defer { target.stop() }
        let (alice, bob, carol, photo) = try await Self.populate(source)
        let alicesKeys = SoftwarePasskeys(origin: source.baseURL)
        try await alice.addPasskey(with: alicesKeys)

        let archive = folder + "/archive.tar"
        let admin = ["--admin-key", ServerProcess.adminKey]
        let (exported, exportOutput) = try await EndToEndTests.run(["export", Self.container, "--out", archive, "--include-secrets", "--url", source.baseURL] + admin)
        #expect(exported == 0, "\(exportOutput)")
        #expect(exportOutput.contains("3 accounts") && exportOutput.contains("2 subscriptions"), "\(exportOutput)")
        let (imported, importOutput) = try await EndToEndTests.run(["import", "archive", archive, "--url", target.baseURL, "--keep-api-token"] + admin)
        #expect(imported == 0, "\(importOutput)")
        // The container keeps the source's API token, so apps keep working against the new server.
        let sourceToken = try await source.admin.apiToken(for: Self.container)
        #expect(importOutput.contains("API token kept: \(Self.container) here takes the source's, \(sourceToken)"), "\(importOutput)")
        #expect(try await target.admin.apiToken(for: Self.container) == sourceToken)
        let (withOldToken, answer) = try await target.send(
            "POST", "/database/1/\(Self.container)/development/public/records/lookup?ckAPIToken=\(sourceToken)", body: #"{"records":[{"recordName":"note-0"}]}"#
        )
        #expect(withOldToken == 200 && (answer["records"] as? [[String: Any]])?.first?["serverErrorCode"] == nil, "\(answer)")

        // Lookups: every record, public and private, with its stamps, fields, parent and short GUID.
        let publicNames = (0..<6).map { "note-\($0)" } + [alice, bob, carol].map(\.userRecordName)
        let privateNames = ["folder", "plan-1", "plan-2", "folder-share", "list", "cloudkit.zoneshare"]
        for (names, database, zones, user) in [(publicNames, "public", [nil], nil), (privateNames, "private", ["Work", "Home"], alice.userRecordName)] as [([String], String, [String?], String?)] {
            let before = try await Self.lookup(names, database: database, zones: zones, user: user, on: source)
            let after = try await Self.lookup(names, database: database, zones: zones, user: user, on: target)
            #expect(before.count == names.count)
            for name in names {
                #expect(Self.comparable(before[name]) == Self.comparable(after[name]), "\(name):\n\(String(describing: before[name]))\n\(String(describing: after[name]))")
            }
        }

        // A query answers the same records in the same order.
        let query = #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"rank","comparator":"GREATER_THAN","fieldValue":{"value":10}}],"sortBy":[{"fieldName":"rank","ascending":false}]}}"#
        let ranked = try await [source, target].asyncMap { server in
            try await Self.operatorCall(server, "public", "records/query", query)["records"] as? [[String: Any]] ?? []
        }
        #expect(ranked[0].map { $0["recordName"] as? String } == ["note-5", "note-4", "note-3", "note-2"])
        #expect(ranked[1].map { $0["recordName"] as? String } == ranked[0].map { $0["recordName"] as? String })

        // Sync: each zone's full change feed holds the same records.
        for zone in ["Work", "Home"] {
            let feeds = try await [source, target].asyncMap { server in
                let answer = try await Self.operatorCall(server, "private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"\#(zone)"}}]}"#, user: alice.userRecordName)
                let records = ((answer["zones"] as? [[String: Any]])?.first?["records"] as? [[String: Any]]) ?? []
                return Dictionary(uniqueKeysWithValues: records.compactMap { record in (record["recordName"] as? String).map { ($0, Self.comparable(record)) } })
            }
            #expect(!feeds[0].isEmpty && feeds[0] == feeds[1], "zone \(zone)")
        }

        // Sign-ins work with the old passwords; Bob still has Alice's folder in his shared database, and its link
        // still opens; Carol, invited only, is not in; Carol joined Home through its link and still has it.
        let bobThere = try await SignedInUser.signIn("bob@example.com", container: Self.container, on: target)
        let shared = try await bobThere.send("shared", "changes/database", "{}")
        #expect((shared.1["zones"] as? [[String: Any]])?.compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String } == ["Work"], "\(shared)")
        let (readStatus, read) = try await bobThere.send("shared", "records/lookup", #"{"zoneID":{"zoneName":"Work","ownerRecordName":"\#(alice.userRecordName)"},"records":[{"recordName":"plan-2"}]}"#)
        #expect(readStatus == 200 && ((read["records"] as? [[String: Any]])?.first?["recordName"] as? String) == "plan-2", "\(read)")
        let carolThere = try await SignedInUser.signIn("carol@example.com", container: Self.container, on: target)
        let carolShared = try await carolThere.send("shared", "changes/database", "{}")
        #expect((carolShared.1["zones"] as? [[String: Any]])?.compactMap { ($0["zoneID"] as? [String: Any])?["zoneName"] as? String } == ["Home"], "\(carolShared)")

        // Alice's passkey moved with her account: it signs in on the target (whose address is now the app's origin).
        let targetToken = try await target.admin.apiToken(for: Self.container)
        let auth = "/auth/1/\(Self.container)/development"
        let (_, options) = try await target.send("POST", "\(auth)/signin/passkey/options?ckAPIToken=\(targetToken)", body: "{}")
        let relyingParty = try #require(options["rpId"] as? String, "\(options)")
        let challenge = try #require(options["challenge"] as? String)
        let signature = try #require(alicesKeys.sign(
            relyingPartyID: relyingParty, challenge: SoftwarePasskeys.bytes(challenge), tampering: .init(origin: target.baseURL)
        ))
        let assertion: [String: Any] = ["credential": [
            "id": SoftwarePasskeys.base64URL(signature.credentialID), "type": "public-key",
            "response": [
                "clientDataJSON": SoftwarePasskeys.base64URL(signature.clientDataJSON),
                "authenticatorData": SoftwarePasskeys.base64URL(signature.authenticatorData),
                "signature": SoftwarePasskeys.base64URL(signature.signature), "userHandle": SoftwarePasskeys.base64URL(signature.userHandle),
            ],
        ]]
        let (passkeySignIn, passkeyAnswer) = try await target.send(
            "POST", "\(auth)/signin/passkey?ckAPIToken=\(targetToken)",
            body: String(decoding: try JSONSerialization.data(withJSONObject: assertion), as: UTF8.self)
        )
        #expect(passkeySignIn == 200 && passkeyAnswer["userRecordName"] as? String == alice.userRecordName, "\(passkeySignIn) \(passkeyAnswer)")

        // Roles, subscriptions and files.
        let roles = try await target.admin.send("GET", "/admin/1/\(Self.container)/development/users/\(alice.userRecordName)/roles")
        #expect(roles.json["roles"] as? [String] == ["Editor"])
        for (database, owner) in [("public", bob.userRecordName), ("private", alice.userRecordName)] {
            let listed = try await target.admin.send("GET", "/admin/1/\(Self.container)/development/subscriptions?database=\(database)")
            let entries = listed.json["subscriptions"] as? [[String: Any]] ?? []
            #expect(entries.count == 1 && entries.first?["owner"] as? String == owner, "\(database): \(entries)")
        }
        let copies = try await Self.lookup(["note-0"], database: "public", zones: [nil], user: nil, on: target)
        let url = try #require((((copies["note-0"]?["fields"] as? [String: Any])?["photo"] as? [String: Any])?["value"] as? [String: Any])?["downloadURL"] as? String)
        #expect(try await URLSession.shared.data(from: URL(string: url)!).0 == photo)
        #expect(importOutput.contains("imported \(Self.container)"))

        // Each server's console saw its side (18 records: 6 notes, 3 Users records in each environment, 6 private
        // records): the export on the source, the load on the target.
        for (server, kind, peer) in [(source, "export", archive), (target, "import archive", archive)] {
            let listed = try await server.admin.send("GET", "/admin/1/\(Self.container)/transfers").json["transfers"] as? [[String: Any]] ?? []
            let done = listed.first { $0["kind"] as? String == kind }
            #expect(done?["state"] as? String == "finished" && (done?["peer"] as? String)?.hasPrefix(peer) == true, "\(kind): \(listed)")
            #expect(done?["recordsDone"] as? Int == done?["recordsTotal"] as? Int && done?["recordsDone"] as? Int == 18, "\(kind): \(listed)")
        }
    }

    @Test("without --include-secrets the archive holds no password hashes; a folder archive is plain JSON lines")
    func secretsLeftOut() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = ServerProcess(dataFolder: folder + "/source", arguments: ["--quiet"])
        try await source.start()
        defer { source.stop() }
        let apiToken = try await source.createContainer(Self.container)
        _ = try await SharingEndToEndTests.signUp("dana@example.com", apiToken: apiToken, on: source, container: Self.container)
        let (status, output) = try await EndToEndTests.run(["export", Self.container, "--out", folder + "/archive", "--folder", "--url", source.baseURL, "--admin-key", ServerProcess.adminKey])
        #expect(status == 0, "\(output)")
        let accounts = try String(contentsOfFile: folder + "/archive/accounts.jsonl", encoding: .utf8)
        #expect(accounts.contains("dana@example.com") && !accounts.contains("passwordHash") && !accounts.contains("pbkdf2"))
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/archive/manifest.json"))) as? [String: Any]
        #expect(manifest?["format"] as? String == "stratus-archive" && manifest?["includesSecrets"] as? Bool == false)
        #expect(manifest?["apiToken"] as? String == apiToken, "the manifest names the source's API token")

        // Imported elsewhere without --keep-api-token, the container answers to another token, and the import says so.
        let target = ServerProcess(dataFolder: folder + "/target", arguments: ["--quiet"])
        try await target.start()
        defer { target.stop() }
        let (imported, importOutput) = try await EndToEndTests.run(["import", "archive", folder + "/archive", "--url", target.baseURL, "--admin-key", ServerProcess.adminKey])
        #expect(imported == 0, "\(importOutput)")
        let targetToken = try await target.admin.apiToken(for: Self.container)
        #expect(targetToken != apiToken)
        #expect(
            importOutput.contains("API token changed: \(Self.container) here answers to \(targetToken), not the source's \(apiToken)")
                && importOutput.contains("--keep-api-token"), "\(importOutput)"
        )
    }

    // MARK: - Helpers

    static func expectSaved(_ answer: (Int, [String: Any]), key: String = "records") throws {
        guard answer.0 == 200, let items = answer.1[key] as? [[String: Any]], !items.contains(where: { $0["serverErrorCode"] != nil }) else {
            throw E2EFailure("answered \(answer.0): \(answer.1)")
        }
    }

    /// Uploads a file for `Note.photo` and answers the value a record takes, as JSON text.
    static func upload(_ file: Data, as user: SignedInUser, database: String, zone: String?, on server: ServerProcess) async throws -> String {
        let zoneID = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
        let (status, reply) = try await user.send(database, "assets/upload", #"{\#(zoneID)"tokens":[{"recordType":"Note","fieldName":"photo"}]}"#)
        guard status == 200, let url = (reply["tokens"] as? [[String: Any]])?.first?["url"] as? String else { throw E2EFailure("no upload URL: \(reply)") }
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = file
        let (data, _) = try await URLSession.shared.data(for: request)
        guard let single = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["singleFile"] else { throw E2EFailure("upload failed") }
        return String(decoding: try JSONSerialization.data(withJSONObject: single), as: UTF8.self)
    }

    /// A CloudKit call as an operator (the admin key), in `user`'s database when named.
    static func operatorCall(_ server: ServerProcess, _ database: String, _ operation: String, _ body: String, user: String? = nil) async throws -> [String: Any] {
        var headers = ["Authorization": "Bearer \(ServerProcess.adminKey)"]
        if let user { headers["X-Stratus-User"] = user }
        let (status, json) = try await server.send("POST", "/database/1/\(container)/development/\(database)/\(operation)", body: body, headers: headers)
        guard status == 200 else { throw E2EFailure("\(operation) answered \(status): \(json)") }
        return json
    }

    /// Records by name across zones, as an operator reads them.
    static func lookup(_ names: [String], database: String, zones: [String?], user: String?, on server: ServerProcess) async throws -> [String: [String: Any]] {
        var found: [String: [String: Any]] = [:]
        for zone in zones {
            let zoneID = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
            let body = #"{\#(zoneID)"records":[\#(names.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ","))]}"#
            for record in try await operatorCall(server, database, "records/lookup", body, user: user)["records"] as? [[String: Any]] ?? [] {
                if record["serverErrorCode"] == nil, let name = record["recordName"] as? String { found[name] = record }
            }
        }
        return found
    }

    /// What must match between the servers: everything but change tags, file URLs, share URLs and participant IDs
    /// (each server numbers its participants).
    static func comparable(_ record: [String: Any]?) -> NSDictionary {
        guard var record else { return [:] }
        record["recordChangeTag"] = nil
        record["url"] = nil
        let withoutID = { (participant: Any?) -> [String: Any]? in
            guard var participant = participant as? [String: Any] else { return nil }
            participant["participantId"] = nil
            return participant
        }
        if record["participants"] != nil {
            record["participants"] = (record["participants"] as? [Any] ?? []).compactMap(withoutID)
            record["owner"] = withoutID(record["owner"])
            record["currentUserParticipant"] = withoutID(record["currentUserParticipant"])
        }
        if var fields = record["fields"] as? [String: Any] {
            for (name, field) in fields {
                guard var field = field as? [String: Any], var value = field["value"] as? [String: Any], value["downloadURL"] != nil else { continue }
                value["downloadURL"] = nil
                field["value"] = value
                fields[name] = field
            }
            record["fields"] = fields
        }
        return NSDictionary(dictionary: record)
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var mapped: [T] = []
        for element in self { mapped.append(try await transform(element)) }
        return mapped
    }
}
