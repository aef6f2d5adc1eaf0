import Crypto
import Foundation
import StratusTestSupport
import Testing

/// The web console in headless Chromium against a real `stratus serve`. Each test saves a screenshot of every
/// page it visits in `console-screenshots/`.
@Suite(.serialized) struct ConsoleBrowserTests {
    static let container = "iCloud.com.example.Console"

    /// A served console with a browser signed in to it.
    struct Session {
        let server: ServerProcess
        let browser: WebDriver
        let prefix: String

        /// Runs `body` with a signed-in session, then closes the browser and stops the server.
        /// - Parameters:
        ///   - arguments: the server's settings besides the tests' own.
        ///   - backend: the store the server keeps its data in; the tests' backend by default.
        static func with(
            _ prefix: String, container: String? = ConsoleBrowserTests.container, arguments: [String] = [], backend: StoreFactory = .current,
            _ body: (Session) async throws -> Void
        ) async throws {
            let session = try await start(prefix, container: container, arguments: arguments, backend: backend)
            do {
                try await body(session)
            } catch {
                try? await session.screenshot("failure")
                await session.end()
                throw error
            }
            await session.end()
        }

        static func start(_ prefix: String, container: String?, arguments: [String] = [], backend: StoreFactory = .current) async throws -> Session {
            let server = ServerProcess(dataFolder: EndToEndTests.temporaryFolder(), arguments: arguments, backend: backend)
            try await server.start()
            do {
                if let container { _ = try await server.createContainer(container) }
                let browser = try await WebDriver()
                let session = Session(server: server, browser: browser, prefix: prefix)
                try await session.signIn()
                return session
            } catch {
                server.stop()
                throw error
            }
        }

        /// Signs in with the keyboard alone: the key field has the focus, Enter submits.
        func signIn() async throws {
            try await browser.open(server.baseURL + "/console/")
            _ = try await browser.element("#admin-key")
            try await screenshot("sign-in")
            try await browser.focused().type(ServerProcess.adminKey + "\u{E007}")
            try await browser.waitForText("Overview", in: "main h1")
        }

        func screenshot(_ name: String) async throws {
            try await browser.screenshot("\(prefix)-\(name)")
        }

        /// Opens a console address such as `#/schema`.
        func go(_ hash: String, heading: String) async throws {
            try await browser.open(server.baseURL + "/console/" + hash)
            try await browser.waitForText(heading, in: "main h1")
        }

        func end() async {
            await browser.quit()
            server.stop()
        }

        /// The server's JSON for an admin API call, with the admin key.
        func admin(_ method: String, _ path: String, body: String? = nil) async throws -> [String: Any] {
            let reply = try await server.admin.send(method, path, body: body.map { Data($0.utf8) })
            guard reply.status < 300 else { throw E2EFailure("\(method) \(path) answered \(reply.status): \(reply.json)") }
            return reply.json
        }
    }

