import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// The console's Webhooks page in headless Chromium: an endpoint added through the form (its secret shown once), its
/// failing deliveries listed with the receiver's answer, one retried by hand, events replayed.
@Suite(.serialized) struct ConsoleWebhooksBrowserTests {
    static let container = ConsoleBrowserTests.container

    @Test("operators add an endpoint, see its deliveries fail and succeed, retry one and replay")
    func webhooksPage() async throws {
        let receiver = try WebhookReceiver(failFirst: 1000)
        try await ConsoleBrowserTests.Session.with("webhooks", arguments: ["--webhooks-allow-private"]) { session in
            let browser = session.browser
            let apps = try await session.admin("GET", "/admin/1/containers")
            let apiToken = ((apps["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) ?? ""
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: session.server, container: Self.container)

            try await session.go("#/webhooks", heading: "Webhooks")
            try await browser.element("#webhook-url").fill(receiver.url)
            try await browser.element("#webhook-events").fill("record.created")
            try await browser.element("#webhook-form button[type=submit]").click()
            let notice = try await browser.waitForText("shown this once: whsec_", in: "#notices")
            let secret = try #require(notice.components(separatedBy: "shown this once: ").last?.split(whereSeparator: \.isWhitespace).first.map(String.init))

            let (saved, answer) = try await alice.send(
                "public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Post"}}]}"#
            )
            #expect(saved == 200, "\(answer)")
            try await receiver.waitUntil("a failed attempt") { !$0.isEmpty }
            #expect(WebhookReceiver.verify(receiver.received[0], secrets: [secret]), "signed with the secret the console showed")
            try await browser.session("POST", "/refresh")
            try await browser.waitForText("500", in: ".deliveries")
            try await browser.waitForText("down for maintenance", in: ".deliveries")
            try await browser.waitForText("failing since", in: ".webhook")
            try await session.screenshot("failing")

            receiver.failNext(0)
            try await browser.element(".deliveries .retry").click()
            try await browser.waitForText("Delivery queued again.", in: "#notices")
            try await receiver.waitUntil("the delivery") { $0.contains { !$0.refused } }
            try await browser.session("POST", "/refresh")
            try await browser.waitForText("delivered", in: ".deliveries")
            try await browser.waitForText("working", in: ".webhook")

            try await browser.element(".webhook .replay").click()
            try await browser.waitForText("1 event(s) queued again.", in: "#notices")
            try await receiver.waitUntil("the replay") { $0.filter { !$0.refused }.count >= 2 }
            try await session.screenshot("replayed")
        }
    }
}
