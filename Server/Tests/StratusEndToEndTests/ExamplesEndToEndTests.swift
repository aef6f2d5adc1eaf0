import Foundation
import Testing

/// The examples, run as the README says: against a `stratus serve` process, set up with its admin key.
@Suite(.serialized) struct ExamplesEndToEndTests {
    /// Runs an example against the server, as the README says, and answers its exit status and output.
    static func run(_ name: String, _ arguments: [String] = [], server: ServerProcess) async throws -> (status: Int32, output: String) {
        try await EndToEndTests.run(
            arguments, executable: name, environment: ["STRATUS_URL": server.baseURL, "STRATUS_ADMIN_KEY": ServerProcess.adminKey]
        )
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
