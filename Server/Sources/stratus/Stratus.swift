import ArgumentParser
import NIOCore
import NIOPosix

@main
struct Stratus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stratus",
        abstract: "A self-hosted server that speaks CloudKit Web Services.",
        subcommands: [Serve.self, ContainerCommand.self, SchemaCommand.self, UsersCommand.self, KeysCommand.self, AdminKeyCommand.self, SecretsCommand.self, FunctionsCommand.self, JobsCommand.self, QuotasCommand.self, Migrate.self, Export.self, ImportCommand.self, Backup.self, Restore.self, Bench.self]
    )

    static func main() async {
        // Swift concurrency's tasks run on the event loops that serve the connections, so a request's handler
        // runs on the thread its bytes arrived on, without hops between two thread pools on the way in and out.
        // This runs on the main thread before any task exists, as NIO asks.
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
        await main(nil)
    }
}
