import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// A web app on an origin of its own that signs in as CloudKit JS does: anonymous calls carry `ckSession=null`, the
/// 421's `redirectURL` opens as given in a popup, and the app takes the session from the popup's message
/// (`event.data.ckSession`), in headless Chromium against a real `stratus serve`.
@Suite(.serialized) struct CloudKitJSBrowserTests {
    static let container = "iCloud.com.example.Popup"

    @Test("ckSession=null reads the public database; the 421's page, opened as a popup, posts the session to its opener")
    func popupSignIn() async throws {
        let server = ServerProcess(dataFolder: EndToEndTests.temporaryFolder(), arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        let app = try await StaticSite.start(pages: ["app.html": Self.appPage])
        defer { app.stop() }
        let elsewhere = try await StaticSite.start(pages: ["app.html": Self.appPage])
        defer { elsewhere.stop() }
        let token = try await server.createContainer(Self.container)
        _ = try await server.admin.send("PUT", "/admin/1/\(Self.container)/accounts/settings", body: Data(#"{"redirectURLs":["\#(app.origin)/"]}"#.utf8))
        let base = "/auth/1/\(Self.container)/development"
        let (signedUp, account) = try await server.send("POST", "\(base)/signup?ckAPIToken=\(token)", body: #"{"emailAddress":"ann@example.com","password":"correct horse"}"#)
        let session = try #require(account["ckWebAuthToken"] as? String, "\(signedUp) \(account)")
        let user = try #require(account["userRecordName"] as? String, "\(account)")
        let note = #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"hello from the public database"}}}}]}"#
        let encoded = session.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let (saved, savedAnswer) = try await server.send("POST", "/database/1/\(Self.container)/development/public/records/modify?ckAPIToken=\(token)&ckWebAuthToken=\(encoded)", body: note)
        #expect(saved == 200, "\(savedAnswer)")

        let browser = try await WebDriver()
        do {
            let query = "?server=\(server.baseURL)&container=\(Self.container)&token=\(token)"
            try await browser.open(app.origin + "/app.html" + query)
            _ = try await browser.waitForText("hello from the public database", in: "#public")
            _ = try await browser.waitForText("421 AUTHENTICATION_REQUIRED", in: "#private")
            let opener = try await browser.currentWindow()
            try await browser.element("#sign-in").click()
            let popup = try await browser.otherWindow(than: opener)
            try await browser.switchToWindow(popup)
            _ = try await browser.waitForText("Sign in to Popup", in: "h1")
            try await browser.screenshot("cloudkit-js-popup")
            try await browser.element("#email").fill("ann@example.com")
            try await browser.element("#password").fill("correct horse")
            try await browser.element("#sign-in").click()
            try await browser.waitUntil("the popup closes once it posted the session") { try await browser.windows() == [opener] }
            try await browser.switchToWindow(opener)
            _ = try await browser.waitForText(user, in: "#user")
            _ = try await browser.waitForText("zones: _defaultZone", in: "#private")
            let from = try await browser.element("#from").text()
            #expect(from == server.baseURL, "the session came from the server's page: \(from)")

            // Opened from an origin the container does not allow, the page signs in but its message reaches nobody.
            try await browser.open(elsewhere.origin + "/app.html" + query)
            _ = try await browser.waitForText("421 AUTHENTICATION_REQUIRED", in: "#private")
            try await browser.element("#sign-in").click()
            try await browser.switchToWindow(try await browser.otherWindow(than: opener))
            try await browser.element("#email").fill("ann@example.com")
            try await browser.element("#password").fill("correct horse")
            try await browser.element("#sign-in").click()
            try await browser.waitUntil("the popup closes") { try await browser.windows() == [opener] }
            try await browser.switchToWindow(opener)
            // A message the page posts to itself now arrives after any the popup posted before it closed.
            _ = try await browser.script("window.postMessage({ probe: true }, '*')")
            _ = try await browser.waitForText("probe", in: "#messages")
            let messages = try await browser.element("#messages").text()
            #expect(!messages.contains("session"), "a disallowed origin received: \(messages)")
            #expect(try await browser.elements("#user").first?.text() == "", "the page took no session")
        } catch {
            try? await browser.screenshot("cloudkit-js-popup-failure")
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    @Test("opened by no window, the page without ?redirect= says to sign in from the app")
    func popupPageAlone() async throws {
        let server = ServerProcess(dataFolder: EndToEndTests.temporaryFolder(), arguments: ["--quiet"])
        try await server.start()
        defer { server.stop() }
        _ = try await server.createContainer(Self.container)
        _ = try await server.admin.send("PUT", "/admin/1/\(Self.container)/accounts/settings", body: Data(#"{"redirectURLs":["https://app.example.com/"]}"#.utf8))
        let browser = try await WebDriver()
        do {
            try await browser.open("\(server.baseURL)/account/1/\(Self.container)/development/signin")
            _ = try await browser.waitForText("sign in from the app", in: "#popup-only")
            let email = try #require(try await browser.elements("#email").first)
            #expect(try await email.isDisplayed() == false)
        } catch {
            try? await browser.screenshot("cloudkit-js-popup-alone-failure")
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    /// The web app: what CloudKit JS 1.2 does on the wire, written out. The page's query names the server, the
    /// container and the API token.
    static let appPage = """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>Popup app</title></head><body>
        <p id="public"></p><p id="private"></p><p id="user"></p><p id="from"></p><p id="messages"></p>
        <button id="sign-in">Sign in</button>
        <script>
        const settings = new URLSearchParams(location.search);
        const database = settings.get("server") + "/database/1/" + settings.get("container") + "/development";
        const token = settings.get("token");
        let session = null, signInURL = null;
        const call = async (path, body) => {
          const reply = await fetch(database + path + "?ckAPIToken=" + token + "&ckSession=" + encodeURIComponent(session),
            { method: body ? "POST" : "GET", headers: { "Content-Type": "text/plain" }, body: body ? JSON.stringify(body) : undefined });
          return { status: reply.status, body: await reply.json() };
        };
        const show = (id, text) => { document.getElementById(id).textContent = text; };
        const readPrivate = async () => {
          const zones = await call("/private/zones/list", {});
          if (zones.status === 421) signInURL = zones.body.redirectURL;
          show("private", zones.status === 200 ? "zones: " + zones.body.zones.map((z) => z.zoneID.zoneName).join(" ")
            : zones.status + " " + zones.body.serverErrorCode);
        };
        window.addEventListener("message", async (event) => {
          const messages = document.getElementById("messages");
          messages.textContent += (event.data && event.data.ckSession ? " session" : " probe");
          if (!event.data || !event.data.ckSession) return;
          session = event.data.ckSession;
          show("from", event.origin);
          const caller = await call("/public/users/caller");
          show("user", caller.body.userRecordName || JSON.stringify(caller.body));
          await readPrivate();
        });
        document.getElementById("sign-in").addEventListener("click", () => { window.open(signInURL); });
        (async () => {
          const notes = await call("/public/records/query", { query: { recordType: "Note" } });
          show("public", notes.status === 200 ? notes.body.records.map((r) => r.fields.title.value).join(", ") : notes.status + " " + JSON.stringify(notes.body));
          await readPrivate();
        })();
        </script></body></html>
        """
}
