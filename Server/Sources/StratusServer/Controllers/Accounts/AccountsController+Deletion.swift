import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// A user deleting their own account.
extension AccountsController {
    func registerDeletion(on group: RouterGroup<StratusRequestContext>) {
        group.post("account/delete/send", use: sendDeletionCode)
        group.post("account/delete", use: deleteAccount)
    }

    /// How recent a sign-in confirms a deletion by itself, in milliseconds: 5 minutes.
    static let freshSignIn: Int64 = 300_000

    /// `POST account/delete/send` (signed in): mails a code that confirms the deletion. Answers `202 {}`.
    @Sendable func sendDeletionCode(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        guard let email = account.emailAddress, !email.isEmpty else {
            throw APIError.badRequest("this account has no email address: confirm the deletion by signing in again, or at once if it is anonymous")
        }
        let body = try? await RequestBody.decode(MailCodeRequest.self, from: request, limit: RequestLimits.jsonBody)
        try await admitMail(to: email, containerID: account.containerID, request, context)
        try await server.mailer.send(
            .deleteAccount, for: account, to: email, container: authentication.container, environment: authentication.environment,
            languages: Self.languages(body?.language, request), baseURL: DatabaseCall.baseURL(of: request, server)
        )
        return Self.accepted()
    }

    /// `POST account/delete` (signed in) with `{password}` or `{code}`, or nothing within 5 minutes of signing in:
    /// deletes the account at once and for good, on every node. Answers `{deleted: true}`.
    @Sendable func deleteAccount(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(DeleteAccountRequest.self, from: request, limit: RequestLimits.jsonBody)
        if account.isAnonymous {
            // Its session is all that leads to it: holding it is the whole proof.
        } else if let password = body.password {
            try await checkPassword(password, of: account, request, context)
        } else if let typed = body.code {
            let code = try await findCode(.deleteAccount, RedeemCodeRequest(code: typed), authentication, request, context)
            _ = try await redeem(code, change: .none)
        } else {
            guard try await signedInRecently(authentication) else {
                throw APIError(
                    .authenticationRequired,
                    "confirm the deletion with the password, a code (account/delete/send), or within 5 minutes of signing in"
                )
            }
        }
        try await Self.delete(account, store: server.store, container: authentication.container)
        return JSONResponse.make(JSONWriter.object { writer in
            writer.key("deleted")
            writer.bool(true)
        })
    }

    /// Whether the request's session started within ``freshSignIn``.
    func signedInRecently(_ authentication: Authentication) async throws -> Bool {
        guard let id = authentication.sessionID, let session = try await server.store.session(id: id) else { return false }
        return ServerClock.now() - session.createdAt <= Self.freshSignIn
    }

    /// Deletes an account to the end: marked first (every node refuses it at once), then its data, then itself.
    static func delete(_ account: Account, store: any Store, container: ContainerInfo) async throws {
        let begun = try await store.beginAccountDeletion(containerID: account.containerID, userRecordName: account.userRecordName)
        try await AccountDeletion.finish(begun, publicRecords: container.accountSettings.deletedUserPublicRecords, store: store)
    }
}
