import ArgumentParser

@main
struct Stratus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus",
        abstract: "A self-hosted server that speaks CloudKit Web Services.",
        subcommands: [Serve.self, ContainerCommand.self, SchemaCommand.self, UsersCommand.self, KeysCommand.self, Bench.self]
    )
}
