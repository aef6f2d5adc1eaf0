import StratusArchive
import Crypto
import Foundation
import StratusModel
import StratusStoreTesting
import StratusTestSupport
import StratusTransfer
import Testing

/// A user downloading their data as a container archive.
@Suite struct AccountExportAPITests {
    @Test("the export holds the user's account without secrets, private zones and records with their files, own public records and subscriptions")
    func export() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let bob = try await client.signUp("bob@example.com", token: token)
            #expect(try await alice.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#).status == 200)
            let photo = AssetTestSupport.png(500, seed: 7)
            let file = try await alice.upload(photo, "private", recordType: "Note", field: "photo", zone: "Notes")
            let note = try await alice.create("n1", type: "Note", fields: #"{"text":{"value":"mine"},"photo":{"value":\#(file)}}"#, "private", zone: "Notes")
            #expect(note["recordChangeTag"] != nil, "\(note)")
            try await alice.create("post1", type: "Post", fields: #"{"text":{"value":"hello"}}"#)
            try await bob.create("post2", type: "Post", fields: #"{"text":{"value":"not hers"}}"#)
            let subscribed = try await alice.post("private", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"notes","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}}]}"#)
            #expect(subscribed.status == 200, "\(subscribed.json)")

            let path = "/auth/1/\(TestServer.container)/development/account/export?\(alice.query)"
            let (reply, bytes) = try await client.sendBytes(.get, path)
            #expect(reply.status == 200 && reply.headers[.contentType] == "application/x-tar", "\(reply.status)")
            let folder = try TestFolder("stratus-export")
            defer { folder.remove() }
            try Data(bytes).write(to: URL(fileURLWithPath: folder.path + "/export.tar"))
            try ArchiveFiles.unpack(folder.path + "/export.tar", into: folder.path + "/archive")
            let archive = folder.path + "/archive/"

            let manifest = try JSONDecoder().decode(ArchiveManifest.self, from: Data(contentsOf: URL(fileURLWithPath: archive + "manifest.json")))
            #expect(manifest.format == "stratus-archive" && manifest.container == TestServer.container && !manifest.includesSecrets)
            #expect(manifest.accounts == 1 && manifest.zones == 1 && manifest.records == 3 && manifest.subscriptions == 1 && manifest.files == 1, "\(manifest)")
            let accounts = try String(contentsOfFile: archive + "accounts.jsonl", encoding: .utf8)
            #expect(accounts.contains("alice@example.com") && !accounts.contains("bob@example.com") && !accounts.contains("passwordHash"))
            let records = try String(contentsOfFile: archive + "records.jsonl", encoding: .utf8)
            // Her note, her post, and her Users record; not Bob's post.
            #expect(records.contains("\"n1\"") && records.contains("\"post1\"") && records.contains("\"\(alice.userRecordName)\"") && !records.contains("post2"))
            let name = SHA256.hash(data: photo).map { String(format: "%02x", $0) }.joined()
            #expect(try Data(contentsOf: URL(fileURLWithPath: archive + "files/" + name)) == Data(photo))
            #expect(records.contains(name))
            #expect(FileManager.default.fileExists(atPath: archive + "schema/development.ckdb"))

            let anonymous = try await client.send(.get, "/auth/1/\(TestServer.container)/development/account/export?ckAPIToken=\(token)")
            #expect(anonymous.status == 421 || anonymous.status == 401, "\(anonymous.json)")
        }
    }
}
