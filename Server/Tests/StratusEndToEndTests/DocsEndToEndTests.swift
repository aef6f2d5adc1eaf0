import Foundation
import StratusStoreTesting
import Testing

/// The walkthroughs of the README and `docs/`, run as written with bash, curl, python3 and openssl against a
/// `stratus serve` process: the README's tour, then the signing example and the sharing walkthrough, which
/// continue from the tour's variables.
@Suite(.serialized) struct DocsEndToEndTests {
    /// The `sh` code blocks of a Markdown file, in order.
    static func shellBlocks(_ file: String) throws -> [String] {
        let text = try String(contentsOfFile: Repository.path(file), encoding: .utf8)
        return text.components(separatedBy: "```sh\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
    }

    @Test("the README's tour, the server-to-server signing example, the sharing walkthrough and the first webhook run as written")
    func walkthroughs() async throws {
        let folder = EndToEndTests.temporaryFolder()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // The tour reads the admin key from the data folder, as after a first start.
        let data = folder + "/stratus-data"
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        try Data((ServerProcess.adminKey + "\n").utf8).write(to: URL(fileURLWithPath: data + "/admin.key"))
        // As docs/hooks.md says to, for its receiver on this machine.
        let server = ServerProcess(dataFolder: data, arguments: ["--quiet", "--webhooks-allow-private"])
        try await server.start()
        defer { server.stop() }

        let readme = try Self.shellBlocks("README.md")
        let tour = try #require(readme.first { $0.contains("json()") }, "the README has a tour")
        let security = try Self.shellBlocks("docs/security.md")
        let sharing = try #require(try Self.shellBlocks("docs/sharing.md").first, "sharing.md has a walkthrough")
        let stratus = ServerProcess.executable.path
        var script = "set -e\n" + tour.replacingOccurrences(of: "S=http://127.0.0.1:8080", with: "S=\(server.baseURL)")
        script += "\necho '=== keys'\n" + security.dropFirst().joined(separator: "\n").replacingOccurrences(of: "swift run --package-path Server stratus", with: stratus)
        script += "\necho '=== sharing'\n" + sharing
        let hooks = try #require(try Self.shellBlocks("docs/hooks.md").first, "hooks.md has an endpoint example")
        // The receiver the example starts ends with the script, however the script ends.
        script += "\necho '=== hooks'\ntrap 'kill $RECEIVER 2>/dev/null' EXIT\n" + hooks

        let (status, text) = try await ChildProcess.run("/bin/bash", ["-c", script], directory: folder)
        #expect(status == 0, "\(text.suffix(2_000))")

        let parts = text.components(separatedBy: "=== ")
        #expect(parts.first?.hasSuffix("same\n") == true, "the tour's photo came back unchanged: \(parts.first?.suffix(500) ?? "")")
        let keys = parts.first { $0.hasPrefix("keys") } ?? ""
        #expect(keys.contains(#""recordType":"Users""#), "the signed query answered records: \(keys.suffix(800))")
        let shared = parts.first { $0.hasPrefix("sharing") } ?? ""
        #expect(shared.contains(#""phoneNumber":{"type":"STRING","value":"+1 555 0100"}"#), "Bob read the shared record")
        #expect(shared.contains(#""serverErrorCode":"ACCESS_DENIED""#), "Carol was refused")
        #expect(shared.contains(#""serverErrorCode":"ZONE_NOT_FOUND""#), "Bob was refused once removed")
        let hooked = parts.first { $0.hasPrefix("hooks") } ?? ""
        #expect(hooked.contains("whsec_") && hooked.contains("record.created n2"), "the receiver got the new note: \(hooked.suffix(800))")
    }
}
