import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The ways into an account: its password, its passkeys and its provider identities. A user lists them and unlinks
/// a provider; at least one way in stays.
extension AccountsController {
    func registerSignInMethods(on group: RouterGroup<StratusRequestContext>) {
        group.get("account/sign-in-methods", use: signInMethods)
        group.post("account/sign-in-methods/remove", use: removeSignInMethod)
    }

    /// `GET account/sign-in-methods` (signed in): `{methods: [{method, subject?, emailAddress?, created?}]}`.
    @Sendable func signInMethods(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let account = try await signedInAccount(try await authenticate(request, context))
        var methods: [SignInMethodEntry] = account.hasPassword ? [SignInMethodEntry(method: "password")] : []
        for passkey in try await server.store.passkeys(containerID: account.containerID, userRecordName: account.userRecordName) {
            methods.append(SignInMethodEntry(method: "passkey", subject: passkey.credentialID, created: passkey.createdAt))
        }
        for identity in try await server.store.identities(containerID: account.containerID, userRecordName: account.userRecordName) {
            methods.append(SignInMethodEntry(
                method: identity.provider, subject: identity.subject, emailAddress: identity.emailAddress, created: identity.createdAt
            ))
        }
        return try JSONResponse.make(encoding: SignInMethodsResponse(methods: methods))
    }

    /// `POST account/sign-in-methods/remove` (signed in) with `{method, subject}`: unlinks a provider identity.
    /// - Throws: `BAD_REQUEST` when it is the account's last way in; `NOT_FOUND` for an identity it does not have.
    @Sendable func removeSignInMethod(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(RemoveSignInMethodRequest.self, from: request, limit: RequestLimits.formBody)
        let identities = try await server.store.identities(containerID: account.containerID, userRecordName: account.userRecordName)
        guard identities.contains(where: { $0.provider == body.method && $0.subject == body.subject }) else {
            throw APIError(.notFound, "the account has no \(body.method) sign-in with that subject")
        }
        try Self.requireAnotherWayIn(account, identities: identities.count, removing: "this sign-in")
        try await server.store.removeIdentity(
            containerID: account.containerID, userRecordName: account.userRecordName, provider: body.method, subject: body.subject
        )
        return Self.empty()
    }

    /// How many ways lead into an account: its password, its passkeys and its `identities` provider identities.
    static func waysIn(_ account: Account, identities: Int) -> Int {
        (account.hasPassword ? 1 : 0) + account.passkeyCount + identities
    }

    /// Refuses to remove a way into an account that has no other: a password, passkeys, provider identities.
    static func requireAnotherWayIn(_ account: Account, identities: Int, removing what: String) throws {
        guard waysIn(account, identities: identities) > 1 else {
            throw APIError.badRequest("\(what) is the account's only way in: add another (a password, a passkey or a provider) first")
        }
    }
}
