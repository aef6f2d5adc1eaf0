import Foundation
import StratusFlags
import StratusKit
import Testing

@Suite struct FlagsTests {
    static func context(_ user: String = "u1", version: String = "2.0", language: String = "en", platform: String = "iOS", now: Date = Date()) -> FlagContext {
        FlagContext(appVersion: version, language: language, platform: platform, userID: user, now: now)
    }

    @Test("targeting by language, platform, version range and dates; a percentage rollout is stable per user and near its share")
    func targeting() {
        let rule = SwitchRule(
            identifier: "editor", isEnabled: true, locales: ["en", "pt"], platforms: ["iOS"], minimumAppVersion: "1.10", maximumAppVersion: "3",
            startDate: Date(timeIntervalSince1970: 1_000), endDate: Date(timeIntervalSince1970: 10_000_000_000)
        )
        #expect(rule.isOn(for: Self.context()))
        #expect(rule.isOn(for: Self.context(language: "pt-BR")))
        #expect(!rule.isOn(for: Self.context(language: "de")))
        #expect(!rule.isOn(for: Self.context(platform: "macOS")))
        #expect(!rule.isOn(for: Self.context(version: "1.9")))
        #expect(!rule.isOn(for: Self.context(version: "3.0.1")))
        #expect(!rule.isOn(for: Self.context(now: Date(timeIntervalSince1970: 500))))
        var off = rule
        off.isEnabled = false
        #expect(!off.isOn(for: Self.context()))

        let half = SwitchRule(identifier: "rollout", isEnabled: true, rolloutPercentage: 50)
        let on = (0..<2_000).filter { half.isOn(for: Self.context("user-\($0)")) }.count
        #expect((900...1_100).contains(on))
        #expect((0..<50).allSatisfy { half.isOn(for: Self.context("user-\($0)")) == half.isOn(for: Self.context("user-\($0)")) })
        #expect(AppVersion("1.10") > AppVersion("1.9") && AppVersion("1.2") == AppVersion("1.2.0") && AppVersion("2.3.4").code == 2_003_004)
    }

    @Test("switches from the server, local overrides, and the last known state after a cold start without network")
    func provider() async throws {
        try await KitTestServer.run { server in
            try await server.importSchema(FlagsSchema.text)
            let admin = try await server.signedUpAdmin("admin@example.com")
            let publisher = FeatureSwitchPublisher(database: admin.publicCloudDatabase)
            try await publisher.save(SwitchRule(identifier: "newEditor", isEnabled: true, rolloutPercentage: 50))
            try await publisher.save(SwitchRule(identifier: "spanishOnly", isEnabled: true, locales: ["es"]))
            await #expect { try await FeatureSwitchPublisher(database: server.container().publicCloudDatabase).save(SwitchRule(identifier: "x", isEnabled: true)) } throws: { error in
                (error as? StratusError)?.code == .notAuthenticated || (error as? StratusError)?.code == .permissionFailure
            }

            let newEditor = FeatureSwitch(identifier: "newEditor")
            let spanishOnly = FeatureSwitch(identifier: "spanishOnly")
            let missing = FeatureSwitch(identifier: "missing", isEnabledByDefault: true)
            let cache = FileManager.default.temporaryDirectory.appendingPathComponent("flags-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: cache) }
            // Anonymous users read switches too.
            let flags = StratusFeatureSwitchProvider(database: server.container().publicCloudDatabase, context: Self.context(), cacheFile: cache)
            #expect(!flags.isEnabled(newEditor) && !flags.isEnabled(spanishOnly) && flags.isEnabled(missing))
            try await flags.refresh()
            let users = (0..<200).map { "user-\($0)" }
            let enabled = users.filter { user in
                flags.update(context: Self.context(user))
                return flags.isEnabled(newEditor)
            }
            #expect((70...130).contains(enabled.count))
            #expect(!flags.isEnabled(spanishOnly))
            flags.update(context: Self.context(language: "es-ES"))
            #expect(flags.isEnabled(spanishOnly))
            flags.setOverride(false, for: spanishOnly)
            #expect(!flags.isEnabled(spanishOnly))

            // A cold start whose server cannot be reached still answers as last seen.
            let offline = Container(identifier: KitTestServer.container, serverURL: URL(string: "http://127.0.0.1:9")!, apiToken: server.apiToken)
            let coldStart = StratusFeatureSwitchProvider(database: offline.publicCloudDatabase, context: Self.context(enabled[0]), cacheFile: cache)
            await #expect(throws: StratusError.self) { try await coldStart.refresh() }
            #expect(coldStart.isEnabled(newEditor))
            coldStart.update(context: Self.context(language: "es"))
            #expect(!coldStart.isEnabled(spanishOnly))
            coldStart.setOverride(nil, for: spanishOnly)
            #expect(coldStart.isEnabled(spanishOnly))
            #expect(StubFeatureSwitchProvider(values: ["newEditor": true]).isEnabled(newEditor))
        }
    }

