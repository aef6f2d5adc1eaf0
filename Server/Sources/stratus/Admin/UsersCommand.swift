import ArgumentParser
import StratusModel

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
                let admin = try await target.connect()
                let roles: [String]
                if let set {
                    let wanted = set.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
                    roles = try await admin.setRoles(wanted, of: user, container: target.container, environment: environment)
                } else {
                    roles = try await admin.roles(of: user, container: target.container, environment: environment)
                }
                print(roles.isEmpty ? "(no roles)" : roles.joined(separator: ", "))
            }
        }
    }
}
