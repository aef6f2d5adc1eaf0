import Foundation
import StratusStoreTesting
import StratusTestSupport

/// A headless Chromium driven through `chromedriver` with the W3C WebDriver protocol (the protocol Selenium
/// speaks), for the console's browser tests.
final class WebDriver: @unchecked Sendable {
    private let driver: ChildProcess
    private let driverPort: Int
    private var sessionID = ""
    /// Where ``screenshot(_:)`` saves pages.
    let screenshots: URL

    /// The folder the README names for the console tests' screenshots (`STRATUS_SCREENSHOTS` overrides it).
    static var screenshotFolder: URL {
        if let folder = ProcessInfo.processInfo.environment["STRATUS_SCREENSHOTS"] { return URL(fileURLWithPath: folder) }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("console-screenshots")
    }

    /// Starts `chromedriver` and a headless browser with a laptop-sized window.
    /// - Throws: when Chromium or its driver is not installed (`.ci/run` installs both).
    init(screenshots: URL = WebDriver.screenshotFolder) async throws {
        self.screenshots = screenshots
        guard let driverPath = Self.which("chromedriver"), let browserPath = Self.which("chromium") ?? Self.which("chromium-browser") else {
            throw E2EFailure("the console tests need chromium and chromium-driver: apt-get install chromium chromium-driver (.ci/run does)")
        }
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
        let capabilities: [String: Any] = [
            "capabilities": ["alwaysMatch": [
                "browserName": "chrome",
                "unhandledPromptBehavior": "accept",
                "goog:chromeOptions": [
                    "binary": browserPath,
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900", "--lang=en-US"],
                ],
            ]],
        ]
        // chromedriver and Chromium start slowly on a loaded machine (the whole suite runs at once); a driver that
        // exits, or has not answered within 30 seconds, is replaced by another on another free port.
        let deadline = Date().addingTimeInterval(90)
        while true {
            let port = try Loopback.freePort()
            let driver = try ChildProcess(driverPath, ["--port=\(port)"])
            let attemptEnds = min(deadline, Date().addingTimeInterval(30))
            while driver.isRunning {
                do {
                    let answer = try await Self.command(port: port, "POST", "/session", capabilities)
                    guard let id = (answer as? [String: Any])?["sessionId"] as? String else { throw E2EFailure("no session: \(String(describing: answer))") }
                    self.driver = driver
                    driverPort = port
                    sessionID = id
                    return
                } catch where Date() < attemptEnds {
                    try await Task.sleep(for: .milliseconds(200))
                } catch {
                    if Date() >= deadline {
                        driver.killNow()
                        throw error
                    }
                    break
                }
            }
            driver.killNow()
            guard Date() < deadline else { throw E2EFailure("chromedriver did not start within 90 seconds") }
        }
    }

    /// Ends the browser and its driver.
    func quit() async {
        _ = try? await command("DELETE", "/session/\(sessionID)")
        // chromedriver ignores SIGTERM.
        driver.killNow()
    }

    func open(_ url: String) async throws {
        _ = try await session("POST", "/url", ["url": url])
    }

    /// The first element matching `css`, waiting up to `timeout` seconds for it to appear and be shown.
    func element(_ css: String, timeout: Double = 10) async throws -> Element {
        var found: Element?
        // The page may replace the element between finding and asking; that is a retry, not a failure.
        try await Polling.until("an element matching \(css) is shown", within: timeout, every: .milliseconds(100)) {
            found = try await elements(css).first
            return try await found?.isDisplayed() == true
        }
        return found!
    }

    func elements(_ css: String) async throws -> [Element] {
        let answer = try await session("POST", "/elements", ["using": "css selector", "value": css]) as? [[String: Any]] ?? []
        return answer.compactMap { $0[Element.key] as? String }.map { Element(driver: self, id: $0) }
    }

    /// Waits until the page's text (or the text of `css`) contains `text`. The default wait is long: under CI the
    /// browser, the server and PostgreSQL share two cores with other tests, and a save can take seconds.
    @discardableResult
    func waitForText(_ text: String, in css: String = "body", timeout: Double = 30) async throws -> String {
        var last = ""
        try await Polling.until("'\(text)' appears in \(css)", within: timeout, every: .milliseconds(100)) {
            if let found = try await elements(css).first, let read = try? await found.text() { last = read }
            return last.contains(text)
        } describe: {
            "it reads: \(last.prefix(600))"
        }
        return last
    }

    /// Waits until `condition` holds (errors count as not yet).
    func waitUntil(_ what: String, timeout: Double = 30, _ condition: () async throws -> Bool) async throws {
        try await Polling.until(what, within: timeout, every: .milliseconds(100)) { (try? await condition()) == true }
    }

