import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Functions from the command line against a running `stratus serve`: a module built with clang, uploaded, bound,
/// called over HTTP, scheduled, listed and removed.
@Suite struct FunctionsEndToEndTests {
    static let container = "iCloud.com.example.Functions"

    @Test("stratus functions upload, bind, list and remove; stratus jobs set, list and remove")
    func commandLine() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let apiToken = try await server.createContainer(Self.container)
        let wasm = FileManager.default.temporaryDirectory.appendingPathComponent("greet-\(UUID().uuidString).wasm")
        try Data(try WasmModules.example("greet")).write(to: wasm)
        defer { try? FileManager.default.removeItem(at: wasm) }

        func stratus(_ arguments: [String]) async throws -> String {
            let (status, output) = try await CommandLineEndToEndTests.stratus(arguments, server: server)
            #expect(status == 0, "stratus \(arguments.joined(separator: " ")): \(output)")
            return output
        }
        let uploaded = try await stratus(["functions", "upload", Self.container, "greeter", wasm.path])
        #expect(uploaded.contains("exports: call"), "\(uploaded)")
        let bound = try await stratus(["functions", "bind", Self.container, "greet", "--module", "greeter", "--trigger", "callable"])
        #expect(bound.contains("callable → greeter.call"), "\(bound)")
        let (status, answer) = try await server.send(
            "POST", "/functions/1/\(Self.container)/development/greet?ckAPIToken=\(apiToken)", body: #"{"name":"Ada"}"#
        )
        #expect(status == 200 && answer["greeting"] as? String == "Hello, Ada!", "\(answer)")
        let listed = try await stratus(["functions", "list", Self.container])
        #expect(listed.contains("module development/greeter") && listed.contains("function development/greet  callable"), "\(listed)")

        let (refused, refusal) = try await CommandLineEndToEndTests.stratus(
            ["jobs", "set", Self.container, "nightly", "--schedule", "0 3 * * *", "--function", "greet"], server: server
        )
        #expect(refused != 0 && refusal.contains("trigger schedule"), "a callable function is not a job's: \(refusal)")
        _ = try await stratus(["functions", "bind", Self.container, "nightlyGreet", "--module", "greeter", "--trigger", "schedule", "--entry", "call"])
        let scheduled = try await stratus(["jobs", "set", Self.container, "nightly", "--schedule", "0 3 * * *", "--function", "nightlyGreet", "--skip-missed"])
        #expect(scheduled.contains("next run"), "\(scheduled)")
        let jobs = try await stratus(["jobs", "list", Self.container])
        #expect(jobs.contains("development/nightly  0 3 * * *  → function nightlyGreet"), "\(jobs)")
        _ = try await stratus(["jobs", "remove", Self.container, "nightly"])
        _ = try await stratus(["functions", "remove", Self.container, "nightlyGreet"])
        _ = try await stratus(["functions", "remove", Self.container, "greet"])
        _ = try await stratus(["functions", "remove", Self.container, "greeter", "--module"])
        let empty = try await stratus(["functions", "list", Self.container])
        #expect(!empty.contains("greet"), "\(empty)")
    }
}
