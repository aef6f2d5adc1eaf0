import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The pages the links in account mail open: `GET /account/1/{container}/{environment}/link?token=…` shows what
/// the link does, and its form `POST`s it, so that a mail scanner following links uses nothing up.
///
/// A verification or a change of address is confirmed with a button; a reset asks for the new password; a
/// sign-in or a deletion code is entered in the app, and its link says so.
struct AccountLinksController {
    let server: ServerState

    func register(on router: Router<StratusRequestContext>) {
        router.get("account/1/:container/:environment/link", use: show)
        router.post("account/1/:container/:environment/link", use: submit)
    }

    @Sendable func show(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (container, token) = try await target(request, context, form: nil)
        let appName = container.accountSettings.displayName(containerID: container.id)
        guard let code = try await liveCode(token, container: container) else { return Self.expired(appName) }
        let hidden = HostedPage.hidden("token", token)
        switch code.purpose {
        case .verifyEmail:
            let address = try await server.store.account(containerID: container.id, userRecordName: code.userRecordName)?.emailAddress ?? ""
            return HostedPage.render(title: "Confirm your email address", appName: appName, body: """
                \(HostedPage.paragraph("Confirm that \(address) is yours."))
                <form method="post">\(hidden)<button type="submit">Confirm</button></form>
                """)
        case .resetPassword:
            return HostedPage.render(title: "Choose a new password", appName: appName, body: Self.passwordForm(hidden: hidden, error: nil))
        case .changeEmail:
            return HostedPage.render(title: "Confirm your new email address", appName: appName, body: """
                \(HostedPage.paragraph("Make \(code.newEmailAddress ?? "") the address of your \(appName) account."))
                <form method="post">\(hidden)<button type="submit">Confirm</button></form>
                """)
        case .signIn, .deleteAccount:
            return HostedPage.render(
                title: "Enter the code in \(appName)", appName: appName,
                body: HostedPage.paragraph("This step happens in \(appName): enter the code from the message there.")
            )
        }
    }

    @Sendable func submit(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let form = try await HostedPage.form(request)
        let (container, token) = try await target(request, context, form: form)
        let appName = container.accountSettings.displayName(containerID: container.id)
        guard let code = try await liveCode(token, container: container) else { return Self.expired(appName) }
        if let account = try await server.store.account(containerID: container.id, userRecordName: code.userRecordName), account.isDisabled {
            return HostedPage.render(title: "This account is disabled", appName: appName, body: "", status: .forbidden)
        }
        do {
            switch code.purpose {
            case .verifyEmail:
                try await server.store.redeemAccountCode(id: code.id, now: ServerClock.now(), change: .verifyEmail)
                return HostedPage.render(
                    title: "Your email address is confirmed", appName: appName, body: HostedPage.paragraph("You can go back to \(appName).")
                )
            case .resetPassword:
                let password = form["newPassword"] ?? ""
                let hidden = HostedPage.hidden("token", token)
                if let refusal = PasswordPolicy.user.refusal(of: password) {
                    return HostedPage.render(
                        title: "Choose a new password", appName: appName,
                        body: Self.passwordForm(hidden: hidden, error: "The password \(refusal)."), status: .badRequest
                    )
                }
                guard password == form["confirmPassword"] else {
                    return HostedPage.render(
                        title: "Choose a new password", appName: appName,
                        body: Self.passwordForm(hidden: hidden, error: "The two passwords differ."), status: .badRequest
                    )
                }
                let hash = try server.passwordHasher.hash(password)
                try await server.store.redeemAccountCode(id: code.id, now: ServerClock.now(), change: .password(hash: hash, keepingSession: nil))
                return HostedPage.render(
                    title: "Your password is changed", appName: appName,
                    body: HostedPage.paragraph("Every device was signed out: sign in to \(appName) again with the new password.")
                )
            case .changeEmail:
                guard let address = code.newEmailAddress else { return Self.expired(appName) }
                try await server.store.redeemAccountCode(id: code.id, now: ServerClock.now(), change: .emailAddress(address))
                return HostedPage.render(
                    title: "Your email address is changed", appName: appName, body: HostedPage.paragraph("Sign in to \(appName) with \(address) from now on.")
                )
            case .signIn, .deleteAccount:
                return try await show(request, context: context)
            }
        } catch let error as StorageError where error.code == .notFound {
            return Self.expired(appName)
        } catch let error as StorageError where error.code == .alreadyExists {
            return HostedPage.render(
                title: "That address has an account already", appName: appName, body: HostedPage.paragraph(error.message), status: .conflict
            )
        }
    }

    /// The container the path names and the link's token (from the form, else the query).
    private func target(_ request: Request, _ context: StratusRequestContext, form: [String: String]?) async throws -> (ContainerInfo, String) {
        _ = try Authenticator.environment(named: try context.parameters.require("environment"))
        try await server.store.catchUpEvents()
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let token = form?["token"] ?? request.uri.queryParameters["token"].map(String.init) ?? ""
        return (container, token)
    }

    private func liveCode(_ token: String, container: ContainerInfo) async throws -> AccountCode? {
        guard !token.isEmpty, token.utf8.count <= 200 else { return nil }
        return try await server.store.accountCode(containerID: container.id, linkHash: server.mailer.hash(token), now: ServerClock.now())
    }

    private static func expired(_ appName: String) -> Response {
        HostedPage.render(
            title: "This link no longer works", appName: appName,
            body: HostedPage.paragraph("It was used already, has expired, or a newer message replaced it. Ask \(appName) for a new one."),
            status: .badRequest
        )
    }

    private static func passwordForm(hidden: String, error: String?) -> String {
        """
        \(error.map { HostedPage.paragraph($0, class: "error") } ?? "")
        <form method="post">\(hidden)
        <label for="newPassword">New password</label><input id="newPassword" name="newPassword" type="password" autocomplete="new-password" minlength="8" required autofocus>
        <label for="confirmPassword">Again</label><input id="confirmPassword" name="confirmPassword" type="password" autocomplete="new-password" minlength="8" required>
        <button type="submit">Change the password</button></form>
        """
    }
}
