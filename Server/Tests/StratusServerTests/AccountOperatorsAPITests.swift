import Foundation
import StratusModel
import StratusStoreTesting
import Testing

/// Sessions a user ends, and what an operator does to a user, obeyed at once by every node.
@Suite struct AccountOperatorsAPITests {
    static let body = #"{"emailAddress":"alice@example.com","password":"correct horse","deviceName":"Phone"}"#

    @Test("a user lists their sessions and ends one, or all others; every node refuses an ended session at once")
    func sessions() async throws {
        try await TestServer.runNodes(2) { nodes in
            let (one, two) = (nodes[0], nodes[1])
            let token = try await one.createContainer()
            let phone = try #require(try await one.auth("signup", Self.body, token: token).string("ckWebAuthToken"))
            let laptop = try #require(try await two.auth("signin", Self.body.replacingOccurrences(of: "Phone", with: "Laptop"), token: token).string("ckWebAuthToken"))
            let tablet = try #require(try await one.auth("signin", Self.body.replacingOccurrences(of: "Phone", with: "Tablet"), token: token).string("ckWebAuthToken"))
            for node in nodes {
                for session in [phone, laptop, tablet] { #expect(try await node.isSignedIn(session, token: token)) }
            }
            let listed = try await two.authGet("sessions", token: token, session: phone)
            guard case .array(let entries)? = listed["sessions"] else { throw TestFailure("\(listed.json)") }
            let devices = entries.compactMap { $0.objectValue?["deviceName"]?.stringValue }
            #expect(devices == ["Tablet", "Laptop", "Phone"])
            let laptopID = try #require(entries.first { $0.objectValue?["deviceName"] == .string("Laptop") }?.objectValue?["sessionID"]?.stringValue)

            let endOne = try await one.auth("sessions/end", #"{"sessionID":"\#(laptopID)"}"#, token: token, session: phone)
            #expect(endOne.status == 200 && endOne["ended"] == .array([.string(laptopID)]), "\(endOne.json)")
            #expect(try await !two.isSignedIn(laptop, token: token))
            let unknown = try await one.auth("sessions/end", #"{"sessionID":"\#(laptopID)"}"#, token: token, session: phone)
            #expect(unknown.status == 404)

            let others = try await two.auth("sessions/end", #"{"allOthers":true}"#, token: token, session: phone)
            #expect(others.status == 200)
            for node in nodes {
                #expect(try await node.isSignedIn(phone, token: token))
                #expect(try await !node.isSignedIn(tablet, token: token))
            }
        }
    }

    @Test("an operator disables a user (refused on every node at once), enables them and ends their sessions")
    func operators() async throws {
        try await TestServer.runNodes(2) { nodes in
            let (one, two) = (nodes[0], nodes[1])
            let token = try await one.createContainer()
            let signUp = try await one.auth("signup", Self.body, token: token)
            let session = try #require(signUp.string("ckWebAuthToken"))
            let user = try #require(signUp.string("userRecordName"))
            #expect(try await two.isSignedIn(session, token: token))
            let users = "/admin/1/\(TestServer.container)/development/users/\(user)"

            let disabled = try await one.send(.post, users + "/disable", headers: one.admin)
            #expect(disabled.status == 200 && disabled["disabled"] == .bool(true), "\(disabled.json)")
            #expect(try await !two.isSignedIn(session, token: token))
            let refused = try await two.auth("signin", Self.body, token: token)
            #expect(refused.status == 401 && refused.errorCode == "AUTHENTICATION_FAILED", "\(refused.json)")
            let listed = try await two.send(.get, "/admin/1/\(TestServer.container)/development/users", headers: two.admin)
            guard case .array(let listedUsers)? = listed["users"] else { throw TestFailure("\(listed.json)") }
            #expect(listedUsers.first?.objectValue?["disabled"] == .bool(true), "the list shows who is disabled: \(listed.json)")

            #expect(try await one.send(.post, users + "/enable", headers: one.admin)["disabled"] == .bool(false))
            let again = try #require(try await two.auth("signin", Self.body, token: token).string("ckWebAuthToken"))
            let ended = try await two.send(.post, users + "/sessions/end", headers: two.admin)
            #expect(ended.status == 200)
            #expect(try await !one.isSignedIn(again, token: token))

            let missing = try await one.send(.post, "/admin/1/\(TestServer.container)/development/users/_nobody/disable", headers: one.admin)
            #expect(missing.status == 404 && missing.errorCode == "NOT_FOUND")
            let anonymous = try await one.send(.post, users + "/disable")
            #expect(anonymous.status == 401)
        }
    }

    @Test("account settings and mail templates are checked, saved, previewed and removed")
    func settingsAndTemplates() async throws {
        try await TestServer.run { client in
            _ = try await client.createContainer()
            let base = "/admin/1/\(TestServer.container)"
            for bad in [#"{"languages":[]}"#, #"{"languages":["english!"]}"#, #"{"senderAddress":"not an address"}"#,
                        #"{"appName":"\#(String(repeating: "x", count: 101))"}"#, #"{"emailVerification":"sometimes"}"#] {
                let reply = try await client.send(.put, base + "/accounts/settings", body: bad, headers: client.admin)
                #expect(reply.status == 400 && reply.errorCode == "BAD_REQUEST", "\(bad): \(reply.json)")
            }
            let saved = try await client.send(
                .put, base + "/accounts/settings", body: #"{"languages":["en","fr"],"appName":"Notes","senderAddress":"Hello@Notes.example"}"#,
                headers: client.admin
            )
            #expect(saved.status == 200 && saved["senderAddress"] == .string("hello@notes.example"))
            #expect(try await client.send(.get, base + "/accounts/settings", headers: client.admin)["appName"] == .string("Notes"))

            let templates = base + "/development/mail/templates"
            let unknown = try await client.send(.put, templates + "/reset-password/fr", body: #"{"subject":"Sujet","text":"{{cod}}"}"#, headers: client.admin)
            #expect(unknown.status == 400 && (unknown["reason"]?.stringValue ?? "").contains("{{cod}}"))
            let noCode = try await client.send(.put, templates + "/reset-password/fr", body: #"{"subject":"Sujet","text":"{{link}}"}"#, headers: client.admin)
            #expect(noCode.status == 400)
            let badKind = try await client.send(.put, templates + "/welcome/fr", body: #"{"subject":"S","text":"{{code}}"}"#, headers: client.admin)
            #expect(badKind.status == 400)
            let french = try await client.send(
                .put, templates + "/reset-password/fr",
                body: #"{"subject":"Réinitialiser {{appName}}","text":"Votre code : {{code}}","html":"<p>{{code}} pour {{email}}</p>"}"#,
                headers: client.admin
            )
            #expect(french.status == 200, "\(french.json)")
            let listed = try await client.send(.get, templates, headers: client.admin)
            #expect("\(listed.json)".contains("Réinitialiser"))
            let preview = try await client.send(
                .post, base + "/development/mail/preview", body: #"{"kind":"reset-password","language":"fr-CA"}"#, headers: client.admin
            )
            #expect(preview["subject"] == .string("Réinitialiser Notes") && preview["text"] == .string("Votre code : 123456"), "\(preview.json)")
            #expect(preview["from"] == .string("Notes <hello@notes.example>"))
            #expect(preview["html"] == .string("<p>123456 pour someone@example.com</p>"))
            let english = try await client.send(.post, base + "/development/mail/preview", body: #"{"kind":"reset-password","language":"de"}"#, headers: client.admin)
            #expect(english["subject"] == .string("Reset your Notes password"))
            #expect(try await client.send(.delete, templates + "/reset-password/fr", headers: client.admin).status == 200)
            let gone = try await client.send(.post, base + "/development/mail/preview", body: #"{"kind":"reset-password","language":"fr"}"#, headers: client.admin)
            #expect(gone["subject"] == .string("Reset your Notes password"))
        }
    }
}
