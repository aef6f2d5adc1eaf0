import Foundation
import StratusFlags
import StratusKit
import StratusKitTesting
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

    @Test("a refresh reads the public database's change feed: all switches the first time, then only what changed, deletions included")
    func refreshReadsTheFeed() async throws {
        try await KitTestServer.run { server in
            try await server.importSchema(FlagsSchema.text)
            let admin = try await server.signedUpAdmin("admin@example.com")
            let switches = (0..<250).map { index in
                var record = Record(recordType: SwitchRule.recordType, recordID: Record.ID(recordName: "s\(index)"))
                record["identifier"] = "s\(index)"
                record["isEnabled"] = true
                return record
            }
            _ = try await admin.publicCloudDatabase.save(Array(switches.prefix(200)))
            _ = try await admin.publicCloudDatabase.save(Array(switches.dropFirst(200)))

            let network = FaultInjectingTransport()
            let cache = URL(fileURLWithPath: server.deviceFolder.path).appendingPathComponent("switches.json")
            let reader = server.container(transport: network)
            let flags = StratusFeatureSwitchProvider(database: reader.publicCloudDatabase, context: Self.context(), cacheFile: cache)
            try await flags.refresh()
            #expect(flags.isEnabled(FeatureSwitch(identifier: "s0")) && flags.isEnabled(FeatureSwitch(identifier: "s249")))
            #expect(network.requests == 2, "a first refresh of 250 switches takes two pages")

            let publisher = FeatureSwitchPublisher(database: admin.publicCloudDatabase)
            try await publisher.save(SwitchRule(identifier: "s1", isEnabled: false))
            try await publisher.delete(identifier: "s2")
            // A relaunch goes on from the token the cache kept.
            let relaunched = StratusFeatureSwitchProvider(database: reader.publicCloudDatabase, context: Self.context(), cacheFile: cache)
            try await relaunched.refresh()
            #expect(network.requests == 3, "a later refresh reads one page of changes")
            #expect(!relaunched.isEnabled(FeatureSwitch(identifier: "s1")))
            #expect(!relaunched.isEnabled(FeatureSwitch(identifier: "s2")))
            #expect(relaunched.isEnabled(FeatureSwitch(identifier: "s2", isEnabledByDefault: true)))
            #expect(relaunched.isEnabled(FeatureSwitch(identifier: "s3")))
            try await relaunched.refresh()
            #expect(network.requests == 4 && relaunched.isEnabled(FeatureSwitch(identifier: "s249")))
        }
    }

    @Test("an override made for one container's switches reaches neither another container nor the other environment")
    func overridesPerContainer() throws {
        let server = URL(string: "http://127.0.0.1:9")!
        let first = Container(identifier: "iCloud.test.first-\(UUID().uuidString)", serverURL: server, apiToken: "t")
        let second = Container(identifier: "iCloud.test.second-\(UUID().uuidString)", serverURL: server, apiToken: "t")
        let firstInProduction = Container(identifier: first.identifier, serverURL: server, apiToken: "t", environment: .production)
        let files = [first, second, firstInProduction].compactMap { StratusFeatureSwitchProvider.defaultCacheFile(for: $0.publicCloudDatabase) }
        defer { for container in [first, second] { try? FileManager.default.removeItem(at: files[0].deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent(container.identifier)) } }
        #expect(Set(files).count == 3, "\(files)")

        let editor = FeatureSwitch(identifier: "editor")
        StratusFeatureSwitchProvider(database: first.publicCloudDatabase, context: Self.context()).setOverride(true, for: editor)
        #expect(StratusFeatureSwitchProvider(database: first.publicCloudDatabase, context: Self.context()).isEnabled(editor))
        #expect(!StratusFeatureSwitchProvider(database: second.publicCloudDatabase, context: Self.context()).isEnabled(editor))
        #expect(!StratusFeatureSwitchProvider(database: firstInProduction.publicCloudDatabase, context: Self.context()).isEnabled(editor))
    }

    @Test("a random curated item is valid now, for the app version, in the user's language or every language, and found without reading the collection")
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
            /// Draws until every expected item was seen (each is picked with the chance of the gap before its random
            /// key), or an unexpected one was; at most 2,000 draws.
            func drawn(_ context: FlagContext, expecting expected: Set<String>) async throws -> Set<String> {
                var seen: Set<String> = []
                for _ in 0..<2_000 where seen != expected && seen.isSubset(of: expected) {
                    if let item = try await reader.randomItem(in: "tips", context: context) { seen.insert(item.id) }
                }
                return seen
            }
            // Items for every language are candidates beside the user's language's own.
            #expect(try await drawn(Self.context(version: "2.0", language: "en-GB"), expecting: ["a", "b"]) == ["a", "b"])
            #expect(try await drawn(Self.context(version: "3.1", language: "en"), expecting: ["a", "b", "v3"]) == ["a", "b", "v3"])
            #expect(try await drawn(Self.context(language: "es"), expecting: ["a", "es"]) == ["a", "es"])
            #expect(try await drawn(Self.context(language: "de"), expecting: ["a"]) == ["a"])
            #expect(try await reader.randomItem(in: "empty", context: Self.context()) == nil)
        }
    }
}
