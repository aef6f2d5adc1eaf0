import Foundation
import StratusStoreTesting
import Testing

/// The examples, run as the README says: against a `stratus serve` process, set up with its admin key.
@Suite(.serialized) struct ExamplesEndToEndTests {
    /// Runs an example against the server, as the README says, and answers its exit status and output.
    static func run(_ name: String, _ arguments: [String] = [], server: ServerProcess) async throws -> (status: Int32, output: String) {
        try await EndToEndTests.run(
            arguments, executable: name, environment: ["STRATUS_URL": server.baseURL, "STRATUS_ADMIN_KEY": ServerProcess.adminKey]
        )
    }

    @Test("notes: kept at once, a sync killed with SIGKILL part way, synced again: every note reaches the server once, and another device")
    func notesSurviveAKilledSync() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder + "/server", arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let environment = ["STRATUS_URL": server.baseURL, "STRATUS_ADMIN_KEY": ServerProcess.adminKey]
        let notes = ServerProcess.executable.deletingLastPathComponent().appendingPathComponent("notes").path
        func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
            try await ChildProcess.run(notes, arguments, environment: environment, directory: folder)
        }

        let first = try await run(["ann@example.com", "add", "first"])
        #expect(first.status == 0 && first.output.contains("kept 1 note"), "\(first.output)")
        let titles = (1...300).map { "note \($0)" }
        let many = try await run(["ann@example.com", "add"] + titles)
        #expect(many.output.contains("kept 300 notes"), "\(many.output)")

        // A sync killed as it starts sending, wherever it got to.
        let killed = try ChildProcess(notes, ["ann@example.com", "sync"], environment: environment, directory: folder, output: .pipe, errors: .output)
        let started = try await ChildProcess.offload { () -> String in
            var seen = ""
            while !seen.contains("syncing"), let chunk = killed.output?.availableData, !chunk.isEmpty { seen += String(decoding: chunk, as: UTF8.self) }
            return seen
        }
        kill(killed.identifier, SIGKILL)
        await killed.exit()
        #expect(started.contains("syncing 301 changes"), "\(started)")

        let again = try await run(["ann@example.com", "sync"])
        #expect(again.output.contains("synced: 301 notes, 0 waiting"), "\(again.output)")
        let tablet = try await run(["ann@example.com", "--device", "tablet", "sync"])
        #expect(tablet.output.contains("synced: 301 notes, 0 waiting"), "\(tablet.output)")
        let listed = try await run(["ann@example.com", "--device", "tablet", "list"])
        let lines = listed.output.split(separator: "\n").map(String.init)
        #expect(Set(lines) == Set(["first"] + titles) && lines.count == 301, "\(lines.count) notes: \(lines.prefix(5))")
    }

    @Test("fatchat, messages and flags run against a real server and print what the README shows")
    func examples() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }

        let chat = try await Self.run("fatchat", ["demo"], server: server)
        #expect(chat.status == 0, "\(chat.output)")
        #expect(chat.output.contains("bob was notified at once: \"hello bob, agenda attached\""))
        #expect(chat.output.contains("bob downloaded the attachment: 24 bytes"))
        #expect(chat.output.contains("messages left: 0"))

        let messages = try await Self.run("messages", server: server)
        #expect(messages.status == 0, "\(messages.output)")
        #expect(messages.output.contains("[en-US] What's new: Shared lists are here.  [Read More] [No Thanks]"))
        #expect(messages.output.contains("[es-ES] Novedades: Ya llegaron las listas compartidas.  [Leer más] [No, gracias]"))
        #expect(messages.output.contains("After it was shown: nothing more to show"))

        let flags = try await Self.run("flags", server: server)
        #expect(flags.status == 0, "\(flags.output)")
        let rows = flags.output.split(separator: "\n").filter { $0.hasPrefix("user-") }
        #expect(rows.count == 6)
        #expect(rows.filter { $0.contains("es ") && $0.contains("2.1") }.allSatisfy { $0.split(separator: " ").filter { !$0.isEmpty }[4] == "on" })

        let said = try await Self.run("fatchat", ["ann@example.com", "say", "lobby", "hi there"], server: server)
        #expect(said.output.contains("ann: hi there"), "\(said.output)")
        let read = try await Self.run("fatchat", ["bob@example.com", "read", "lobby"], server: server)
        #expect(read.output.contains("ann: hi there"), "\(read.output)")
    }
}
