import Foundation
import StratusKit

/// Operations an app groups as one piece of work (a first sync, an import): they run with the group's
/// ``defaultConfiguration`` where their own configuration names no container.
open class CKOperationGroup: NSObject, @unchecked Sendable {
    /// How much a group expects to move.
    public enum TransferSize: Int, Sendable {
        case unknown = 0, kilobytes, megabytes, tensOfMegabytes, hundredsOfMegabytes, gigabytes, tensOfGigabytes, hundredsOfGigabytes
    }

    public let operationGroupID = UUID().uuidString
    open var name: String?
    /// How many items the group's operations handle, as the app counts them.
    open var quantity = 0
    open var expectedSendSize = TransferSize.unknown
    open var expectedReceiveSize = TransferSize.unknown
    open var defaultConfiguration: CKOperation.Configuration! = CKOperation.Configuration()

    public override init() {}
}

/// The long-lived operations running in this process (`CKContainer.fetchAllLongLivedOperationIDs`).
enum LongLivedOperations {
    private static let running = Locked<[String: CKOperation]>([:])

    static func started(_ operation: CKOperation) {
        running.withLock { $0[operation.operationID] = operation }
    }

    static func ended(_ operation: CKOperation) {
        _ = running.withLock { $0.removeValue(forKey: operation.operationID) }
    }

    static func operations(in container: CKContainer) -> [CKOperation] {
        running.withLock { Array($0.values) }.filter { $0.container === container }
    }
}

extension CKContainer {
    /// The IDs of this container's long-lived operations still running. CloudKit keeps them across launches; a
    /// Stratus app's run while its process does (docs/cloudkit.md).
    public func allLongLivedOperationIDs() async throws -> [String] {
        LongLivedOperations.operations(in: self).map(\.operationID).sorted()
    }

    public func fetchAllLongLivedOperationIDs(completionHandler: @escaping @Sendable ([String]?, (any Error)?) -> Void) {
        Task { completionHandler(try? await allLongLivedOperationIDs(), nil) }
    }

    /// A long-lived operation still running, by ID; `nil` when it ended or never was.
    public func longLivedOperation(for operationID: String) async throws -> CKOperation? {
        LongLivedOperations.operations(in: self).first { $0.operationID == operationID }
    }

    public func fetchLongLivedOperation(withID operationID: String, completionHandler: @escaping @Sendable (CKOperation?, (any Error)?) -> Void) {
        Task { completionHandler(try? await longLivedOperation(for: operationID), nil) }
    }
}
