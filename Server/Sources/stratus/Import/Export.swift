import StratusArchive
import ArgumentParser
import Foundation
import StratusTransfer

/// `stratus export`: a container of a running server as a portable archive.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a container of a running server (schemas, accounts, every database and zone, shares, subscriptions, files) into an archive.",
        discussion: """
            The archive is JSON lines and the asset files, in a tar (or, with --folder, a folder); docs/import-export.md \
            describes it. Load it into this or another server, on either backend, with stratus import archive. \
            Password hashes are left out unless --include-secrets is given: without them, imported users cannot sign in.

              stratus export iCloud.com.example.App --out app.tar
            """
    )

    @Argument(help: "The container to export.")
    var container: String

    @Option(help: "The archive to write; it must not exist.")
    var out: String

    @Flag(help: "Write the archive as a folder instead of a tar.")
    var folder = false

    @Flag(help: "Keep the accounts' password hashes, so that users sign in on the copy as before. Keep such an archive safe.")
    var includeSecrets = false

    @OptionGroup var target: AdminTarget

    func run() async throws {
        guard !FileManager.default.fileExists(atPath: out) else { throw CommandFailure("\(out) exists already") }
        let server = try await target.runningServer(for: "stratus export")
        let work = folder ? out : out + ".partial-\(UUID().uuidString)"
        do {
            let manifest = try await ContainerExport(
                .init(serverURL: server.url, adminKey: server.adminKey, container: container, folder: work, includeSecrets: includeSecrets, destination: out),
                output: say
            ).run()
            if !folder {
                defer { try? FileManager.default.removeItem(atPath: work) }
                try ArchiveFiles.pack(work, into: out)
            }
            say("exported \(container): \(manifest.accounts) accounts, \(manifest.records) records, \(manifest.files) files, \(manifest.subscriptions) subscriptions into \(out)")
        } catch let error where error is TransferError || error is ArchiveError {
            try? FileManager.default.removeItem(atPath: work)
            throw CommandFailure(String(describing: error))
        }
    }
}

/// `stratus import archive`: an archive back into a running server.
struct ImportArchive: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Load an archive written by stratus export into a running server (either backend).",
        discussion: """
            Records keep their names, stamps, parents, short GUIDs (so share links keep working) and files; shares \
            keep their participants, and those who had accepted are accepted again. Records of the same name are \
            replaced, so an interrupted import can be run again. The container keeps the source's API token with \
            --keep-api-token; without it, the import says which token apps need here.

              stratus import archive app.tar --url http://new-server:8080 --keep-api-token
            """
    )

    @Argument(help: "The archive: a tar, or a folder.")
    var archive: String

    @Flag(help: "Give the container the archive's API token (its token at the source), so that apps keep working.")
    var keepAPIToken = false

    @OptionGroup var target: AdminTarget

    func run() async throws {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: archive, isDirectory: &isFolder) else { throw CommandFailure("\(archive) does not exist") }
        let server = try await target.runningServer(for: "stratus import")
        var folder = archive
        if !isFolder.boolValue {
            folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-archive-\(UUID().uuidString)").path
        }
        defer { if !isFolder.boolValue { try? FileManager.default.removeItem(atPath: folder) } }
        do {
            if !isFolder.boolValue { try ArchiveFiles.unpack(archive, into: folder) }
            let manifest = try await ArchiveImport(.init(serverURL: server.url, adminKey: server.adminKey, folder: folder, source: archive, keepAPIToken: keepAPIToken), output: say).run()
            say("imported \(manifest.container) into \(server.url)")
        } catch let error where error is TransferError || error is ArchiveError {
            throw CommandFailure(String(describing: error))
        }
    }
}

@Sendable private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
