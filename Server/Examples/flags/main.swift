import Foundation
import StratusExampleSupport
import StratusFlags
import StratusKit

// An Admin defines two switches and rolls one out to half the users; the table shows who sees what.

await runExample {
    let containerID = "iCloud.com.example.Flags"
    let server = try ExampleServer()
    try await server.installSchema(FlagsSchema.text, containerID: containerID)

    let admin = try await server.signedIn("admin@example.com", containerID: containerID)
    try await server.assign(["Admin"], to: admin)
    let publisher = FeatureSwitchPublisher(database: admin.publicCloudDatabase)
    try await publisher.save(SwitchRule(identifier: "newOnboarding", isEnabled: true, rolloutPercentage: 50))
    try await publisher.save(SwitchRule(identifier: "spanishPromo", isEnabled: true, locales: ["es"], minimumAppVersion: "2.0"))

    let newOnboarding = FeatureSwitch(identifier: "newOnboarding")
    let spanishPromo = FeatureSwitch(identifier: "spanishPromo")
    let darkIcons = FeatureSwitch(identifier: "darkIcons", isEnabledByDefault: true)

    // Anyone reads switches, signed in or not.
    let reader = Container(identifier: containerID, serverURL: server.url, apiToken: try await server.apiToken(for: containerID))
    let flags = StratusFeatureSwitchProvider(
        database: reader.publicCloudDatabase, context: FlagContext(appVersion: "2.1", userID: "user-1"), cacheFile: nil
    )
    try await flags.refresh()
    print("user     language  version  newOnboarding  spanishPromo  darkIcons (default)")
    for (user, language, version) in [("user-1", "en", "2.1"), ("user-2", "en", "2.1"), ("user-3", "es", "2.1"), ("user-4", "es-MX", "1.9"), ("user-5", "fr", "2.1"), ("user-6", "es", "2.0")] {
        flags.update(context: FlagContext(appVersion: version, language: language, userID: user))
        let row = [newOnboarding, spanishPromo, darkIcons].map { flags.isEnabled($0) ? "on " : "off" }
        print("\(user)   \(language.padding(toLength: 8, withPad: " ", startingAt: 0))  \(version)      \(row[0])            \(row[1])           \(row[2])")
    }
}
