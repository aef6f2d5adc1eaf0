import Foundation
import StratusModel
@testable import StratusServer
import StratusServices
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Sign-in with a container's OpenID Connect providers, native flow, against a provider played on loopback.
@Suite struct OpenIDProviderAPITests {
    @Test("an ID token from a configured provider signs up, then in; forged, foreign or replayed tokens and unknown providers are refused")
    func nativeFlow() async throws {
        let provider = try FakeAppleID()
        try await TestServer.run(configure: { $0.providerKeysMinimumRefetch = 0 }) { client in
            let token = try await client.createContainer()
            let base = "/admin/1/\(TestServer.container)/accounts/settings"
            for bad in [
                #"{"openIDProviders":[{"name":"Apple","issuer":"https://a.example","clientIDs":["x"]}]}"#,
                #"{"openIDProviders":[{"name":"apple","issuer":"https://a.example","clientIDs":["x"]}]}"#,
                #"{"openIDProviders":[{"name":"acme","issuer":"http://sso.example.com","clientIDs":["x"]}]}"#,
                #"{"openIDProviders":[{"name":"acme","issuer":"https://sso.example.com","clientIDs":[]}]}"#,
            ] {
                #expect(try await client.send(.put, base, body: bad, headers: client.admin).status == 400, "\(bad)")
            }
            let set = try await client.send(
                .put, base, body: #"{"openIDProviders":[{"name":"acme","issuer":"\#(provider.issuer)","clientIDs":["notes-app"]}]}"#, headers: client.admin
            )
            #expect(set.status == 200, "\(set.json)")
            func signIn(_ idToken: String, nonce: String? = nil, session: String? = nil, name: String = "acme") async throws -> Reply {
                try await client.auth("signin/provider/\(name)", try PasskeyAPITests.json(ProviderSignInRequest(idToken: idToken, nonce: nonce, givenName: "Cy")), token: token, session: session)
            }
            let first = try await signIn(try provider.token(subject: "u-1", audience: "notes-app", rawNonce: "o1", email: "cy@example.com", issuer: provider.issuer), nonce: "o1")
            #expect(first.status == 201, "\(first.json)")
            let user = try #require(first.string("userRecordName"))
            let second = try await signIn(try provider.token(subject: "u-1", audience: "notes-app", rawNonce: "o2", issuer: provider.issuer))
            #expect(second.status == 200 && second.string("userRecordName") == user, "without a nonce: \(second.json)")
            let session = try #require(second.string("ckWebAuthToken"))
            let methods = try await client.authGet("account/sign-in-methods", token: token, session: session)
            #expect(methods["methods"]?.arrayValue?.first?.objectValue?["method"] == .string("acme"), "\(methods.json)")

            let replay = try provider.token(subject: "u-1", audience: "notes-app", rawNonce: "o3", issuer: provider.issuer)
            #expect(try await signIn(replay, nonce: "o3").status == 200)
            #expect(try await signIn(replay, nonce: "o3").status == 401, "an ID token works once")
            let refusals: [(String, Reply)] = [
                ("another audience", try await signIn(try provider.token(subject: "u-1", audience: "other-app", rawNonce: "o4", issuer: provider.issuer))),
                ("another issuer", try await signIn(try provider.token(subject: "u-1", audience: "notes-app", rawNonce: "o5"))),
                ("a forged signature", try await signIn(try provider.token(subject: "u-1", audience: "notes-app", rawNonce: "o6", issuer: provider.issuer, forgery: .otherKey))),
                ("the wrong nonce", try await signIn(try provider.token(subject: "u-1", audience: "notes-app", rawNonce: "o7", issuer: provider.issuer), nonce: "o8")),
            ]
            for (what, reply) in refusals {
                #expect(reply.status == 401 && reply.errorCode == "AUTHENTICATION_FAILED", "\(what): \(reply.json)")
            }
            let unknown = try await signIn(try provider.token(subject: "u-1", audience: "notes-app", rawNonce: "o9", issuer: provider.issuer), name: "other")
            #expect(unknown.status == 404, "\(unknown.json)")
            // The same verified address from two providers does not merge: Cy's address has an account.
            let apple = try await client.send(.put, base, body: #"{"appleClientIDs":["com.example.Notes"],"openIDProviders":[{"name":"acme","issuer":"\#(provider.issuer)","clientIDs":["notes-app"]},{"name":"other","issuer":"\#(provider.issuer)","clientIDs":["notes-app"]}]}"#, headers: client.admin)
            #expect(apple.status == 200, "\(apple.json)")
            let inUse = try await client.send(.get, "/admin/1/\(TestServer.container)/accounts/sign-in-methods", headers: client.admin)
            #expect(inUse["methods"] == .object(["acme": .integer(1)]), "\(inUse.json)")
            let merged = try await signIn(try provider.token(subject: "u-9", audience: "notes-app", rawNonce: "o10", email: "cy@example.com", issuer: provider.issuer), name: "other")
            #expect(merged.status == 409 && merged.errorCode == "EXISTS", "\(merged.json)")
        }
    }
}
