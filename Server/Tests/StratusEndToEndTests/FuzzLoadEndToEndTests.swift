import Foundation
import StratusStoreTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A `stratus serve` process under a load of mangled requests from 16 clients at once, large JSON bodies among
/// them: it never answers 5xx and its memory stays under 200 MB.
@Suite(.serialized) struct FuzzLoadEndToEndTests {
    static let container = "iCloud.com.example.Fuzzed"

    @Test("mangled requests and 14 MB bodies from 16 clients at once: no 5xx, and the server stays under 200 MB")
    func memoryUnderFuzz() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let token = try await server.createContainer(Self.container)
        let (_, user) = try await server.send(
            "POST", "/auth/1/\(Self.container)/development/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"f@example.com","password":"long password"}"#
        )
        let webToken = try #require(user["ckWebAuthToken"] as? String).addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let query = "ckAPIToken=\(token)&ckWebAuthToken=\(webToken)"

        // Many small operations are the costliest JSON to decode for their size.
        let operation = #"{"operationType":"create","record":{"recordType":"T","fields":{"f":{"value":"\#(String(repeating: "x", count: 60))"}}}}"#
        let huge = Data((#"{"operations":["# + Array(repeating: operation, count: 95_000).joined(separator: ",") + "]}").utf8)
        var generator = SeededGenerator(seed: 14)
        let mangled: [(String, Data)] = (0..<1_600).map { _ in Self.mangledRequest(query: query, using: &generator) }

        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for client in 0..<16 {
                group.addTask {
                    var statuses: [Int] = []
                    for (path, body) in mangled[(client * 100)..<(client * 100 + 100)] {
                        statuses.append(try await Self.post(server.baseURL + path, body))
                    }
                    statuses.append(try await Self.post(server.baseURL + "/database/1/\(Self.container)/development/public/records/modify?\(query)", huge))
                    return statuses
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        let serverErrors = statuses.filter { $0 >= 500 }
        #expect(serverErrors.isEmpty, "\(serverErrors.count) answers were 5xx")
        let throttled = statuses.filter { $0 == 429 }.count
        #expect(throttled > 0, "large bodies beyond the budget are refused with THROTTLED")
        let peak = ProcessMemory.read(server.identifier).peak
        #expect(peak < 200 * 1024 * 1024, "the server peaked at \(peak / 1_048_576) MB")
        let (health, _) = try await server.send("GET", "/healthz")
        #expect(health == 200)
    }

    @Test("24 uploads of 20 MB at once to S3 storage: those beyond the memory budget are told to retry, and the server stays under 200 MB")
    func concurrentS3Uploads() async throws {
        guard let storage = try await S3TestStorage.make("uploads") else { return }
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet"] + storage.serveArguments)
        try await server.start()
        defer { server.stop() }
        let client = try await AssetEndToEndTests.signUp(on: server)
        var paths: [String] = []
        for _ in 0..<24 { paths.append(try await client.uploadPath()) }
        let file = Data((0..<(20 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for path in paths {
                group.addTask { try await Self.post(server.baseURL + path, file) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 429 }, "\(statuses)")
        #expect(statuses.contains(200) && statuses.contains(429), "\(statuses)")
        let peak = ProcessMemory.read(server.identifier).peak
        #expect(peak < 200 * 1024 * 1024, "the server peaked at \(peak / 1_048_576) MB")
    }

    /// A request an app might send, with its path, body or JSON broken in one of several ways.
    static func mangledRequest(query: String, using generator: inout SeededGenerator) -> (String, Data) {
        let operations = ["records/modify", "records/query", "records/lookup", "zones/modify", "changes/zone", "assets/upload", "subscriptions/modify", "users/discover"]
        let operation = operations[Int(generator.next() % UInt64(operations.count))]
        let database = ["public", "private", "shared", "nowhere"][Int(generator.next() % 4)]
        let environment = ["development", "production", "PRODUCTION", "staging"][Int(generator.next() % 4)]
        let text = String(repeating: "y", count: Int(generator.next() % 3_000))
        var body = Data(#"{"operations":[{"operationType":"create","record":{"recordType":"T\#(generator.next() % 40)","fields":{"f\#(generator.next() % 40)":{"value":"\#(text)"}}}}],"query":{"recordType":"T1","filterBy":[{"comparator":"EQUALS","fieldName":"f1","fieldValue":{"value":"\#(text.prefix(10))"}}]},"records":[{"recordName":"r\#(generator.next() % 100)"}],"zones":[{"zoneID":{"zoneName":"z"}}]}"#.utf8)
        switch generator.next() % 4 {
        case 0: body = body.prefix(Int(generator.next() % UInt64(body.count)))
        case 1: body = Data((0..<Int(generator.next() % 4_000)).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        default: break
        }
        return ("/database/1/\(container)/\(environment)/\(database)/\(operation)?\(query)", body)
    }

    static func post(_ url: String, _ body: Data) async throws -> Int {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.httpBody = body
        request.timeoutInterval = 120
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}

