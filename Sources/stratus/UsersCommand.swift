import ArgumentParser
import StratusModel
import StratusServer

/// `stratus users ...`: users of a container.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "users", abstract: "Manage users.", subcommands: [Roles.self])

    struct Roles: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a user's custom roles, or assign them with --set (which replaces the roles assigned before)."
        )

        @OptionGroup var target: SchemaCommand.Target

        @Argument(help: "The user's record name (_ and 32 hex digits).")
        var user: String

        @Option(help: "development or production.")
        var environment: StratusModel.Environment = .development

        @Option(help: "Comma-separated roles to assign, such as Admin,Editor; an empty value removes them all.")
        var set: String?

        func run() async throws {
            try await reportingErrors {
                let store = try target.openStore()
                let roles: [String]
                if let set {
                    let wanted = set.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    roles = try await AdminOperations.setRoles(wanted, of: user, containerID: target.container, environment: environment, store: store)
                } else {
                    roles = try await AdminOperations.roles(of: user, containerID: target.container, environment: environment, store: store)
                }
                print(roles.isEmpty ? "(no roles)" : roles.joined(separator: ", "))
            }
        }
    }
}
