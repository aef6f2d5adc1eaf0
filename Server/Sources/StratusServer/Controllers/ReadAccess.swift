import StratusModel
import StratusStore

/// What a caller may read, from the record types' grants (public database), or everything (private).
struct ReadAccess: Sendable {
    /// The schema whose grants apply; `nil` when every record is readable.
    let schema: Schema?
    let caller: Caller

    static func of(_ call: DatabaseCall, store: any Store) async throws -> ReadAccess {
        guard call.scope == .public else { return ReadAccess(schema: nil, caller: call.caller) }
        let schema = try await store.schema(containerID: call.authentication.container.id, environment: call.authentication.environment)
        return ReadAccess(schema: schema, caller: call.caller)
    }

    /// How much of a record type the caller may read.
    func scope(of recordType: String) -> AccessPolicy.ReadScope {
        guard let schema, let type = schema.recordTypes[recordType] else { return .all }
        return AccessPolicy.readScope(of: type, caller: caller)
    }

    func mayRead(_ record: Record) -> Bool {
        guard let schema, let type = schema.recordTypes[record.recordType] else { return true }
        return AccessPolicy.allows(.read, on: type, caller: caller, creator: record.created.userRecordName)
    }

    /// Whether a change feed shows a change: saved records the caller may read, deletions of readable types.
    func shows(_ change: RecordChange) -> Bool {
        switch change {
        case .saved(let record): mayRead(record)
        case .deleted(let deletion): deletion.recordType.map { scope(of: $0) != .none } ?? true
        }
    }
}
