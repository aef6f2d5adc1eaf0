import Foundation
import StratusKit
import StratusStoreTesting
import Testing

/// StratusKit's passkey calls against a server, answered by a software authenticator as an app's
/// `ASAuthorization` calls would be.
@Suite struct PasskeyTests {
    /// Makes a passkey for options, as `ASAuthorizationPlatformPublicKeyCredentialProvider` would.
    static func make(_ options: Container.PasskeyRegistrationOptions, with authenticator: SoftwarePasskeys) -> Container.NewPasskey {
        let made = authenticator.register(relyingPartyID: options.relyingPartyID, challenge: Array(options.challenge), userHandle: Array(options.userID))
        return Container.NewPasskey(
            credentialID: Data(made.credentialID), clientDataJSON: Data(made.clientDataJSON), attestationObject: Data(made.attestationObject)
        )
    }

    static func sign(_ options: Container.PasskeyAssertionOptions, with authenticator: SoftwarePasskeys) throws -> Container.PasskeySignature {
        let signed = try #require(authenticator.sign(
            relyingPartyID: options.relyingPartyID, challenge: Array(options.challenge), allowing: options.allowedCredentialIDs.map(Array.init)
        ))
        return Container.PasskeySignature(
            credentialID: Data(signed.credentialID), clientDataJSON: Data(signed.clientDataJSON), authenticatorData: Data(signed.authenticatorData),
            signature: Data(signed.signature), userID: Data(signed.userHandle)
        )
    }

    @Test("an account made with a passkey signs in with it on another device, lists it, and adds a second")
    func passwordless() async throws {
        try await KitTestServer.run { server in
            let origin = server.url.absoluteString.hasSuffix("/") ? String(server.url.absoluteString.dropLast()) : server.url.absoluteString
            let authenticator = SoftwarePasskeys(origin: origin, keepsCounter: false)
            let phone = server.container()
            let options = try await phone.passkeySignUpOptions(email: "dana@example.com", givenName: "Dana")
            #expect(options.userName == "dana@example.com" && options.displayName == "Dana")
            let user = try await phone.signUp(with: Self.make(options, with: authenticator), passkeyName: "Phone")
            #expect(phone.isSignedIn)
            #expect(Data(user.recordName.utf8) == options.userID)
            let account = try await phone.account()
            #expect(account.passkeyCount == 1 && !account.hasPassword)

            let laptop = server.container()
            let request = try await laptop.passkeySignInOptions()
            #expect(request.allowedCredentialIDs.isEmpty && request.userVerificationRequired)
            let signedIn = try await laptop.signIn(with: Self.sign(request, with: authenticator), deviceName: "Laptop")
            #expect(signedIn == user && laptop.isSignedIn)

            let more = try await laptop.passkeyRegistrationOptions()
            #expect(more.excludedCredentialIDs.count == 1)
            let added = try await laptop.addPasskey(Self.make(more, with: authenticator), name: "Laptop")
            #expect(added.name == "Laptop" && added.isBackedUp)
            let listed = try await laptop.passkeys()
            #expect(listed.map(\.name) == ["Phone", "Laptop"] && listed[0].lastUsed != nil)
            try await laptop.removePasskey(id: added.id)
            #expect(try await laptop.passkeys().map(\.name) == ["Phone"])
        }
    }

    @Test("a passkey finishes a password sign-in that asks for a second factor")
    func secondFactor() async throws {
        try await KitTestServer.run { server in
            let origin = server.url.absoluteString.hasSuffix("/") ? String(server.url.absoluteString.dropLast()) : server.url.absoluteString
            let authenticator = SoftwarePasskeys(origin: origin)
            let phone = server.container()
            try await phone.signUp(email: "eve@example.com", password: "correct horse battery")
            try await phone.addPasskey(Self.make(try await phone.passkeyRegistrationOptions(password: "correct horse battery"), with: authenticator))

            let laptop = server.container()
            let refusal = await #expect(throws: StratusError.self) {
                try await laptop.signIn(email: "eve@example.com", password: "correct horse battery")
            }
            #expect(refusal?.serverErrorCode == "SECOND_FACTOR_REQUIRED" && refusal?.secondFactorMethods == ["passkey"], "\(String(describing: refusal))")
            let request = try await laptop.passkeySignInOptions(secondFactorToken: try #require(refusal?.secondFactorToken))
            #expect(request.allowedCredentialIDs.count == 1 && !request.userVerificationRequired)
            try await laptop.signIn(with: Self.sign(request, with: authenticator))
            #expect(laptop.isSignedIn)
        }
    }
}
