import Foundation
import StratusSQLite
import StratusStore

/// Makes fresh stores of one backend, so that the HTTP, SDK and end-to-end tests run unchanged against any
/// backend: they ask ``current`` for their store (in process) or for the arguments of `stratus serve`.
///
/// ```swift
/// let folder = try TestFolder()
/// let store = try await StoreFactory.current.makeStore(in: folder.path)
/// ```
public struct StoreFactory: Sendable, CustomStringConvertible {
    /// The backend's name, as `STRATUS_TEST_BACKEND` spells it.
    public let name: String
    /// Makes an empty store; `folder` is a fresh folder for its files, removed by the caller.
    public let makeStore: @Sendable (_ folder: String) async throws -> any Store
    /// Arguments that make `stratus serve --data <folder>` use this backend (none for the embedded default).
    public let serveArguments: @Sendable (_ folder: String) -> [String]

    public init(
        name: String, makeStore: @escaping @Sendable (String) async throws -> any Store,
        serveArguments: @escaping @Sendable (String) -> [String] = { _ in [] }
    ) {
        self.name = name
        self.makeStore = makeStore
        self.serveArguments = serveArguments
    }

    public var description: String { name }

    /// A new SQLite file in the folder.
    public static let sqlite = StoreFactory(name: "sqlite") { folder in
        try SQLiteStore(configuration: .init(path: folder + "/stratus.sqlite"))
    }

    /// Every backend the tests know.
    public static let all: [StoreFactory] = [.sqlite]

    /// The backend named by `STRATUS_TEST_BACKEND` (SQLite when unset). An unknown name stops the tests rather
    /// than silently testing another backend.
    public static var current: StoreFactory {
        let name = ProcessInfo.processInfo.environment["STRATUS_TEST_BACKEND"] ?? "sqlite"
        guard let factory = all.first(where: { $0.name == name }) else {
            fatalError("STRATUS_TEST_BACKEND=\(name) is not one of \(all.map(\.name).joined(separator: ", "))")
        }
        return factory
    }
}

/// A fresh folder under the temporary directory, removed with ``remove()``.
public struct TestFolder: Sendable {
    public let path: String

    /// Creates the folder; `prefix` names what it is for.
    public init(_ prefix: String = "stratus-test") throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
