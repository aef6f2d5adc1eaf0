import ArgumentParser
import Foundation
import Logging
import StratusPostgres
import StratusStore

/// Connects to the PostgreSQL database a command's option names. A URL that does not parse is a usage error
/// naming the option; a database that refuses prints why (without the password) and exits 1.
func connectDatabase(_ url: String, option: String, poolSize: Int, logger: Logger) async throws -> PostgresStore {
    let configuration: PostgresStore.Configuration
    do {
        configuration = try PostgresStore.Configuration(url: url, poolSize: poolSize)
    } catch {
        throw ValidationError("\(option): \(error.message)")
    }
    do {
        return try await PostgresStore.connect(configuration: configuration, logger: logger)
    } catch let error as StorageError {
        // Without the usage text a ValidationError would add.
        FileHandle.standardError.write(Data("Error: cannot use the database \(configuration.redactedDescription): \(error.message)\n".utf8))
        throw ExitCode(1)
    }
}
