import Foundation
import StratusModel
import Testing

/// Every role and permission over HTTP: a caller the grant allows succeeds, a caller it does not is refused.
@Suite struct GrantMatrixAPITests {
    struct Case: Sendable, CustomStringConvertible {
        var role: String
        var permission: String
        var description: String { "\(permission) to \(role)" }
    }

    static let cases = ["\"_world\"", "\"_icloud\"", "\"_creator\"", "Admin"].flatMap { role in
        ["CREATE", "READ", "WRITE"].map { Case(role: role, permission: $0) }
    }

    struct People {
        var alice: UserSession
        var bob: UserSession
        var admin: UserSession
    }

    /// Alice's record r1 exists; then the type keeps only the grant under test.
    func setUp(_ check: Case, _ client: TestClient) async throws -> People {
        let token = try await client.createContainer()
        let schemaPath = "/admin/1/\(TestServer.container)/development/schema"
        let seeding = "DEFINE SCHEMA CREATE ROLE Admin; RECORD TYPE T (v INT64, GRANT CREATE TO \"_icloud\", GRANT \(check.permission) TO \(check.role));"
        _ = try await client.send(.put, schemaPath, body: seeding, headers: client.admin)
        let people = People(
            alice: try await client.signUp("alice@example.com", token: token), bob: try await client.signUp("bob@example.com", token: token),
            admin: try await client.signUp("admin@example.com", token: token)
        )
        _ = try await client.send(
            .put, "/admin/1/\(TestServer.container)/development/users/\(people.admin.userRecordName)/roles", body: #"{"roles":["Admin"]}"#, headers: client.admin
        )
        let seeded = try await people.alice.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"r1","recordType":"T","fields":{"v":{"value":1}}}}]}"#)
        #expect(seeded.records.first?["recordChangeTag"] != nil)
        let single = "DEFINE SCHEMA CREATE ROLE Admin; RECORD TYPE T (v INT64, GRANT \(check.permission) TO \(check.role));"
        _ = try await client.send(.put, schemaPath, body: single, headers: client.admin)
        return people
    }

    /// Runs the permission as `session`; answers the per-record error code, `nil` on success, or the
    /// request's error code when the whole request failed.
    func attempt(_ permission: String, as session: UserSession) async throws -> String? {
        let reply: Reply
        switch permission {
        case "CREATE":
            reply = try await session.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":"T","fields":{"v":{"value":2}}}}]}"#)
        case "READ":
            reply = try await session.post("public", "records/lookup", #"{"records":[{"recordName":"r1"}]}"#)
        default:
            reply = try await session.post("public", "records/modify", #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"r1","fields":{"v":{"value":3}}}}]}"#)
        }
        if reply.status != 200 { return reply.errorCode }
        if case .string(let code)? = reply.records.first?["serverErrorCode"] { return code }
        return nil
    }

    @Test("a grant allows the role's holders and refuses everyone else", arguments: cases)
    func grant(_ check: Case) async throws {
        try await TestServer.run { client in
            let people = try await setUp(check, client)
            let allowed: UserSession?
            let refused: [UserSession]
            switch check.role {
            case "\"_world\"":
                allowed = check.permission == "READ" ? people.bob.anonymous : people.bob
                refused = []
            case "\"_icloud\"":
                allowed = people.bob
                refused = [people.bob.anonymous]
            case "\"_creator\"":
                // Nobody is the creator of a record not yet created.
                allowed = check.permission == "CREATE" ? nil : people.alice
                refused = check.permission == "CREATE" ? [people.alice] : [people.bob]
            default:
                allowed = people.admin
                refused = [people.bob]
            }
            if let allowed {
                #expect(try await attempt(check.permission, as: allowed) == nil, "\(check) should be allowed")
            }
            for session in refused {
                let code = try await attempt(check.permission, as: session)
                let expected = session.webAuthToken == nil && check.permission != "READ" ? "AUTHENTICATION_REQUIRED" : "ACCESS_DENIED"
                #expect(code == expected, "\(check) should be refused")
            }
            // The grant gives no other permission.
            for other in ["CREATE", "READ", "WRITE"] where other != check.permission {
                let holder = check.role == "Admin" ? people.admin : check.role == "\"_creator\"" ? people.alice : people.bob
                #expect(try await attempt(other, as: holder) == "ACCESS_DENIED", "\(check) should not allow \(other)")
            }
        }
    }
}
