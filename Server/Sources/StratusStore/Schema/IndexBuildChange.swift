import StratusModel
import Synchronization

/// The index work a schema change asks for in one record type, decided once for every backend: compound indexes
/// taken out (their entries go with them) and builds over the records written before the change.
///
/// ```swift
/// for change in IndexBuildChange.changes(from: old, to: new) {
///     for index in change.removedCompoundIndexes { try deleteEntries(of: index, type: change.recordType) }
///     for target in change.added {
///         switch IndexBuildChange.Timing(recordCount: try count(change.recordType)) {
///         case .nothingToIndex: continue
///         case .inTheSchemaChange: try index(target)
///         case .inTheBackground: try schedule(target)
///         }
///     }
/// }
/// ```
public struct IndexBuildChange: Sendable {
    public var recordType: String
    /// Names of the compound indexes the change took out.
    public var removedCompoundIndexes: [String]
    /// Every field the change made searchable (values or words) and every compound index it added.
    public var added: [IndexBuildTarget]

    /// The index work of a schema change, per record type that has any.
    public static func changes(from old: Schema, to new: Schema) -> [IndexBuildChange] {
        new.recordTypes.keys.sorted().compactMap { typeName in
            let type = new.recordTypes[typeName]!
            let removed = (old.recordTypes[typeName]?.compoundIndexes ?? []).filter { !type.compoundIndexes.contains($0) }.map(\.name)
            let added = IndexBuildTarget.added(in: typeName, from: old, to: type)
            guard !removed.isEmpty || !added.isEmpty else { return nil }
            return IndexBuildChange(recordType: typeName, removedCompoundIndexes: removed, added: added)
        }
    }

    /// When a build runs, from how many records it covers (see ``StorePolicy/synchronousIndexBuildLimit``).
    public enum Timing: Sendable, Equatable {
        /// No record to index.
        case nothingToIndex
        /// In the transaction of the schema change.
        case inTheSchemaChange
        /// By the store's background work, ``StorePolicy/indexBuildChunk`` records per transaction; queries that
        /// need the index answer `TRY_AGAIN_LATER` until it is done.
        case inTheBackground

        public init(recordCount: Int) {
            self = recordCount == 0 ? .nothingToIndex
                : recordCount <= StorePolicy.synchronousIndexBuildLimit ? .inTheSchemaChange : .inTheBackground
        }
    }
}

/// How a store keeps the builds in progress in memory: one text per build, `container|environment|Type.field`.
/// The index builds in progress, kept in memory by each store (queries that need one answer `TRY_AGAIN_LATER`),
/// changed after a commit that starts or ends one and read again when another process does.
public final class IndexBuildRegistry: Sendable {
    private let keys: Mutex<Set<String>>

    public init(_ keys: Set<String> = []) {
        self.keys = Mutex(keys)
    }

    public var isEmpty: Bool { keys.withLock { $0.isEmpty } }

    /// `Type.field` of the builds in progress in a container environment.
    public func beingBuilt(containerID: String, environment: Environment) -> Set<String> {
        IndexBuildKey.beingBuilt(among: keys.withLock { $0 }, containerID: containerID, environment: environment)
    }

    public func started(_ key: String) {
        keys.withLock { _ = $0.insert(key) }
    }

    public func finished(_ key: String) {
        keys.withLock { _ = $0.remove(key) }
    }

    /// Every build in progress, as read from the store.
    public func replace(with all: Set<String>) {
        keys.withLock { $0 = all }
    }
}

public enum IndexBuildKey {
    /// The key of the build of `field` (or of a compound index) of `recordType`.
    public static func make(containerID: String, environment: String, recordType: String, field: String) -> String {
        "\(containerID)|\(environment)|\(recordType).\(field)"
    }

    /// `Type.field` of the builds among `keys` that belong to a container environment.
    public static func beingBuilt(among keys: Set<String>, containerID: String, environment: Environment) -> Set<String> {
        let prefix = "\(containerID)|\(environment.rawValue)|"
        return Set(keys.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) })
    }
}
