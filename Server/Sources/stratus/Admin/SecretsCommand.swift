import StratusServices
import ArgumentParser
import Foundation
import StratusServer

/// `stratus secrets ...`: the secrets key, and containers' secrets (Apple's key, providers' client secrets), which go
/// through a running server: it seals them with its secrets key, and never shows them again.
struct SecretsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secrets", abstract: "Manage containers' secrets and the key that seals them.",
        subcommands: [NewKey.self, SetSecret.self, List.self, Remove.self, Reseal.self]
    )

    struct NewKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "new-key", abstract: "Print a new random secrets key (for --secrets-key).")

        func run() async throws {
            print(SecretsKeyring.newKeyText())
        }
    }

    struct SetSecret: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Store a container's secret from a file: apple.privateKey (the .p8 file) or openid.PROVIDER.clientSecret."
        )

        @OptionGroup var target: SchemaCommand.Target

        @Argument(help: "The secret's name.")
        var name: String

        @Argument(help: "The file holding its value.")
        var file: String

        func run() async throws {
            try await reportingErrors {
                guard let value = try? String(contentsOfFile: file, encoding: .utf8) else { throw CommandFailure("cannot read \(file)") }
                try await target.admin.remote(for: "stratus secrets").setSecret(value, named: name, container: target.container)
                print("Stored \(name), sealed; it is never shown again.")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the names of a container's secrets.")

        @OptionGroup var target: SchemaCommand.Target

        func run() async throws {
            try await reportingErrors {
                for name in try await target.admin.remote(for: "stratus secrets").secretNames(container: target.container) { print(name) }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a container's secret.")

        @OptionGroup var target: SchemaCommand.Target

        @Argument(help: "The secret's name.")
        var name: String

        func run() async throws {
            try await reportingErrors {
                try await target.admin.remote(for: "stratus secrets").removeSecret(named: name, container: target.container)
                print("Removed \(name).")
            }
        }
    }

    struct Reseal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Seal every stored secret and token with the server's first secrets key: the step of a key rotation once every node has the new key."
        )

        @OptionGroup var admin: AdminTarget

        func run() async throws {
            try await reportingErrors {
                let (resealed, current) = try await admin.remote(for: "stratus secrets").resealSecrets()
                print("Resealed \(resealed); \(current) already sealed with the current key.")
            }
        }
    }
}
