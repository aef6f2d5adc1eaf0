import StratusServices
import Crypto
import Foundation
import StratusModel
@testable import StratusServer
import StratusStoreTesting
import Testing

/// TOTP second factors with recovery codes, per account and required per container.
@Suite struct SecondFactorAPITests {
    static let body = #"{"emailAddress":"alice@example.com","password":"correct horse"}"#

    static func authenticatorCode(_ base32: String, step: Int64) -> String {
        SoftwareAuthenticator.code(secret: base32, step: step)
    }

    static var step: Int64 { Int64(Date().timeIntervalSince1970) / 30 }

    @Test("TOTP codes are RFC 6238's, and base32 reads back what it wrote")
    func vectors() {
        let secret = Array("12345678901234567890".utf8)
        #expect(TOTP.code(secret: secret, step: 59 / 30) == "287082")
        #expect(TOTP.code(secret: secret, step: 1_111_111_109 / 30) == "081804")
        #expect(TOTP.code(secret: secret, step: 1_234_567_890 / 30) == "005924")
        #expect(TOTP.code(secret: secret, step: 2_000_000_000 / 30) == "279037")
        #expect(Base32.encode(Array("Hello!".utf8) + [0xde, 0xad, 0xbe, 0xef]) == "JBSWY3DPEHPK3PXP")
        #expect(Base32.decode("jbswy3dpehpk3pxp") == Array("Hello!".utf8) + [0xde, 0xad, 0xbe, 0xef])
        #expect(Base32.decode("not base32!") == nil)
        #expect(Self.authenticatorCode(Base32.encode(secret), step: 1) == "287082")
    }

    @Test("an authenticator app is set up with the password, confirmed, then asked at every sign-in; recovery codes work once")
    func totp() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            let session = try #require(try await client.auth("signup", Self.body, token: token).string("ckWebAuthToken"))
            #expect(try await client.auth("second-factor/totp/setup", #"{"password":"wrong one!"}"#, token: token, session: session).status == 401)
            let setup = try await client.auth("second-factor/totp/setup", #"{"password":"correct horse"}"#, token: token, session: session)
            let secret = try #require(setup.string("secret"), "\(setup.json)")
            #expect(setup.string("otpauthURI")?.hasPrefix("otpauth://totp/") == true && setup.string("otpauthURI")?.contains(secret) == true)
            let wrong = try await client.auth("second-factor/totp/confirm", #"{"code":"000000"}"#, token: token, session: session)
            #expect(wrong.status == 401 || Self.authenticatorCode(secret, step: Self.step) == "000000")
            let step = Self.step
            let confirmed = try await client.auth(
                "second-factor/totp/confirm", #"{"code":"\#(Self.authenticatorCode(secret, step: step))"}"#, token: token, session: session
            )
            guard case .array(let codes)? = confirmed["recoveryCodes"] else { throw TestFailure("\(confirmed.json)") }
            #expect(codes.count == 10)
            let account = try await client.authGet("account", token: token, session: session)
            #expect(account["totpEnabled"] == .bool(true) && account["recoveryCodesLeft"] == .integer(10))

            let first = try await client.auth("signin", Self.body, token: token)
            #expect(first.status == 200 && first["ckWebAuthToken"] == nil && first["secondFactorRequired"] == .bool(true), "\(first.json)")
            let pending = try #require(first.string("secondFactorToken"))
            let tampered = try await client.auth("signin/second-factor", #"{"secondFactorToken":"\#(pending)x","code":"123456"}"#, token: token)
            #expect(tampered.status == 401)
            let reused = try await client.auth(
                "signin/second-factor", #"{"secondFactorToken":"\#(pending)","code":"\#(Self.authenticatorCode(secret, step: step))"}"#, token: token
            )
            #expect(reused.status == 401, "a code works once: \(reused.json)")
            let next = try await client.auth(
                "signin/second-factor", #"{"secondFactorToken":"\#(pending)","code":"\#(Self.authenticatorCode(secret, step: step + 1))","deviceName":"Tablet"}"#,
                token: token
            )
            #expect(next.status == 200 && next.string("ckWebAuthToken") != nil, "\(next.json)")

            let recoveryCode = try #require(codes.first?.stringValue)
            let second = try #require(try await client.auth("signin", Self.body, token: token).string("secondFactorToken"))
            let recovered = try await client.auth("signin/second-factor", #"{"secondFactorToken":"\#(second)","recoveryCode":"\#(recoveryCode.uppercased())"}"#, token: token)
            #expect(recovered.status == 200, "\(recovered.json)")
            let third = try #require(try await client.auth("signin", Self.body, token: token).string("secondFactorToken"))
            let spent = try await client.auth("signin/second-factor", #"{"secondFactorToken":"\#(third)","recoveryCode":"\#(recoveryCode)"}"#, token: token)
            #expect(spent.status == 401)

            let disabled = try await client.auth(
                "second-factor/totp/disable", #"{"password":"correct horse","recoveryCode":"\#(try #require(codes.last?.stringValue))"}"#, token: token, session: session
            )
            #expect(disabled.status == 200, "\(disabled.json)")
            #expect(try await client.auth("signin", Self.body, token: token).string("ckWebAuthToken") != nil)
        }
    }

    @Test("a container that requires a second factor has accounts without one set it up before they get a session")
    func requiredByContainer() async throws {
        try await TestServer.run { client in
            let token = try await client.createContainer()
            #expect(try await client.auth("signup", Self.body, token: token).status == 201)
            let settings = try await client.send(.put, "/admin/1/\(TestServer.container)/accounts/settings", body: #"{"secondFactor":"required"}"#, headers: client.admin)
            #expect(settings.status == 200)
            let signIn = try await client.auth("signin", Self.body, token: token)
            #expect(signIn["ckWebAuthToken"] == nil && signIn["secondFactorSetupRequired"] == .bool(true), "\(signIn.json)")
            let pending = try #require(signIn.string("secondFactorToken"))
            // A setup token does not sign in by itself.
            #expect(try await client.auth("signin/second-factor", #"{"secondFactorToken":"\#(pending)","code":"123456"}"#, token: token).status == 401)
            let setup = try await client.auth("second-factor/totp/setup", #"{"secondFactorToken":"\#(pending)"}"#, token: token)
            let secret = try #require(setup.string("secret"), "\(setup.json)")
            let confirmed = try await client.auth(
                "second-factor/totp/confirm", #"{"secondFactorToken":"\#(pending)","code":"\#(Self.authenticatorCode(secret, step: Self.step))"}"#, token: token
            )
            let session = try #require(confirmed.string("ckWebAuthToken"), "\(confirmed.json)")
            #expect(try await client.isSignedIn(session, token: token))
        }
    }
}
