import ArgumentParser

/// `stratus import`: bring data in from elsewhere.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import data into a running server: a live CloudKit container.",
        subcommands: [ImportCloudKit.self]
    )
}
