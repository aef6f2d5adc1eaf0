import ArgumentParser
import Foundation

/// `stratus admin-key ...`: the server's shared admin key, rotated without a restart (docs/security.md#the-admin-key).
struct AdminKeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-key", abstract: "Show or rotate the server's admin key.", subcommands: [Show.self, Rotate.self]
    )

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say whether the key is in use, and when it last changed and by whom.")

        @OptionGroup var admin: AdminTarget

        func run() async throws {
            try await reportingErrors {
                let state = try await admin.remote(for: "stratus admin-key").adminKeyState()
                print(state.enabled ? "The admin key is in use." : "The admin key is turned off: operators sign in as themselves.")
                if let changedAt = state.changedAt, let changedBy = state.changedBy {
                    let date = Date(timeIntervalSince1970: Double(changedAt) / 1000).formatted(.iso8601)
                    print("Last \(state.enabled ? "rotated" : "turned off") at \(date) by \(changedBy).")
                } else {
                    print("It is the key the server was started with.")
                }
            }
        }
    }

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new admin key and print it once; every node refuses the old one at once.",
            discussion: """
                Each node that keeps its key in its data folder's admin.key rewrites that file, so that the commands \
                that read it keep working. Nodes given --admin-key or STRATUS_ADMIN_KEY use the new key too; give \
                them the new one before their next start.
                """
        )

        @OptionGroup var admin: AdminTarget

        func run() async throws {
            try await reportingErrors {
                let key = try await admin.remote(for: "stratus admin-key rotate").rotateAdminKey()
                print("The new admin key (shown only this once; the old one no longer works):\n  \(key)")
            }
        }
    }
}
