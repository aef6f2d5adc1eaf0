import ArgumentParser

/// `stratus import`: bring data in from elsewhere.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import data into a running server: a live CloudKit container, or an archive of stratus export.",
        subcommands: [ImportCloudKit.self, ImportArchive.self]
    )
}
