import Foundation
import StratusStoreTesting
import Testing

/// Scheduled backups of a data folder to an S3 bucket (SeaweedFS), made by `stratus serve` itself, kept to their
/// number, listed by the admin API, and restored straight from the bucket, checked record by record.
@Suite struct ScheduledBackupEndToEndTests {
    /// The `--backup-*` arguments for a fresh prefix of the test bucket, and the S3 options of `stratus restore`.
    static func bucketArguments(_ name: String) async throws -> (serve: [String], restore: [String], prefix: String)? {
        guard let storage = try await S3TestStorage.make(name) else { return nil }
        let s3 = storage.configuration
        return (
            ["--backup-bucket", s3.bucket, "--backup-prefix", s3.keyPrefix, "--backup-s3-endpoint", s3.endpoint,
             "--backup-s3-access-key", s3.accessKey, "--backup-s3-secret-key", s3.secretKey],
            ["--s3-endpoint", s3.endpoint, "--s3-access-key", s3.accessKey, "--s3-secret-key", s3.secretKey],
            s3.keyPrefix
        )
    }

    /// Asks for a backup and waits for it to end; answers the listing after it.
    static func backUp(_ server: ServerProcess) async throws -> [String: Any] {
        let before = (try await server.admin.send("GET", "/admin/1/backups").json["latestRun"] as? [String: Any])?["startedAt"] as? Int
        let started = try await server.admin.send("POST", "/admin/1/backups")
        guard started.status == 202 else { throw E2EFailure("POST /admin/1/backups answered \(started.status): \(started.json)") }
        var listing: [String: Any] = [:]
        try await Polling.until("the backup ends", within: 180, every: .milliseconds(100)) {
            listing = try await server.admin.send("GET", "/admin/1/backups").json
            let run = listing["latestRun"] as? [String: Any]
            return run?["startedAt"] as? Int != before && (run?["state"] as? String).map { $0 != "running" } == true
        } describe: {
            "\(listing)"
        }
        guard (listing["latestRun"] as? [String: Any])?["state"] as? String == "finished" else { throw E2EFailure("the backup failed: \(listing)") }
        return listing
    }

