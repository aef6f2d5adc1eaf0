import ArgumentParser
import Foundation

/// `stratus keys ...`: server-to-server keys of a container.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "Manage server-to-server keys.", subcommands: [Create.self, List.self, Revoke.self]
    )

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Register a public EC P-256 key (PEM) and print its key ID.")

        @OptionGroup var target: SchemaCommand.Target

        @Argument(help: "The public key file (openssl ec -in eckey.pem -pubout -out public.pem).")
        var publicKey: String

        @Option(help: "A custom role whose rights signed requests get; every permission when not given.")
        var role: String?

        func run() async throws {
            try await reportingErrors {
                let pem = try String(contentsOfFile: publicKey, encoding: .utf8)
                print(try await target.connect().createKey(publicKeyPEM: pem, role: role, container: target.container))
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys that are not revoked.")

        @OptionGroup var target: SchemaCommand.Target

        func run() async throws {
            try await reportingErrors {
                for key in try await target.connect().keys(container: target.container) {
                    print("\(key.id)\t\(key.role ?? "(all permissions)")")
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a key at once.")

        @OptionGroup var target: SchemaCommand.Target

        @Argument(help: "The key ID.")
        var keyID: String

        func run() async throws {
            try await reportingErrors {
                try await target.connect().revokeKey(keyID, container: target.container)
                print("Revoked.")
            }
        }
    }
}