    /// Waits for a dialog (`confirm`), answers its text and accepts it, as a user clicking OK.
    func acceptDialog(timeout: Double = 10) async throws -> String {
        var text = ""
        try await waitUntil("a dialog opens", timeout: timeout) {
            text = try await session("GET", "/alert/text") as? String ?? ""
            return true
        }
        _ = try await session("POST", "/alert/accept", [:])
        return text
    }

    /// Runs JavaScript in the page and answers its result.
    @discardableResult
    func script(_ source: String, _ arguments: [Any] = []) async throws -> Any? {
        try await session("POST", "/execute/sync", ["script": source, "args": arguments])
    }

    /// Chooses the option with `value` in the select `css`, as a user would.
    func select(_ css: String, _ value: String) async throws {
        let select = try await element(css)
        _ = try await script(
            "arguments[0].value = arguments[1]; arguments[0].dispatchEvent(new Event('change', {bubbles: true}));",
            [select.reference, value]
        )
    }

    /// The handle of the window commands go to.
    func currentWindow() async throws -> String {
        try await session("GET", "/window") as? String ?? ""
    }

    /// The handles of the browser's open windows.
    func windows() async throws -> [String] {
        try await session("GET", "/window/handles") as? [String] ?? []
    }

    /// Waits for a window besides `handle` (a popup the page opened), and answers its handle.
    func otherWindow(than handle: String) async throws -> String {
        var other: String?
        try await waitUntil("a popup opens") {
            other = try await windows().first { $0 != handle }
            return other != nil
        }
        return other!
    }

    /// Sends the next commands to the window `handle`.
    func switchToWindow(_ handle: String) async throws {
        _ = try await session("POST", "/window", ["handle": handle])
    }

    /// Resizes the window (a phone is 390 × 844).
    func resize(width: Int, height: Int) async throws {
        _ = try await session("POST", "/window/rect", ["width": width, "height": height])
    }

    /// Saves a PNG of the page as `<name>.png` in the screenshot folder.
    func screenshot(_ name: String) async throws {
        guard let base64 = try await session("GET", "/screenshot") as? String, let png = Data(base64Encoded: base64) else {
            throw E2EFailure("no screenshot")
        }
        try png.write(to: screenshots.appendingPathComponent(name + ".png"))
    }

    /// The element that has the keyboard focus.
    func focused() async throws -> Element {
        guard let answer = try await session("GET", "/element/active") as? [String: Any], let id = answer[Element.key] as? String else {
            throw E2EFailure("nothing has the focus")
        }
        return Element(driver: self, id: id)
    }

    /// A command of this session.
    @discardableResult
    func session(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        try await command(method, "/session/\(sessionID)" + path, body)
    }

    /// Sends a WebDriver command. (chromedriver writes headers without a space after the colon, which
    /// URLSession on Linux refuses, hence the plain socket client.)
    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        try await Self.command(port: driverPort, method, path, body)
    }

    private static func command(port driverPort: Int, _ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> Any? {
        let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) } ?? (method == "POST" ? Array("{}".utf8) : [])
        guard let response = try StreamingHTTP(port: driverPort).send(
            method, path, length: bytes.count, chunks: [bytes], keepBody: true, headers: ["Content-Type": "application/json"]
        ) else {
            throw E2EFailure("WebDriver \(method) \(path): no answer")
        }
        let json = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        let value = json?["value"]
        if response.status != 200 {
            let error = value as? [String: Any]
            throw E2EFailure("WebDriver \(method) \(path): \(error?["error"] ?? response.status) \(error?["message"] ?? String(decoding: response.body, as: UTF8.self))")
        }
        return value is NSNull ? nil : value
    }

    private static func which(_ name: String) -> String? {
        for folder in ["/usr/bin", "/usr/local/bin", "/usr/lib/chromium"] where FileManager.default.isExecutableFile(atPath: folder + "/" + name) {
            return folder + "/" + name
        }
        return nil
    }

    /// An element of the page.
    struct Element: @unchecked Sendable {
        static let key = "element-6066-11e4-a52e-4f735466cecf"
        let driver: WebDriver
        let id: String

        /// The element as a script argument.
        var reference: [String: String] { [Self.key: id] }

        func click() async throws {
            try await driver.session("POST", "/element/\(id)/click")
        }

        /// Types `text` into the element (`\u{E007}` is Enter, `\u{E004}` Tab).
        func type(_ text: String) async throws {
            try await driver.session("POST", "/element/\(id)/value", ["text": text])
        }

        func clear() async throws {
            try await driver.session("POST", "/element/\(id)/clear")
        }

        /// Clears the field, then types `text`.
        func fill(_ text: String) async throws {
            try await clear()
            try await type(text)
        }

        func text() async throws -> String {
            try await driver.session("GET", "/element/\(id)/text") as? String ?? ""
        }

        func property(_ name: String) async throws -> Any? {
            try await driver.session("GET", "/element/\(id)/property/\(name)")
        }

        func isDisplayed() async throws -> Bool {
            try await driver.session("GET", "/element/\(id)/displayed") as? Bool ?? false
        }
    }
}
