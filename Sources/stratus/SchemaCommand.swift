import ArgumentParser
import Foundation
import StratusModel
import StratusServer

/// `stratus schema ...`: a container's schema as text, and deploys to production.
struct SchemaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema", abstract: "Export, import, compare and deploy schemas.",
        subcommands: [Export.self, Import.self, Diff.self, Deploy.self]
    )

    /// Options every schema command takes.
    struct Target: ParsableArguments {
        @Argument(help: "The container ID, such as iCloud.com.example.App.")
        var container: String

        @Option(help: "The data folder (STRATUS_DATA).")
        var data: String?

        func openStore() throws -> DataFolder.Store {
            try DataFolder(path: data ?? environmentValue("STRATUS_DATA") ?? "./stratus-data").openStore()
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print an environment's schema as schema text.")

        @OptionGroup var target: Target

        @Option(help: "development or production.")
        var environment: StratusModel.Environment = .development

        func run() async throws {
            try await reportingErrors {
                print(try await AdminOperations.schemaText(containerID: target.container, environment: environment, store: target.openStore()), terminator: "")
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace the development schema with a schema file.")

        @OptionGroup var target: Target

        @Argument(help: "The schema file (.ckdb), or - for standard input.")
        var file: String

        func run() async throws {
            try await reportingErrors {
                let text: String
                if file == "-" {
                    text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                } else {
                    text = try String(contentsOfFile: file, encoding: .utf8)
                }
                let changes = try await AdminOperations.importSchema(text, containerID: target.container, environment: .development, store: target.openStore())
                printChanges(changes, empty: "The development schema is unchanged.")
            }
        }
    }

    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what deploying the development schema would change in production.")

        @OptionGroup var target: Target

        func run() async throws {
            try await reportingErrors {
                let changes = try await AdminOperations.schemaDiff(containerID: target.container, store: target.openStore())
                printChanges(changes, empty: "Production already has the development schema.")
            }
        }
    }

    struct Deploy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Copy the development schema to production, if every change is additive.")

        @OptionGroup var target: Target

        @Flag(help: "Show the changes without deploying them.")
        var dryRun = false

        func run() async throws {
            try await reportingErrors {
                let deployment = try await AdminOperations.deploy(containerID: target.container, dryRun: dryRun, store: target.openStore())
                printChanges(deployment.changes, empty: "Production already has the development schema.")
                if !deployment.changes.isEmpty {
                    print(deployment.deployed ? "Deployed to production." : "Dry run: nothing was deployed.")
                }
            }
        }
    }
}

/// Prints one change per line, `!` marking the ones production would refuse.
private func printChanges(_ changes: [SchemaChange], empty: String) {
    guard !changes.isEmpty else { return print(empty) }
    for change in changes {
        print("\(change.isAdditive ? "+" : "!") \(change.description)")
    }
}

/// Runs an operator action, turning any failure into a one-line message and a non-zero exit.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as ValidationError {
        throw error
    } catch {
        throw CommandFailure(APIError(translating: error))
    }
}

/// An operator command that failed: printed as `Error: CODE: reason`, without the usage text that
/// argument mistakes get.
struct CommandFailure: Error, CustomStringConvertible {
    var description: String

    init(_ error: APIError) {
        description = "\(error.code): \(error.reason)"
    }
}

extension StratusModel.Environment: ExpressibleByArgument {}
