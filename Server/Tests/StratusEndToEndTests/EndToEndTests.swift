import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite(.serialized) struct EndToEndTests {
    /// A fresh path for a test's data folder, inside ``processFolder``.
    static func temporaryFolder() -> String {
        processFolder + "/\(UUID().uuidString)"
    }

    /// One folder for every data folder of this test process, removed when the process exits, so that a test
    /// that stops half-way (or keeps a folder for a restart) leaves nothing in the temporary directory.
    static let processFolder: String = {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-e2e-\(ProcessInfo.processInfo.processIdentifier)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: EndToEndTests.processFolder) }
        return path
    }()

    @Test("stratus serve answers over loopback, and acknowledged writes survive kill -9")
    func serveAndCrash() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder)
        try await server.start()
        defer { server.stop() }

        let (health, _) = try await server.send("GET", "/healthz")
        #expect(health == 200)
        let apiToken = try await server.createContainer("iCloud.com.example.E2E")
        let (signedUp, user) = try await server.send(
            "POST", "/auth/1/iCloud.com.example.E2E/development/signup?ckAPIToken=\(apiToken)",
            body: #"{"emailAddress":"e2e@example.com","password":"long password"}"#
        )
        #expect(signedUp == 201)
        let webToken = try #require(user["ckWebAuthToken"] as? String).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let database = "/database/1/iCloud.com.example.E2E/development/private"
        let query = "ckAPIToken=\(apiToken)&ckWebAuthToken=\(webToken)"
        let (zoneStatus, _) = try await server.send("POST", "\(database)/zones/modify?\(query)", body: #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
        #expect(zoneStatus == 200)
        for batch in 0..<5 {
            let operations = (0..<20).map { #"{"operationType":"create","record":{"recordName":"n\#(batch * 20 + $0)","recordType":"Note","fields":{"i":{"value":\#(batch * 20 + $0)}}}}"# }
            let (status, _) = try await server.send("POST", "\(database)/records/modify?\(query)", body: #"{"zoneID":{"zoneName":"Notes"},"operations":[\#(operations.joined(separator: ","))]}"#)
            #expect(status == 200)
        }

        server.kill()
        let restarted = ServerProcess(dataFolder: folder)
        try await restarted.start()
        defer { restarted.stop() }
        let (status, changes) = try await restarted.send("POST", "\(database)/changes/zone?\(query)", body: #"{"zones":[{"zoneID":{"zoneName":"Notes"}}]}"#)
        #expect(status == 200)
        let zone = try #require((changes["zones"] as? [[String: Any]])?.first)
        let records = try #require(zone["records"] as? [[String: Any]])
        #expect(records.count == 100)
        #expect(Set(records.compactMap { $0["recordName"] as? String }) == Set((0..<100).map { "n\($0)" }))
    }

    /// Runs `stratus` (or another executable built beside it) with arguments and extra environment variables,
    /// and returns its exit status and everything it printed.
    static func run(
        _ arguments: [String], executable: String = "stratus", environment: [String: String] = [:], directory: String? = nil
    ) async throws -> (Int32, String) {
        let path = ServerProcess.executable.deletingLastPathComponent().appendingPathComponent(executable).path
        return try await ChildProcess.run(path, arguments, environment: environment, directory: directory)
    }

    @Test("stratus container create prints the new container's API token, and refuses a duplicate")
    func containerCommand() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = { (arguments: [String]) in try await Self.run(arguments) }
        let (status, output) = try await run(["container", "create", "iCloud.com.example.CLI", "--data", folder])
        #expect(status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String]
        #expect(json?["containerID"] == "iCloud.com.example.CLI")
        #expect(json?["apiToken"]?.count == 64)
        let (again, message) = try await run(["container", "create", "iCloud.com.example.CLI", "--data", folder])
        #expect(again != 0)
        #expect(message.contains("EXISTS"))
        let (_, list) = try await run(["container", "list", "--data", folder])
        #expect(list.contains("iCloud.com.example.CLI"))
    }

    @Test("an admin command run where no server runs and no data is says that no server was found, and makes no folder")
    func noServerFound() async throws {
        let folder = Self.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for command in [["users", "list", "iCloud.com.example.Nowhere"], ["container", "list"], ["container", "create", "iCloud.com.example.Nowhere"]] {
            let (status, output) = try await Self.run(command, environment: ["STRATUS_DATA": "", "STRATUS_URL": "", "STRATUS_DATABASE": ""], directory: folder)
            #expect(status != 0 && output.contains("no Stratus server found: none runs on ./stratus-data"), "\(command): \(output)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/stratus-data"), "\(command) made a data folder")
        }
    }

    @Test("stratus schema imports a file, shows the diff, deploys after a dry run, and exports production")
    func schemaCommands() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let schemaFile = folder + "/flags.ckdb"
        _ = try await Self.run(["container", "create", "iCloud.com.example.Flags", "--data", folder])
        try """
            DEFINE SCHEMA
                CREATE ROLE Admin;
                RECORD TYPE AppFeatures (name STRING QUERYABLE, GRANT READ TO "_world", GRANT CREATE, WRITE, READ TO Admin);
            """.write(toFile: schemaFile, atomically: true, encoding: .utf8)
        let (imported, importOutput) = try await Self.run(["schema", "import", "iCloud.com.example.Flags", schemaFile, "--data", folder])
        #expect(imported == 0)
        #expect(importOutput.contains("+ add record type AppFeatures"))
        let (_, diff) = try await Self.run(["schema", "diff", "iCloud.com.example.Flags", "--data", folder])
        #expect(diff.contains("+ add role Admin"))
        let (_, dryRun) = try await Self.run(["schema", "deploy", "iCloud.com.example.Flags", "--dry-run", "--data", folder])
        #expect(dryRun.contains("Dry run"))
        let (_, before) = try await Self.run(["schema", "export", "iCloud.com.example.Flags", "--environment", "production", "--data", folder])
        #expect(!before.contains("AppFeatures"))
        let (deployed, deployOutput) = try await Self.run(["schema", "deploy", "iCloud.com.example.Flags", "--data", folder])
        #expect(deployed == 0 && deployOutput.contains("Deployed to production."))
        let (_, after) = try await Self.run(["schema", "export", "iCloud.com.example.Flags", "--environment", "production", "--data", folder])
        #expect(after.contains("RECORD TYPE AppFeatures"))
        try "DEFINE SCHEMA\n  RECORD TYPE X (a STRNG);".write(toFile: schemaFile, atomically: true, encoding: .utf8)
        let (failed, message) = try await Self.run(["schema", "import", "iCloud.com.example.Flags", schemaFile, "--data", folder])
        #expect(failed != 0)
        #expect(message.contains("line 2, column 20"))
    }

    @Test("stratus users roles assigns a defined role to a user and shows it, and refuses an undefined one")
    func usersRolesCommand() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder)
        try await server.start()
        let token = try await server.createContainer("iCloud.com.example.Roles")
        let (_, user) = try await server.send(
            "POST", "/auth/1/iCloud.com.example.Roles/development/signup?ckAPIToken=\(token)",
            body: #"{"emailAddress":"editor@example.com","password":"long password"}"#
        )
        let userRecordName = try #require(user["userRecordName"] as? String)
        server.stop()
        let schemaFile = folder + "/roles.ckdb"
        try "DEFINE SCHEMA CREATE ROLE Editor;".write(toFile: schemaFile, atomically: true, encoding: .utf8)
        // With no server running, the commands open the store themselves: the folder's, or the test backend's database.
        let store = ["--data", folder] + StoreFactory.current.serveArguments(folder)
        _ = try await Self.run(["schema", "import", "iCloud.com.example.Roles", schemaFile] + store)
        let (undefined, refusal) = try await Self.run(["users", "roles", "iCloud.com.example.Roles", userRecordName, "--set", "Admin"] + store)
        #expect(undefined != 0 && refusal.contains("role Admin is not defined"))
        let (assigned, output) = try await Self.run(["users", "roles", "iCloud.com.example.Roles", userRecordName, "--set", "Editor"] + store)
        #expect(assigned == 0 && output.contains("Editor"))
        let (_, shown) = try await Self.run(["users", "roles", "iCloud.com.example.Roles", userRecordName] + store)
        #expect(shown.trimmingCharacters(in: .whitespacesAndNewlines) == "Editor")
    }

    @Test("stratus keys registers a PEM key and prints its ID, lists it, and revokes it")
    func keysCommands() async throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try await Self.run(["container", "create", "iCloud.com.example.Keys", "--data", folder])
        let privateKey = folder + "/eckey.pem"
        let publicKey = folder + "/public.pem"
        for arguments in [["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", privateKey], ["ec", "-in", privateKey, "-pubout", "-out", publicKey]] {
            let openssl = try ChildProcess("openssl", arguments, output: .inherit)
            try #require(openssl.waitForExit() == 0, "openssl is needed to make a key")
        }
        let (created, keyID) = try await Self.run(["keys", "create", "iCloud.com.example.Keys", publicKey, "--role", "Admin", "--data", folder])
        let id = keyID.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(created == 0 && id.count == 64)
        let (_, list) = try await Self.run(["keys", "list", "iCloud.com.example.Keys", "--data", folder])
        #expect(list.contains(id) && list.contains("Admin"))
        let (revoked, _) = try await Self.run(["keys", "revoke", "iCloud.com.example.Keys", id, "--data", folder])
        #expect(revoked == 0)
        let (_, after) = try await Self.run(["keys", "list", "iCloud.com.example.Keys", "--data", folder])
        #expect(!after.contains(id))
        let (failed, message) = try await Self.run(["keys", "create", "iCloud.com.example.Keys", privateKey, "--data", folder])
        #expect(failed != 0 && message.contains("BAD_REQUEST"))
    }
}
