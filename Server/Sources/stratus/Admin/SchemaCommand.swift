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

    /// Options every command on one container takes.
    struct Target: ParsableArguments {
        @Argument(help: "The container ID, such as iCloud.com.example.App.")
        var container: String

        @OptionGroup var admin: AdminTarget

        func connect() async throws -> any AdminBackend {
            try await admin.connect()
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print an environment's schema as schema text.")

        @OptionGroup var target: Target

        @Option(help: "development or production.")
        var environment: StratusModel.Environment = .development

        func run() async throws {
            try await reportingErrors {
                print(try await target.connect().schemaText(container: target.container, environment: environment), terminator: "")
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Replace the development schema with a schema file.")

        @OptionGroup var target: Target

        @Argument(help: "The schema file (.ckdb), or - for standard input.")
        var file: String

        @Flag(help: "Remove record types and fields that records hold, with their values.")
        var force = false

        func run() async throws {
            try await reportingErrors {
                let text: String
                if file == "-" {
                    text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                } else {
                    text = try String(contentsOfFile: file, encoding: .utf8)
                }
                let changes = try await target.connect().importSchema(text, container: target.container, force: force)
                printChanges(changes, empty: "The development schema is unchanged.")
            }
        }
    }

    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what deploying the development schema would change in production.")

        @OptionGroup var target: Target

        func run() async throws {
            try await reportingErrors {
                let changes = try await target.connect().schemaDiff(container: target.container)
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
                let deployment = try await target.connect().deploy(container: target.container, dryRun: dryRun)
                printChanges(deployment.changes, empty: "Production already has the development schema.")
                if !deployment.changes.isEmpty {
                    print(deployment.deployed ? "Deployed to production." : "Dry run: nothing was deployed.")
                }
            }
        }
    }
}

/// Prints one change per line, `!` marking the ones production would refuse.
private func printChanges(_ changes: [SchemaChangeLine], empty: String) {
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
    } catch let error as CommandFailure {
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

    init(_ message: String) {
        description = message
    }
}

extension StratusModel.Environment: @retroactive ExpressibleByArgument {}
