import Foundation
import StratusStoreTesting
import Testing

/// Server-to-server signatures checked against an independent signer: a Python client using the
/// `cryptography` package (`Server/Tests/Peers/server_to_server_signer.py`), sending to a running server.
@Suite struct ServerToServerTests {
    static let signer = Repository.path("Server/Tests/Peers/server_to_server_signer.py")

    @Test("signed requests from an independent signer: every client variant passes, every tampering fails")
    func independentSigner() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-s2s-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = ServerProcess(dataFolder: folder)
        try await server.start()
        defer { server.stop() }
        _ = try await server.createContainer("iCloud.com.example.Signed")

        let signer = try ChildProcess("python3", [Self.signer, server.baseURL, ServerProcess.adminKey, "iCloud.com.example.Signed"], output: .pipe, errors: .pipe)
        let data = signer.output?.readDataToEndOfFile() ?? Data()
        let errorText = String(decoding: signer.errors?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
        try #require(signer.waitForExit() == 0, "the signer failed (is the Python package cryptography installed? .ci/run installs it): \(errorText)")
        let results = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        func status(_ name: String) -> Int? { results[name] as? Int }

        #expect(status("create") == 200)
        #expect(results["create_error"] is NSNull)
        #expect(status("query_path_signed_without_query_string") == 200)
        #expect(status("query_path_signed_with_query_string") == 200)
        #expect(status("get_empty_body_hashed") == 200)
        #expect(status("get_empty_body_left_empty") == 200)
        #expect(status("text_plain_body") == 200)
        #expect(status("tampered_body") == 401)
        #expect(status("tampered_path") == 401)
        #expect(status("date_10_minutes_old") == 401)
        #expect(status("wrong_key") == 401)
        #expect(status("unknown_key_id") == 401)
        #expect(status("private_database") == 403)
        #expect(status("revoke") == 200)
        #expect(status("after_revoke") == 401)
    }
}