    /// A small PNG to upload.
    static func imageFile() throws -> String {
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC")!
        let path = EndToEndTests.temporaryFolder() + "-image.png"
        try png.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("the seed case in the browser alone: a Message type, a message with an image, the constraint, a deploy")
    func seedCase() async throws {
        try await Session.with("seed", container: nil) { session in
        let browser = session.browser

        // A container, created in the console: the overview says there is none yet and leads to the form.
        try await browser.waitForText("No containers yet", in: "#overview-containers")
        try await browser.element("#overview-containers a").click()
        try await browser.waitForText("Containers", in: "main h1")
        try await browser.element("#new-container-id").fill(Self.container)
        try await browser.element("#new-container-id").type("\u{E007}")
        try await browser.waitForText("Container \(Self.container) created", in: "#notices", timeout: 90)
        try await browser.waitForText(Self.container, in: "#container-picker")
        try await session.screenshot("containers")

        // A Message type with a localized title, an image and isCurrent, at most one current.
        try await session.go("#/schema", heading: "Schema")
        try await browser.element("#new-type").click()
        try await browser.element("#type-name").fill("Message")
        for (index, (name, type)) in [("title", "LOCALIZED_STRING"), ("image", "ASSETID"), ("isCurrent", "BOOLEAN")].enumerated() {
            try await browser.element("#add-field").click()
            let row = "form tbody tr:nth-child(\(index + 1))"
            try await browser.element("\(row) input[aria-label='Field name']").fill(name)
            try await browser.select("\(row) select[aria-label='Field type']", type)
        }
        try await browser.element("form tbody tr:nth-child(3) input[aria-label='QUERYABLE']").click()
        try await browser.select("form tbody tr:nth-child(3) select[aria-label='Unique']", "where")
        try await session.screenshot("schema-new-type")
        try await browser.element("#save-type").click()
        try await browser.waitForText("Saved", in: "#notices")
        let schemaPage = try await browser.waitForText("UNIQUE WHERE isCurrent = true", in: "main")
        #expect(schemaPage.contains("Localized string"))
        #expect(schemaPage.contains("Asset"))
        try await session.screenshot("schema")
        let text = try await session.server.send("GET", "/admin/1/\(Self.container)/development/schema", headers: ["Authorization": "Bearer \(ServerProcess.adminKey)"])
        #expect(text.0 == 200)

        // A message with an uploaded image, marked current.
        try await session.go("#/records?type=Message", heading: "Records")
        try await browser.element("#new-record").click()
        try await browser.waitForText("New Message", in: "main h1")
        let firstName = try await browser.element("#record-name").property("value") as? String ?? ""
        try await browser.element("#title .lang-row input.lang").fill("en")
        try await browser.element("#title .lang-row input.text").fill("Welcome")
        try await browser.element("#title > button").click()
        try await browser.element("#title .lang-row:nth-of-type(2) input.lang").fill("fr")
        try await browser.element("#title .lang-row:nth-of-type(2) input.text").fill("Bienvenue")
        try await browser.element("#image").type(try Self.imageFile())
        _ = try await browser.element("img.asset-preview")
        try await browser.element("#isCurrent").click()
        try await session.screenshot("record-new")
        try await browser.element("#save-record").click()
        try await browser.waitForText("Message \(firstName)", in: "main h1")
        let preview = try await browser.element("img.asset-preview")
        #expect((try await preview.property("src") as? String)?.contains("/assets/1/download/") == true)
        #expect(try await browser.script("return document.querySelector('img.asset-preview').naturalWidth") as? Int == 8)
        try await session.screenshot("record-saved")

        // The query finds it.
        try await session.go("#/records?type=Message", heading: "Records")
        try await browser.element("#add-filter").click()
        try await browser.select("#filters .filter select[aria-label='Filter field']", "isCurrent")
        try await browser.element("#filters .filter input[aria-label='Filter value']").fill("true")
        try await browser.element("#run-query").click()
        try await browser.waitForText(firstName, in: "#records-table")
        try await browser.waitForText("1 record on page 1", in: "#result-count")
        try await browser.waitForText("en: Welcome · fr: Bienvenue", in: "#records-table")
        try await session.screenshot("records-query")

        // A second current message is refused, plainly.
        try await browser.element("#new-record").click()
        try await browser.waitForText("New Message", in: "main h1")
        try await browser.element("#title .lang-row input.text").fill("Sale")
        try await browser.element("#isCurrent").click()
        try await browser.element("#save-record").click()
        let refusal = try await browser.waitForText("UNIQUE_FIELD_ERROR", in: "#record-status")
        #expect(refusal.contains("isCurrent"))
        try await session.screenshot("record-unique-refused")

        // Deploy to production, after seeing the diff.
        try await session.go("#/schema?tab=deploy", heading: "Schema")
        try await browser.waitForText("Message", in: "#deploy-changes")
        try await session.screenshot("deploy-preview")
        try await browser.element("#deploy").click()
        try await browser.waitForText("Deployed", in: "#deploy-result")
        try await session.screenshot("deployed")
        let production = try await session.admin("GET", "/admin/1/\(Self.container)/production/schema?format=json")
        let types = production["recordTypes"] as? [String: Any]
        #expect(types?["Message"] != nil)
        try await browser.select("#environment-picker", "production")
        try await browser.waitForText("None: production matches development.", in: "main")
        try await session.go("#/schema", heading: "Schema · production")
        try await browser.waitForText("UNIQUE WHERE isCurrent = true", in: "main")
        try await session.screenshot("schema-production")

        // Removing a field in development is allowed, once confirmed, as a record holds it; deploying it is
        // refused, in the server's words.
        try await browser.select("#environment-picker", "development")
        try await browser.waitForText("Schema · development", in: "main h1")
        try await browser.element("button[aria-label='Edit Message']").click()
        try await browser.element("button[aria-label='Remove field image']").click()
        try await browser.element("#save-type").click()
        let question = try await browser.acceptDialog()
        #expect(question.contains("field Message.image, which 1 record holds"), "\(question)")
        try await browser.waitForText("Saved", in: "#notices")
        try await session.go("#/schema?tab=deploy", heading: "Schema")
        let deployRefusal = try await browser.waitForText("cannot be deployed", in: "#deploy-refusal")
        #expect(deployRefusal.contains("image"))
        #expect(try await browser.element("#deploy").property("disabled") as? Bool == true)
        try await session.screenshot("deploy-refused")
        }
    }

    @Test("operators manage the API token, server keys, users' roles, and see subscriptions and live activity; on a phone too")
    func operatorPages() async throws {
        try await Session.with("operator") { session in
            let browser = session.browser
            let server = session.server
            _ = try await session.admin("PUT", "/admin/1/\(Self.container)/development/schema", body: """
                DEFINE SCHEMA
                    CREATE ROLE Admin;
                    RECORD TYPE Post (text STRING, GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
                """)
            let token = try await session.admin("GET", "/admin/1/containers")
            let apiToken = ((token["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) ?? ""
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: server, container: Self.container)
            _ = try await SharingEndToEndTests.signUp("bob@example.com", apiToken: apiToken, on: server, container: Self.container)
            let (subscribed, _) = try await alice.send("public", "subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"new-posts","subscriptionType":"query","query":{"recordType":"Post"},"firesOn":["create"]}}]}"#)
            #expect(subscribed == 200)

            // The API token: shown on request, then rotated.
            try await session.go("#/containers", heading: "Containers")
            try await browser.element("button[aria-controls='api-token']").click()
            try await browser.waitForText(apiToken, in: "#api-token")
            try await browser.element("#rotate-token").click()
            try await browser.waitForText("The API token was replaced.", in: "#notices")
            let rotated = try await session.admin("GET", "/admin/1/containers")
            #expect(((rotated["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) != apiToken)

            // A server-to-server key, added and revoked.
            try await browser.element("#key-pem").fill(P256.Signing.PrivateKey().publicKey.pemRepresentation)
            try await browser.element("#key-role").fill("Admin")
            try await browser.element("#key-role").type("\u{E007}")
            try await browser.waitForText("Admin", in: "section:last-of-type table")
            try await session.screenshot("containers-keys")
            let keys = try await session.admin("GET", "/admin/1/\(Self.container)/keys")
            #expect((keys["keys"] as? [[String: Any]])?.first?["role"] as? String == "Admin")
            try await browser.element("section:last-of-type table button.danger").click()
            try await browser.waitForText("No keys.", in: "main")
            #expect((try await session.admin("GET", "/admin/1/\(Self.container)/keys")["keys"] as? [Any])?.isEmpty == true)

            // Users: searched, and given a role and relieved of it.
            try await session.go("#/users", heading: "Users")
            try await browser.waitForText("bob@example.com", in: "#users-table")
            try await browser.element("#user-search").fill("alice")
            try await browser.element("#user-search").type("\u{E007}")
            try await browser.waitUntil("the search leaves Bob out") {
                let listed = try await browser.element("#users-table").text()
                return listed.contains("alice@example.com") && !listed.contains("bob@example.com")
            }
            try await browser.element("button[aria-label='Give alice@example.com the role']").click()
            try await browser.waitForText("alice@example.com: roles Admin.", in: "#notices")
            try await session.screenshot("users")
            let roles = try await session.admin("GET", "/admin/1/\(Self.container)/development/users/\(alice.userRecordName)/roles")
            #expect(roles["roles"] as? [String] == ["Admin"])
            try await browser.element("button[aria-label='Remove role Admin from alice@example.com']").click()
            try await browser.waitForText("alice@example.com: roles none.", in: "#notices")

            // Subscriptions and activity.
            try await session.go("#/subscriptions", heading: "Subscriptions")
            try await browser.waitForText("new-posts", in: "#subscriptions-table")
            try await session.screenshot("subscriptions")
            try await session.go("#/activity", heading: "Activity")
            try await browser.waitForText("POST /admin/1/\(Self.container)/token", in: "#activity-table")
            try await browser.waitForText("Requests, last hour", in: "#counters")
            // The page names the node it shows (behind a load balancer, each node keeps its own).
            let node = try #require(try await server.send("GET", "/readyz").1["node"] as? String)
            try await browser.waitForText(node, in: "#activity-node")
            _ = try await alice.send("public", "records/query", #"{"query":{"recordType":"Post"}}"#)
            // The list refreshes by itself every two seconds; a loaded machine may take a few rounds.
            try await browser.waitForText("/public/records/query", in: "#activity-table", timeout: 20)
            try await session.screenshot("activity")

            // A phone: the same pages fit the screen.
            try await browser.resize(width: 390, height: 844)
            for (hash, heading) in [("#/records?type=Post", "Records"), ("#/schema", "Schema"), ("#/users", "Users")] {
                try await session.go(hash, heading: heading)
                let fits = try await browser.script("return document.documentElement.scrollWidth <= window.innerWidth + 1") as? Bool
                #expect(fits == true, "\(hash) is wider than a phone")
                try await session.screenshot("phone-" + heading.lowercased())
            }
            try await browser.resize(width: 1280, height: 900)

            // A reload keeps the session; signing out ends it.
            try await session.go("#/users", heading: "Users")
            try await browser.element("#sign-out").click()
            _ = try await browser.element("#admin-key")
            try await browser.open(server.baseURL + "/console/#/users")
            _ = try await browser.element("#admin-key")
            try await session.screenshot("signed-out")
        }
    }

    static let everythingSchema = """
        DEFINE SCHEMA
            RECORD TYPE Everything (
                title     STRING QUERYABLE SORTABLE,
                amount    INT64 QUERYABLE SORTABLE,
                ratio     DOUBLE,
                flag      BOOLEAN,
                due       TIMESTAMP,
                place     LOCATION,
                link      REFERENCE,
                file      ASSET,
                data      BYTES,
                tags      LIST<STRING>,
                scores    LIST<INT64>,
                greeting  LOCALIZED STRING,
                GRANT READ TO "_world"
            );
        """

    @Test("every field type has its control; a stale change is shown as a conflict; records are duplicated and deleted")
    func recordEditor() async throws {
        try await Session.with("editor") { session in
            let browser = session.browser
            _ = try await session.admin("PUT", "/admin/1/\(Self.container)/development/schema", body: Self.everythingSchema)
            let api = try await OperatorAPI.signIn(session.server)
            _ = try await api.records("modify", #"{"operations":[{"operationType":"create","record":{"recordName":"target-1","recordType":"Everything","fields":{"title":{"value":"Target"}}}}]}"#)

            try await session.go("#/records?type=Everything", heading: "Records")
            try await browser.element("#new-record").click()
            try await browser.waitForText("New Everything", in: "main h1")
            let name = try await browser.element("#record-name").property("value") as? String ?? ""
            try await browser.element("#title").fill("Hello")
            try await browser.element("#amount").fill("42")
            try await browser.element("#ratio").fill("0.25")
            try await browser.element("#flag").click()
            try await browser.script(
                "const input = document.getElementById('due'); input.value = '2026-03-01T10:30:00'; input.dispatchEvent(new Event('input', {bubbles: true}));"
            )
            try await browser.element("#place").fill("48.85")
            try await browser.element("input[aria-label='Longitude']").fill("2.35")
            try await browser.element("#link + select + button").click()
            try await browser.element("dialog button[type='submit']").click()
            try await browser.waitForText("target-1", in: "dialog ul")
            try await browser.element("dialog ul button").click()
            try await browser.element("#file").type(try Self.imageFile())
            try await browser.element("#data").fill("AQID")
            for (index, tag) in ["red", "blue"].enumerated() {
                try await browser.element("#tags > button").click()
                try await browser.element("#tags .editor-item:nth-of-type(\(index + 1)) input").fill(tag)
            }
            try await browser.element("#scores > button").click()
            try await browser.element("#scores .editor-item input").fill("7")
            try await browser.element("#greeting .lang-row input.lang").fill("en")
            try await browser.element("#greeting .lang-row input.text").fill("Hi")
            try await session.screenshot("every-type")
            try await browser.element("#save-record").click()
            try await browser.waitForText("Everything \(name)", in: "main h1")

            let saved = try await api.record(name)
            #expect(saved["title"] as? String == "Hello")
            #expect(saved["amount"] as? Int == 42)
            #expect(saved["ratio"] as? Double == 0.25)
            #expect(saved["flag"] as? Bool == true)
            #expect((saved["due"] as? Int ?? 0) > 1_700_000_000_000)
            #expect((saved["place"] as? [String: Any])?["latitude"] as? Double == 48.85)
            #expect((saved["link"] as? [String: Any])?["recordName"] as? String == "target-1")
            #expect((saved["file"] as? [String: Any])?["size"] as? Int == 75)
            #expect(saved["data"] as? String == "AQID")
            #expect(saved["tags"] as? [String] == ["red", "blue"])
            #expect(saved["scores"] as? [Int] == [7])
            #expect(saved["greeting"] as? [String: String] == ["en": "Hi"])
            // The saved record reads back into the same controls.
            #expect((try await browser.element("#due").property("value") as? String)?.hasPrefix("2026-03-01T10:30") == true)
            #expect(try await browser.element("#flag").property("checked") as? Bool == true)

            // Someone else changes it meanwhile: saving the stale copy is refused and nothing is overwritten.
            _ = try await api.records("modify", #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"\#(name)","recordType":"Everything","fields":{"title":{"value":"Changed elsewhere"}}}}]}"#)
            try await browser.element("#title").fill("Mine")
            try await browser.element("#save-record").click()
            try await browser.waitForText("CONFLICT", in: "#conflict")
            try await session.screenshot("conflict")
            #expect(try await api.record(name)["title"] as? String == "Changed elsewhere")
            try await browser.element("#conflict button").click()
            try await browser.waitUntil("the reloaded record shows the other change") {
                try await browser.element("#title").property("value") as? String == "Changed elsewhere"
            }

            // Duplicate (files included), then delete the copy.
            try await browser.element("#duplicate-record").click()
            try await browser.waitForText("New Everything", in: "main h1")
            let copyName = try await browser.element("#record-name").property("value") as? String ?? ""
            #expect(copyName != name)
            try await browser.element("#save-record").click()
            try await browser.waitForText("Everything \(copyName)", in: "main h1")
            let copy = try await api.record(copyName)
            #expect(copy["title"] as? String == "Changed elsewhere")
            #expect((copy["file"] as? [String: Any])?["fileChecksum"] as? String == (saved["file"] as? [String: Any])?["fileChecksum"] as? String)
            #expect(copy["tags"] as? [String] == ["red", "blue"])
            try await browser.element("#delete-record").click()
            try await browser.waitForText("deleted", in: "#notices")
            #expect(try await api.lookup(copyName)["serverErrorCode"] as? String == "NOT_FOUND")

            // Sorted, paged results.
            try await session.go("#/records?type=Everything", heading: "Records")
            try await browser.select("#sort-field", "title")
            try await browser.select("#sort-direction", "asc")
            try await browser.element("#run-query").click()
            try await browser.waitForText("2 records on page 1", in: "#result-count")
            let rows = try await browser.element("#records-table tbody").text()
            let mine = try #require(rows.range(of: "Changed elsewhere"))
            let target = try #require(rows.range(of: "Target"))
            #expect(mine.lowerBound < target.lowerBound)
            try await session.screenshot("records-sorted")
        }
    }

    @Test("an import's progress shows as it goes: counts, share, bytes, rate, time left, then how it ended")
    func importProgress() async throws {
        try await Session.with("imports") { session in
            let browser = session.browser
            let path = "/admin/1/\(Self.container)/transfers/import-1"
            let running = #"{"id":"import-1","containerID":"","kind":"import cloudkit","peer":"iCloud.com.example.App (production) at https://api.apple-cloudkit.com","state":"running","recordsDone":40,"recordsTotal":100,"bytes":3145728,"recordsPerSecond":20,"secondsLeft":3,"startedAt":1700000000000,"updatedAt":0}"#
            _ = try await session.admin("PUT", path, body: running)
            try await session.go("#/transfers", heading: "Imports and exports")
            let facts = try await browser.waitForText("40 of 100 records (40%)", in: "#transfers")
            #expect(facts.contains("3.0 MB") && facts.contains("20 records/s") && facts.contains("about 3 s left") && facts.contains("running"), "\(facts)")
            #expect(try await browser.element("#transfers progress").property("value") as? Double == 40)
            try await session.screenshot("running")
            // The import goes on and ends: the page follows without a reload.
            let finished = running.replacingOccurrences(of: #""state":"running","recordsDone":40"#, with: #""state":"finished","message":"verified 100 records of 2 types","recordsDone":100"#)
            _ = try await session.admin("PUT", path, body: finished)
            let ended = try await browser.waitForText("verified 100 records of 2 types", in: "#transfers")
            #expect(ended.contains("100 of 100 records (100%)") && ended.contains("finished") && !ended.contains("left"), "\(ended)")
            try await session.screenshot("finished")
        }
    }

    @Test("an operator browses a user's private database by userRecordName: it opens on the user's own zone")
    func privateDatabase() async throws {
        try await Session.with("private") { session in
            let browser = session.browser
            let containers = try await session.admin("GET", "/admin/1/containers")
            let apiToken = ((containers["containers"] as? [[String: Any]])?.first?["apiToken"] as? String) ?? ""
            let alice = try await SharingEndToEndTests.signUp("alice@example.com", apiToken: apiToken, on: session.server, container: Self.container)
            _ = try await alice.send("private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#)
            _ = try await alice.record("private", "records/modify", #"{"zoneID":{"zoneName":"Notes"},"operations":[{"operationType":"create","record":{"recordName":"note-1","recordType":"Note","fields":{"text":{"value":"Buy milk"}}}}]}"#)

            try await session.go("#/records", heading: "Records")
            try await browser.select("#database", "private")
            try await browser.element("#private-user").fill(alice.userRecordName)
            try await browser.element("#run-query").click()
            try await browser.waitForText("Zone", in: "form")
            // The user's database opens on their own zone, listed with the others.
            try await browser.waitUntil("the zone list to show the user's Notes zone") {
                try await browser.element("#zone").property("value") as? String == "Notes"
            }
            try await browser.select("#record-type", "Note")
            try await browser.element("#run-query").click()
            try await browser.waitForText("note-1", in: "#records-table")
            try await browser.element("#records-table a").click()
            try await browser.waitForText("Note note-1", in: "main h1")
            #expect(try await browser.element("#text").property("value") as? String == "Buy milk")
            try await session.screenshot("private-record")
        }
    }
}

/// The operator's calls over HTTP with a console session, for setting the scene beside the browser.
struct OperatorAPI {
    let server: ServerProcess
    let headers: [String: String]

    static func signIn(_ server: ServerProcess) async throws -> OperatorAPI {
        let (response, json) = try send(server, "POST", "/admin/1/session", body: #"{"adminKey":"\#(ServerProcess.adminKey)"}"#, headers: [:])
        guard let cookie = response.headers["set-cookie"]?.split(separator: ";").first.map(String.init), let csrf = json["csrfToken"] as? String else {
            throw E2EFailure("console sign-in answered \(response.status)")
        }
        return OperatorAPI(server: server, headers: ["Cookie": cookie, "X-Stratus-CSRF": csrf])
    }

    /// `records/<operation>` in the public database of the test container.
    func records(_ operation: String, _ body: String) async throws -> [String: Any] {
        let path = "/database/1/\(ConsoleBrowserTests.container)/development/public/records/\(operation)"
        let (response, json) = try Self.send(server, "POST", path, body: body, headers: headers)
        guard response.status == 200 else { throw E2EFailure("records/\(operation) answered \(response.status): \(json)") }
        return json
    }

    private static func send(
        _ server: ServerProcess, _ method: String, _ path: String, body: String, headers: [String: String]
    ) throws -> (StreamingHTTP.Response, [String: Any]) {
        let bytes = Array(body.utf8)
        guard let response = try StreamingHTTP(port: server.port).send(method, path, length: bytes.count, chunks: [bytes], headers: headers) else {
            throw E2EFailure("\(path): no answer")
        }
        return (response, (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:])
    }

    /// The lookup result for one record: the record, or its error.
    func lookup(_ name: String) async throws -> [String: Any] {
        let json = try await records("lookup", #"{"records":[{"recordName":"\#(name)"}]}"#)
        return (json["records"] as? [[String: Any]])?.first ?? [:]
    }

    /// A record's field values by name.
    func record(_ name: String) async throws -> [String: Any] {
        let fields = try await lookup(name)["fields"] as? [String: [String: Any]] ?? [:]
        return fields.compactMapValues { $0["value"] }
    }
}
