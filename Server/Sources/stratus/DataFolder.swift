import StratusServices
import Foundation
import ArgumentParser
import Logging
import StratusServer
import StratusSQLite

/// The server's data folder: the SQLite file and the generated admin key.
struct DataFolder {
    /// The store the command line works on.
    typealias Store = SQLiteStore

    let path: String

    var databasePath: String { path + "/stratus.sqlite" }
    var adminKeyPath: String { path + "/admin.key" }
    var secretsKeyPath: String { path + "/secrets.key" }

    /// Creates the folder if needed.
    func prepare() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    func openStore(durability: SQLiteStore.Configuration.Durability = .process, logger: Logger = Logger(label: "stratus")) throws -> SQLiteStore {
        try prepare()
        return try SQLiteStore(configuration: .init(path: databasePath, durability: durability), logger: logger)
    }

    /// The admin key kept in the folder, if there is one.
    func storedAdminKey() -> String? {
        guard let stored = try? String(contentsOfFile: adminKeyPath, encoding: .utf8) else { return nil }
        let key = stored.trimmingCharacters(in: .whitespacesAndNewlines)
        return key.isEmpty ? nil : key
    }

    /// The admin key kept in the folder, generating it on first use.
    /// - Returns: the key, and whether it was generated just now.
    func adminKey() throws -> (key: String, generated: Bool) {
        if let key = storedAdminKey() { return (key, false) }
        var generator = SystemRandomNumberGenerator()
        let key = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try prepare()
        guard FileManager.default.createFile(atPath: adminKeyPath, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot write the admin key to \(adminKeyPath)")
        }
        return (key, true)
    }

    /// The secrets key kept in the folder, generating it on first use.
    func secretsKey() throws -> String {
        if let stored = try? String(contentsOfFile: secretsKeyPath, encoding: .utf8), !stored.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            return stored
        }
        try prepare()
        let key = SecretsKeyring.newKeyText()
        guard FileManager.default.createFile(atPath: secretsKeyPath, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600]) else {
            throw ValidationError("cannot write the secrets key to \(secretsKeyPath)")
        }
        return key
    }
}

extension DataFolder {
    /// The folder a command's `--data` names, else `STRATUS_DATA`, else `stratus serve`'s default.
    static func named(_ flag: String?) -> DataFolder {
        DataFolder(path: flag ?? environmentValue(ServeSettings.data.environmentVariable) ?? ServeSettings.data.defaultValue ?? ".")
    }
}

/// Reads an option of the admin commands from its environment variable when the flag was not given.
func environmentValue(_ name: String) -> String? {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
    return value
}
