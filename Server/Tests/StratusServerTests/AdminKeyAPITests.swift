import Foundation
import HTTPTypes
import StratusModel
import StratusStoreTesting
import StratusTestSupport
import Testing

/// The shared admin key rotated without a restart and turned off once people run the server, obeyed at once by
/// every node, with each node's key file following.
@Suite struct AdminKeyAPITests {
    static func bearer(_ key: String) -> HTTPFields { [.authorization: "Bearer \(key)"] }

    @Test("a rotation answers the new key once; every node refuses the old one and its console sessions at once; the key files follow")
    func rotation() async throws {
        let folder = try TestFolder("stratus-admin-key")
        defer { folder.remove() }
        let files = [folder.path + "/node-1.key", folder.path + "/node-2.key"]
        for file in files { try Data((TestServer.adminKey + "\n").utf8).write(to: URL(fileURLWithPath: file)) }
        try await TestServer.runNodes(2, configureNode: { index, configuration in configuration.adminKeyFile = files[index - 1] }) { nodes in
            let first = nodes[0], second = nodes[1]
            _ = try await first.createContainer()
            let before = try await first.send(.get, "/admin/1/admin-key", headers: first.admin)
            #expect(before["enabled"] == .bool(true) && before["rotated"] == .bool(false), "\(before.json)")
            let console = try await second.send(.post, "/admin/1/session", body: #"{"adminKey":"\#(TestServer.adminKey)"}"#)
            let cookie = try #require(console.headers[.setCookie]?.split(separator: ";").first.map(String.init), "\(console.json)")
            let consoleHeaders: HTTPFields = [.cookie: cookie, HTTPField.Name("X-Stratus-CSRF")!: console.string("csrfToken") ?? ""]
            #expect(try await second.send(.get, "/admin/1/containers", headers: consoleHeaders).status == 200)

            let rotated = try await first.send(.post, "/admin/1/admin-key/rotate", headers: first.admin)
            let key = try #require(rotated.string("adminKey"), "\(rotated.status) \(rotated.json)")
            #expect(rotated.headers[.cacheControl] == "no-store" && key.count == 64 && key != TestServer.adminKey)
            let old = try await second.send(.get, "/admin/1/containers", headers: second.admin)
            #expect(old.status == 401 && old.string("reason") == "that is not this server's admin key", "\(old.json)")
            #expect(try await second.send(.get, "/admin/1/containers", headers: Self.bearer(key)).status == 200)
            #expect(try await second.send(.get, "/admin/1/containers", headers: consoleHeaders).status == 401, "the old key's console session ended")
            let oldSignIn = try await first.send(.post, "/admin/1/session", body: #"{"adminKey":"\#(TestServer.adminKey)"}"#)
            #expect(oldSignIn.status == 401)
            #expect(try await first.send(.post, "/admin/1/session", body: #"{"adminKey":"\#(key)"}"#).status == 200)

            // The node that rotated wrote its file before answering; the other follows the store's event.
            #expect(try String(contentsOfFile: files[0], encoding: .utf8) == key + "\n")
            try await Polling.until("the second node's key file holds the new key") {
                (try? String(contentsOfFile: files[1], encoding: .utf8)) == key + "\n"
            } describe: {
                (try? String(contentsOfFile: files[1], encoding: .utf8)) ?? "no file"
            }
            let state = try await second.send(.get, "/admin/1/admin-key", headers: Self.bearer(key))
            #expect(state["rotated"] == .bool(true) && state.string("changedBy") == "admin key" && !"\(state.json)".contains(key), "\(state.json)")
            let audit = try await first.send(.get, "/admin/1/audit", headers: Self.bearer(key))
            #expect("\(audit.json)".contains("POST /admin/1/admin-key/rotate"), "the rotation is audited under the key that made it: \(audit.json)")
        }
    }

    @Test("only an administrator signed in as a person turns the key off; then no node admits it, until an administrator rotates it back on")
    func turningOff() async throws {
        let folder = try TestFolder("stratus-admin-key")
        defer { folder.remove() }
        let file = folder.path + "/admin.key"
        try Data((TestServer.adminKey + "\n").utf8).write(to: URL(fileURLWithPath: file))
        try await TestServer.runNodes(2, configureNode: { index, configuration in if index == 2 { configuration.adminKeyFile = file } }) { nodes in
            let first = nodes[0], second = nodes[1]
            _ = try await first.createContainer()
            let byKey = try await first.send(.delete, "/admin/1/admin-key", headers: first.admin)
            #expect(byKey.status == 403 && byKey.string("reason")?.contains("administrator") == true, "\(byKey.json)")
            let viewer = try await PeopleAPITests.operatorSession(first, "viewer@example.com", roles: #"{"\#(TestServer.container)":"owner"}"#)
            #expect(try await first.send(.delete, "/admin/1/admin-key", headers: viewer.headers).status == 403, "an owner of one container is not enough")
            #expect(try await first.send(.get, "/admin/1/admin-key", headers: viewer.headers).status == 403)
            let ann = try await PeopleAPITests.operatorSession(first, "ann@example.com", roles: "{}", administrator: true)

            let off = try await first.send(.delete, "/admin/1/admin-key", headers: ann.headers)
            #expect(off.status == 200 && off["enabled"] == .bool(false), "\(off.json)")
            let refused = try await second.send(.get, "/admin/1/containers", headers: second.admin)
            #expect(refused.status == 401 && refused.string("reason")?.contains("turned off") == true, "\(refused.json)")
            let signIn = try await second.send(.post, "/admin/1/session", body: #"{"adminKey":"\#(TestServer.adminKey)"}"#)
            #expect(signIn.status == 401 && signIn.string("reason")?.contains("turned off") == true, "\(signIn.json)")
            #expect(try await second.send(.get, "/admin/1/containers", headers: ann.headers).status == 200, "people still sign in")
            try await Polling.until("the second node removes its key file") { !FileManager.default.fileExists(atPath: file) }
            let state = try await second.send(.get, "/admin/1/admin-key", headers: ann.headers)
            #expect(state["enabled"] == .bool(false) && state.string("changedBy") == "ann@example.com", "\(state.json)")
            let audit = try await second.send(.get, "/admin/1/audit", headers: ann.headers)
            #expect("\(audit.json)".contains("DELETE /admin/1/admin-key") && "\(audit.json)".contains("ann@example.com"), "\(audit.json)")

            let back = try await second.send(.post, "/admin/1/admin-key/rotate", headers: ann.headers)
            let key = try #require(back.string("adminKey"), "\(back.json)")
            #expect(try await first.send(.get, "/admin/1/containers", headers: Self.bearer(key)).status == 200)
            #expect(try await first.send(.get, "/admin/1/containers", headers: first.admin).status == 401)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == key + "\n")
        }
    }
}
