import Crypto
import Foundation
import StratusAdmin
import StratusFlags
import StratusKit
import StratusMessages
import StratusModel
import Testing

/// The SDK's admin client against a live server: the kits' schemas installed beside an app's own types, roles,
/// server-to-server keys, and the errors a setup script sees.
@Suite struct AdminClientTests {
    @Test("both kits' schemas go beside the app's own types, and installing one again keeps the rest")
    func installsKitSchemas() async throws {
        try await KitTestServer.run { server in
            let admin = server.admin
            let container = KitTestServer.container
            try await admin.importSchema(#"DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world");"#, container: container)
            try await admin.installSchema(FlagsSchema.text, container: container)
            try await admin.installSchema(MessageSchema.text, container: container)
            try await admin.installSchema(FlagsSchema.text, container: container)
            let text = try await admin.schema(container: container)
            for type in ["Note", "FeatureSwitch", "CuratedItem", "InAppMessage"] {
                #expect(text.contains("RECORD TYPE \(type) "), "\(type) is missing from:\n\(text)")
            }
            #expect(text.contains("CREATE ROLE Admin"))

            // The installed types work: an Admin publishes a switch, and a note is still saved beside it.
            let publisher = try await server.signedUpAdmin("admin@example.com")
            #expect(try await admin.roles(of: try await publisher.userRecordID().recordName, container: container) == ["Admin"])
            try await FeatureSwitchPublisher(database: publisher.publicCloudDatabase).save(SwitchRule(identifier: "editor", isEnabled: true))
            var note = Record(recordType: "Note")
            note["title"] = "beside the kits"
            try await publisher.publicCloudDatabase.save(note)

            await #expect { try await admin.installSchema("RECORD TYPE without a schema", container: container) } throws: { error in
                (error as? AdminError)?.status == 0
            }
            await #expect { try await admin.schema(container: "iCloud.com.example.Missing") } throws: { error in
                (error as? AdminError)?.status == 404
            }
        }
    }

    @Test("server-to-server keys are listed with their role until revoked")
    func keys() async throws {
        try await KitTestServer.run { server in
            let admin = server.admin
            let container = KitTestServer.container
            #expect(try await admin.keys(container: container).isEmpty)
            let keyID = try await admin.createKey(publicKeyPEM: P256.Signing.PrivateKey().publicKey.pemRepresentation, role: "Admin", container: container)
            let listed = try await admin.keys(container: container)
            #expect(listed.map(\.keyID) == [keyID])
            #expect(listed.first?.role == "Admin")
            #expect((listed.first?.created ?? 0) > 1_700_000_000_000)
            try await admin.revokeKey(keyID, container: container)
            #expect(try await admin.keys(container: container).isEmpty)
        }
    }

    @Test("containers and their API tokens are listed, given and rotated; any answer reads as its typed value, and a refusal says why")
    func containersAndTokens() async throws {
        try await KitTestServer.run { server in
            let admin = server.admin
            let container = "iCloud.com.example.Second"
            let created = try await admin.createContainer(container)
            #expect(try await admin.containers().contains { $0.id == container && $0.apiToken == created })
            let given = String(repeating: "ab", count: 32)
            try await admin.setAPIToken(given, container: container)
            #expect(try await admin.apiToken(for: container) == given)
            let rotated = try await admin.rotateAPIToken(container: container)
            #expect(rotated != given && rotated.count == 64)

            let listed = try await admin.send("GET", "/admin/1/containers").decode(ContainersResponse.self)
            #expect(listed.containers.contains { $0.containerID == container && $0.apiToken == rotated }, "\(listed)")
            let refused = try await admin.send("POST", "/admin/1/containers", encoding: CreateContainerRequest(containerID: "not valid!"))
            #expect(refused.status == 400 && refused.jsonValue?.objectValue?["serverErrorCode"] == .string("BAD_REQUEST"))
            #expect(throws: AdminError.self) { try refused.decode(ContainersResponse.self) }
            await #expect { _ = try await admin.createContainer("not valid!") } throws: { error in
                (error as? AdminError)?.description.contains("containerID must look like") == true
            }
        }
    }
}
