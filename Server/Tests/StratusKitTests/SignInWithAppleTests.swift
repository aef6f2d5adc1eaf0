import Foundation
import StratusKit
import StratusTestSupport
import Testing

/// StratusKit's Sign in with Apple against a server whose Apple is played on loopback.
@Suite struct SignInWithAppleTests {
    @Test("an app signs in with what Apple gave it, on two devices to one account; an anonymous account links Apple and keeps its data")
    func signInAndLink() async throws {
        let apple = try FakeAppleID()
        try await KitTestServer.run(configure: { $0.appleKeysURL = apple.keysURL }) { server in
            let settings = try await server.admin.send(
                "PUT", "/admin/1/\(KitTestServer.container)/accounts/settings", json: ["appleClientIDs": ["com.example.Notes"]]
            )
            #expect(settings.status == 200)
            let phone = server.container()
            let token = try apple.token(subject: "apple-ann", rawNonce: "phone-nonce")
            let user = try await phone.signInWithApple(identityToken: Data(token.utf8), nonce: "phone-nonce", givenName: "Ann", familyName: "Lee")
            #expect(phone.isSignedIn)
            #expect(try await phone.account().givenName == "Ann")
            let laptop = server.container()
            let again = try await laptop.signInWithApple(identityToken: Data(try apple.token(subject: "apple-ann", rawNonce: "laptop").utf8), nonce: "laptop")
            #expect(again == user)
            #expect(try await laptop.signInMethods().map(\.method) == ["apple"])
            await #expect(throws: StratusError.self) { try await laptop.removeSignInMethod("apple", subject: "apple-ann") }

            let tablet = server.container()
            let anonymous = try await tablet.signUpAnonymously()
            let linked = try await tablet.signInWithApple(
                identityToken: Data(try apple.token(subject: "apple-bob", rawNonce: "tablet", email: "bob@example.com").utf8), nonce: "tablet"
            )
            #expect(linked == anonymous)
            #expect(try await !tablet.account().isAnonymous)

            // The same server plays a company's OpenID provider.
            let provider = try await server.admin.send(
                "PUT", "/admin/1/\(KitTestServer.container)/accounts/settings",
                json: ["appleClientIDs": ["com.example.Notes"], "openIDProviders": [["name": "acme", "issuer": apple.issuer, "clientIDs": ["notes"]]]]
            )
            #expect(provider.status == 200)
            let desktop = server.container()
            let viaProvider = try await desktop.signIn(
                provider: "acme", idToken: try apple.token(subject: "emp-7", audience: "notes", rawNonce: "d1", email: "emp7@example.com", issuer: apple.issuer), nonce: "d1"
            )
            #expect(desktop.isSignedIn && viaProvider != user)
            #expect(try await desktop.signInMethods().map(\.method) == ["acme"])
        }
    }
}
