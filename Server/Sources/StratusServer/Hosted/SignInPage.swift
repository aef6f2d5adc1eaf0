import Foundation
import Hummingbird
import StratusModel
import StratusStore

/// The hosted sign-in page, for web apps in the manner of CloudKit JS: `421 AUTHENTICATION_REQUIRED` names it as its
/// `redirectURL`, and the app opens it with `?redirect=` its own address. The user signs in with a passkey, a
/// password or a code mailed to them (then a second factor, when they have one: a code from their authenticator
/// app, or a passkey), and the page sends them
/// back to `redirect` with `ckWebAuthToken` added to its query. Only addresses the container allows
/// (``AccountSettings/redirectURLs``) are returned to.
struct SignInPage {
    let server: ServerState
    let accounts: AccountsController

    func register(on router: Router<StratusRequestContext>) {
        router.get("account/1/:container/:environment/signin", use: show)
        router.post("account/1/:container/:environment/signin", use: submit)
        router.post("account/1/:container/:environment/signin/passkey/options", use: passkeyOptions)
        router.get(RouterPath(stringLiteral: String(PasskeyScript.path.dropFirst())), use: PasskeyScript.serve)
    }

    /// `POST …/signin/passkey/options` with `{secondFactorToken?}`, from the page's script: options for the browser's
    /// authenticator, as the API's `signin/passkey/options` answers them.
    @Sendable func passkeyOptions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let target = try await self.target(request, context, redirect: nil)
        let body = try await RequestBody.decode(PasskeySignInOptionsRequest.self, from: request, limit: 16 * 1024)
        let authentication = Authentication(container: target.container, environment: target.environment)
        return try JSONResponse.make(encoding: try await accounts.passkeyRequestOptions(secondFactorToken: body.secondFactorToken, authentication, request))
    }

    @Sendable func show(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let target = try await self.target(request, context, redirect: request.uri.queryParameters["redirect"].map(String.init))
        guard let redirect = target.redirect else { return target.refusal() }
        return target.page(Self.passwordForm(redirect: redirect, email: "", error: nil, target: target))
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
            case "passkey":
                let credential = try RequestBody.decode(PasskeyAssertion.self, from: Array((form["credential"] ?? "").utf8))
                return try await session(for: try await accounts.passkeyAccount(credential, authentication, request), redirect: redirect)
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
            // A failed second factor (a code, or a passkey after the password) shows the second factor's form again.
            let secondFactor = form["step"] == "second-factor" || (form["step"] == "passkey" && form["secondFactorToken"] != nil)
            switch form["step"] {
            case "code", "send-code":
                return target.page(Self.codeForm(redirect: redirect, email: email, error: message), status: .badRequest)
            case _ where secondFactor:
                let token = form["secondFactorToken"] ?? ""
                let pending = server.secondFactors.pending(token, containerID: target.container.id)
                var account: Account?
                if let pending { account = try await server.store.account(containerID: pending.containerID, userRecordName: pending.userRecordName) }
                return target.page(
                    Self.secondFactorForm(redirect: redirect, token: token, account: account, error: message, target: target), status: .badRequest
                )
            default:
                return target.page(Self.passwordForm(redirect: redirect, email: email, error: message, target: target), status: .badRequest)
            }
        }
    }

    /// A right first factor: a second factor next (a code from the authenticator app or a passkey), or back to the app.
    func signedIn(_ account: Account, target: Target, redirect: String) async throws -> Response {
        if account.hasSecondFactor {
            let token = server.secondFactors.pendingToken(containerID: target.container.id, userRecordName: account.userRecordName, purpose: .verify)
            return target.page(Self.secondFactorForm(redirect: redirect, token: token, account: account, error: nil, target: target))
        }
        if target.container.accountSettings.secondFactor == .required {
            throw APIError(.authenticationFailed, "set up an authenticator app or a passkey in the app first, then sign in here")
        }
        return try await session(for: account, redirect: redirect)
    }

    /// Starts a session and sends the browser back to the app with its token.
    func session(for account: Account, redirect: String) async throws -> Response {
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

        var appName: String { container.accountSettings.displayName(containerID: container.id) }

        /// Where the page's script asks for passkey options.
        var passkeyOptionsPath: String { "/account/1/\(container.id)/\(environment.rawValue)/signin/passkey/options" }

        func page(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
            let origin = redirect.flatMap { URLComponents(string: $0) }.map { url in
                "\(url.scheme ?? "https")://\(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")"
            }
            return HostedPage.render(
                title: "Sign in to \(appName)", appName: appName, body: body, status: status, formTargets: origin.map { [$0] } ?? [], script: true
            )
        }

        func refusal() -> Response {
            HostedPage.render(
                title: "Sign in from the app", appName: appName,
                body: HostedPage.paragraph("This page sends you back to \(appName) once you are signed in: open it from \(appName)."),
                status: .badRequest
            )
        }
    }

    func target(_ request: Request, _ context: StratusRequestContext, redirect: String?) async throws -> Target {
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        try await server.store.catchUpEvents()
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let allowed = redirect.flatMap { container.accountSettings.allowsRedirect(to: $0) ? $0 : nil }
        return Target(container: container, environment: environment, redirect: allowed)
    }

    private static func error(_ message: String?) -> String {
        message.map { HostedPage.paragraph($0, class: "error") } ?? ""
    }

    /// One form, two ways in: the password, or (its second button) a code mailed to the address; and a passkey.
    static func passwordForm(redirect: String, email: String, error message: String?, target: Target) -> String {
        """
        \(error(message))
        <form method="post">\(HostedPage.hidden("redirect", redirect))
        <label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="username webauthn" value="\(HostedPage.escape(email))" required autofocus>
        <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
        <button id="sign-in" type="submit" name="step" value="password">Sign in</button>
        <button id="email-code" class="secondary" type="submit" name="step" value="send-code" formnovalidate>Email me a code instead</button></form>
        \(passkeyForm(redirect: redirect, token: nil, label: "Sign in with a passkey", target: target))
        \(providerButtons(redirect: redirect, target: target))
        """
    }

    /// A button per OpenID Connect provider of the container (``ProviderSignIn``).
    static func providerButtons(redirect: String, target: Target) -> String {
        let encoded = redirect.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        return target.container.accountSettings.openIDProviders.map { provider in
            let path = "/account/1/\(target.container.id)/\(target.environment.rawValue)/signin/provider/\(provider.name)?redirect=\(encoded)"
            return "<a class=\"button secondary\" id=\"provider-\(HostedPage.escape(provider.name))\" href=\"\(HostedPage.escape(path))\">Sign in with \(HostedPage.escape(provider.name))</a>"
        }.joined(separator: "\n")
    }

    /// The passkey button's form: the page's script fills `credential` with the authenticator's answer.
    static func passkeyForm(redirect: String, token: String?, label: String, target: Target) -> String {
        """
        <form method="post">\(HostedPage.hidden("redirect", redirect))\(HostedPage.hidden("step", "passkey"))\(HostedPage.hidden("credential", ""))\(
            token.map { HostedPage.hidden("secondFactorToken", $0) } ?? "")
        <button id="passkey" class="secondary" type="button" data-options="\(HostedPage.escape(target.passkeyOptionsPath))" hidden>\(HostedPage.escape(label))</button>
        <p id="passkey-error" class="error" role="alert"></p></form>
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

    /// The second factor: a code from the authenticator app, a passkey, or both, as the account has them.
    static func secondFactorForm(redirect: String, token: String, account: Account?, error message: String?, target: Target) -> String {
        let totp = account?.secondFactor.isTOTPEnabled ?? true
        let passkey = (account?.passkeyCount ?? 0) > 0
        let codeForm = """
            \(HostedPage.paragraph("Enter the code your authenticator app shows."))
            <form method="post">\(HostedPage.hidden("redirect", redirect))\(HostedPage.hidden("step", "second-factor"))\(HostedPage.hidden("secondFactorToken", token))
            <label for="code">Code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required autofocus>
            <button type="submit">Continue</button></form>
            """
        return """
            \(error(message))
            \(totp ? codeForm : HostedPage.paragraph("Confirm with your passkey."))
            \(passkey ? passkeyForm(redirect: redirect, token: token, label: "Use a passkey", target: target) : "")
            """
    }
}
