import Foundation
import StratusKit
import StratusMessages
import Testing

@Suite struct MessagesTests {
    static let english = MessageContext(installedVersion: "2.0", languages: ["en-US"])

    static func message(_ id: String, kind: InAppMessage.Kind = .information, schemaVersion: Int = 1) -> InAppMessage {
        InAppMessage(
            id: id, schemaVersion: schemaVersion, kind: kind, title: ["en": "Hello \(id)", "es": "Hola \(id)"],
            content: ["en": "News", "es": "Noticias"],
            buttonTitles: .init(okay: ["en": "Okay", "es": "Vale"], cancel: ["en": "No Thanks", "es": "No, Gracias"])
        )
    }

    @Test("each kind of message shows the buttons its kind and the user's situation call for, in the user's language")
    func buttons() {
        func actions(_ kind: InAppMessage.Kind, _ context: MessageContext = MessagesTests.english) -> [MessageButton.Action] {
            Self.message("m", kind: kind).localized(for: context).buttons.map(\.action)
        }
        let site = URL(string: "https://example.com")!
        #expect(actions(.information) == [.dismiss])
        #expect(actions(.website(site)) == [.openURL(site), .dismiss])
        #expect(actions(.email(address: "hi@example.com")) == [.composeEmail(to: "hi@example.com"), .dismiss])
        #expect(actions(.newVersion(version: "2.1", storeURL: site)) == [.update(storeURL: site), .dismiss])
        #expect(actions(.newVersion(version: "2.0.0", storeURL: site)) == [.dismiss])
        #expect(Self.message("m", kind: .newVersion(version: "1.9", storeURL: nil)).localized(for: Self.english).buttons.first?.title == "I Already Have It")
        #expect(actions(.inAppPurchase(productID: "pro")) == [.purchase(productID: "pro"), .dismiss])
        #expect(actions(.inAppPurchase(productID: "pro"), MessageContext(installedVersion: "2.0", isSubscribed: true)) == [.dismiss])
        #expect(AppVersion("1.10") > AppVersion("1.9"))

        let spanish = Self.message("m", kind: .website(site)).localized(for: MessageContext(installedVersion: "2.0", languages: ["es-MX", "en"]))
        #expect(spanish.title == "Hola m")
        #expect(spanish.buttons.map(\.title) == ["Open", "No, Gracias"])
        let french = Self.message("m").localized(for: MessageContext(installedVersion: "2.0", languages: ["fr"]))
        #expect(french.content == "News")
        #expect(french.buttons.map(\.title) == ["Okay"])
    }

    @Test("the stub provider answers its message once")
    func stub() async throws {
        let provider = StubMessageProvider(message: Self.message("preview"))
        let message = try #require(try await provider.messageToShow())
        await provider.markShown(message)
        #expect(try await provider.messageToShow() == nil)
    }

    @Test("a message shown in one container's app is still to show in another container's and in the other environment")
    func shownPerContainer() async throws {
        let suite = "stratus-messages-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let server = URL(string: "http://127.0.0.1:9")!
        let first = Container(identifier: "iCloud.test.first", serverURL: server, apiToken: "t")
        let second = Container(identifier: "iCloud.test.second", serverURL: server, apiToken: "t")
        let production = Container(identifier: "iCloud.test.first", serverURL: server, apiToken: "t", environment: .production)
        await UserDefaultsShownMessages(defaults: defaults, database: first.publicCloudDatabase).insert("welcome")
        #expect(await UserDefaultsShownMessages(defaults: defaults, database: first.publicCloudDatabase).contains("welcome"))
        #expect(await !UserDefaultsShownMessages(defaults: defaults, database: second.publicCloudDatabase).contains("welcome"))
        #expect(await !UserDefaultsShownMessages(defaults: defaults, database: production.publicCloudDatabase).contains("welcome"))
    }

    @Test("an Admin publishes; users see the one current message once, in their language; the schema keeps one current message")
    func publishing() async throws {
        try await KitTestServer.run { server in
            try await server.importSchema(MessageSchema.text)
            let admin = try await server.signedUpAdmin("admin@example.com")
            let user = try await server.signedUp("user@example.com")
            let publisher = MessagePublisher(database: admin.publicCloudDatabase)
            var welcome = Self.message("welcome")
            welcome.image = Asset(data: Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3]))
            welcome.imageAccessibilityLabel = ["en": "A wave", "es": "Una ola"]
            try await publisher.publish(welcome)

            let provider = StratusMessageProvider(database: user.publicCloudDatabase, supportedSchemaVersion: 1, shown: InMemoryShownMessages())
            let shown = try #require(try await provider.messageToShow())
            #expect(shown.id == "welcome")
            let spanish = shown.localized(for: MessageContext(installedVersion: "1.0", languages: ["es"]))
            #expect(spanish.title == "Hola welcome")
            #expect(spanish.imageAccessibilityLabel == "Una ola")
            let image = try #require(shown.image)
            #expect(try await user.publicCloudDatabase.data(for: image).count == 11)
            await provider.markShown(shown)
            #expect(try await provider.messageToShow() == nil)

            // A new message replaces the current one; the user sees it once too.
            try await publisher.publish(Self.message("update", kind: .newVersion(version: "3.0", storeURL: nil)))
            #expect(try await provider.messageToShow()?.id == "update")
            // A message newer than the app understands is not shown.
            try await publisher.publish(Self.message("future", schemaVersion: 2))
            #expect(try await provider.messageToShow() == nil)

            // Ordinary users cannot publish, and the schema refuses a second current message.
            await #expect { try await MessagePublisher(database: user.publicCloudDatabase).publish(Self.message("spam")) } throws: { error in
                (error as? StratusError)?.code == .permissionFailure
            }
            var second = Self.message("second").record
            second["isCurrent"] = true
            await #expect { try await admin.publicCloudDatabase.save(second) } throws: { error in
                (error as? StratusError)?.code == .constraintViolation
            }
            var empty = Self.message("empty")
            empty.content = [:]
            await #expect { try await admin.publicCloudDatabase.save(empty.record) } throws: { error in
                (error as? StratusError)?.code == .invalidArguments
            }
        }
    }
}
