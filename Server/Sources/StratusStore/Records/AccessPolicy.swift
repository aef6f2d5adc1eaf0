import StratusModel

/// Who may create, read and write records of a public record type, from its grants (`docs/protocol.md#roles-indexes-and-schema`).
///
/// Pure logic, shared by every backend and the server: `_world` is everyone, `_icloud` any signed-in
/// user, `_creator` the record's creator, and custom roles the users they are assigned to.
public enum AccessPolicy {
    /// How much of a record type a caller may read.
    public enum ReadScope: Sendable, Hashable {
        /// Every record.
        case all
        /// Only the records the caller created (READ granted to `_creator` alone).
        case createdByCaller
        /// No record.
        case none
    }

    /// Whether the caller holds `role` for a record created by `creator` (`nil` for a record not yet created).
    public static func holds(_ role: String, caller: Caller, creator: String?) -> Bool {
        switch role {
        case Role.world: true
        case Role.authenticated: caller.userRecordName != nil
        case Role.creator: caller.userRecordName != nil && creator == caller.userRecordName
        default: caller.roles.contains(role)
        }
    }

    /// Whether the caller may do `permission` to a record of `type` created by `creator`.
    public static func allows(_ permission: Permission, on type: RecordTypeSchema, caller: Caller, creator: String?) -> Bool {
        if caller.hasAllPermissions { return true }
        return type.grants.contains { role, permissions in
            permissions.contains(permission) && holds(role, caller: caller, creator: creator)
        }
    }

    /// Which records of `type` the caller may read.
    public static func readScope(of type: RecordTypeSchema, caller: Caller) -> ReadScope {
        if caller.hasAllPermissions { return .all }
        let readers = type.grants.filter { $0.value.contains(.read) }.map(\.key)
        if readers.contains(where: { $0 != Role.creator && holds($0, caller: caller, creator: nil) }) { return .all }
        if readers.contains(Role.creator) && caller.userRecordName != nil { return .createdByCaller }
        return .none
    }

    /// The refusal for a permission, worded as CloudKit words it.
    public static func refusal(_ permission: Permission, recordType: String) -> StorageError {
        StorageError(.accessDenied, "\(permission.rawValue) operation not permitted on \(recordType)")
    }
}
