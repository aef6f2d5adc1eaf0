import Foundation
import StratusSQLite
import StratusStore
import StratusStoreTesting
import Testing

/// A store on a fresh file in a temporary folder.
func makeTemporaryStore(durability: SQLiteStore.Configuration.Durability = .process) throws -> (SQLiteStore, String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stratus-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let path = folder + "/stratus.sqlite"
    return (try SQLiteStore(configuration: .init(path: path, durability: durability)), path)
}

/// Removes the folder of a store made by ``makeTemporaryStore(durability:)``.
func removeTemporaryStore(at path: String) {
    try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)
}

@Suite struct SQLiteConformanceTests {
    @Test("the SQLite store meets the storage contract", arguments: StoreConformance.cases)
    func conformance(_ check: ConformanceCase) async throws {
        let (store, path) = try makeTemporaryStore()
        defer { removeTemporaryStore(at: path) }
        try await check.run(store)
    }
}
