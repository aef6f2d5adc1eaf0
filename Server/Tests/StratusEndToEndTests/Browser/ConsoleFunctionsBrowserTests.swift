import Foundation
import StratusStoreTesting
import StratusTestSupport
import Testing

/// The console's Functions page in headless Chromium: a module uploaded from a file, a beforeSave function bound
/// through the form and refusing a write, a scheduled job made through the form and its runs listed.
@Suite(.serialized) struct ConsoleFunctionsBrowserTests {
    static let container = ConsoleBrowserTests.container

    @Test("operators upload a module, bind a beforeSave function that refuses a write, and schedule a job whose runs are listed")
    func functionsPage() async throws {
        let wasm = FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString).wasm")
        try Data(try WasmModules.example("check_message")).write(to: wasm)
        defer { try? FileManager.default.removeItem(at: wasm) }
        try await ConsoleBrowserTests.Session.with("functions") { session in
            let browser = session.browser
            let apps = try await session.admin("GET", "/admin/1/containers")
            let apiToken = ((apps["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) ?? ""
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: session.server, container: Self.container)

            try await session.go("#/functions", heading: "Functions")
            try await browser.element("#module-name").fill("messages")
            try await browser.element("#module-file").type(wasm.path)
            try await browser.element("#module-form button[type=submit]").click()
            try await browser.waitForText("it exports before_save", in: "#notices")
            try await browser.waitForText("before_save", in: ".modules")

            try await browser.element("#function-name").fill("checkMessage")
            try await browser.select("#function-trigger", "beforeSave")
            try await browser.element("#function-record-types").fill("Message")
            try await browser.element("#function-form button[type=submit]").click()
            try await browser.waitForText("Function checkMessage saved", in: "#notices")
            try await browser.waitForText("before_save · Message", in: ".function")

            let (saved, answer) = try await alice.send(
                "public", "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordName":"m1","recordType":"Message","fields":{"priority":{"value":1}}}}]}"#
            )
            let reason = ((answer["records"] as? [[String: Any]])?.first?["reason"] as? String) ?? ""
            #expect(saved == 200 && reason == "a message needs a title of 1 to 100 characters", "\(answer)")

            try await browser.element("#function-name").fill("everySecond")
            try await browser.select("#function-trigger", "schedule")
            try await browser.element("#function-entry").fill("before_save")
            try await browser.element("#function-record-types").fill("")
            try await browser.element("#function-form button[type=submit]").click()
            try await browser.waitForText("Function everySecond saved", in: "#notices")
            try await browser.element("#job-name").fill("tick")
            try await browser.element("#job-schedule").fill("* * * * * *")
            try await browser.element("#job-form button[type=submit]").click()
            try await browser.waitForText("Job tick saved", in: "#notices")
            // The function answers an error for what is not a message: a run is listed as failed, with the reason.
            // The server's state first (a loaded machine may take a while to end the first run), then the page,
            // which lists runs as they were when it loaded.
            var stored = ""
            try await Polling.until("the server records a failed run of tick", within: 120, every: .milliseconds(250)) {
                stored = "\(try await session.admin("GET", "/admin/1/\(Self.container)/development/jobs/tick/runs"))"
                return stored.contains("failed")
            } describe: {
                "the runs: \(stored.prefix(600))"
            }
            try await browser.session("POST", "/refresh")
            try await browser.waitForText("failed", in: ".job .runs")
            try await browser.waitForText("a message needs a title", in: ".job .runs")
            try await session.screenshot("functions")
        }
    }
}
