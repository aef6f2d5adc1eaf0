import Foundation
import StratusStoreTesting

extension SignedInUser {
    /// Registers a passkey made by `authenticator` (whose origin is the server's address) to the user's account,
    /// confirming with `password`.
    func addPasskey(with authenticator: SoftwarePasskeys, password: String = SignedInUser.password) async throws {
        let auth = "/auth/1/\(container)/development"
        let (status, options) = try await server.send("POST", "\(auth)/passkeys/register/options?\(query)", body: #"{"password":"\#(password)"}"#)
        guard status == 200, let rp = (options["rp"] as? [String: Any])?["id"] as? String, let challenge = options["challenge"] as? String,
            let user = (options["user"] as? [String: Any])?["id"] as? String
        else { throw E2EFailure("passkeys/register/options answered \(status): \(options)") }
        let made = authenticator.register(relyingPartyID: rp, challenge: SoftwarePasskeys.bytes(challenge), userHandle: SoftwarePasskeys.bytes(user))
        let credential: [String: Any] = [
            "id": SoftwarePasskeys.base64URL(made.credentialID), "type": "public-key",
            "response": [
                "clientDataJSON": SoftwarePasskeys.base64URL(made.clientDataJSON),
                "attestationObject": SoftwarePasskeys.base64URL(made.attestationObject),
            ],
        ]
        let body = String(decoding: try JSONSerialization.data(withJSONObject: ["credential": credential]), as: UTF8.self)
        let (registered, answer) = try await server.send("POST", "\(auth)/passkeys/register?\(query)", body: body)
        guard registered == 201 else { throw E2EFailure("passkeys/register answered \(registered): \(answer)") }
    }
}
