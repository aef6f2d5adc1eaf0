import Foundation
import StratusStoreTesting
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hosted sign-in page with a real OpenID Connect provider (Debian's glewlwyd): the web flow in Chromium, and its
/// state, browser binding and single use checked over plain HTTP.
@Suite(.serialized) struct OpenIDProviderBrowserTests {
    static let container = "iCloud.com.example.Corp"

    /// A server with a container whose provider `corp` is a glewlwyd on loopback, and the app page to return to.
    static func withProvider(_ body: (ServerProcess, OpenIDProviderPeer, _ token: String, _ appPage: String) async throws -> Void) async throws {
        let server = ServerProcess(dataFolder: EndToEndTests.temporaryFolder(), arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let callback = "\(server.baseURL)/account/1/\(container)/development/signin/provider/corp/callback"
        guard let provider = try await OpenIDProviderPeer.start(redirectURIs: [callback]) else { return }
        defer { provider.stop() }
        let token = try await server.createContainer(container)
        let appPage = server.baseURL + "/healthz"
        let settings = """
            {"redirectURLs":["\(appPage)"],"openIDProviders":[{"name":"corp","issuer":"\(provider.issuer)","clientIDs":["\(provider.details.clientID)"]}]}
            """
        let (saved, answer) = try await server.send("PUT", "/admin/1/\(container)/accounts/settings", body: settings, headers: ["Authorization": "Bearer \(ServerProcess.adminKey)"])
        #expect(saved == 200, "\(answer)")
        let secret = try JSONSerialization.data(withJSONObject: ["value": provider.details.clientSecret])
        let (stored, storedAnswer) = try await server.send(
            "PUT", "/admin/1/\(container)/secrets/openid.corp.clientSecret", body: String(decoding: secret, as: UTF8.self),
            headers: ["Authorization": "Bearer \(ServerProcess.adminKey)"]
        )
        #expect(stored == 200, "\(storedAnswer)")
        do {
            try await body(server, provider, token, appPage)
        } catch {
            print("glewlwyd's log:\n\(provider.log().suffix(3000))")
            throw error
        }
    }

    @Test("the page's provider button signs in at glewlwyd (code flow with PKCE) and returns to the app with a working token")
    func webFlowInTheBrowser() async throws {
        try await Self.withProvider { server, provider, token, appPage in
            let browser = try await WebDriver()
            do {
                let page = "\(server.baseURL)/account/1/\(Self.container)/development/signin?redirect=" + appPage.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                try await browser.open(page)
                try await browser.element("#provider-corp").click()
                try await browser.waitUntil("glewlwyd's login page") {
                    ((try await browser.session("GET", "/url") as? String) ?? "").hasPrefix(provider.issuer.replacingOccurrences(of: "/api/oidc", with: "/login.html"))
                }
                try await browser.element("#username", timeout: 30).fill(provider.details.username)
                try await browser.element("#password").fill(provider.details.password)
                try await browser.screenshot("openid-provider-login")
                try await browser.element("#password").type("\u{E007}")
                // Signed in at the provider, which asks whether to go on to the app (the grant was given before).
                try await browser.element("button.btn-success", timeout: 30).click()
                let encoded = try await AccountPagesBrowserTests.tokenBackAtApp(browser, appPage)
                let path = "/database/1/\(Self.container)/development/public/users/caller?ckAPIToken=\(token)&ckWebAuthToken=\(encoded)"
                let (caller, user) = try await server.send("GET", path)
                #expect(caller == 200, "\(user)")
                let (listed, users) = try await server.send(
                    "GET", "/admin/1/\(Self.container)/development/users", headers: ["Authorization": "Bearer \(ServerProcess.adminKey)"]
                )
                #expect(listed == 200 && "\(users)".contains("ada@example.com") && "\(users)".contains("corp"), "\(users)")
            } catch {
                try? await browser.screenshot("openid-provider-failure")
                await browser.quit()
                throw error
            }
            await browser.quit()
        }
    }

    @Test("a callback is refused with a forged state, from another browser, with a code the provider refuses, and when replayed")
    func callbackRefusals() async throws {
        try await Self.withProvider { server, provider, _, appPage in
            let start = "\(server.baseURL)/account/1/\(Self.container)/development/signin/provider/corp?redirect="
                + appPage.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let (status, headers, _) = try await NoRedirects.get(start)
            let location = try #require(headers["Location"] ?? headers["location"], "\(status) \(headers)")
            let query = try #require(URLComponents(string: location)?.queryItems)
            let value = { (name: String) in query.first { $0.name == name }?.value }
            #expect(location.hasPrefix(provider.issuer + "/auth"), "\(location)")
            #expect(value("code_challenge_method") == "S256" && value("nonce") != nil && value("client_id") == provider.details.clientID, "\(location)")
            let state = try #require(value("state"))
            let cookie = try #require((headers["Set-Cookie"] ?? headers["set-cookie"])?.split(separator: ";").first.map(String.init), "\(headers)")
            #expect(cookie.hasPrefix("stratus_oidc="))

            let callback = "\(server.baseURL)/account/1/\(Self.container)/development/signin/provider/corp/callback"
            let encodedState = state.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let forged = try await NoRedirects.get(callback + "?code=x&state=AAAA" + encodedState.dropFirst(4), cookie: cookie)
            #expect(forged.status == 400 && forged.body.contains("Sign in from the app"), "\(forged.status) \(forged.body.prefix(300))")
            let otherBrowser = try await NoRedirects.get(callback + "?code=x&state=" + encodedState)
            #expect(otherBrowser.status == 400 && otherBrowser.body.contains("another browser"), "\(otherBrowser.body.prefix(600))")
            let refusedCode = try await NoRedirects.get(callback + "?code=not-a-code&state=" + encodedState, cookie: cookie)
            #expect(refusedCode.status == 400 && refusedCode.body.contains("refused the sign-in"), "\(refusedCode.body.prefix(600))")
            let replayed = try await NoRedirects.get(callback + "?code=not-a-code&state=" + encodedState, cookie: cookie)
            #expect(replayed.status == 400 && replayed.body.contains("used already"), "\(replayed.body.prefix(600))")
        }
    }
}

/// Plain GET requests that do not follow redirects, as a test looking at each step of a sign-in needs.
enum NoRedirects {
    final class Delegate: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    static func get(_ url: String, cookie: String? = nil) async throws -> (status: Int, headers: [String: String], body: String) {
        var request = URLRequest(url: URL(string: url)!)
        if let cookie { request.setValue(cookie, forHTTPHeaderField: "Cookie") }
        request.httpShouldHandleCookies = false
        let session = URLSession(configuration: .ephemeral, delegate: Delegate(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] { headers["\(name)"] = "\(value)" }
        return (http?.statusCode ?? 0, headers, String(decoding: data, as: UTF8.self))
    }
}