    @Test("the server backs its folder up to a bucket, keeps the newest, lists them; a restore from the bucket answers record by record")
    func backupAndRestoreFromBucket() async throws {
        guard let bucket = try await Self.bucketArguments("backups") else { return }
        let folder = EndToEndTests.temporaryFolder()
        let restoredFolder = EndToEndTests.temporaryFolder()
        defer { for path in [folder, restoredFolder] { try? FileManager.default.removeItem(atPath: path) } }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--backup-interval", "3600", "--backup-keep", "2"] + bucket.serve, backend: .sqlite)
        try await server.start()
        var serverRunning = true
        defer { if serverRunning { server.stop() } }

        let empty = try await server.admin.send("GET", "/admin/1/backups").json
        #expect(empty["configured"] as? Bool == true && (empty["backups"] as? [Any])?.isEmpty == true, "\(empty)")
        let schedule = empty["schedule"] as? [String: Any]
        #expect(schedule?["intervalSeconds"] as? Int == 3600 && schedule?["keep"] as? Int == 2, "\(empty)")
        #expect(schedule?["destination"] as? String == "s3://stratus-tests/\(bucket.prefix)", "\(empty)")

        // Records of every kind of field, three of them with files kept in the data folder.
        let client = try await AssetEndToEndTests.signUp(on: server)
        var files: [String: GeneratedFile] = [:]
        for index in 0..<3 {
            let file = GeneratedFile(size: 50_000 + index * 1_000)
            files["photo-\(index)"] = file
            _ = try await client.attach(try await client.upload(file, through: StreamingHTTP(port: server.port)), to: "photo-\(index)")
        }
        var names = Array(files.keys)
        for start in stride(from: 0, to: 60, by: 20) {
            let operations = (start..<start + 20).map { index in
                #"{"operationType":"create","record":{"recordName":"n\#(index)","recordType":"Message","fields":{"title":{"value":"note \#(index)"},"rank":{"value":\#(index)},"at":{"value":\#(1_700_000_000_000 + index),"type":"TIMESTAMP"}}}}"#
            }
            _ = try await client.post("records/modify", #"{"operations":[\#(operations.joined(separator: ","))]}"#)
            names += (start..<start + 20).map { "n\($0)" }
        }

        // Three backups: the bucket keeps the newest two, listed newest first.
        var listing: [String: Any] = [:]
        for _ in 0..<3 { listing = try await Self.backUp(server) }
        let backups = listing["backups"] as? [[String: Any]] ?? []
        #expect(backups.count == 2, "the bucket keeps --backup-keep backups: \(listing)")
        let newest = try #require(backups.first)
        #expect((newest["bytes"] as? Int ?? 0) > 150_000, "the files are in it: \(newest)")
        let run = listing["latestRun"] as? [String: Any]
        #expect(run?["name"] as? String == newest["name"] as? String && run?["records"] as? Int ?? 0 >= 63, "\(listing)")
        #expect((backups.map { $0["name"] as? String ?? "" }) == (backups.map { $0["name"] as? String ?? "" }).sorted(by: >))

        // What is written after the newest backup is what a restore loses.
        _ = try await client.post("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"after-backup","recordType":"Message"}}]}"#)
        let original = try await Self.lookup(names + ["after-backup"], as: client)
        server.stop()
        serverRunning = false

        let (restoredStatus, restoredOutput) = try await EndToEndTests.run(
            ["restore", "s3://stratus-tests/\(bucket.prefix)latest", "--data", restoredFolder] + bucket.restore
        )
        #expect(restoredStatus == 0, "\(restoredOutput)")
        #expect(restoredOutput.contains("Downloaded \(newest["name"] as? String ?? "?") from the bucket"), "\(restoredOutput)")
        let restoredServer = ServerProcess(dataFolder: restoredFolder, arguments: ["--quiet"], backend: .sqlite)
        try await restoredServer.start()
        defer { restoredServer.stop() }
        let restored = try await Self.lookup(names + ["after-backup"], as: client.on(restoredServer))
        for name in names {
            let before = try #require(original[name]), after = try #require(restored[name], "\(name) is not in the restore")
            for key in ["recordType", "recordChangeTag"] {
                #expect(before[key] as? String == after[key] as? String, "\(name).\(key)")
            }
            for stamp in ["created", "modified"] {
                #expect(NSDictionary(dictionary: before[stamp] as? [String: Any] ?? [:]).isEqual(to: after[stamp] as? [String: Any] ?? [:]), "\(name).\(stamp)")
            }
            let beforeFields = (before["fields"] as? [String: Any] ?? [:]).filter { $0.key != "image" }
            let afterFields = (after["fields"] as? [String: Any] ?? [:]).filter { $0.key != "image" }
            #expect(NSDictionary(dictionary: beforeFields).isEqual(to: afterFields), "\(name): \(beforeFields) / \(afterFields)")
        }
        #expect(restored["after-backup"]?["serverErrorCode"] as? String == "NOT_FOUND", "a write after the backup is not in it")
        // Each file, byte for byte, from the restored server.
        let http = StreamingHTTP(port: restoredServer.port)
        for (name, file) in files {
            let value = ((restored[name]?["fields"] as? [String: Any])?["image"] as? [String: Any])?["value"] as? [String: Any]
            let url = try #require(value?["downloadURL"] as? String, "\(name) has no file: \(String(describing: restored[name]))")
            #expect(try http.get(try #require(URLComponents(string: url)?.percentEncodedPath)).bodyChecksum == file.checksum, "\(name)'s file")
        }
    }

    @Test("a bucket that cannot be reached fails the backup, says why, and the server serves on")
    func unreachableBucket() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A port nothing listens on: reserved, then closed.
        // Held (bound, never listening) for the whole test: nothing else is given the port, so nothing answers there.
        let unanswered = try Loopback.reservePort()
        defer { unanswered.release() }
        let port = unanswered.port
        let server = ServerProcess(dataFolder: folder, arguments: [
            "--quiet", "--backup-bucket", "nowhere", "--backup-s3-endpoint", "http://127.0.0.1:\(port)", "--backup-s3-access-key", "a", "--backup-s3-secret-key", "b",
        ], backend: .sqlite)
        try await server.start()
        defer { server.stop() }
        let started = try await server.admin.send("POST", "/admin/1/backups")
        #expect(started.status == 202 && started.json["state"] as? String == "running", "\(started.json)")
        let again = try await server.admin.send("POST", "/admin/1/backups")
        #expect(again.status == 409 && again.json["serverErrorCode"] as? String == "EXISTS", "one at a time: \(again.json)")
        var run: [String: Any]?
        try await Polling.until("the backup fails", within: 120, every: .milliseconds(100)) {
            run = try await server.admin.send("GET", "/admin/1/backups").json["latestRun"] as? [String: Any]
            return run?["state"] as? String == "failed"
        } describe: {
            "\(String(describing: run))"
        }
        #expect(run?["state"] as? String == "failed" && (run?["message"] as? String)?.contains("object store") == true, "\(String(describing: run))")
        let listing = try await server.admin.send("GET", "/admin/1/backups")
        #expect(listing.status == 200 && (listing.json["bucketError"] as? String)?.contains("did not answer") == true, "\(listing.json)")
        #expect(listing.json["schedule"] != nil && listing.json["backups"] == nil, "\(listing.json)")
        #expect(try await server.send("GET", "/healthz").0 == 200)
        let (status, _) = try await server.send("POST", "/admin/1/containers", body: #"{"containerID":"iCloud.com.example.StillServing"}"#, headers: ["Authorization": "Bearer \(ServerProcess.adminKey)"])
        #expect(status == 201)
    }

    /// Records by name, as `user` reads them from the public database.
    static func lookup(_ names: [String], as user: SignedInUser) async throws -> [String: [String: Any]] {
        let answer = try await user.post("records/lookup", #"{"records":[\#(names.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ","))]}"#)
        var records: [String: [String: Any]] = [:]
        for record in answer["records"] as? [[String: Any]] ?? [] {
            if let name = record["recordName"] as? String { records[name] = record }
        }
        return records
    }
}
