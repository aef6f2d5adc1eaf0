import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Quotas from the command line against a running `stratus serve`, which measures storage by itself.
@Suite struct QuotasEndToEndTests {
    static let container = "iCloud.com.example.Quotas"

    @Test("stratus quotas set, show and usage; the server measures storage by itself and refuses saves past a user's quota")
    func commandLine() async throws {
        let folder = EndToEndTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder, arguments: ["--quiet", "--usage-interval", "1"])
        try await server.start()
        defer { server.stop() }
        let apiToken = try await server.createContainer(Self.container)

        func stratus(_ arguments: [String]) async throws -> String {
            let (status, output) = try await CommandLineEndToEndTests.stratus(arguments, server: server)
            #expect(status == 0, "stratus \(arguments.joined(separator: " ")): \(output)")
            return output
        }
        let defaults = try await stratus(["quotas", "set", "--address-rate", "100000"])
        #expect(defaults.contains("requests per address per minute: 100000"), "\(defaults)")
        let set = try await stratus(["quotas", "set", "--container", Self.container, "--user-storage", "2KB", "--user-rate", "600"])
        #expect(set.contains("user storage: 2 KB") && set.contains("requests per user per minute: 600"), "\(set)")
        let shown = try await stratus(["quotas", "show"])
        #expect(shown.contains("\(Self.container):") && shown.contains("user storage: 2 KB") && shown.contains("public storage: default"), "\(shown)")
        let (badStatus, bad) = try await CommandLineEndToEndTests.stratus(["quotas", "set", "--user-storage", "lots"], server: server)
        #expect(badStatus != 0 && bad.contains("not a size"), "\(bad)")

        let ann = try await SignedInUser.signUp("ann@example.com", container: Self.container, apiToken: apiToken, on: server)
        let text = String(repeating: "q", count: 1500)
        let save = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"text":{"value":"\#(text)"}}}}]}"#
        let (firstStatus, first) = try await ann.send("private", "records/modify", save)
        #expect(firstStatus == 200, "\(first)")

        // The server measures every second: wait until the usage shows the record.
        var usage = ""
        // The user is listed from the start (an empty database reads 0): wait for the measurement of the record.
        try await Polling.until("the usage shows the record", within: 60, every: .milliseconds(250)) {
            usage = try await stratus(["quotas", "usage", Self.container])
            let line = usage.split(separator: "\n").first { $0.contains("development/private \(ann.userRecordName)") } ?? ""
            return line.contains("(1 records")
        } describe: {
            usage
        }
        #expect(usage.contains("development/private \(ann.userRecordName)") && usage.contains("of 2 KB  (1 records"), "\(usage)")
        let (refusedStatus, refused) = try await ann.send("private", "records/modify", save)
        #expect(refusedStatus == 413 && refused["serverErrorCode"] as? String == "QUOTA_EXCEEDED", "\(refused)")

        _ = try await stratus(["quotas", "set", "--container", Self.container, "--user-storage", "default"])
        let (liftedStatus, lifted) = try await ann.send("private", "records/modify", save)
        #expect(liftedStatus == 200, "the container's own quota removed, the defaults set none: \(lifted)")
    }
}
