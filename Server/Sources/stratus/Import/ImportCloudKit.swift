import ArgumentParser
import Foundation
import StratusModel
import StratusTransfer

/// `stratus import cloudkit`: copies a live CloudKit container's public database into a running server.
struct ImportCloudKit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cloudkit",
        abstract: "Copy the public database of a CloudKit container (schema, records, assets) into a running server.",
        discussion: """
            Reads the container through CloudKit Web Services with a server-to-server key, applies the schema to the \
            target container, copies every record of every type with its assets, record names and stamps, and ends by \
            comparing counts and checksums per type. Progress is kept in the state file after every page: stop the \
            import at any time and run the same command again to resume. See docs/import-export.md.

              stratus import cloudkit --container iCloud.com.example.App --environment production \\
                --key-id 2c4f... --key-file eckey.pem --schema schema.ckdb
            """
    )

    @Option(help: "The CloudKit container to copy (and the target container, made when missing).")
    var container: String

    @Option(help: "The source environment: development or production; records go to the same environment here.")
    var environment: String

    @Option(help: "The server-to-server key's ID (CloudKit console: API Access).")
    var keyID: String

    @Option(help: "The key's private key, a PEM file.")
    var keyFile: String

    @Option(help: "The container's schema, as `cktool export-schema` writes it (a .ckdb file).")
    var schema: String

    @Option(help: "The CloudKit Web Services server to read.")
    var sourceURL = "https://api.apple-cloudkit.com"

    @Option(help: "Where the import keeps its progress; by default stratus-import-<container>-<environment>.json here.")
    var state: String?

    @Option(help: "Records read per request (at most 200).")
    var pageSize = 200

    @OptionGroup var target: AdminTarget

    func run() async throws {
        guard let environment = Environment(rawValue: environment) else {
            throw ValidationError("--environment is development or production, not \(environment)")
        }
        guard (1...200).contains(pageSize) else { throw ValidationError("--page-size is between 1 and 200") }
        let server = try await target.runningServer(for: "stratus import")
        var options = CloudKitImport.Options(
            container: container, environment: environment, keyID: keyID, privateKeyPEM: try Self.read(keyFile, "--key-file"),
            schemaText: try Self.read(schema, "--schema"), targetURL: server.url, adminKey: server.adminKey,
            statePath: state ?? "stratus-import-\(container)-\(environment.rawValue).json"
        )
        options.sourceURL = sourceURL
        options.pageSize = pageSize
        let verifications: [CloudKitImport.Verification]
        do {
            verifications = try await CloudKitImport(options, output: Self.say).run()
        } catch let error as TransferError {
            let resumable = FileManager.default.fileExists(atPath: options.statePath)
            throw CommandFailure(error.description + (resumable ? "\nRun the same command again to resume from \(options.statePath)." : ""))
        }
        Self.say("verification (source / target):")
        for result in verifications {
            let verdict = result.matches ? "ok" : "MISMATCH"
            Self.say("  \(result.recordType): \(result.source.count) / \(result.target.count) records, checksum \(result.source.checksum.prefix(16)) / \(result.target.checksum.prefix(16)) \(verdict)")
        }
        let mismatched = verifications.filter { !$0.matches }
        guard mismatched.isEmpty else {
            throw CommandFailure("the target differs from the source in \(mismatched.map(\.recordType).joined(separator: ", ")); records written to it during the import differ too")
        }
        Self.say("imported and verified \(verifications.reduce(0) { $0 + $1.source.count }) records of \(verifications.count) types into \(server.url)")
    }

    private static func read(_ path: String, _ option: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ValidationError("\(option) \(path) cannot be read: \(error.localizedDescription)")
        }
    }

    @Sendable private static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
