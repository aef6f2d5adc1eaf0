import Crypto
import Foundation
import StratusStoreTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `stratus import cloudkit` against another Stratus server as the CloudKit source (it speaks the same
/// protocol), behind a proxy that throttles as a busy CloudKit does.
@Suite(.serialized) struct CloudKitImportEndToEndTests {
    static let container = "iCloud.com.example.Import"
    /// As `cktool export-schema` writes a schema.
    static let schema = """
        DEFINE SCHEMA

            RECORD TYPE Note (
                "___createTime" TIMESTAMP SORTABLE,
                "___recordID"   REFERENCE QUERYABLE,
                title           STRING QUERYABLE,
                rank            INT64 SORTABLE,
                weight          DOUBLE,
                labels          LIST<STRING>,
                attachment      ASSET,
                author          REFERENCE,
                tag             REFERENCE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

            RECORD TYPE Tag (
                "___recordID"   REFERENCE QUERYABLE,
                name            STRING,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

            RECORD TYPE Users (
                "___recordID"   REFERENCE QUERYABLE,
                nickname        STRING,
                GRANT WRITE TO "_creator",
                GRANT READ TO "_world"
            );
        """

    /// A user signed in on the source.
    /// Fills the source: two users (their `Users` records, one with a nickname; the server-to-server key adds a
    /// third, its developer's), two tags, twenty notes by both
    /// users, three of them with files, each note pointing at its author and at a tag.
    static func populate(_ source: ServerProcess) async throws -> (files: [String: Data], ann: String) {
        let apiToken = try await source.createContainer(container)
        try await source.admin.importSchema(schema, container: container)
        let ann = try await SignedInUser.signUp("ann@example.com", container: container, apiToken: apiToken, on: source)
        let bob = try await SignedInUser.signUp("bob@example.com", container: container, apiToken: apiToken, on: source)
        try await ann.post("records/modify", json: ["operations": [[
            "operationType": "forceUpdate", "record": ["recordName": ann.userRecordName, "recordType": "Users", "fields": ["nickname": ["value": "annie"]]],
        ]]])
        try await ann.create([
            ["recordName": "t1", "recordType": "Tag", "fields": ["name": ["value": "work"]]],
            ["recordName": "t2", "recordType": "Tag", "fields": ["name": ["value": "home"]]],
        ])
        var files: [String: Data] = [:]
        for (index, user) in [ann, bob].enumerated() {
            var notes: [[String: Any]] = []
            for number in 0..<10 {
                let name = "n\(index)-\(number)"
                var fields: [String: Any] = [
                    "title": ["value": "note \(number) of \(user.userRecordName.prefix(6))"], "rank": ["value": number * 10 + index],
                    "weight": ["value": Double(number) + (number % 2 == 0 ? 0.5 : 0)], "labels": ["value": ["a", "b\(number)"]],
                    "author": ["value": ["recordName": user.userRecordName, "action": "NONE"]],
                    // Notes come before tags in the import: a VALIDATE reference to a tag not copied yet is kept.
                    "tag": ["value": ["recordName": index == 0 ? "t1" : "t2", "action": index == 0 ? "VALIDATE" : "DELETE_SELF"]],
                ]
                if number < 3 && index == 0 || number == 9 {
                    let file = Data((0..<(5000 + number * 7919)).map { UInt8(truncatingIfNeeded: $0 * 31 + number) })
                    files[name] = file
                    fields["attachment"] = ["value": try await user.uploadAttachment(file)]
                }
                notes.append(["recordName": name, "recordType": "Note", "fields": fields])
            }
            try await user.create(notes)
        }
        return (files, ann.userRecordName)
    }

    /// Records by name, as an operator reads them (the admin key) with `records/lookup`.
    static func lookup(_ names: [String], on server: ServerProcess) async throws -> [String: [String: Any]] {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["records": names.map { ["recordName": $0] }]), as: UTF8.self)
        let (status, json) = try await server.send(
            "POST", "/database/1/\(container)/development/public/records/lookup", body: body, headers: ["Authorization": "Bearer \(ServerProcess.adminKey)"]
        )
        guard status == 200 else { throw E2EFailure("lookup answered \(status): \(json)") }
        var records: [String: [String: Any]] = [:]
        for record in json["records"] as? [[String: Any]] ?? [] {
            if let name = record["recordName"] as? String { records[name] = record }
        }
        return records
    }

    /// A key made as CloudKit's documentation says (`openssl ecparam`), registered on the source; answers its ID
    /// and private key file.
    static func serverKey(on source: ServerProcess, folder: String) async throws -> (id: String, file: String) {
        let privateKey = folder + "/eckey.pem", publicKey = folder + "/public.pem"
        for arguments in [["ecparam", "-name", "prime256v1", "-genkey", "-out", privateKey], ["ec", "-in", privateKey, "-pubout", "-out", publicKey]] {
            let (status, output) = try await ChildProcess.run("openssl", arguments)
            try #require(status == 0, "openssl is needed to make a key: \(output)")
        }
        let id = try await source.admin.createKey(publicKeyPEM: try String(contentsOfFile: publicKey, encoding: .utf8), container: container)
        return (id, privateKey)
    }

    @Test("a container is copied with its names, stamps, files and references, resumes after a SIGKILL, waits out THROTTLED, and verifies")
    func importsAndResumes() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = ServerProcess(dataFolder: folder + "/source", arguments: ["--quiet"])
        let target = ServerProcess(dataFolder: folder + "/target", arguments: ["--quiet"])
        try await source.start()
        defer { source.stop() }
        try await target.start()
        defer { target.stop() }
        let (files, ann) = try await Self.populate(source)
        let key = try await Self.serverKey(on: source, folder: folder)
        try Self.schema.write(toFile: folder + "/schema.ckdb", atomically: true, encoding: .utf8)
        let proxy = try ThrottlingProxy(upstreamPort: source.port, throttleEvery: 4, delay: .milliseconds(120))
        defer { proxy.stop() }

        let state = folder + "/import-state.json"
        let arguments = [
            "import", "cloudkit", "--container", Self.container, "--environment", "development", "--key-id", key.id, "--key-file", key.file,
            "--schema", folder + "/schema.ckdb", "--source-url", proxy.baseURL, "--url", target.baseURL, "--admin-key", ServerProcess.adminKey,
            "--state", state, "--page-size", "3",
        ]
        // The first run is killed once its first page of notes is copied: the proxy holds the pages after it.
        proxy.holdLaterPages()
        let first = try ChildProcess(ServerProcess.executable.path, arguments, output: .pipe, errors: .output)
        let deadline = Date().addingTimeInterval(120)
        var copiedBeforeKill = 0
        while Date() < deadline, first.isRunning {
            if let data = FileManager.default.contents(atPath: state),
                let types = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["types"] as? [String: Any],
                let count = ((types["Note"] as? [String: Any])?["digest"] as? [String: Any])?["count"] as? Int, count >= 3
            {
                copiedBeforeKill = count
                break
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        first.killNow()
        proxy.release()
        let firstOutput = await first.outputToExit().output
        #expect(copiedBeforeKill == 3, "the first run was not stopped after its first page: \(firstOutput)")

        let (status, output) = try await EndToEndTests.run(arguments)
        #expect(status == 0, "\(output)")
        #expect(output.contains("resuming from \(state): \(copiedBeforeKill) records copied before"), "\(output)")
        #expect(output.contains("Note: 20/20"), "progress per type: \(output)")
        #expect(output.contains("records/s") && output.contains("left"), "rate and time left: \(output)")
        #expect((firstOutput + output).contains("THROTTLED; waiting 1.0 s"), "\(firstOutput)\n\(output)")
        #expect(proxy.throttled > 0)
        for line in ["Note: 20 / 20 records", "Tag: 2 / 2 records", "Users: 3 / 3 records"] {
            #expect(output.contains(line) && output.components(separatedBy: "\n").contains { $0.contains(line) && $0.hasSuffix(" ok") }, "\(line): \(output)")
        }
        #expect(output.contains("imported and verified 25 records of 3 types"), "\(output)")

        // Every record answers the same on both servers: names, stamps and fields; files byte for byte.
        let names = (0..<2).flatMap { index in (0..<10).map { "n\(index)-\($0)" } } + ["t1", "t2", ann]
        let before = try await Self.lookup(names, on: source)
        let after = try await Self.lookup(names, on: target)
        #expect(after.count == names.count)
        for name in names {
            let original = try #require(before[name]), copy = try #require(after[name], "\(name) was not copied")
            for stamp in ["created", "modified"] {
                let a = original[stamp] as? [String: Any], b = copy[stamp] as? [String: Any]
                #expect(a?["timestamp"] as? Int == b?["timestamp"] as? Int && a?["userRecordName"] as? String == b?["userRecordName"] as? String, "\(name).\(stamp)")
            }
            #expect(original["recordType"] as? String == copy["recordType"] as? String)
            let originalFields = original["fields"] as? [String: Any] ?? [:], copiedFields = copy["fields"] as? [String: Any] ?? [:]
            #expect(Set(originalFields.keys) == Set(copiedFields.keys), "\(name)")
            for (field, value) in originalFields where field != "attachment" {
                #expect(NSDictionary(dictionary: value as? [String: Any] ?? [:]).isEqual(to: copiedFields[field] as? [String: Any] ?? [:]), "\(name).\(field)")
            }
        }
        #expect(((after[ann]?["fields"] as? [String: Any])?["nickname"] as? [String: Any])?["value"] as? String == "annie")
        for (name, file) in files {
            let value = ((after[name]?["fields"] as? [String: Any])?["attachment"] as? [String: Any])?["value"] as? [String: Any]
            let url = try #require(value?["downloadURL"] as? String, "\(name) has no file")
            let (data, _) = try await URLSession.shared.data(from: URL(string: url.replacingOccurrences(of: "${f}", with: "file"))!)
            #expect(data == file, "\(name)'s file")
        }

        // The target's console was told of the import, one entry across both runs.
        let transfers = try await target.admin.send("GET", "/admin/1/\(Self.container)/transfers")
        let listed = try #require(transfers.json["transfers"] as? [[String: Any]])
        #expect(listed.count == 1, "\(listed)")
        #expect(listed.first?["state"] as? String == "finished" && listed.first?["recordsDone"] as? Int == 25 && listed.first?["recordsTotal"] as? Int == 25)
        #expect(listed.first?["message"] as? String == "verified 25 records of 3 types")
        #expect((listed.first?["peer"] as? String)?.contains(proxy.baseURL) == true)

        // Run again over a finished state: nothing is copied twice, and it verifies again.
        let (again, againOutput) = try await EndToEndTests.run(arguments)
        #expect(again == 0 && againOutput.contains("imported and verified 25 records of 3 types"), "\(againOutput)")
        #expect(againOutput.contains("changes copied: Note 0 changed, 0 deleted; Tag 0 changed, 0 deleted; Users 0 changed, 0 deleted"), "\(againOutput)")

        // Apps go on writing to the source: a run after that copies what they changed, and only that.
        let annOnSource = try await SignedInUser.signIn("ann@example.com", container: Self.container, on: source)
        let newFile = Data((0..<7777).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try await annOnSource.post("records/modify", json: ["operations": [
            ["operationType": "forceUpdate", "record": ["recordName": "n0-4", "recordType": "Note", "fields": ["title": ["value": "edited at the source"]]]],
            ["operationType": "create", "record": ["recordName": "n0-new", "recordType": "Note", "fields": [
                "title": ["value": "written during the move"], "attachment": ["value": try await annOnSource.uploadAttachment(newFile)],
            ]]],
            ["operationType": "forceDelete", "record": ["recordName": "n0-1"]],
        ]])
        let (updated, updateOutput) = try await EndToEndTests.run(arguments)
        #expect(updated == 0, "\(updateOutput)")
        #expect(updateOutput.contains("changes copied: Note 2 changed, 1 deleted; Tag 0 changed, 0 deleted; Users 0 changed, 0 deleted"), "\(updateOutput)")
        #expect(updateOutput.contains("Note: 20 / 20 records") && updateOutput.contains("imported and verified 25 records of 3 types"), "\(updateOutput)")
        let changedOnTarget = try await Self.lookup(["n0-4", "n0-new", "n0-1"], on: target)
        #expect(((changedOnTarget["n0-4"]?["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String == "edited at the source")
        #expect(changedOnTarget["n0-1"]?["serverErrorCode"] as? String == "NOT_FOUND", "a record deleted at the source is deleted: \(String(describing: changedOnTarget["n0-1"]))")
        let newValue = ((changedOnTarget["n0-new"]?["fields"] as? [String: Any])?["attachment"] as? [String: Any])?["value"] as? [String: Any]
        let newURL = try #require(newValue?["downloadURL"] as? String, "the new record's file: \(String(describing: changedOnTarget["n0-new"]))")
        let (newData, _) = try await URLSession.shared.data(from: URL(string: newURL.replacingOccurrences(of: "${f}", with: "file"))!)
        #expect(newData == newFile)
        let sourceStamp = (try await Self.lookup(["n0-new"], on: source))["n0-new"]?["modified"] as? [String: Any]
        #expect((changedOnTarget["n0-new"]?["modified"] as? [String: Any])?["timestamp"] as? Int == sourceStamp?["timestamp"] as? Int, "stamps kept")
    }

    @Test("a type without a queryable recordName is named before anything is written, with what to change")
    func unlistableType() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = ServerProcess(dataFolder: folder + "/target", arguments: ["--quiet"])
        try await target.start()
        defer { target.stop() }
        try (Self.schema + "\n    RECORD TYPE Log (message STRING, GRANT READ TO \"_world\");\n").write(toFile: folder + "/schema.ckdb", atomically: true, encoding: .utf8)
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: folder + "/key.pem", atomically: true, encoding: .utf8)
        let (status, output) = try await EndToEndTests.run([
            "import", "cloudkit", "--container", Self.container, "--environment", "production", "--key-id", "k", "--key-file", folder + "/key.pem",
            "--schema", folder + "/schema.ckdb", "--source-url", "http://127.0.0.1:9", "--url", target.baseURL, "--admin-key", ServerProcess.adminKey,
            "--state", folder + "/state.json",
        ])
        #expect(status != 0)
        #expect(output.contains("Log has no such index") && output.contains("\"___recordID\" REFERENCE QUERYABLE"), "\(output)")
        #expect(try await target.admin.containers().isEmpty)
    }
}

/// The calls that fill the import's source.
extension SignedInUser {
    /// Uploads a file for `Note.attachment` and answers the value a record takes.
    func uploadAttachment(_ file: Data) async throws -> [String: Any] {
        let reply = try await post("assets/upload", json: ["tokens": [["recordType": "Note", "fieldName": "attachment"]]])
        guard let url = (reply["tokens"] as? [[String: Any]])?.first?["url"] as? String else { throw E2EFailure("no upload URL: \(reply)") }
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = file
        let (data, _) = try await URLSession.shared.data(for: request)
        guard let single = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["singleFile"] as? [String: Any] else {
            throw E2EFailure("upload failed: \(String(decoding: data, as: UTF8.self))")
        }
        return single
    }

    /// Creates these records in the public database.
    func create(_ records: [[String: Any]]) async throws {
        try await post("records/modify", json: ["operations": records.map { ["operationType": "create", "record": $0] }])
    }
}
