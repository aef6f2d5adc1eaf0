import Foundation

/// A CloudKit call as an `Operation`: run it with `CKDatabase.add(_:)` or on an `OperationQueue` of the app's; its
/// blocks are called on a background thread, its completion block last. Cancelling it stops its request and
/// reports `operationCancelled`.
open class CKOperation: Operation, @unchecked Sendable {
    /// How an operation runs.
    open class Configuration: NSObject, @unchecked Sendable {
        /// The container it runs in; `CKContainer.default()` when not set.
        open var container: CKContainer?
        open var qualityOfService: QualityOfService = .default
        open var allowsCellularAccess = true
        /// CloudKit keeps long-lived operations running when the app quits; here an operation runs while the
        /// process does.
        open var isLongLived = false
        open var timeoutIntervalForRequest: TimeInterval = 60
        open var timeoutIntervalForResource: TimeInterval = 7 * 24 * 3600

        public override init() {}
    }

    open var configuration: Configuration! = Configuration()
    /// The group the operation belongs to; it runs with the group's default configuration where its own names no
    /// container.
    open var group: CKOperationGroup?
    /// A unique ID of the operation.
    public let operationID = UUID().uuidString
    /// Called when a long-lived operation starts (``CKContainer/allLongLivedOperationIDs()`` names it from then on).
    open var longLivedOperationWasPersistedBlock: (() -> Void)?

    private let running = NSLock()
    private var task: Task<Void, Never>?

    public override init() {}

    /// The container the operation runs in.
    var container: CKContainer { configuration?.container ?? group?.defaultConfiguration?.container ?? CKContainer.default() }

    private var isLongLived: Bool { configuration?.isLongLived ?? group?.defaultConfiguration?.isLongLived ?? false }

    /// Starts the operation; one cancelled before it starts still reports `operationCancelled` through its
    /// blocks, as CloudKit's do (an operation queue does not call `main()` for it).
    open override func start() {
        if isCancelled { runOnce() }
        super.start()
    }

    /// Runs the operation's work and waits for it (an operation queue's thread waits; the work runs on Swift's
    /// task pool).
    open override func main() {
        runOnce()
    }

    private var ran = false

    private func runOnce() {
        let done = DispatchSemaphore(value: 0)
        let first: Bool = running.withLock {
            guard !ran else { return false }
            ran = true
            task = Task {
                let longLived = self.isLongLived
                if longLived {
                    LongLivedOperations.started(self)
                    self.longLivedOperationWasPersistedBlock?()
                }
                await self.execute()
                if longLived { LongLivedOperations.ended(self) }
                done.signal()
            }
            return true
        }
        if first { done.wait() }
    }

    open override func cancel() {
        super.cancel()
        running.withLock { task?.cancel() }
    }

    /// The operation's work; it reports its results and errors through its blocks (an operation cancelled
    /// before it starts reports `operationCancelled`). Subclasses override it.
    func execute() async {}

    /// The error of an operation cancelled before or while it ran, else `error` as CloudKit reports it.
    func reported(_ error: any Error) -> any Error {
        isCancelled ? CKError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "the operation was cancelled"]) : CKError.from(error)
    }
}

/// An operation on one database.
open class CKDatabaseOperation: CKOperation, @unchecked Sendable {
    /// The database it runs on; `add(_:)` sets it; the default container's private database when not set.
    open var database: CKDatabase?

    var targetDatabase: CKDatabase { database ?? container.privateCloudDatabase }
}

extension CKOperation {
    /// Where `add(_:)` runs operations.
    static let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.name = "StratusCloudKit.operations"
        queue.maxConcurrentOperationCount = 8
        return queue
    }()
}

extension CKDatabase {
    /// Runs an operation on this database.
    public func add(_ operation: CKDatabaseOperation) {
        if operation.database == nil { operation.database = self }
        if operation.configuration?.container == nil { operation.configuration?.container = container }
        CKOperation.queue.addOperation(operation)
    }
}

extension CKContainer {
    /// Runs an operation in this container (a database operation on its private database unless it names one).
    public func add(_ operation: CKOperation) {
        if operation.configuration?.container == nil { operation.configuration?.container = self }
        CKOperation.queue.addOperation(operation)
    }
}

/// Each item's result of `body`, one item after the other, until `stop` holds (the items not reached then have no
/// result); errors as CloudKit reports them.
func resultsByItem<ID: Hashable, Value>(
    _ ids: [ID], stopping stop: () -> Bool = { false }, _ body: (ID) async throws -> Value
) async -> [ID: Result<Value, any Error>] {
    var results: [ID: Result<Value, any Error>] = [:]
    for id in ids {
        guard !stop() else { break }
        do { results[id] = .success(try await body(id)) } catch { results[id] = .failure(CKError.from(error)) }
    }
    return results
}

/// The per-item results of an operation, in the order the items were asked for: each is handed to `report` (the
/// operation's per-item blocks), then kept as a success or as a failure by ID (for `partialFailure`).
struct ItemResults<ID: Hashable, Value> {
    private(set) var succeeded: [(id: ID, value: Value)] = []
    private(set) var failures: [AnyHashable: any Error] = [:]

    /// - Parameter missing: the error of an item the results lack.
    init(_ ids: [ID], _ results: [ID: Result<Value, any Error>], missing: CKError.Code = .internalError, report: (ID, Result<Value, any Error>) -> Void) {
        for id in ids {
            let result = results[id] ?? .failure(CKError(missing))
            report(id, result)
            switch result {
            case .success(let value): succeeded.append((id, value))
            case .failure(let error): failures[id] = error
            }
        }
    }
}

extension Optional where Wrapped == CKError {
    /// What an operation's result block gets: success, or this `partialFailure`.
    var operationResult: Result<Void, any Error> {
        map { .failure($0) } ?? .success(())
    }
}
