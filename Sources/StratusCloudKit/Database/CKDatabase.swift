import Foundation
import StratusKit

/// One of a container's three databases: records and zones, in async and completion-handler forms.
open class CKDatabase: NSObject, @unchecked Sendable {
    public enum Scope: Int, Sendable, Hashable {
        case `public` = 1
        case `private` = 2
        case shared = 3
    }

    public let databaseScope: Scope
    let container: CKContainer

    init(_ container: CKContainer, _ scope: Scope) {
        self.container = container
        databaseScope = scope
    }

    /// The StratusKit database under this one.
    var stratus: Database {
        switch databaseScope {
        case .public: container.stratusContainer.publicCloudDatabase
        case .private: container.stratusContainer.privateCloudDatabase
        case .shared: container.stratusContainer.sharedCloudDatabase
        }
    }

    func call<T>(_ body: (Database) async throws -> T) async throws -> T {
        let database = stratus
        return try await container.call { try await body(database) }
    }

    /// Runs an async call for a completion handler, on a background task as CloudKit calls them.
    func complete<T>(_ handler: @escaping @Sendable (T?, (any Error)?) -> Void, _ body: @escaping @Sendable () async throws -> T) {
        Task {
            do { handler(try await body(), nil) } catch { handler(nil, error) }
        }
    }
}

/// A result whose failure is reported as CloudKit's error.
func cloudKitResult<T, U>(_ result: Result<T, any Error>, _ transform: (T) -> U) -> Result<U, any Error> {
    switch result {
    case .success(let value): .success(transform(value))
    case .failure(let error): .failure(CKError.from(error))
    }
}
