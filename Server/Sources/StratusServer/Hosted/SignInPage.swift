import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// The hosted sign-in page, for web apps in the manner of CloudKit JS: `421 AUTHENTICATION_REQUIRED` names it as its
/// `redirectURL`. The user signs in with a passkey, a password, a code mailed to them or an OpenID provider (then a
/// second factor, when they have one: a code from their authenticator app, or a passkey), and the page hands the
/// session to the app (``Destination``): back to the app's address with `ckWebAuthToken` added to its query when the
/// app opened it with `?redirect=`, or, opened as CloudKit JS opens it (as given, in a popup), posted to the window
/// that opened it. Only addresses and origins the container allows (``AccountSettings/redirectURLs``) receive it.
struct SignInPage {
    let server: ServerState
    let accounts: AccountsController

    func register(on router: Router<StratusRequestContext>) {
        router.get("account/1/:container/:environment/signin", use: show)
        router.post("account/1/:container/:environment/signin", use: submit)
        router.post("account/1/:container/:environment/signin/passkey/options", use: passkeyOptions)
        router.get(RouterPath(stringLiteral: String(HostedScript.path.dropFirst())), use: HostedScript.serve)
    }

    /// `POST …/signin/passkey/options` with `{secondFactorToken?}`, from the page's script: options for the browser's
    /// authenticator, as the API's `signin/passkey/options` answers them.
    @Sendable func passkeyOptions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let target = try await self.target(request, context, redirect: nil)
        let body = try await RequestBody.decode(PasskeySignInOptionsRequest.self, from: request, limit: RequestLimits.formBody)
        let authentication = Authentication(container: target.container, environment: target.environment)
        return try JSONResponse.make(encoding: try await accounts.passkeyRequestOptions(secondFactorToken: body.secondFactorToken, authentication, request))
    }

    @Sendable func show(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let target = try await self.target(request, context, redirect: request.uri.queryParameters["redirect"].map(String.init))
        guard let destination = target.destination else { return target.refusal() }
        return target.page(Self.passwordForm(destination, email: "", error: nil, target: target))
    }

    @Sendable func submit(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let form = try await HostedPage.form(request)
        let target = try await self.target(request, context, redirect: form["redirect"])
        guard let destination = target.destination else { return target.refusal() }
        let email = form["email"] ?? ""
        let authentication = Authentication(container: target.container, environment: target.environment)
        do {
            switch form["step"] {
            case "send-code":
                let normalized = try EmailAddress.normalized(email)
                let client = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
                try await server.mailThrottle.admit(recipient: target.container.id + "|" + normalized, client: client)
                accounts.mailLater(
                    .signIn, to: normalized, containerID: target.container.id, environment: target.environment, languages: [],
                    baseURL: DatabaseCall.baseURL(of: request, server)
                )
                return target.page(Self.codeForm(destination, email: normalized, error: nil))
            case "code":
                let code = try await accounts.findCode(.signIn, RedeemCodeRequest(emailAddress: email, code: form["code"]), authentication, request, context)
                return try await signedIn(try await accounts.redeem(code, change: .verifyEmail), target: target, destination: destination)
            case "passkey":
                let credential = try RequestBody.decode(PasskeyAssertion.self, from: Array((form["credential"] ?? "").utf8))
                return try await session(for: try await accounts.passkeyAccount(credential, authentication, request), target: target, destination: destination)
            case "second-factor":
                let body = SecondFactorRequest(secondFactorToken: form["secondFactorToken"], code: form["code"])
                let account = try await accounts.pendingAccount(body, purpose: .verify, authentication)
                try await accounts.checkSecondFactor(body, of: account, request, context)
                return try await session(for: account, target: target, destination: destination)
            default:
                let account = try await accounts.passwordAccount(email, form["password"] ?? "", container: target.container, request, context)
                return try await signedIn(account, target: target, destination: destination)
            }
        } catch let caught where caught is APIError || caught is ServiceError {
            let error = APIError(translating: caught)
            let message = error.reason.prefix(1).uppercased() + error.reason.dropFirst() + "."
            // A failed second factor (a code, or a passkey after the password) shows the second factor's form again.
            let secondFactor = form["step"] == "second-factor" || (form["step"] == "passkey" && form["secondFactorToken"] != nil)
            switch form["step"] {
            case "code", "send-code":
                return target.page(Self.codeForm(destination, email: email, error: message), status: .badRequest)
            case _ where secondFactor:
                let token = form["secondFactorToken"] ?? ""
                let pending = server.secondFactors.pending(token, containerID: target.container.id)
                var account: Account?
                if let pending { account = try await server.store.account(containerID: pending.containerID, userRecordName: pending.userRecordName) }
                return target.page(
                    Self.secondFactorForm(destination, token: token, account: account, error: message, target: target), status: .badRequest
                )
            default:
                return target.page(Self.passwordForm(destination, email: email, error: message, target: target), status: .badRequest)
            }
        }
    }

    /// A right first factor: a second factor next (a code from the authenticator app or a passkey), or back to the app.
    func signedIn(_ account: Account, target: Target, destination: Destination) async throws -> Response {
        if account.hasSecondFactor {
            let token = server.secondFactors.pendingToken(containerID: target.container.id, userRecordName: account.userRecordName, purpose: .verify)
            return target.page(Self.secondFactorForm(destination, token: token, account: account, error: nil, target: target))
        }
        if target.container.accountSettings.secondFactor == .required {
            throw APIError(.authenticationFailed, "set up an authenticator app or a passkey in the app first, then sign in here")
        }
        return try await session(for: account, target: target, destination: destination)
    }

    /// Starts a session and hands it to the app: a redirect back to its address, or a page that posts it to the opener.
    func session(for account: Account, target: Target, destination: Destination) async throws -> Response {
        let token = try await server.authenticator.startSession(for: account, deviceName: "Web browser")
        switch destination {
        case .redirect(let redirect):
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
        case .opener(let origins):
            let body = """
                <p id="signed-in" data-session="\(HostedPage.escape(token))" data-origins="\(HostedPage.escape(origins.joined(separator: " ")))">\(
                    HostedPage.escape("You are signed in. This window closes and \(target.appName) goes on."))</p>
                """
            return HostedPage.render(title: "Signed in", appName: target.appName, body: body, script: true)
        }
    }

    // MARK: - The page

    /// Where the page hands a session once the user is signed in.
    enum Destination: Equatable {
        /// Back to the app's address (`?redirect=`, allowed by the container), with `ckWebAuthToken` in its query.
        case redirect(String)
        /// To the window that opened the page, CloudKit JS's popup, as a message addressed to each of these origins
        /// (those of the container's `redirectURLs`).
        case opener(origins: [String])

        /// The form field that carries the destination from one step of the page to the next.
        var formField: String {
            if case .redirect(let address) = self { return HostedPage.hidden("redirect", address) }
            return ""
        }

        /// The query that carries it through a provider's sign-in.
        var query: String {
            if case .redirect(let address) = self { return "?redirect=" + (address.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
            return ""
        }
    }

    /// The container, environment and where the session goes, when the container allows it.
    struct Target {
        var container: ContainerInfo
        var environment: StratusModel.Environment
        var destination: Destination?

        var appName: String { container.accountSettings.displayName(containerID: container.id) }

        /// Where the page's script asks for passkey options.
        var passkeyOptionsPath: String { "/account/1/\(container.id)/\(environment.rawValue)/signin/passkey/options" }

        func page(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
            var formTargets: [String] = []
            var popupNotice = ""
            switch destination {
            case .redirect(let address): formTargets = SignInPage.origin(of: address).map { [$0] } ?? []
            case .opener:
                popupNotice = "<p id=\"popup-only\" hidden>\(HostedPage.escape("This page signs you in for \(appName) when \(appName) opens it: sign in from the app."))</p>"
            case nil: break
            }
            return HostedPage.render(
                title: "Sign in to \(appName)", appName: appName, body: popupNotice + body, status: status, formTargets: formTargets, script: true
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

    /// The page's target: with `redirect`, that address if the container allows it; without, the opener, if the
    /// container allows any origin.
    func target(_ request: Request, _ context: StratusRequestContext, redirect: String?) async throws -> Target {
        let environment = try Authenticator.environment(named: try context.parameters.require("environment"))
        try await server.store.catchUpEvents()
        let container = try await server.authenticator.container(try context.parameters.require("container"))
        let settings = container.accountSettings
        let destination: Destination?
        if let redirect {
            destination = settings.allowsRedirect(to: redirect) ? .redirect(redirect) : nil
        } else {
            var origins: [String] = []
            for origin in settings.redirectURLs.compactMap(Self.origin(of:)) where !origins.contains(origin) { origins.append(origin) }
            destination = origins.isEmpty ? nil : .opener(origins: origins)
        }
        return Target(container: container, environment: environment, destination: destination)
    }

    /// `scheme://host[:port]` of an address, as a browser names a window's origin.
    static func origin(of address: String) -> String? {
        guard let url = URLComponents(string: address), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed.lowercased())\(url.port.map { ":\($0)" } ?? "")"
    }

    private static func error(_ message: String?) -> String {
        message.map { HostedPage.paragraph($0, class: "error") } ?? ""
    }

    /// One form, two ways in: the password, or (its second button) a code mailed to the address; and a passkey.
    static func passwordForm(_ destination: Destination, email: String, error message: String?, target: Target) -> String {
        """
        \(error(message))
        <form method="post">\(destination.formField)
        <label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="username webauthn" value="\(HostedPage.escape(email))" required autofocus>
        <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
        <button id="sign-in" type="submit" name="step" value="password">Sign in</button>
        <button id="email-code" class="secondary" type="submit" name="step" value="send-code" formnovalidate>Email me a code instead</button></form>
        \(passkeyForm(destination, token: nil, label: "Sign in with a passkey", target: target))
        \(providerButtons(destination, target: target))
        """
    }

    /// A button per OpenID Connect provider of the container (``ProviderSignIn``).
    static func providerButtons(_ destination: Destination, target: Target) -> String {
        target.container.accountSettings.openIDProviders.map { provider in
            let path = "/account/1/\(target.container.id)/\(target.environment.rawValue)/signin/provider/\(provider.name)\(destination.query)"
            return "<a class=\"button secondary\" id=\"provider-\(HostedPage.escape(provider.name))\" href=\"\(HostedPage.escape(path))\">Sign in with \(HostedPage.escape(provider.name))</a>"
        }.joined(separator: "\n")
    }

    /// The passkey button's form: the page's script fills `credential` with the authenticator's answer.
    static func passkeyForm(_ destination: Destination, token: String?, label: String, target: Target) -> String {
        """
        <form method="post">\(destination.formField)\(HostedPage.hidden("step", "passkey"))\(HostedPage.hidden("credential", ""))\(
            token.map { HostedPage.hidden("secondFactorToken", $0) } ?? "")
        <button id="passkey" class="secondary" type="button" data-options="\(HostedPage.escape(target.passkeyOptionsPath))" hidden>\(HostedPage.escape(label))</button>
        <p id="passkey-error" class="error" role="alert"></p></form>
        """
    }

    static func codeForm(_ destination: Destination, email: String, error message: String?) -> String {
        """
        \(error(message))
        \(HostedPage.paragraph("If \(email) has an account, a code is on its way there."))
        <form method="post">\(destination.formField)\(HostedPage.hidden("step", "code"))\(HostedPage.hidden("email", email))
        <label for="code">Code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required autofocus>
        <button type="submit">Sign in</button></form>
        """
    }

    /// The second factor: a code from the authenticator app, a passkey, or both, as the account has them.
    static func secondFactorForm(_ destination: Destination, token: String, account: Account?, error message: String?, target: Target) -> String {
        let totp = account?.secondFactor.isTOTPEnabled ?? true
        let passkey = (account?.passkeyCount ?? 0) > 0
        let codeForm = """
            \(HostedPage.paragraph("Enter the code your authenticator app shows."))
            <form method="post">\(destination.formField)\(HostedPage.hidden("step", "second-factor"))\(HostedPage.hidden("secondFactorToken", token))
            <label for="code">Code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required autofocus>
            <button type="submit">Continue</button></form>
            """
        return """
            \(error(message))
            \(totp ? codeForm : HostedPage.paragraph("Confirm with your passkey."))
            \(passkey ? passkeyForm(destination, token: token, label: "Use a passkey", target: target) : "")
            """
    }
}
