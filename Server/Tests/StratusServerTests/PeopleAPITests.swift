import StratusServices
import Foundation
import HTTPTypes
import StratusModel
import StratusStore
@testable import StratusServer
import StratusTestSupport
import Testing

/// People, not one key: operator accounts with a password and an authenticator app, a role per container that the
/// admin API and the console's database calls obey on every node, and the audit log of admin actions.
@Suite struct PeopleAPITests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Note (text STRING, GRANT READ, CREATE, WRITE TO "_world");
        """

    /// Makes an operator with the admin key, sets up their authenticator and signs them in; answers their console
    /// headers and their secret.
    static func operatorSession(
        _ client: TestClient, _ email: String, roles: String, administrator: Bool = false
    ) async throws -> (headers: HTTPFields, id: String, secret: [UInt8]) {
        let made = try await client.send(
            .post, "/admin/1/operators", body: #"{"emailAddress":"\#(email)","password":"long enough password","administrator":\#(administrator),"roles":\#(roles)}"#,
            headers: client.admin
        )
        guard made.status == 201, let id = made.string("id") else { throw TestFailure("operator \(email): \(made.status) \(made.json)") }
        let enrolled = try await client.send(.post, "/admin/1/operators/enrolment", body: #"{"emailAddress":"\#(email)","password":"long enough password"}"#)
        guard let text = enrolled.string("secret"), let secret = Base32.decode(text) else { throw TestFailure("enrolment: \(enrolled.json)") }
        // The confirmation takes the current step's code and the sign-in the next one's (the server accepts a step
        // either side), so that the sign-in's is always the later, even when a step ends in between.
        let confirmed = try await client.send(
            .post, "/admin/1/operators/enrolment/confirm",
            body: #"{"emailAddress":"\#(email)","password":"long enough password","code":"\#(TOTP.code(secret: secret, step: TOTP.step()))"}"#
        )
        guard confirmed.status == 200 else { throw TestFailure("confirm: \(confirmed.json)") }
        let signedIn = try await client.send(
            .post, "/admin/1/session", body: #"{"emailAddress":"\#(email)","password":"long enough password","code":"\#(TOTP.code(secret: secret, step: TOTP.step() + 1))"}"#
        )
        guard signedIn.status == 200, let setCookie = signedIn.headers[.setCookie], let csrf = signedIn.string("csrfToken") else {
            throw TestFailure("sign-in \(email): \(signedIn.status) \(signedIn.json)")
        }
        return ([.cookie: String(setCookie.split(separator: ";")[0]), HTTPField.Name("X-Stratus-CSRF")!: csrf], id, secret)
    }

    @Test("sign-in needs the password and a fresh authenticator code; a code works once; bad passwords and unenrolled operators are refused")
    func signIn() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let short = try await client.send(.post, "/admin/1/operators", body: #"{"emailAddress":"a@example.com","password":"short"}"#, headers: client.admin)
            #expect(short.status == 400, "\(short.json)")
            let made = try await client.send(
                .post, "/admin/1/operators", body: #"{"emailAddress":"Ann@Example.com","password":"long enough password"}"#, headers: client.admin
            )
            #expect(made.status == 201 && made.string("emailAddress") == "ann@example.com" && made["totpEnabled"] == .bool(false), "\(made.json)")
            #expect(made["passwordHash"] == nil && made["password"] == nil)
            let taken = try await client.send(.post, "/admin/1/operators", body: #"{"emailAddress":"ann@example.com","password":"long enough password"}"#, headers: client.admin)
            #expect(taken.status == 409, "\(taken.json)")
            let early = try await client.send(.post, "/admin/1/session", body: #"{"emailAddress":"ann@example.com","password":"long enough password","code":"000000"}"#)
            #expect(early.status == 403 && early.errorCode == "ACCESS_DENIED", "no authenticator yet: \(early.json)")
            let wrong = try await client.send(.post, "/admin/1/operators/enrolment", body: #"{"emailAddress":"ann@example.com","password":"not the password"}"#)
            #expect(wrong.status == 401, "\(wrong.json)")
            let unknown = try await client.send(.post, "/admin/1/operators/enrolment", body: #"{"emailAddress":"nobody@example.com","password":"long enough password"}"#)
            #expect(unknown.status == 401 && unknown.string("reason") == wrong.string("reason"), "an unknown address reads like a wrong password")

            let ann = try await Self.operatorSession(client, "zed@example.com", roles: "{}")
            let again = try await client.send(
                .post, "/admin/1/session",
                body: #"{"emailAddress":"zed@example.com","password":"long enough password","code":"\#(TOTP.code(secret: ann.secret, step: TOTP.step()))"}"#
            )
            #expect(again.status == 401, "a code is accepted once: \(again.json)")
            let session = try await client.send(.get, "/admin/1/session", headers: [.cookie: ann.headers[.cookie]!])
            #expect(session["actor"]?.objectValue?["name"] == .string("zed@example.com"), "\(session.json)")
            let reEnrol = try await client.send(.post, "/admin/1/operators/enrolment", body: #"{"emailAddress":"zed@example.com","password":"long enough password"}"#)
            #expect(reEnrol.status == 403, "an enrolled authenticator is replaced only by an administrator's reset: \(reEnrol.json)")
            let listed = try await client.send(.get, "/admin/1/operators", headers: client.admin)
            #expect(listed["operators"]?.arrayValue?.count == 2 && !"\(listed.json)".contains("hash"), "\(listed.json)")
        }
    }

    @Test("viewers read, developers change development, owners do the rest; every node refuses a disabled operator at once; actions are audited")
    func rolesAcrossNodes() async throws {
        try await TestServer.runNodes(2) { nodes in
            let client = nodes[0]
            let container = TestServer.container
            _ = try await client.createContainer()
            _ = try await client.createContainer("iCloud.com.example.Other")
            _ = try await client.send(.put, "/admin/1/\(container)/development/schema", body: Self.schema, headers: client.admin)
            let viewer = try await Self.operatorSession(client, "viewer@example.com", roles: #"{"\#(container)":"viewer"}"#)
            let developer = try await Self.operatorSession(client, "dev@example.com", roles: #"{"\#(container)":"developer"}"#)
            let owner = try await Self.operatorSession(client, "owner@example.com", roles: #"{"\#(container)":"owner"}"#)
            let root = try await Self.operatorSession(client, "root@example.com", roles: "{}", administrator: true)

            let containers = try await nodes[1].send(.get, "/admin/1/containers", headers: viewer.headers)
            #expect(containers["containers"]?.arrayValue?.compactMap { $0.objectValue?["containerID"]?.stringValue } == [container], "\(containers.json)")
            #expect(try await nodes[1].send(.get, "/admin/1/\(container)/development/schema", headers: viewer.headers).status == 200)
            let viewerSchema = try await nodes[1].send(.put, "/admin/1/\(container)/development/schema", body: Self.schema, headers: viewer.headers)
            #expect(viewerSchema.status == 403 && viewerSchema.errorCode == "ACCESS_DENIED", "\(viewerSchema.json)")
            let other = try await nodes[1].send(.get, "/admin/1/iCloud.com.example.Other/development/schema", headers: viewer.headers)
            #expect(other.status == 403, "no role in the other container: \(other.json)")
            let query = "/database/1/\(container)/development/public/records/query"
            #expect(try await nodes[1].send(.post, query, body: #"{"query":{"recordType":"Note"}}"#, headers: viewer.headers).status == 200)
            let modify = "/database/1/\(container)/development/public/records/modify"
            let note = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"text":{"value":"x"}}}}]}"#
            #expect(try await nodes[1].send(.post, modify, body: note, headers: viewer.headers).status == 403, "a viewer writes no records")

            #expect(try await nodes[1].send(.put, "/admin/1/\(container)/development/schema", body: Self.schema, headers: developer.headers).status == 200)
            // Each admin operation declares what it needs: a developer's change to production, or any deletion, needs an owner.
            let productionJob = try await nodes[1].send(.put, "/admin/1/\(container)/production/jobs/nightly", body: "{}", headers: developer.headers)
            #expect(productionJob.status == 403 && productionJob.string("reason")?.contains("owner") == true, "\(productionJob.json)")
            let deletion = try await nodes[1].send(.delete, "/admin/1/\(container)/development/functions/nothing", headers: developer.headers)
            #expect(deletion.status == 403 && deletion.string("reason")?.contains("owner") == true, "\(deletion.json)")
            let developmentJob = try await nodes[1].send(.put, "/admin/1/\(container)/development/jobs/nightly", body: "{}", headers: developer.headers)
            #expect(developmentJob.status != 403, "a developer changes development: \(developmentJob.json)")
            #expect(try await nodes[1].send(.post, modify, body: note, headers: developer.headers).status == 200)
            let production = try await nodes[1].send(.post, modify.replacingOccurrences(of: "development", with: "production"), body: note, headers: developer.headers)
            #expect(production.status == 403, "\(production.json)")
            let deploy = try await nodes[1].send(.post, "/admin/1/\(container)/deploy", headers: developer.headers)
            #expect(deploy.status == 403 && deploy.string("reason")?.contains("owner") == true, "\(deploy.json)")
            #expect(try await nodes[1].send(.post, "/admin/1/\(container)/deploy", headers: owner.headers).status == 200)
            let newContainer = try await nodes[1].send(.post, "/admin/1/containers", body: #"{"containerID":"iCloud.com.example.Third"}"#, headers: owner.headers)
            #expect(newContainer.status == 403, "creating containers is an administrator's: \(newContainer.json)")
            #expect(try await nodes[1].send(.get, "/admin/1/operators", headers: owner.headers).status == 403)

            // An administrator disables the viewer on one node; the other refuses the viewer's session at once.
            let disabled = try await nodes[0].send(.put, "/admin/1/operators/\(viewer.id)", body: #"{"disabled":true}"#, headers: root.headers)
            #expect(disabled.status == 200 && disabled["disabled"] == .bool(true), "\(disabled.json)")
            let refused = try await nodes[1].send(.get, "/admin/1/\(container)/development/schema", headers: viewer.headers)
            #expect(refused.status == 401, "\(refused.json)")
            // Roles change at once too.
            _ = try await nodes[0].send(.put, "/admin/1/operators/\(developer.id)", body: #"{"roles":{"\#(container)":"viewer"}}"#, headers: root.headers)
            #expect(try await nodes[1].send(.post, modify, body: note, headers: developer.headers).status == 403)

            let audit = try await nodes[1].send(.get, "/admin/1/audit?container=\(container)", headers: owner.headers)
            let entries = audit["entries"]?.arrayValue?.compactMap(\.objectValue) ?? []
            #expect(entries.contains { $0["actor"] == .string("dev@example.com") && $0["action"] == .string("PUT /admin/1/\(container)/development/schema") && $0["status"]?.integerValue == 200 }, "\(entries)")
            #expect(entries.contains { $0["actor"] == .string("viewer@example.com") && $0["status"]?.integerValue == 403 }, "refusals are audited too: \(entries)")
            #expect(entries.contains { $0["actor"] == .string("dev@example.com") && ($0["action"]?.stringValue ?? "").hasSuffix("records/modify") }, "console writes are audited")
            #expect(entries.contains { $0["actor"] == .string("admin key") }, "the admin key's actions are audited: \(entries)")
            let everything = try await nodes[0].send(.get, "/admin/1/audit", headers: owner.headers)
            #expect(everything.status == 400, "only administrators see every container's actions")
            let signIns = try await nodes[0].send(.get, "/admin/1/audit?actor=root@example.com", headers: root.headers)
            #expect(signIns["entries"]?.arrayValue?.contains { $0.objectValue?["action"]?.stringValue?.contains("signed in") == true } == true, "\(signIns.json)")
        }
    }
}