    @Test("a random curated item is valid now, for the app version and language, and found without reading the collection")
    func curated() async throws {
        try await KitTestServer.run { server in
            try await server.importSchema(FlagsSchema.text)
            let admin = try await server.signedUpAdmin("admin@example.com")
            let content = CuratedContent(database: admin.publicCloudDatabase)
            let now = Date()
            try await content.publish(CuratedItem(id: "a", collection: "tips", title: ["en": "Tip A"], publishedAt: now.addingTimeInterval(-60)))
            try await content.publish(CuratedItem(id: "b", collection: "tips", title: ["en": "Tip B"], publishedAt: now.addingTimeInterval(-60), locales: ["en"]))
            try await content.publish(CuratedItem(id: "expired", collection: "tips", title: ["en": "Old"], publishedAt: now.addingTimeInterval(-600), expiresAt: now.addingTimeInterval(-60)))
            try await content.publish(CuratedItem(id: "future", collection: "tips", title: ["en": "Soon"], publishedAt: now.addingTimeInterval(3_600)))
            try await content.publish(CuratedItem(id: "es", collection: "tips", title: ["es": "Consejo"], publishedAt: now.addingTimeInterval(-60), locales: ["es"]))
            try await content.publish(CuratedItem(id: "v3", collection: "tips", title: ["en": "New"], publishedAt: now.addingTimeInterval(-60), minimumAppVersion: AppVersion("3.0"), locales: ["en"]))
            try await content.publish(CuratedItem(id: "other", collection: "news", title: ["en": "News"], publishedAt: now.addingTimeInterval(-60)))

            // A user who is not an Admin is refused with the record's own error, as the other publishers are.
            let user = CuratedContent(database: try await server.signedUp("user@example.com").publicCloudDatabase)
            await #expect { try await user.publish(CuratedItem(id: "mine", collection: "tips", title: ["en": "Mine"], publishedAt: now)) } throws: { error in
                (error as? StratusError)?.code == .permissionFailure
            }

            let reader = CuratedContent(database: server.container().publicCloudDatabase)
            var english: Set<String> = []
            for _ in 0..<30 {
                if let item = try await reader.randomItem(in: "tips", context: Self.context(version: "2.0", language: "en-GB")) { english.insert(item.id) }
            }
            #expect(english == ["b"])
            // Each item is picked with the chance of the gap before its random key: draw until both were seen.
            var newer: Set<String> = []
            for _ in 0..<2_000 where newer.count < 2 || !newer.isSubset(of: ["b", "v3"]) {
                if let item = try await reader.randomItem(in: "tips", context: Self.context(version: "3.1", language: "en")) { newer.insert(item.id) }
            }
            #expect(newer == ["b", "v3"])
            #expect(try await reader.randomItem(in: "tips", context: Self.context(language: "es"))?.id == "es")
            #expect(try await reader.randomItem(in: "tips", context: Self.context(language: "de"))?.id == "a")
            #expect(try await reader.randomItem(in: "empty", context: Self.context()) == nil)
        }
    }
}
