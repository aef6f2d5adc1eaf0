import Foundation
import HTTPTypes
import StratusModel
import Testing

@Suite struct AccountsAPITests {
    @Test("GET /healthz answers 200")
    func health() async throws {
        try await TestServer.run { client in
            let reply = try await client.send(.get, "/healthz")
            #expect(reply.status == 200)
        }
    }

    @Test("the admin API needs the admin key, creates a container once and issues a 64-hex API token")
    func containers() async throws {
        try await TestServer.run { client in
            let body = #"{"containerID":"iCloud.com.example.App"}"#
            let missing = try await client.send(.post, "/admin/1/containers", body: body)
            #expect(missing.status == 401 && missing.errorCode == "AUTHENTICATION_FAILED")
            let wrong = try await client.send(.post, "/admin/1/containers", body: body, headers: [.authorization: "Bearer nope"])
            #expect(wrong.status == 401 && wrong.errorCode == "AUTHENTICATION_FAILED")
            let created = try await client.send(.post, "/admin/1/containers", body: body, headers: client.admin)
            #expect(created.status == 201)
            #expect(created["containerID"] == .string("iCloud.com.example.App"))
            guard case .string(let token)? = created["apiToken"] else { Issue.record("no token"); return }
            #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
            let again = try await client.send(.post, "/admin/1/containers", body: body, headers: client.admin)
            #expect(again.status == 409 && again.errorCode == "EXISTS")
            let invalid = try await client.send(.post, "/admin/1/containers", body: #"{"containerID":"no spaces"}"#, headers: client.admin)
            #expect(invalid.status == 400 && invalid.errorCode == "BAD_REQUEST")
            let list = try await client.send(.get, "/admin/1/containers", headers: client.admin)
            #expect(list.status == 200)
        }
    }

    @Test("sign-up answers a token and a user record name, and sign-in checks the password")
    func signUpAndSignIn() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let base = "/auth/1/\(TestServer.container)/development"
            let alice = try await client.signUp("Alice@Example.com", token: token)
            #expect(alice.userRecordName.count == 33 && alice.userRecordName.hasPrefix("_"))
            #expect(alice.userRecordName.dropFirst().allSatisfy { $0.isHexDigit && !$0.isUppercase })
            let duplicate = try await client.send(.post, "\(base)/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"alice@example.com","password":"another one"}"#)
            #expect(duplicate.status == 409 && duplicate.errorCode == "EXISTS")
            let badEmail = try await client.send(.post, "\(base)/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"nope","password":"long enough"}"#)
            #expect(badEmail.status == 400 && badEmail.errorCode == "BAD_REQUEST")
            let shortPassword = try await client.send(.post, "\(base)/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"b@example.com","password":"short"}"#)
            #expect(shortPassword.status == 400)
            let noToken = try await client.send(.post, "\(base)/signup", body: #"{"emailAddress":"c@example.com","password":"long enough"}"#)
            #expect(noToken.status == 401 && noToken.errorCode == "AUTHENTICATION_FAILED")

            let wrong = try await client.send(.post, "\(base)/signin?ckAPIToken=\(token)", body: #"{"emailAddress":"alice@example.com","password":"wrong password"}"#)
            #expect(wrong.status == 401 && wrong.errorCode == "AUTHENTICATION_FAILED")
            let right = try await client.send(.post, "\(base)/signin?ckAPIToken=\(token)", body: #"{"emailAddress":"alice@example.com","password":"correct horse"}"#)
            #expect(right.status == 200)
            #expect(right["userRecordName"] == .string(alice.userRecordName))
        }
    }

    @Test("repeated wrong passwords are throttled with retryAfter, even for the right password")
    func throttling() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            _ = try await client.signUp("alice@example.com", token: token)
            let path = "/auth/1/\(TestServer.container)/development/signin?ckAPIToken=\(token)"
            for _ in 0..<5 {
                let reply = try await client.send(.post, path, body: #"{"emailAddress":"alice@example.com","password":"guess guess"}"#)
                #expect(reply.status == 401)
            }
            let throttled = try await client.send(.post, path, body: #"{"emailAddress":"alice@example.com","password":"correct horse"}"#)
            #expect(throttled.status == 429 && throttled.errorCode == "THROTTLED")
            #expect(throttled["retryAfter"] != nil)
            #expect(throttled.headers[.retryAfter] != nil)
        }
    }

    @Test("users/caller and users/current return the signed-in user; sign-out revokes the token")
    func callerAndSignOut() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let alice = try await client.signUp("alice@example.com", token: token)
            let caller = try await alice.get("public", "users/caller")
            #expect(caller.status == 200)
            #expect(caller["userRecordName"] == .string(alice.userRecordName))
            #expect(caller.headers[HTTPField.Name("X-Apple-CloudKit-Web-Auth-Token")!] == alice.webAuthToken)
            let current = try await alice.get("public", "users/current")
            #expect(current["firstName"] == .string("Test"))
            let anonymous = try await alice.anonymous.get("public", "users/caller")
            #expect(anonymous.status == 421 && anonymous.errorCode == "AUTHENTICATION_REQUIRED")
            let signOut = try await client.send(.post, "/auth/1/\(TestServer.container)/development/signout?\(alice.query)")
            #expect(signOut.status == 200)
            let after = try await alice.get("public", "users/caller")
            #expect(after.status == 401 && after.errorCode == "AUTHENTICATION_FAILED")
            let forged = try await UserSession(client: client, apiToken: token, webAuthToken: alice.webAuthToken! + "x", userRecordName: "").get("public", "users/caller")
            #expect(forged.status == 401)
        }
    }
}
