import Crypto
import Foundation
import StratusStoreTesting
import StratusTestSupport
import Synchronization
import Testing

/// The admin commands against a running server, as an operator uses them beside it: they go through its
/// admin API, so every change takes effect at once and nothing the server keeps is written over.
@Suite(.serialized) struct CommandLineEndToEndTests {
    static let container = "iCloud.com.example.Operated"

    /// Runs `stratus` with the data folder of a running server and its admin key in the environment.
    static func stratus(_ arguments: [String], server: ServerProcess, input: String? = nil) async throws -> (Int32, String) {
        if let input {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-cli-\(UUID().uuidString).ckdb")
            try Data(input.utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            return try await EndToEndTests.run(arguments.map { $0 == "@input" ? file.path : $0 } + ["--data", server.dataFolder], environment: ["STRATUS_ADMIN_KEY": ServerProcess.adminKey])
        }
        return try await EndToEndTests.run(arguments + ["--data", server.dataFolder], environment: ["STRATUS_ADMIN_KEY": ServerProcess.adminKey])
    }

    @Test("with the data folder of a running server, key revocation and schema imports take effect at once")
    func throughTheServer() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }

        let (created, output) = try await Self.stratus(["container", "create", Self.container], server: server)
        #expect(created == 0, "\(output)")
        let token = try #require((try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])?["apiToken"])

        // A key made and revoked with the command line, while the server has it in memory.
        let privateKey = P256.Signing.PrivateKey()
        let pemFile = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-key-\(UUID().uuidString).pem")
        try Data(privateKey.publicKey.pemRepresentation.utf8).write(to: pemFile)
        defer { try? FileManager.default.removeItem(at: pemFile) }
        let (keyStatus, keyOutput) = try await Self.stratus(["keys", "create", Self.container, pemFile.path], server: server)
        #expect(keyStatus == 0, "\(keyOutput)")
        let keyID = keyOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        func signedQuery() async throws -> Int {
            try await server.sendSigned(
                "/database/1/\(Self.container)/development/public/records/query", body: #"{"query":{"recordType":"Users"}}"#,
                keyID: keyID, privateKey: privateKey
            )
        }
        #expect(try await signedQuery() == 200)
        let (revoked, revokeOutput) = try await Self.stratus(["keys", "revoke", Self.container, keyID], server: server)
        #expect(revoked == 0, "\(revokeOutput)")
        #expect(try await signedQuery() == 401, "the revoked key is refused at once")

