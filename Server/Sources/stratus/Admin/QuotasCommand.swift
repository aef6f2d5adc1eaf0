import ArgumentParser
import Foundation
import StratusModel
import StratusStore

/// `stratus quotas ...`: storage quotas and request rates, for every container (the defaults) or one, and what
/// each container uses against them (docs/operations.md#quotas).
struct QuotasCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quotas", abstract: "Show and set storage quotas and request rates, and what containers use.",
        subcommands: [Show.self, SetQuotas.self, Usage.self]
    )

    /// The quotas, as `show` names them.
    static var names: [(key: WritableKeyPath<Quotas, Int64?>, label: String, isBytes: Bool)] {
        [
            (\.publicStorageBytes, "public storage", true), (\.userStorageBytes, "user storage", true),
            (\.userRequestsPerMinute, "requests per user per minute", false), (\.keyRequestsPerMinute, "requests per key per minute", false),
            (\.addressRequestsPerMinute, "requests per address per minute", false),
        ]
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the defaults and every container's own quotas.")

        @OptionGroup var admin: AdminTarget

        func run() async throws {
            try await reportingErrors {
                let stored = try await admin.remote(for: "stratus quotas").quotas()
                print("defaults:")
                QuotasCommand.printValues(stored.defaults, unset: "no limit")
                for (container, values) in stored.containers.sorted(by: { $0.key < $1.key }) {
                    print("\(container):")
                    QuotasCommand.printValues(values, unset: "default")
                }
            }
        }
    }

    struct SetQuotas: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Change the defaults, or one container's quotas (--container); what is not named stays as it is.",
            discussion: """
                Sizes take KB, MB or GB (1 KB = 1,024 bytes); rates are requests per minute. "none" lifts \
                a limit (also one of the defaults, for this container); "default" removes the container's own value.
                """
        )

        @OptionGroup var admin: AdminTarget

        @Option(help: "The container to set quotas of; without it, the defaults of every container.")
        var container: String?

        @Option(help: "Records and assets in the public database of each environment.")
        var publicStorage: String?

        @Option(help: "Records and assets in each user's private database.")
        var userStorage: String?

        @Option(help: "Requests one signed-in user may send per minute.")
        var userRate: String?

        @Option(help: "Requests one server-to-server key may send per minute.")
        var keyRate: String?

        @Option(help: "Requests one client address may send per minute.")
        var addressRate: String?

        func run() async throws {
            try await reportingErrors {
                let changes: [(WritableKeyPath<Quotas, Int64?>, String?, Bool)] = [
                    (\.publicStorageBytes, publicStorage, true), (\.userStorageBytes, userStorage, true), (\.userRequestsPerMinute, userRate, false),
                    (\.keyRequestsPerMinute, keyRate, false), (\.addressRequestsPerMinute, addressRate, false),
                ]
                let remote = try await admin.remote(for: "stratus quotas")
                let stored = try await remote.quotas()
                var values = container.map { stored.containers[$0] ?? Quotas() } ?? stored.defaults
                for (key, text, isBytes) in changes {
                    guard let text else { continue }
                    values[keyPath: key] = try QuotasCommand.parse(text, bytes: isBytes)
                }
                let now = try await remote.setQuotas(values, container: container)
                print(container.map { "\($0) now has:" } ?? "The defaults are now:")
                QuotasCommand.printValues(now, unset: "no limit")
            }
        }
    }

    struct Usage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a container's storage, as last measured, against its quotas.")

        @OptionGroup var target: SchemaCommand.Target

        @Option(help: "How many users to list, largest first.")
        var limit = 20

        func run() async throws {
            try await reportingErrors {
                let usage = try await target.admin.remote(for: "stratus quotas").usage(container: target.container, limit: limit)
                if usage.databases.isEmpty { print("Nothing measured yet: the server measures every --usage-interval.") }
                for database in usage.databases {
                    let name = "\(database.environment)/\(database.owner.map { "private \($0)" } ?? "public")"
                    let quota = database.quotaBytes.map { " of \(StorageUsage.describe($0))" } ?? ""
                    print(
                        "\(name)  \(StorageUsage.describe(database.totalBytes))\(quota)  (\(database.records) records, assets \(StorageUsage.describe(database.assetBytes)))"
                    )
                }
            }
        }
    }

    /// A value as given: a number (sizes with KB, MB or GB, as every size setting takes them), `none` (0: no limit) or
    /// `default` (`nil`: not set).
    static func parse(_ text: String, bytes: Bool) throws -> Int64? {
        let lowered = text.lowercased().trimmingCharacters(in: .whitespaces)
        if lowered == "default" { return nil }
        if lowered == "none" || lowered == "unlimited" { return 0 }
        guard let number = bytes ? Setting.parseSize(text) : Int64(lowered), number >= 0 else {
            throw CommandFailure("'\(text)' is not \(bytes ? "a size (such as 500MB or 2GB)" : "a whole number"), none or default")
        }
        return number
    }

    static func printValues(_ values: Quotas, unset: String) {
        for (key, label, isBytes) in names {
            let value = values[keyPath: key].map { $0 == 0 ? "none" : isBytes ? StorageUsage.describe($0) : "\($0)" } ?? unset
            print("  \(label): \(value)")
        }
    }
}
