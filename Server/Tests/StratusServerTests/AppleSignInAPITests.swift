import StratusServices
import Foundation
import StratusModel
import StratusStore
@testable import StratusServer
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Sign in with Apple against a key server of the tests' own playing Apple's part on loopback.
@Suite struct AppleSignInAPITests {
    static func withServer(_ body: @escaping @Sendable (TestClient, String, FakeAppleID) async throws -> Void) async throws {
        let apple = try FakeAppleID()
        try await TestServer.run(configure: { configuration in
            configuration.appleKeysURL = apple.keysURL
            configuration.providerKeysMinimumRefetch = 0
        }) { client in
            let token = try await client.createContainer()
            let settings = try await client.send(
                .put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"appleClientIDs":["com.example.Notes","com.example.Notes.web"]}"#,
                headers: client.admin
            )
            guard settings.status == 200 else { throw TestFailure("settings: \(settings.json)") }
            try await body(client, token, apple)
        }
    }

    static func body(_ token: String, nonce: String, givenName: String? = nil) throws -> String {
        try PasskeyAPITests.json(AppleSignInRequest(identityToken: token, nonce: nonce, givenName: givenName, familyName: givenName == nil ? nil : "Lee"))
    }

    @Test("the first sign-in makes the account with the name Apple gave once; later ones sign in to it; a token works once")
    func signUpThenIn() async throws {
        try await Self.withServer { client, token, apple in
            let first = try await client.auth("signin/apple", try Self.body(try apple.token(rawNonce: "n-1", email: "x7@privaterelay.appleid.com", privateEmail: true), nonce: "n-1", givenName: "Ann"), token: token)
            #expect(first.status == 201 && first.string("ckWebAuthToken") != nil, "\(first.json)")
            let user = try #require(first.string("userRecordName"))
            let session = try #require(first.string("ckWebAuthToken"))
            let account = try await client.authGet("account", token: token, session: session)
            #expect(account.string("emailAddress") == "x7@privaterelay.appleid.com" && account["emailVerified"] == .bool(true) && account.string("givenName") == "Ann", "\(account.json)")
            #expect(account["hasPassword"] == .bool(false) && account["anonymous"] == .bool(false))

            let again = try await client.auth("signin/apple", try Self.body(try apple.token(rawNonce: "n-2", email: nil), nonce: "n-2"), token: token)
            #expect(again.status == 200 && again.string("userRecordName") == user, "\(again.json)")
            let replayToken = try apple.token(rawNonce: "n-3")
            #expect(try await client.auth("signin/apple", try Self.body(replayToken, nonce: "n-3"), token: token).status == 200)
            let replayed = try await client.auth("signin/apple", try Self.body(replayToken, nonce: "n-3"), token: token)
            #expect(replayed.status == 401 && (replayed.string("reason") ?? "").contains("used already"), "\(replayed.json)")
            #expect(apple.fetches == 1, "the keys are fetched once and kept: \(apple.fetches)")

            // Moved with its secrets into another container, the account still signs in with Apple.
            let exported = try await client.send(.get, "/admin/1/\(TestServer.container)/accounts?secrets=true", headers: client.admin)
            let entries = try #require(exported["accounts"], "\(exported.json)")
            #expect("\(entries)".contains("001234.abcd"), "the identity is exported: \(exported.json)")
            let copy = "iCloud.com.example.Copy"
            let copyToken = try await client.createContainer(copy)
            _ = try await client.send(.put, "/admin/1/\(copy)/accounts/settings", body: #"{"appleClientIDs":["com.example.Notes"]}"#, headers: client.admin)
            let imported = try await client.send(.post, "/admin/1/\(copy)/accounts/import", json: .object(["accounts": entries]), headers: client.admin)
            #expect(imported.status == 200, "\(imported.json)")
            let moved = try await client.send(
                .post, "/auth/1/\(copy)/development/signin/apple?ckAPIToken=\(copyToken)", body: try Self.body(try apple.token(rawNonce: "n-4"), nonce: "n-4")
            )
            #expect(moved.status == 200 && moved.string("userRecordName") == user, "\(moved.json)")
        }
    }

    @Test("forged, foreign, expired and mismatched tokens are refused")
    func refusals() async throws {
        try await Self.withServer { client, token, apple in
            let cases: [(String, String, String)] = [
                ("a signature by another key", try apple.token(rawNonce: "r1", forgery: .otherKey), "r1"),
                ("alg none", try apple.token(rawNonce: "r2", forgery: .algorithmNone), "r2"),
                ("HS256 signed with the public key", try apple.token(rawNonce: "r3", forgery: .hmacWithPublicKey), "r3"),
                ("another audience", try apple.token(audience: "com.example.Other", rawNonce: "r4"), "r4"),
                ("another issuer", try apple.token(rawNonce: "r5", issuer: "https://evil.example.com"), "r5"),
                ("expired", try apple.token(rawNonce: "r6", expiresIn: -600), "r6"),
                ("the wrong nonce", try apple.token(rawNonce: "r7"), "not-r7"),
                ("an unknown key", try apple.token(rawNonce: "r8", keyID: "key-404"), "r8"),
                ("not a token", "abc.def", "r9"),
            ]
            for (what, identityToken, nonce) in cases {
                let reply = try await client.auth("signin/apple", try Self.body(identityToken, nonce: nonce), token: token)
                #expect(reply.status == 401 && reply.errorCode == "AUTHENTICATION_FAILED", "\(what): \(reply.status) \(reply.json)")
            }
            // Apple rotates its keys: a token under the new key's ID makes the server fetch the set again.
            let before = apple.fetches
            try apple.rotate()
            let rotated = try await client.auth("signin/apple", try Self.body(try apple.token(rawNonce: "r10"), nonce: "r10"), token: token)
            #expect(rotated.status == 201, "\(rotated.json)")
            #expect(apple.fetches == before + 1)
            #expect(try await client.auth("signin/apple", #"{"identityToken":"x","nonce":""}"#, token: token).status == 400)
        }
    }

    @Test("an address with an account is not merged silently; signed in, the same request links Apple, and an anonymous account keeps its data")
    func linking() async throws {
        try await Self.withServer { client, token, apple in
            let password = try #require(try await client.auth("signup", #"{"emailAddress":"ann@example.com","password":"correct horse"}"#, token: token).string("ckWebAuthToken"))
            let refused = try await client.auth("signin/apple", try Self.body(try apple.token(subject: "s-ann", rawNonce: "l1"), nonce: "l1"), token: token)
            #expect(refused.status == 409 && refused.errorCode == "EXISTS", "\(refused.json)")

            // Linking adds a way in: a session older than 5 minutes (a stolen one, say) cannot.
            let stale = try #require(try await client.auth("signin", #"{"emailAddress":"ann@example.com","password":"correct horse"}"#, token: token).string("ckWebAuthToken"))
            let sessions = try await client.authGet("sessions", token: token, session: stale)
            let staleID = try #require(sessions["sessions"]?.arrayValue?.compactMap(\.objectValue).first { $0["current"] == .bool(true) }?["sessionID"]?.stringValue)
            let tables = try #require(client.parts.store as? any SQLTables)
            try await tables.execute(["UPDATE sessions SET created_at = \(.integer(ServerClock.now() - 600_000)) WHERE id = \(.text(staleID))"])
            let old = try await client.auth("signin/apple", try Self.body(try apple.token(subject: "s-ann", rawNonce: "l0"), nonce: "l0"), token: token, session: stale)
            #expect(old.status == 421 && (old.string("reason") ?? "").contains("sign in again"), "\(old.json)")
            #expect(!(old.string("reason") ?? "").contains("password"), "signin/apple takes no password: the refusal names only what works: \(old.json)")
            let linked = try await client.auth("signin/apple", try Self.body(try apple.token(subject: "s-ann", rawNonce: "l2"), nonce: "l2"), token: token, session: password)
            #expect(linked.status == 200, "\(linked.json)")
            let viaApple = try await client.auth("signin/apple", try Self.body(try apple.token(subject: "s-ann", rawNonce: "l3"), nonce: "l3"), token: token)
            #expect(viaApple.string("userRecordName") == linked.string("userRecordName"), "\(viaApple.json)")

            let anonymous = try await client.auth("signup/anonymous", "{}", token: token)
            let anonymousSession = try #require(anonymous.string("ckWebAuthToken"))
            let upgraded = try await client.auth(
                "signin/apple", try Self.body(try apple.token(subject: "s-bob", rawNonce: "l4", email: "bob@example.com"), nonce: "l4"), token: token,
                session: anonymousSession
            )
            #expect(upgraded.status == 200 && upgraded.string("userRecordName") == anonymous.string("userRecordName"), "\(upgraded.json)")
            #expect(try await client.authGet("account", token: token, session: anonymousSession)["anonymous"] == .bool(false))
            // Bob's Apple ID is linked to his account: Ann cannot link it to hers.
            let taken = try await client.auth("signin/apple", try Self.body(try apple.token(subject: "s-bob", rawNonce: "l5"), nonce: "l5"), token: token, session: password)
            #expect(taken.status == 409, "\(taken.json)")

            // Ann's ways in: her password and Apple; she unlinks Apple, and her password still works.
            let methods = try await client.authGet("account/sign-in-methods", token: token, session: password)
            let listed = methods["methods"]?.arrayValue?.compactMap { $0.objectValue?["method"]?.stringValue } ?? []
            #expect(listed == ["password", "apple"], "\(methods.json)")
            let users = try await client.send(.get, "/admin/1/\(TestServer.container)/development/users?search=ann", headers: client.admin)
            #expect(users["users"]?.arrayValue?.first?.objectValue?["identities"] == .array([.string("apple")]), "\(users.json)")
            let unlinked = try await client.auth("account/sign-in-methods/remove", #"{"method":"apple","subject":"s-ann"}"#, token: token, session: password)
            #expect(unlinked.status == 200, "\(unlinked.json)")
            #expect(try await client.auth("account/sign-in-methods/remove", #"{"method":"apple","subject":"s-ann"}"#, token: token, session: password).status == 404)
            // Bob's only way in is Apple: it stays.
            let last = try await client.auth("account/sign-in-methods/remove", #"{"method":"apple","subject":"s-bob"}"#, token: token, session: anonymousSession)
            #expect(last.status == 400 && (last.string("reason") ?? "").contains("only way in"), "\(last.json)")
        }
    }

    @Test("a container without Apple client IDs refuses, saying what to set; client IDs are checked")
    func notConfigured() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let reply = try await client.auth("signin/apple", #"{"identityToken":"a.b.c","nonce":"n"}"#, token: token)
            #expect(reply.status == 400 && (reply.string("reason") ?? "").contains("appleClientIDs"), "\(reply.json)")
            let bad = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"appleClientIDs":["not a bundle"]}"#, headers: client.admin)
            #expect(bad.status == 400, "\(bad.json)")
        }
    }

    @Test("Apple's notifications: relay forwarding noted, consent revoked signs out everywhere, a deleted Apple Account deletes an Apple-only account")
    func serverToServerNotifications() async throws {
        try await Self.withServer { client, token, apple in
            let path = "/apple/1/\(TestServer.container)/notifications"
            let made = try await client.auth(
                "signin/apple", try Self.body(try apple.token(subject: "s-1", rawNonce: "a1", email: "r1@privaterelay.appleid.com", privateEmail: true), nonce: "a1"),
                token: token
            )
            let session = try #require(made.string("ckWebAuthToken"))
            let user = try #require(made.string("userRecordName"))

            let disabled = try await client.send(.post, path, body: try apple.notification(type: "email-disabled", subject: "s-1", email: "r1@privaterelay.appleid.com"))
            #expect(disabled.status == 200, "\(disabled.json)")
            #expect(try await client.authGet("account", token: token, session: session)["emailVerified"] == .bool(false))
            _ = try await client.send(.post, path, body: try apple.notification(type: "email-enabled", subject: "s-1", email: "r1@privaterelay.appleid.com"))
            #expect(try await client.authGet("account", token: token, session: session)["emailVerified"] == .bool(true))

            let forged = try await client.send(.post, path, body: try apple.notification(type: "consent-revoked", subject: "s-1", audience: "com.example.Other"))
            #expect(forged.status == 401, "\(forged.json)")
            #expect(try await client.isSignedIn(session, token: token))
            let revoked = try apple.notification(type: "consent-revoked", subject: "s-1", id: "once")
            #expect(try await client.send(.post, path, body: revoked).status == 200)
            #expect(try await !client.isSignedIn(session, token: token), "a revoked consent signs the user out everywhere")
            let again = try await client.auth("signin/apple", try Self.body(try apple.token(subject: "s-1", rawNonce: "a2"), nonce: "a2"), token: token)
            #expect(again.string("userRecordName") == user, "\(again.json)")
            #expect(try await client.send(.post, path, body: revoked).status == 200, "a notification sent again is answered, and acted on once")
            #expect(try await client.isSignedIn(try #require(again.string("ckWebAuthToken")), token: token))

            #expect(try await client.send(.post, path, body: try apple.notification(type: "account-delete", subject: "s-1")).status == 200)
            let users = try await client.send(.get, "/admin/1/\(TestServer.container)/development/users", headers: client.admin)
            #expect(!"\(users.json)".contains(user), "the Apple-only account is deleted")
            #expect(try await client.send(.post, path, body: #"{"payload":"x.y.z"}"#).status == 401)
            #expect(try await client.send(.post, path, body: try apple.notification(type: "consent-revoked", subject: "nobody")).status == 200)
        }
    }
}