        // An imported schema (roles, grants) survives the server's next just-in-time change.
        let schema = """
            DEFINE SCHEMA
                CREATE ROLE Admin;
                RECORD TYPE AppFeatures (name STRING QUERYABLE, GRANT READ TO "_world", GRANT CREATE, WRITE TO Admin);
            """
        let (imported, importOutput) = try await Self.stratus(["schema", "import", Self.container, "@input"], server: server, input: schema)
        #expect(imported == 0, "\(importOutput)")
        let (signedUp, user) = try await server.send(
            "POST", "/auth/1/\(Self.container)/development/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"op@example.com","password":"long password"}"#
        )
        #expect(signedUp == 201)
        let webToken = try #require(user["ckWebAuthToken"] as? String).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (saved, _) = try await server.send(
            "POST", "/database/1/\(Self.container)/development/public/records/modify?ckAPIToken=\(token)&ckWebAuthToken=\(webToken)",
            body: #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"new type"}}}}]}"#
        )
        #expect(saved == 200)
        let (_, exported) = try await Self.stratus(["schema", "export", Self.container], server: server)
        #expect(exported.contains("CREATE ROLE Admin"), "\(exported)")
        #expect(exported.contains("RECORD TYPE Note"))
        #expect(exported.contains("GRANT CREATE, WRITE TO Admin") || exported.contains("GRANT WRITE, CREATE TO Admin"), "\(exported)")

        // Removing a type that records hold is refused, saying how many, unless forced.
        let withoutNote = schema
        let (refused, refusal) = try await Self.stratus(["schema", "import", Self.container, "@input"], server: server, input: withoutNote)
        #expect(refused != 0)
        #expect(refusal.contains("record type Note, which 1 record holds"), "\(refusal)")
        let (forced, forcedOutput) = try await Self.stratus(["schema", "import", Self.container, "@input", "--force"], server: server, input: withoutNote)
        #expect(forced == 0, "\(forcedOutput)")
        #expect(forcedOutput.contains("remove record type Note"))

        // The same through --url, and a wrong key is refused by the server.
        let (listed, list) = try await EndToEndTests.run(["container", "list", "--url", server.baseURL, "--admin-key", ServerProcess.adminKey])
        #expect(listed == 0 && list.contains(Self.container), "\(list)")
        let (wrong, wrongOutput) = try await EndToEndTests.run(["container", "list", "--url", server.baseURL, "--admin-key", "not-the-key"])
        #expect(wrong != 0 && wrongOutput.contains("AUTHENTICATION_FAILED"), "\(wrongOutput)")
    }

    @Test("users are listed, disabled (signed out at once), enabled and deleted from the command line, through the server or on its folder")
    func users() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        let (created, output) = try await Self.stratus(["container", "create", Self.container], server: server)
        #expect(created == 0, "\(output)")
        let token = try #require((try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String])?["apiToken"])
        let signUp = try await server.send(
            "POST", "/auth/1/\(Self.container)/development/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"ada@example.com","password":"correct horse"}"#
        ).1
        let user = try #require(signUp["userRecordName"] as? String)
        let session = try #require(signUp["ckWebAuthToken"] as? String)
        func signedIn() async throws -> Bool {
            let encoded = session.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            return try await server.send("GET", "/database/1/\(Self.container)/development/public/users/caller?ckAPIToken=\(token)&ckWebAuthToken=\(encoded)").0 == 200
        }
        #expect(try await signedIn())

        let (listed, list) = try await Self.stratus(["users", "list", Self.container, "--search", "ada"], server: server)
        #expect(listed == 0 && list.contains(user) && list.contains("ada@example.com") && list.contains("(unverified)"), "\(list)")
        let (disabled, disableOutput) = try await Self.stratus(["users", "disable", Self.container, user], server: server)
        #expect(disabled == 0, "\(disableOutput)")
        #expect(try await !signedIn(), "a disabled user is signed out at once")
        #expect(try await Self.stratus(["users", "list", Self.container], server: server).1.contains("DISABLED"))
        #expect(try await Self.stratus(["users", "enable", Self.container, user], server: server).0 == 0)
        // With no SMTP server, a reset waits in the queue, and the command says so.
        let (reset, resetOutput) = try await Self.stratus(["users", "reset", Self.container, user], server: server)
        #expect(reset == 0 && resetOutput.contains("waits in the mail queue") && !resetOutput.contains("on its way"), "\(resetOutput)")
        // A passkey, then an operator's removal of the second factors (which signs the user out).
        let again = try await server.send(
            "POST", "/auth/1/\(Self.container)/development/signin?ckAPIToken=\(token)", body: #"{"emailAddress":"ada@example.com","password":"correct horse"}"#
        ).1
        let fresh = try #require(again["ckWebAuthToken"] as? String, "\(again)")
        let signedInAda = SignedInUser(
            server: server, container: Self.container,
            query: "ckAPIToken=\(token)&ckWebAuthToken=\(fresh.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)", userRecordName: user,
            webAuthToken: fresh
        )
        try await signedInAda.addPasskey(with: SoftwarePasskeys(origin: server.baseURL), password: "correct horse")
        #expect(try await Self.stratus(["users", "list", Self.container], server: server).1.contains("1 passkey"))
        let (unsure, unsureOutput) = try await Self.stratus(["users", "remove-second-factors", Self.container, user], server: server)
        #expect(unsure != 0 && unsureOutput.contains("--yes"), "\(unsureOutput)")
        let (removed, removedOutput) = try await Self.stratus(["users", "remove-second-factors", Self.container, user, "--yes"], server: server)
        #expect(removed == 0 && removedOutput.contains("removed the second factors"), "\(removedOutput)")
        #expect(try await signedInAda.send("public", "users/caller", "{}").0 == 401, "removing the second factors signs the user out")
        #expect(try await !Self.stratus(["users", "list", Self.container], server: server).1.contains("passkey"))

        let (unconfirmed, refusal) = try await Self.stratus(["users", "delete", Self.container, user], server: server)
        #expect(unconfirmed != 0 && refusal.contains("--yes"), "\(refusal)")

        // On the server's store, with the server stopped (its PostgreSQL database, when it used one).
        server.stop()
        let store = server.backend.serveArguments(server.dataFolder)
        let (deleted, deleteOutput) = try await Self.stratus(["users", "delete", Self.container, user, "--yes"] + store, server: server)
        #expect(deleted == 0, "\(deleteOutput)")
        #expect(try await Self.stratus(["users", "list", Self.container] + store, server: server).1.contains("(no users)"))
    }

    @Test("the generated admin key and fatchat's messages show at once when output is a pipe")
    func unbufferedOutput() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let serve = LiveProcess(ServerProcess.executable, ["serve", "--port", "0", "--data", folder, "--quiet", "--password-rounds", "1000"])
        defer { serve.stop() }
        #expect(await serve.waitFor("listening on", seconds: 30))
        #expect(serve.output.contains("Generated an admin key"), "\(serve.output)")
        let adminKey = try String(contentsOfFile: folder + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(serve.output.contains(adminKey))
        guard let range = serve.output.range(of: "listening on "), let url = serve.output[range.upperBound...].split(separator: " ").first else { return }

        let fatchat = ServerProcess.executable.deletingLastPathComponent().appendingPathComponent("fatchat")
        let environment = ["STRATUS_URL": String(url), "STRATUS_ADMIN_KEY": adminKey]
        let listener = LiveProcess(fatchat, ["bob@example.com", "listen", "lobby"], environment: environment)
        defer { listener.stop() }
        #expect(await listener.waitFor("listening to #lobby", seconds: 60), "\(listener.output)")
        let (said, output) = try await EndToEndTests.run(["ann@example.com", "say", "lobby", "hello, pipe"], executable: "fatchat", environment: environment)
        #expect(said == 0, "\(output)")
        #expect(await listener.waitFor("ann: hello, pipe", seconds: 30), "\(listener.output)")
    }

    @Test("stratus admin-key rotate: the old key is refused at once, the folder's admin.key follows, and a restart keeps the new key")
    func adminKeyRotation() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let arguments = ["serve", "--port", "0", "--data", folder, "--quiet", "--password-rounds", "1000"]
        var serve = LiveProcess(ServerProcess.executable, arguments)
        defer { serve.stop() }
        #expect(await serve.waitFor("listening on", seconds: 60), "\(serve.output)")
        let generated = try String(contentsOfFile: folder + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        let (created, createOutput) = try await EndToEndTests.run(["container", "create", Self.container, "--data", folder])
        #expect(created == 0, "\(createOutput)")

        let (rotated, rotateOutput) = try await EndToEndTests.run(["admin-key", "rotate", "--data", folder])
        #expect(rotated == 0, "\(rotateOutput)")
        let key = try String(contentsOfFile: folder + "/admin.key", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(key != generated && rotateOutput.contains(key), "the folder's admin.key holds the key the command printed: \(rotateOutput)")
        let (listed, listOutput) = try await EndToEndTests.run(["container", "list", "--data", folder])
        #expect(listed == 0 && listOutput.contains(Self.container), "commands that read admin.key keep working: \(listOutput)")
        let (refused, refusedOutput) = try await EndToEndTests.run(["container", "list", "--data", folder], environment: ["STRATUS_ADMIN_KEY": generated])
        #expect(refused != 0 && refusedOutput.contains("not this server's admin key"), "\(refusedOutput)")
        let (shown, showOutput) = try await EndToEndTests.run(["admin-key", "show", "--data", folder])
        #expect(shown == 0 && showOutput.contains("rotated at") && showOutput.contains("by admin key") && !showOutput.contains(key), "\(showOutput)")

        serve.stop()
        #expect(await serve.exited(within: 30))
        serve = LiveProcess(ServerProcess.executable, arguments)
        #expect(await serve.waitFor("listening on", seconds: 60), "\(serve.output)")
        #expect(!serve.output.contains("Generated an admin key"), "\(serve.output)")
        let (again, againOutput) = try await EndToEndTests.run(["container", "list", "--data", folder])
        #expect(again == 0 && againOutput.contains(Self.container), "\(againOutput)")
    }
}

/// A child process whose output is collected while it runs, for tests that wait for a line.
final class LiveProcess: @unchecked Sendable {
    private final class Collected: Sendable {
        let text = Mutex("")
    }

    private let child: ChildProcess?
    private let collected = Collected()

    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) {
        child = try? ChildProcess(executable.path, arguments, environment: environment, output: .pipe)
        child?.output?.readabilityHandler = { [collected] handle in
            let data = handle.availableData
            collected.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
        }
    }

    var output: String { collected.text.withLock { $0 } }

    /// Whether `text` appears in the output within `seconds`.
    func waitFor(_ text: String, seconds: Double) async -> Bool {
        (try? await Polling.until("'\(text)' is written", within: seconds, every: .milliseconds(100)) { output.contains(text) }) != nil
    }

    func stop() {
        child?.terminate()
    }

    /// Whether the process exited within `seconds`.
    func exited(within seconds: Double) async -> Bool {
        guard let child else { return true }
        return (try? await Polling.until("the process exits", within: seconds, every: .milliseconds(50)) { !child.isRunning }) != nil
    }
}
