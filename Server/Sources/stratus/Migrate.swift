import ArgumentParser
import Foundation
import Logging
import StratusPostgres
import StratusSQLite
import StratusStore

/// `stratus migrate`: copies everything a store holds into an empty one of the other backend, and verifies it.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy everything from one store into an empty one (a data folder's SQLite or PostgreSQL), and verify the copy.",
        discussion: """
            Stop every server using the source first. Ids and change positions are kept, so clients sync on from their \
            tokens against the copy. Asset files are not copied: run the new server with the same asset storage (the \
            same data folder's assets, or the same S3 bucket).

              stratus migrate --from ./stratus-data --to postgres://stratus:secret@db:5432/stratus
              stratus migrate --from postgres://stratus:secret@db:5432/stratus --to ./stratus-data-copy
            """
    )

    @Option(help: "The store to copy: a data folder, or a postgres:// URL.")
    var from: String

    @Option(help: "The empty store to copy into: a data folder (created if missing), or a postgres:// URL.")
    var to: String

    @Flag(help: "Print each zone's record count and checksum.")
    var verbose = false

    func run() async throws {
        var logger = Logger(label: "stratus")
        logger.logLevel = .error
        let source = try await Self.open(from, role: "--from", logger: logger)
        let target: any CopyableStore & EventStore
        do {
            target = try await Self.open(to, role: "--to", logger: logger)
        } catch {
            await Self.close(source)
            throw error
        }
        let copier = StoreCopier(source: source, target: target)
        let report = ProgressReport()
        say("Copying \(source.copyDescription) into \(target.copyDescription)")
        let summary: CopySummary
        do {
            summary = try await copier.copy { report.show($0) }
        } catch let error as StorageError {
            await Self.close(source)
            await Self.close(target)
            FileHandle.standardError.write(Data("Error: \(error.message)\n".utf8))
            throw ExitCode(1)
        }
        let zones = summary.zones.filter { !$0.deleted }
        say("Verified: \(summary.tables.reduce(0) { $0 + $1.rows }) rows in \(summary.tables.count) tables, \(summary.records) records in \(zones.count) zones; counts and checksums match.")
        if verbose {
            for zone in zones {
                say("  \(zone.container) \(zone.environment) \(zone.scope) \(zone.owner.isEmpty ? "" : zone.owner + " ")\(zone.name): \(zone.records) records \(zone.checksum.prefix(16))")
            }
        }
        say("Asset files were not copied: serve the copy with the same asset storage (the data folder's assets, or the same S3 bucket).")
        await Self.close(source)
        await Self.close(target)
    }

    /// Opens the store at `location`, refusing a data folder a server runs on.
    static func open(_ location: String, role: String, logger: Logger) async throws -> any CopyableStore & EventStore {
        if location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") {
            return try await connectDatabase(location, option: role, poolSize: 4, logger: logger)
        }
        let folder = DataFolder(path: location)
        if let running = await RunningServer.find(in: folder) {
            throw ValidationError("\(role): a server runs on \(folder.path) (process \(running.pid)); stop it first")
        }
        if role == "--from", !FileManager.default.fileExists(atPath: folder.databasePath) {
            throw ValidationError("\(role): \(folder.path) holds no Stratus data (no stratus.sqlite)")
        }
        do {
            return try folder.openStore(durability: .full, logger: logger)
        } catch let error as StorageError {
            throw ValidationError("\(role): cannot open \(folder.databasePath): \(error.message)")
        }
    }

    private func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func close(_ store: any CopyableStore & EventStore) async {
        await store.close()
    }
}

/// Prints a copy's progress, a line per table (counting up in place on a terminal), written unbuffered like the
/// command's other lines.
private final class ProgressReport: @unchecked Sendable {
    private let lock = NSLock()
    private let interactive = isatty(STDOUT_FILENO) != 0
    private var lastShown = ContinuousClock.now
    private let started = ContinuousClock.now

    func show(_ progress: StoreCopier.Progress) {
        lock.withLock {
            if progress.finished {
                guard progress.rows > 0 else { return }
                let seconds = Double((ContinuousClock.now - started).components.seconds)
                FileHandle.standardOutput.write(Data("\(interactive ? "\r" : "")  \(progress.table): \(progress.rows) rows (\(Int(seconds))s)\n".utf8))
            } else if interactive, ContinuousClock.now - lastShown > .milliseconds(200) {
                lastShown = ContinuousClock.now
                FileHandle.standardOutput.write(Data("\r  \(progress.table): \(progress.rows) rows…".utf8))
            }
        }
    }
}
