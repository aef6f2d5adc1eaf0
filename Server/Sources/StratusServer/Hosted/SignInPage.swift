import Foundation
import Hummingbird
import StratusModel
import StratusStore

/// The hosted sign-in page, for web apps in the manner of CloudKit JS: `421 AUTHENTICATION_REQUIRED` names it as its
/// `redirectURL`, and the app opens it with `?redirect=` its own address. The user signs in with a password (then a
/// code from their authenticator app, when they use one) or with a code mailed to them, and the page sends them
/// back to `redirect` with `ckWebAuthToken` added to its query. Only addresses the container allows
/// (``AccountSettings/redirectURLs``) are returned to.
struct SignInPage {
    let server: ServerState
    let accounts: AccountsController

    func register(on router: Router<StratusRequestContext>) {
        router.get("account/1/:container/:environment/signin", use: show)
        router.post("account/1/:container/:environment/signin", use: submit)
    }

    @Sendable func show(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let target = try await self.target(request, context, redirect: request.uri.queryParameters["redirect"].map(String.init))
        guard let redirect = target.redirect else { return target.refusal() }
        return target.page(Self.passwordForm(redirect: redirect, email: "", error: nil))
    }

    @Sendable func submit(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let form = try await HostedPage.form(request)
        let target = try await self.target(request, context, redirect: form["redirect"])
        guard let redirect = target.redirect else { return target.refusal() }
        let email = form["email"] ?? ""
        let authentication = Authentication(container: target.container, environment: target.environment)
        do {
            switch form["step"] {
            case "send-code":
                let normalized = try AccountsController.normalizedEmail(email)
                let client = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
                try await server.mailThrottle.admit(recipient: target.container.id + "|" + normalized, client: client)
                accounts.mailLater(
                    .signIn, to: normalized, containerID: target.container.id, environment: target.environment, languages: [],
                    baseURL: DatabaseCall.baseURL(of: request, server)
                )
                return target.page(Self.codeForm(redirect: redirect, email: normalized, error: nil))
            case "code":
                let code = try await accounts.findCode(.signIn, RedeemCodeRequest(emailAddress: email, code: form["code"]), authentication, request, context)
                return try await signedIn(try await accounts.redeem(code, change: .verifyEmail), target: target, redirect: redirect)
            case "second-factor":
                let body = SecondFactorRequest(secondFactorToken: form["secondFactorToken"], code: form["code"])
                let account = try await accounts.pendingAccount(body, purpose: .verify, authentication)
                try await accounts.checkSecondFactor(body, of: account, request, context)
                return try await session(for: account, redirect: redirect)
            default:
                let account = try await accounts.passwordAccount(email, form["password"] ?? "", container: target.container, request, context)
                return try await signedIn(account, target: target, redirect: redirect)
            }
        } catch let error as APIError {
            let message = error.reason.prefix(1).uppercased() + error.reason.dropFirst() + "."
            switch form["step"] {
            case "code", "send-code":
                return target.page(Self.codeForm(redirect: redirect, email: email, error: message), status: .badRequest)
            case "second-factor":
                return target.page(
                    Self.secondFactorForm(redirect: redirect, token: form["secondFactorToken"] ?? "", error: message), status: .badRequest
                )
            default:
                return target.page(Self.passwordForm(redirect: redirect, email: email, error: message), status: .badRequest)
            }
        }
    }

    /// A right first factor: a code from the authenticator app next, or back to the app.
    private func signedIn(_ account: Account, target: Target, redirect: String) async throws -> Response {
        if account.secondFactor.isTOTPEnabled {
            let token = server.secondFactors.pendingToken(containerID: target.container.id, userRecordName: account.userRecordName, purpose: .verify)
            return target.page(Self.secondFactorForm(redirect: redirect, token: token, error: nil))
        }
        if target.container.accountSettings.secondFactor == .required {
            throw APIError(.authenticationFailed, "set up an authenticator app in the app first, then sign in here")
        }
        return try await session(for: account, redirect: redirect)
    }

    /// Starts a session and sends the browser back to the app with its token.
    private func session(for account: Account, redirect: String) async throws -> Response {
        let token = try await server.authenticator.startSession(for: account, deviceName: "Web browser")
        var location = redirect
        if var components = URLComponents(string: redirect) {
            let items = components.queryItems ?? []
            components.queryItems = items + [URLQueryItem(name: "ckWebAuthToken", value: token)]
            location = components.url?.absoluteString ?? redirect
        }
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    // MARK: - The page

    /// The container, environment and the redirect, when the container allows it.
    struct Target {
        var container: ContainerInfo
        var environment: StratusModel.Environment
        var redirect: String?

        var appName: String { container.accountSettings.appName ?? container.id }

        func page(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
            let origin = redirect.flatMap { URLComponents(string: $0) }.map { url in
                "\(url.scheme ?? "https")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")"
            }
            return HostedPage.render(title: "Sign in to \(appName)", appName: appName, body: body, status: status, formTargets: origin.map { [$0] } ?? [])
        }

        func refusal() -> Response {
            HostedPage.render(
                title: "Sign in from the app", appName: appName,
                body: HostedPage.paragraph("This page sends you back to \(appName) once you are signed in: open it from \(appName)."),
                status: .badRequest
            )
        }
    }

    private func target(_ request: Request, _ context: StratusRequestContext, redirect: String?) async throws -> Target {
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        try await server.store.catchUpEvents()
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let allowed = redirect.flatMap { container.accountSettings.allowsRedirect(to: $0) ? $0 : nil }
        return Target(container: container, environment: environment, redirect: allowed)
    }

    private static func error(_ message: String?) -> String {
        message.map { HostedPage.paragraph($0, class: "error") } ?? ""
    }

    /// One form, two ways in: the password, or (its second button) a code mailed to the address.
    static func passwordForm(redirect: String, email: String, error message: String?) -> String {
        """
        \(error(message))
        <form method="post">\(HostedPage.hidden("redirect", redirect))
        <label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="username" value="\(HostedPage.escape(email))" required autofocus>
        <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
        <button id="sign-in" type="submit" name="step" value="password">Sign in</button>
        <button id="email-code" class="secondary" type="submit" name="step" value="send-code" formnovalidate>Email me a code instead</button></form>
        """
    }

    static func codeForm(redirect: String, email: String, error message: String?) -> String {
        """
        \(error(message))
        \(HostedPage.paragraph("If \(email) has an account, a code is on its way there."))
        <form method="post">\(HostedPage.hidden("redirect", redirect))\(HostedPage.hidden("step", "code"))\(HostedPage.hidden("email", email))
        <label for="code">Code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required autofocus>
        <button type="submit">Sign in</button></form>
        """
    }

    static func secondFactorForm(redirect: String, token: String, error message: String?) -> String {
        """
        \(error(message))
        \(HostedPage.paragraph("Enter the code your authenticator app shows."))
        <form method="post">\(HostedPage.hidden("redirect", redirect))\(HostedPage.hidden("step", "second-factor"))\(HostedPage.hidden("secondFactorToken", token))
        <label for="code">Code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required autofocus>
        <button type="submit">Continue</button></form>
        """
    }
}
