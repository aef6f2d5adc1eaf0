import StratusServices
import Foundation
import StratusModel
@testable import StratusServer
import StratusStoreTesting
import Testing

/// Passkeys over HTTP, answered by a software authenticator: sign-up without a password, sign-in alone, a second
/// factor, and each check of the ceremonies refusing what it must.
@Suite struct PasskeyAPITests {
    static let origin = "https://app.example.com"
    static let password = #"{"emailAddress":"alice@example.com","password":"correct horse"}"#

    static func withServer(_ body: @escaping @Sendable (TestClient, String) async throws -> Void) async throws {
        try await TestServer.run(configure: { $0.publicURL = Self.origin }) { client in
            try await body(client, try await client.createContainer())
        }
    }

    @Test("an account made with a passkey has no password, and signs in with the passkey alone; a challenge works once")
    func passwordless() async throws {
        try await Self.withServer { client, token in
            let authenticator = SoftwarePasskeys(origin: Self.origin)
            let options: PasskeyCreationOptions = try await client.passkeyStep(
                "signup/passkey/options", #"{"emailAddress":"Alice@Example.com","givenName":"Alice"}"#, token: token
            )
            #expect(options.rp.id == "app.example.com" && options.user.name == "alice@example.com" && options.user.displayName == "Alice")
            #expect(options.pubKeyCredParams.map(\.alg) == [-7] && options.authenticatorSelection.userVerification == "required")
            let credential = authenticator.register(options)
            let made = try await client.auth(
                "signup/passkey", try Self.json(RegisterPasskeyRequest(credential: credential, name: "Phone")), token: token
            )
            #expect(made.status == 201, "\(made.json)")
            let session = try #require(made.string("ckWebAuthToken"))
            let user = try #require(made.string("userRecordName"))
            #expect(SoftwarePasskeys.bytes(options.user.id) == Array(user.utf8))
            let account = try await client.authGet("account", token: token, session: session)
            #expect(account["passkeys"] == .integer(1) && account["hasPassword"] == .bool(false), "\(account.json)")
            let replayed = try await client.auth("signup/passkey", try Self.json(RegisterPasskeyRequest(credential: credential)), token: token)
            #expect(replayed.status == 401 && replayed.errorCode == "AUTHENTICATION_FAILED", "\(replayed.json)")
            let noPassword = try await client.auth("signin", #"{"emailAddress":"alice@example.com","password":""}"#, token: token)
            #expect(noPassword.status == 401)

            let request: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
            #expect(request.allowCredentials.isEmpty && request.userVerification == "required" && request.rpId == "app.example.com")
            let assertion = try #require(authenticator.assert(request))
            let signedIn = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: assertion, deviceName: "Laptop")), token: token)
            #expect(signedIn.status == 200 && signedIn.string("userRecordName") == user, "\(signedIn.json)")
            let second = try #require(signedIn.string("ckWebAuthToken"))
            #expect(try await client.isSignedIn(second, token: token))
            // Without a password, a fresh sign-in confirms the steps that would ask for it.
            let moved = try await client.auth("email/change/send", #"{"newEmailAddress":"alice@new.example"}"#, token: token, session: second)
            #expect(moved.status == 202, "\(moved.json)")
            let totp = try await client.auth("second-factor/totp/setup", "{}", token: token, session: second)
            #expect(totp.status == 200 && totp.string("secret") != nil, "\(totp.json)")
            let again = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: assertion)), token: token)
            #expect(again.status == 401, "an answer to a used challenge is refused: \(again.json)")

            let only = try await client.auth("passkeys/delete", #"{"credentialID":"\#(credential.id)"}"#, token: token, session: second)
            #expect(only.status == 400 && (only.string("reason") ?? "").contains("only way in"), "\(only.json)")
            let listed = try await client.authGet("passkeys", token: token, session: second)
            guard case .array(let passkeys)? = listed["passkeys"], let first = passkeys.first?.objectValue else { throw TestFailure("\(listed.json)") }
            #expect(first["name"] == .string("Phone") && first["credentialID"] == .string(credential.id) && first["lastUsed"] != nil)
            let users = try await client.send(.get, "/admin/1/\(TestServer.container)/development/users", headers: client.admin)
            let listedUser = try #require(users["users"]?.arrayValue?.compactMap(\.objectValue).first { $0["userRecordName"] == .string(user) }, "\(users.json)")
            #expect(listedUser["passkeys"] == .integer(1) && listedUser["hasPassword"] == .bool(false) && listedUser["totpEnabled"] == .bool(false))
            let taken = try await client.auth("signup/passkey/options", #"{"emailAddress":"alice@example.com"}"#, token: token)
            #expect(taken.status == 409 && taken.errorCode == "EXISTS", "\(taken.json)")
        }
    }

    @Test("the ceremonies' checks refuse another origin, relying party or type, no user, a forged signature and a counter going back")
    func refusals() async throws {
        try await Self.withServer { client, token in
            let authenticator = SoftwarePasskeys(origin: Self.origin)
            let options: PasskeyCreationOptions = try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"bob@example.com"}"#, token: token)
            let cases: [(String, SoftwarePasskeys.Tampering)] = [
                ("another origin", .init(origin: "https://evil.example.net")),
                ("another relying party", .init(relyingPartyID: "evil.example.net")),
                ("a sign-in's type", .init(type: "webauthn.get")),
                ("no user verification", .init(userVerified: false)),
                ("no user presence", .init(userPresent: false)),
            ]
            for (what, tampering) in cases {
                // Each attempt uses the challenge up, so each asks for new options.
                let fresh: PasskeyCreationOptions = try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"bob@example.com"}"#, token: token)
                let reply = try await client.auth(
                    "signup/passkey", try Self.json(RegisterPasskeyRequest(credential: authenticator.register(fresh, tampering: tampering))), token: token
                )
                #expect(reply.status == 401 && reply.errorCode == "AUTHENTICATION_FAILED", "\(what): \(reply.json)")
            }
            let unknown = authenticator.register(options, tampering: .init(challenge: SoftwarePasskeys.base64URL(Array(repeating: 7, count: 32))))
            #expect(try await client.auth("signup/passkey", try Self.json(RegisterPasskeyRequest(credential: unknown)), token: token).status == 401)
            var mislabelled = authenticator.register(options)
            mislabelled.id = "AAAA"
            let wrongID = try await client.auth("signup/passkey", try Self.json(RegisterPasskeyRequest(credential: mislabelled)), token: token)
            #expect(wrongID.status == 400, "\(wrongID.json)")
            for body in [
                #"{"credential":{"id":"x","type":"public-key","response":{"clientDataJSON":"not base64!","attestationObject":""}}}"#,
                #"{"credential":{"id":"x","type":"public-key","response":{"clientDataJSON":"e30","attestationObject":"oA"}}}"#,
                #"{"credential":{}}"#,
            ] {
                let reply = try await client.auth("signup/passkey", body, token: token)
                #expect(reply.status == 400 && reply.errorCode == "BAD_REQUEST", "\(body): \(reply.json)")
            }

            // A sign-in challenge does not make an account, nor a sign-up challenge sign in.
            let signIn: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
            let crossed = authenticator.register(try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"bob@example.com"}"#, token: token),
                tampering: .init(challenge: signIn.challenge))
            #expect(try await client.auth("signup/passkey", try Self.json(RegisterPasskeyRequest(credential: crossed)), token: token).status == 401)

            let good: PasskeyCreationOptions = try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"bob@example.com"}"#, token: token)
            let made = try await client.auth("signup/passkey", try Self.json(RegisterPasskeyRequest(credential: authenticator.register(good))), token: token)
            #expect(made.status == 201, "\(made.json)")
            let signInCases: [(String, SoftwarePasskeys.Tampering)] = [
                ("another origin", .init(origin: "http://app.example.com")),
                ("a registration's type", .init(type: "webauthn.create")),
                ("another relying party", .init(relyingPartyID: "example.com")),
                ("no user verification", .init(userVerified: false)),
                ("a signature by another key", .init(signWithOtherKey: true)),
            ]
            for (what, tampering) in signInCases {
                let request: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
                let assertion = try #require(authenticator.assert(request, tampering: tampering))
                let reply = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: assertion)), token: token)
                #expect(reply.status == 401 && reply.errorCode == "AUTHENTICATION_FAILED", "\(what): \(reply.json)")
            }
            let request: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
            let good1 = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: try #require(authenticator.assert(request)))), token: token)
            #expect(good1.status == 200, "\(good1.json)")
            let cloned: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
            let stale = try #require(authenticator.assert(cloned, tampering: .init(counter: 1)))
            let refused = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: stale)), token: token)
            #expect(refused.status == 401 && (refused.string("reason") ?? "").contains("counter"), "\(refused.json)")
        }
    }

    @Test("a passkey added with the password is asked after the password, and needs no user verification there")
    func secondFactor() async throws {
        try await Self.withServer { client, token in
            let authenticator = SoftwarePasskeys(origin: Self.origin, keepsCounter: false)
            let session = try #require(try await client.auth("signup", Self.password, token: token).string("ckWebAuthToken"))
            let wrong = try await client.auth("passkeys/register/options", #"{"password":"wrong horse"}"#, token: token, session: session)
            #expect(wrong.status == 401, "\(wrong.json)")
            let options: PasskeyCreationOptions = try await client.passkeyStep(
                "passkeys/register/options", #"{"password":"correct horse"}"#, token: token, session: session
            )
            let registered = try await client.auth(
                "passkeys/register", try Self.json(RegisterPasskeyRequest(credential: authenticator.register(options), name: "Laptop")), token: token,
                session: session
            )
            #expect(registered.status == 201 && registered["ckWebAuthToken"] == nil, "\(registered.json)")
            let again: PasskeyCreationOptions = try await client.passkeyStep("passkeys/register/options", "{}", token: token, session: session)
            #expect(again.excludeCredentials.map(\.id) == authenticator.credentials.map { SoftwarePasskeys.base64URL($0.id) })

            let first = try await client.auth("signin", Self.password, token: token)
            #expect(first["secondFactorRequired"] == .bool(true) && first["secondFactorMethods"] == .array([.string("passkey")]), "\(first.json)")
            let pending = try #require(first.string("secondFactorToken"))
            let totp = try await client.auth("signin/second-factor", #"{"secondFactorToken":"\#(pending)","code":"123456"}"#, token: token)
            #expect(totp.status == 401, "the account has no authenticator app: \(totp.json)")
            let request: PasskeyRequestOptions = try await client.passkeyStep(
                "signin/passkey/options", #"{"secondFactorToken":"\#(pending)"}"#, token: token
            )
            #expect(request.userVerification == "preferred" && request.allowCredentials.count == 1)
            let assertion = try #require(authenticator.assert(request, tampering: .init(userVerified: false)))
            let finished = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: assertion)), token: token)
            #expect(finished.status == 200 && finished.string("ckWebAuthToken") != nil, "\(finished.json)")

            // Bob's passkey does not finish Alice's sign-in.
            let bobKeys = SoftwarePasskeys(origin: Self.origin)
            let bobOptions: PasskeyCreationOptions = try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"bob@example.com"}"#, token: token)
            #expect(try await client.auth("signup/passkey", try Self.json(RegisterPasskeyRequest(credential: bobKeys.register(bobOptions))), token: token).status == 201)
            let alicePending = try #require(try await client.auth("signin", Self.password, token: token).string("secondFactorToken"))
            var forAlice: PasskeyRequestOptions = try await client.passkeyStep(
                "signin/passkey/options", #"{"secondFactorToken":"\#(alicePending)"}"#, token: token
            )
            forAlice.allowCredentials = []
            let bobs = try #require(bobKeys.assert(forAlice))
            let mixed = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: bobs)), token: token)
            #expect(mixed.status == 401, "\(mixed.json)")

            let credentialID = SoftwarePasskeys.base64URL(try #require(authenticator.credentials.first).id)
            let removed = try await client.auth(
                "passkeys/delete", #"{"credentialID":"\#(credentialID)","password":"correct horse"}"#, token: token, session: session
            )
            #expect(removed.status == 200, "\(removed.json)")
            #expect(try await client.auth("signin", Self.password, token: token).string("ckWebAuthToken") != nil)
            let missing = try await client.auth("passkeys/delete", #"{"credentialID":"\#(credentialID)"}"#, token: token, session: session)
            #expect(missing.status == 404, "\(missing.json)")
        }
    }

    @Test("a container that requires a second factor lets a passkey be it, and the registration signs in")
    func requiredSecondFactor() async throws {
        try await Self.withServer { client, token in
            #expect(try await client.auth("signup", Self.password, token: token).status == 201)
            let settings = try await client.send(
                .put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"secondFactor":"required"}"#, headers: client.admin
            )
            #expect(settings.status == 200, "\(settings.json)")
            let first = try await client.auth("signin", Self.password, token: token)
            #expect(first["secondFactorSetupRequired"] == .bool(true), "\(first.json)")
            let pending = try #require(first.string("secondFactorToken"))
            let options: PasskeyCreationOptions = try await client.passkeyStep(
                "passkeys/register/options", #"{"secondFactorToken":"\#(pending)"}"#, token: token
            )
            let authenticator = SoftwarePasskeys(origin: Self.origin)
            let registered = try await client.auth(
                "passkeys/register", try Self.json(RegisterPasskeyRequest(credential: authenticator.register(options), deviceName: "Phone")), token: token
            )
            #expect(registered.status == 201 && registered.string("ckWebAuthToken") != nil, "\(registered.json)")
            #expect(try await client.auth("signin", Self.password, token: token)["secondFactorRequired"] == .bool(true))
        }
    }

    @Test("a container's relying party ID and origins decide where its passkeys work; removed or disabled, a passkey is refused")
    func relyingPartySettings() async throws {
        try await Self.withServer { client, token in
            let base = "/admin/1/\(TestServer.container)/accounts/settings"
            for bad in [#"{"passkeyRelyingPartyID":"https://example.com"}"#, #"{"passkeyOrigins":["https://example.com/path"]}"#, #"{"passkeyOrigins":["example.com"]}"#] {
                let reply = try await client.send(.put, base, body: bad, headers: client.admin)
                #expect(reply.status == 400 && reply.errorCode == "BAD_REQUEST", "\(bad): \(reply.json)")
            }
            let set = try await client.send(
                .put, base, body: #"{"passkeyRelyingPartyID":"Example.com","passkeyOrigins":["https://web.example.com","android:apk-key-hash:abc"]}"#,
                headers: client.admin
            )
            #expect(set.status == 200, "\(set.json)")
            let web = SoftwarePasskeys(origin: "https://web.example.com")
            let options: PasskeyCreationOptions = try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"carol@example.com"}"#, token: token)
            #expect(options.rp.id == "example.com")
            let made = try await client.auth("signup/passkey", try Self.json(RegisterPasskeyRequest(credential: web.register(options))), token: token)
            #expect(made.status == 201, "\(made.json)")
            let user = try #require(made.string("userRecordName"))
            for origin in ["https://example.com", "android:apk-key-hash:abc", Self.origin] {
                let request: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
                let assertion = try #require(web.assert(request, tampering: .init(origin: origin)))
                let reply = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: assertion)), token: token)
                #expect(reply.status == 200, "\(origin): \(reply.json)")
            }
            let request: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
            let elsewhere = try #require(web.assert(request, tampering: .init(origin: "https://example.org")))
            #expect(try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: elsewhere)), token: token).status == 401)

            // An operator removes the second factors of a user who lost them: the passkey no longer signs in.
            let removed = try await client.send(.post, "/admin/1/\(TestServer.container)/development/users/\(user)/second-factors/remove", headers: client.admin)
            #expect(removed.status == 200 && removed["passkeys"] == .integer(0), "\(removed.json)")
            let gone: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
            let refusedGone = try await client.auth("signin/passkey", try Self.json(PasskeySignInRequest(credential: try #require(web.assert(gone)))), token: token)
            #expect(refusedGone.status == 401 && (refusedGone.string("reason") ?? "").contains("not registered"), "\(refusedGone.json)")
            let unknownUser = try await client.send(.post, "/admin/1/\(TestServer.container)/development/users/_nobody/second-factors/remove", headers: client.admin)
            #expect(unknownUser.status == 404, "\(unknownUser.json)")
            let again: PasskeyCreationOptions = try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"dan@example.com"}"#, token: token)
            let dan = try #require(try await client.auth("signup/passkey", try Self.json(RegisterPasskeyRequest(credential: web.register(again))), token: token)
                .string("userRecordName"))

            let disabled = try await client.send(.post, "/admin/1/\(TestServer.container)/development/users/\(dan)/disable", headers: client.admin)
            #expect(disabled.status == 200, "\(disabled.json)")
            let afterwards: PasskeyRequestOptions = try await client.passkeyStep("signin/passkey/options", "{}", token: token)
            let refused = try await client.auth(
                "signin/passkey", try Self.json(PasskeySignInRequest(credential: try #require(web.assert(afterwards)))), token: token
            )
            #expect(refused.status == 401 && (refused.string("reason") ?? "").contains("disabled"), "\(refused.json)")
        }
    }

    static func json(_ value: some Encodable) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }
}

