import Foundation
import StratusExampleSupport
import StratusKit
import StratusMessages

// An Admin publishes an in-app message; an ordinary user is shown it once, in English and in Spanish.

await runExample {
    let containerID = "iCloud.com.example.Messages"
    let server = try ExampleServer()
    try await server.installSchema(MessageSchema.text, containerID: containerID)

    let admin = try await server.signedIn("admin@example.com", containerID: containerID)
    try await server.assign(["Admin"], to: admin)
    let message = InAppMessage(
        id: "welcome-\(Int(Date().timeIntervalSince1970))", kind: .website(URL(string: "https://example.com/whats-new")!),
        title: ["en": "What's new", "es": "Novedades"],
        content: ["en": "Shared lists are here.", "es": "Ya llegaron las listas compartidas."],
        buttonTitles: .init(action: ["en": "Read More", "es": "Leer más"], cancel: ["en": "No Thanks", "es": "No, gracias"])
    )
    try await MessagePublisher(database: admin.publicCloudDatabase).publish(message)
    print("Published \(message.id) as the current message.")

    let user = try await server.signedIn("reader@example.com", containerID: containerID)
    let provider = StratusMessageProvider(database: user.publicCloudDatabase, supportedSchemaVersion: 1, shown: InMemoryShownMessages())
    for languages in [["en-US"], ["es-ES"]] {
        guard let current = try await provider.messageToShow() else {
            print("[\(languages[0])] nothing to show")
            continue
        }
        let shown = current.localized(for: MessageContext(installedVersion: "1.0", languages: languages))
        print("[\(languages[0])] \(shown.title): \(shown.content)  [\(shown.buttons.map(\.title).joined(separator: "] ["))]")
    }
    await provider.markShown(try await provider.messageToShow()!)
    print("After it was shown: \(try await provider.messageToShow() == nil ? "nothing more to show" : "shown again (wrong)")")
}
