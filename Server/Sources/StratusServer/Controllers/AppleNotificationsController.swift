import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Sign in with Apple's server-to-server notifications, at `POST /apple/1/{container}/notifications` (the URL given in
/// Apple's developer account): a JSON body `{"payload": JWT}` signed by Apple, whose `events` claim says what a user
/// changed. Stratus acts on it and answers `200`, which stops Apple's retries.
struct AppleNotificationsController {
    let server: ServerState

    func register(on router: Router<StratusRequestContext>) {
        router.post("apple/1/:container/notifications", use: receive)
    }

    private struct Body: Decodable {
        var payload: String
    }

    @Sendable func receive(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await server.store.catchUpEvents()
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let clientIDs = container.accountSettings.appleClientIDs
        guard !clientIDs.isEmpty else { throw APIError.badRequest("Sign in with Apple is not set up for this container (appleClientIDs)") }
        let body = try await RequestBody.decode(Body.self, from: request, limit: RequestLimits.jsonBody)
        let jwt = try await server.idTokens.verifiedToken(
            body.payload,
            IDTokenVerifier.Expectation(issuer: AppleTokens.issuer, audiences: clientIDs, keysURL: server.configuration.appleKeysURL)
        )
        guard let text = jwt.string("events"), let event = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let type = event["type"] as? String, let subject = event["sub"] as? String
        else {
            throw APIError.badRequest("the notification's events claim is not an event with a type and a subject")
        }
        // Apple sends a notification again until it is answered 200: each is acted on once.
        if let id = jwt.string("jti") {
            let expires = (jwt.seconds("exp") ?? ServerClock.now() / 1000 + 86_400) * 1000
            guard try await server.store.markSignatureSeen("apple-notification|" + container.id + "|" + id, expiresAt: expires, now: ServerClock.now())
            else { return AccountsController.empty() }
        }
        guard let identity = try await server.store.identity(containerID: container.id, provider: "apple", subject: subject),
            let account = try await server.store.account(containerID: container.id, userRecordName: identity.userRecordName)
        else { return AccountsController.empty() }
        try await act(on: type, event: event, identity: identity, account: account, container: container)
        return AccountsController.empty()
    }

    /// What each event does: the relay address's forwarding is noted; a revoked consent signs the user out
    /// everywhere; a deleted Apple Account deletes the Stratus account when Apple was its only way in, and unlinks
    /// Apple otherwise.
    private func act(on type: String, event: [String: Any], identity: AccountIdentity, account: Account, container: ContainerInfo) async throws {
        switch type {
        case "email-disabled", "email-enabled":
            var changed = identity
            let forwarding = type == "email-enabled"
            changed.isEmailVerified = forwarding
            changed.emailAddress = (event["email"] as? String)?.lowercased() ?? identity.emailAddress
            try await server.store.updateIdentity(changed)
            if let email = changed.emailAddress, account.emailAddress == email {
                try await server.store.changeAccount(
                    containerID: account.containerID, userRecordName: account.userRecordName, change: forwarding ? .verifyEmail : .unverifyEmail
                )
            }
        case "consent-revoked":
            try await server.store.endSessions(containerID: account.containerID, userRecordName: account.userRecordName, keeping: nil)
        case "account-delete", "account-deleted":
            let identities = try await server.store.identities(containerID: account.containerID, userRecordName: account.userRecordName)
            if AccountsController.waysIn(account, identities: identities.count) <= 1 {
                try await AccountsController.delete(account, store: server.store, container: container)
            } else {
                try await server.store.removeIdentity(
                    containerID: account.containerID, userRecordName: account.userRecordName, provider: "apple", subject: identity.subject
                )
                try await server.store.endSessions(containerID: account.containerID, userRecordName: account.userRecordName, keeping: nil)
            }
        default:
            break
        }
    }
}
