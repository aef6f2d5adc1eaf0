import Crypto
import Foundation
import HTTPTypes
import StratusModel
import Testing

@Suite struct ServerKeyAPITests {
    /// Signs a request as CloudKit's server-to-server clients do (`docs/protocol.md#server-to-server-keys`).
    static func signedHeaders(key: P256.Signing.PrivateKey, keyID: String, body: String, path: String) throws -> HTTPFields {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        let date = formatter.string(from: Date())
        let hash = Data(SHA256.hash(data: Data(body.utf8))).base64EncodedString()
        let signature = try key.signature(for: Data("\(date):\(hash):\(path)".utf8)).derRepresentation.base64EncodedString()
        var headers = HTTPFields()
        headers[HTTPField.Name("X-Apple-CloudKit-Request-KeyID")!] = keyID
        headers[HTTPField.Name("X-Apple-CloudKit-Request-ISO8601Date")!] = date
        headers[HTTPField.Name("X-Apple-CloudKit-Request-SignatureV1")!] = signature
        return headers
    }

    @Test("a key bound to a role gets that role's rights only; keys are listed and refused when malformed")
    func roleBoundKey() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let schema = """
                DEFINE SCHEMA
                    CREATE ROLE Admin;
                    CREATE ROLE Editor;
                    RECORD TYPE AppFeatures (name STRING, GRANT READ TO "_world", GRANT CREATE, WRITE TO Admin);
                    RECORD TYPE Articles (title STRING, GRANT READ TO "_world", GRANT CREATE TO Editor);
                """
            _ = try await client.send(.put, "/admin/1/\(TestServer.container)/development/schema", body: schema, headers: client.admin)
            let privateKey = P256.Signing.PrivateKey()
            let created = try await client.send(
                .post, "/admin/1/\(TestServer.container)/keys",
                body: #"{"publicKey":\#(try String(decoding: JSONEncoder().encode(privateKey.publicKey.pemRepresentation), as: UTF8.self)),"role":"Admin"}"#,
                headers: client.admin
            )
            #expect(created.status == 201)
            guard case .string(let keyID)? = created["keyID"] else { Issue.record("no key id: \(created.json)"); return }
            let list = try await client.send(.get, "/admin/1/\(TestServer.container)/keys", headers: client.admin)
            guard case .array(let keys)? = list["keys"] else { Issue.record("no keys: \(list.json)"); return }
            #expect(keys.count == 1)
            #expect(keys.first?.objectValue?["keyID"] == .string(keyID))
            #expect(keys.first?.objectValue?["role"] == .string("Admin"))

            let path = "/database/1/\(TestServer.container)/development/public/records/modify"
            func signedCreate(_ type: String) async throws -> Reply {
                let body = #"{"operations":[{"operationType":"create","record":{"recordType":"\#(type)","fields":{"\#(type == "AppFeatures" ? "name" : "title")":{"value":"x"}}}}]}"#
                return try await client.send(.post, path, body: body, headers: try Self.signedHeaders(key: privateKey, keyID: keyID, body: body, path: path))
            }
            let allowed = try await signedCreate("AppFeatures")
            #expect(allowed.status == 200 && allowed.records.first?["recordChangeTag"] != nil, "\(allowed.json)")
            let refused = try await signedCreate("Articles")
            #expect(refused.records.first?["serverErrorCode"] == .string("ACCESS_DENIED"))

            let malformed = try await client.send(.post, "/admin/1/\(TestServer.container)/keys", body: #"{"publicKey":"not a key"}"#, headers: client.admin)
            #expect(malformed.status == 400 && malformed.errorCode == "BAD_REQUEST")
            let revoked = try await client.send(.delete, "/admin/1/\(TestServer.container)/keys/\(keyID)", headers: client.admin)
            #expect(revoked.status == 200)
            let again = try await client.send(.delete, "/admin/1/\(TestServer.container)/keys/\(keyID)", headers: client.admin)
            #expect(again.status == 404 && again.errorCode == "NOT_FOUND")
            let afterRevoke = try await signedCreate("AppFeatures")
            #expect(afterRevoke.status == 401)
        }
    }
}