extension TestClient {
    /// A passkey step's answer, decoded as `T`.
    func passkeyStep<T: Decodable>(_ path: String, _ body: String, token: String, session: String? = nil) async throws -> T {
        let reply = try await auth(path, body, token: token, session: session)
        guard reply.status == 200 else { throw TestFailure("\(path) answered \(reply.status): \(reply.json)") }
        var writer = JSONWriter()
        reply.json.write(to: &writer)
        return try JSONDecoder().decode(T.self, from: Data(writer.text.utf8))
    }
}

/// The files that let apps use a container's passkeys.
@Suite struct AssociatedDomainsAPITests {
    @Test("the server lists its containers' Apple and Android apps for their passkeys' domain, and an Android app's origin signs in")
    func wellKnownFiles() async throws {
        try await TestServer.run(configure: { $0.publicURL = "https://login.example.com" }) { client in
            let token = try await client.createContainer()
            #expect(try await client.send(.get, "/.well-known/apple-app-site-association").status == 404)
            let base = "/admin/1/\(TestServer.container)/accounts/settings"
            for bad in [
                #"{"passkeyAppleAppIDs":["com.example.Notes"]}"#,
                #"{"passkeyAndroidApps":[{"packageName":"notes","sha256CertFingerprints":["00"]}]}"#,
                #"{"passkeyAndroidApps":[{"packageName":"com.example.notes","sha256CertFingerprints":["zz"]}]}"#,
            ] {
                let reply = try await client.send(.put, base, body: bad, headers: client.admin)
                #expect(reply.status == 400 && reply.errorCode == "BAD_REQUEST", "\(bad): \(reply.json)")
            }
            let fingerprint = (0..<32).map { String(format: "%02x", $0 * 7 % 256) }.joined()
            let set = try await client.send(
                .put, base,
                body: #"{"passkeyAppleAppIDs":["ABCDE12345.com.example.Notes"],"passkeyAndroidApps":[{"packageName":"com.example.notes","sha256CertFingerprints":["\#(fingerprint)"]}]}"#,
                headers: client.admin
            )
            #expect(set.status == 200, "\(set.json)")
            let keytoolStyle = (0..<32).map { String(format: "%02X", $0 * 7 % 256) }.joined(separator: ":")
            #expect(set["passkeyAndroidApps"]?.arrayValue?.first?.objectValue?["sha256CertFingerprints"] == .array([.string(keytoolStyle)]))

            let apple = try await client.send(.get, "/.well-known/apple-app-site-association")
            #expect(apple.status == 200 && apple["webcredentials"]?.objectValue?["apps"] == .array([.string("ABCDE12345.com.example.Notes")]), "\(apple.json)")
            let android = try await client.send(.get, "/.well-known/assetlinks.json")
            let statement = try #require(android.json.arrayValue?.first?.objectValue, "\(android.json)")
            #expect(statement["target"]?.objectValue?["package_name"] == .string("com.example.notes"))
            #expect(statement["relation"]?.arrayValue?.contains(.string("delegate_permission/common.get_login_creds")) == true)

            // The app's origin is its certificate's hash.
            let bytes = (0..<32).map { UInt8($0 * 7 % 256) }
            let app = SoftwarePasskeys(origin: "android:apk-key-hash:" + SoftwarePasskeys.base64URL(bytes))
            let options: PasskeyCreationOptions = try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"gus@example.com"}"#, token: token)
            let made = try await client.auth("signup/passkey", try PasskeyAPITests.json(RegisterPasskeyRequest(credential: app.register(options))), token: token)
            #expect(made.status == 201, "\(made.json)")
            let other = SoftwarePasskeys(origin: "android:apk-key-hash:" + SoftwarePasskeys.base64URL(Array(repeating: 1, count: 32)))
            let refused: PasskeyCreationOptions = try await client.passkeyStep("signup/passkey/options", #"{"emailAddress":"hal@example.com"}"#, token: token)
            #expect(try await client.auth("signup/passkey", try PasskeyAPITests.json(RegisterPasskeyRequest(credential: other.register(refused))), token: token).status == 401)

            // Another domain's containers are not listed.
            let elsewhere = try await client.send(.put, base, body: #"{"passkeyRelyingPartyID":"example.org","passkeyAppleAppIDs":["ABCDE12345.com.example.Notes"]}"#, headers: client.admin)
            #expect(elsewhere.status == 200)
            #expect(try await client.send(.get, "/.well-known/apple-app-site-association").status == 404)
        }
    }
}
