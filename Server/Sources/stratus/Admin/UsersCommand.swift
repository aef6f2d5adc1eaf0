import ArgumentParser
import StratusModel

/// `stratus users ...`: users of a container.
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Manage users.",
        subcommands: [List.self, Disable.self, Enable.self, SignOut.self, Reset.self, RemoveSecondFactors.self, Delete.self, Roles.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users by email address: record name, address, unverified, disabled.")

        @OptionGroup var target: SchemaCommand.Target

        @Option(help: "Only users whose address, names or record name contain this.")
        var search: String?

        @Option(help: "Users to skip.")
        var offset = 0

        @Option(help: "Users to list (at most 200).")
        var limit = 50

        func run() async throws {
            try await reportingErrors {
                let users = try await target.connect().users(container: target.container, search: search, offset: offset, limit: min(max(1, limit), 200))
                print(users.isEmpty ? "(no users)" : users.map(\.description).joined(separator: "\n"))
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a user: signed out everywhere at once, and no sign-in until enabled.")
        @OptionGroup var target: SchemaCommand.Target
        @Argument(help: "The user's record name.") var user: String

        func run() async throws {
            try await reportingErrors {
                try await target.connect().setDisabled(true, user: user, container: target.container)
                print("disabled \(user)")
            }
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled user.")
        @OptionGroup var target: SchemaCommand.Target
        @Argument(help: "The user's record name.") var user: String

        func run() async throws {
            try await reportingErrors {
                try await target.connect().setDisabled(false, user: user, container: target.container)
                print("enabled \(user)")
            }
        }
    }

    struct SignOut: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "sign-out", abstract: "End every session of a user.")
        @OptionGroup var target: SchemaCommand.Target
        @Argument(help: "The user's record name.") var user: String

        func run() async throws {
            try await reportingErrors {
                let ended = try await target.connect().endSessions(user: user, container: target.container)
                print("ended \(ended) session\(ended == 1 ? "" : "s") of \(user)")
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Mail a user a password reset code and link (needs a running server).")
        @OptionGroup var target: SchemaCommand.Target
        @Argument(help: "The user's record name.") var user: String

        func run() async throws {
            try await reportingErrors {
                if try await target.connect().sendReset(user: user, container: target.container) {
                    print("a reset is on its way to \(user)")
                } else {
                    print("a reset for \(user) waits in the mail queue: the server has no SMTP server (--smtp-url); it goes out once one is set")
                }
            }
        }
    }

    struct RemoveSecondFactors: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-second-factors",
            abstract: "Turn a user's authenticator app off and remove their recovery codes and passkeys (signs them out), for a user who lost them."
        )
        @OptionGroup var target: SchemaCommand.Target
        @Argument(help: "The user's record name.") var user: String
        @Flag(help: "Confirm: the user sets their second factors up again.") var yes = false

        func run() async throws {
            guard yes else { throw ValidationError("\(user)'s authenticator app and passkeys will be gone: add --yes to confirm") }
            try await reportingErrors {
                try await target.connect().removeSecondFactors(user: user, container: target.container)
                print("removed the second factors of \(user)")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a user for good: sessions, private database, shares, subscriptions, and public records as the container says."
        )
        @OptionGroup var target: SchemaCommand.Target
        @Argument(help: "The user's record name.") var user: String
        @Flag(help: "Confirm: the deletion cannot be undone.") var yes = false

        func run() async throws {
            guard yes else { throw ValidationError("deleting \(user) cannot be undone: add --yes to confirm") }
            try await reportingErrors {
                try await target.connect().deleteUser(user, container: target.container)
                print("deleted \(user)")
            }
        }
    }

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
