import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// `stratus migrate` between a data folder's SQLite and PostgreSQL, with real servers before and after.
@Suite(.serialized) struct MigrateEndToEndTests {
    // The asset helpers of AssetEndToEndTests work in their container.
    static let container = AssetEndToEndTests.container

    /// A signed-in user's requests to one server.
    static func migrate(from source: String, to target: String) async throws -> (Int32, String) {
        try await EndToEndTests.run(["migrate", "--from", source, "--to", target, "--verbose"])
    }

    @Test("a data folder copied to PostgreSQL and back serves on: sign-ins, records, assets, and sync tokens from before the copy")
    func roundTrip() async throws {
        guard let database = try await PostgreSQLServer.databaseForTest() else { return }
        let folder = EndToEndTests.temporaryFolder()
        let copyFolder = EndToEndTests.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: copyFolder)
        }

        // On SQLite: a user, a zone with records (one deleted), an asset, and a sync token.
        let sqlite = ServerProcess(dataFolder: folder, arguments: ["--quiet"], backend: .sqlite)
        try await sqlite.start()
        let apiToken = try await sqlite.createContainer(Self.container)
        var user = try await SignedInUser.signUp("moving@example.com", container: Self.container, apiToken: apiToken, on: sqlite)
        _ = try await user.post("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
        try await user.saveNotes(["a", "b", "c"])
        let beforeDeletion = try await user.noteChanges(since: nil)
        _ = try await user.post("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"forceDelete","record":{"recordName":"c"}}]}"#)
        // From no token a feed holds live records only; the deletion comes to a token from before it.
        let beforeCopy = try await user.noteChanges(since: nil)
        #expect(beforeCopy.names == ["a", "b"])
        #expect(try await user.noteChanges(since: beforeDeletion.token).names == ["c"])
        let file = GeneratedFile(size: 64 * 1024)
        let uploaded = try AssetEndToEndTests.singleFile(of: try StreamingHTTP(port: sqlite.port).send("POST", try await user.uploadPath(), length: file.size, chunks: file))
        _ = try await user.attach(uploaded, to: "picture")
        sqlite.stop()

        // To PostgreSQL, verified; then a server on it, with the same data folder for the asset files.
        let (copied, copyOutput) = try await Self.migrate(from: folder, to: database.url)
        #expect(copied == 0, "\(copyOutput)")
        #expect(copyOutput.contains("counts and checksums match"), "\(copyOutput)")
        let postgres = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--database", database.url], backend: .sqlite)
        try await postgres.start()
        user.server = postgres
        try await user.saveNotes(["d"])
        let onPostgres = try await user.noteChanges(since: beforeCopy.token)
        #expect(onPostgres.names == ["d"], "the token from SQLite goes on where it stopped")
        let download = try await user.post(
            "records/lookup", #"{"records":[{"recordName":"picture"}]}"#
        )
        let fields = (download["records"] as? [[String: Any]])?.first?["fields"] as? [String: Any]
        let url = try #require(((fields?["image"] as? [String: Any])?["value"] as? [String: Any])?["downloadURL"] as? String, "\(download)")
        let fetched = try StreamingHTTP(port: postgres.port).get(try #require(URLComponents(string: url)?.percentEncodedPath))
        #expect(fetched.status == 200)
        #expect(fetched.bodyChecksum == file.checksum)
        let (busy, busyRefusal) = try await Self.migrate(from: folder, to: copyFolder)
        #expect(busy != 0)
        #expect(busyRefusal.contains("a server runs on"), "\(busyRefusal)")
        postgres.stop()
        let (refused, refusal) = try await Self.migrate(from: folder, to: database.url)
        #expect(refused != 0)
        #expect(refusal.contains("already holds data"), "\(refusal)")

        // And back to a new data folder: every token still goes on.
        let (back, backOutput) = try await Self.migrate(from: database.url, to: copyFolder)
        #expect(back == 0, "\(backOutput)")
        #expect(backOutput.contains("counts and checksums match"), "\(backOutput)")
        let copy = ServerProcess(dataFolder: copyFolder, arguments: ["--quiet"], backend: .sqlite)
        try await copy.start()
        defer { copy.stop() }
        user.server = copy
        #expect(try await user.noteChanges(since: beforeCopy.token).names == ["d"])
        #expect(try await user.noteChanges(since: onPostgres.token).names == [])
        try await user.saveNotes(["e"])
        #expect(try await user.noteChanges(since: onPostgres.token).names == ["e"])
        #expect(try await user.noteChanges(since: nil).names == ["a", "b", "d", "e"])
        #expect(try await user.noteChanges(since: beforeDeletion.token).names == ["c", "d", "e"], "the deletion was copied both ways")
        await database.remove()
    }
}

/// The note calls of the migration tests, in the private zone Notes.
extension SignedInUser {
    /// Creates notes with these names.
    func saveNotes(_ names: [String]) async throws {
        let operations = names.map { #"{"operationType":"create","record":{"recordType":"Note","recordName":"\#($0)","fields":{"title":{"value":"\#($0)"}}}}"# }
        _ = try await post("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[\#(operations.joined(separator: ","))]}"#)
    }

    /// The names of records changed in Notes since `token`, and the next token.
    func noteChanges(since token: String?) async throws -> (names: [String], token: String) {
        let since = token.map { #","syncToken":"\#($0)""# } ?? ""
        let reply = try await post("private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Notes"}\#(since)}]}"#)
        guard let zone = (reply["zones"] as? [[String: Any]])?.first, let next = zone["syncToken"] as? String else {
            throw E2EFailure("no zone changes in \(reply)")
        }
        let names = (zone["records"] as? [[String: Any]] ?? []).compactMap { $0["recordName"] as? String }
        return (names.sorted(), next)
    }
}
