import StratusModel
import StratusStore
import Testing

/// The grant matrix: for each role and permission, a caller it allows and a caller it refuses.
@Suite struct AccessPolicyTests {
    static let alice = "_aaaa0000000000000000000000000000"
    static let bob = "_bbbb0000000000000000000000000000"

    struct Case: Sendable, CustomStringConvertible {
        var role: String
        var permission: Permission
        var description: String { "\(permission.rawValue) to \(role)" }
    }

    static let cases: [Case] = [Role.world, Role.authenticated, Role.creator, "Admin"].flatMap { role in
        Permission.allCases.map { Case(role: role, permission: $0) }
    }

    /// Who holds the role (the record was created by alice).
    static func holder(of role: String) -> Caller {
        switch role {
        case Role.world: Caller.anonymous
        case Role.authenticated: Caller(userRecordName: bob)
        case Role.creator: Caller(userRecordName: alice)
        default: Caller(userRecordName: bob, roles: [role])
        }
    }

    /// Who does not hold the role; `nil` for `_world`, which everyone holds.
    static func stranger(to role: String) -> Caller? {
        switch role {
        case Role.world: nil
        case Role.authenticated: Caller.anonymous
        case Role.creator: Caller(userRecordName: bob)
        default: Caller(userRecordName: bob, roles: ["Editor"])
        }
    }

    @Test("a grant allows its permission to the role's holders", arguments: cases)
    func allows(_ check: Case) {
        let type = RecordTypeSchema(name: "T", grants: [check.role: [check.permission]])
        #expect(AccessPolicy.allows(check.permission, on: type, caller: Self.holder(of: check.role), creator: Self.alice))
    }

    @Test("a grant refuses its permission to others, and refuses the other permissions to everyone", arguments: cases)
    func refuses(_ check: Case) {
        let type = RecordTypeSchema(name: "T", grants: [check.role: [check.permission]])
        if let stranger = Self.stranger(to: check.role) {
            #expect(!AccessPolicy.allows(check.permission, on: type, caller: stranger, creator: Self.alice))
        }
        for other in Permission.allCases where other != check.permission {
            #expect(!AccessPolicy.allows(other, on: type, caller: Self.holder(of: check.role), creator: Self.alice))
        }
    }

    @Test("read scope: everything through a role, only one's own through _creator, nothing otherwise")
    func readScope() {
        let creatorOnly = RecordTypeSchema(name: "T", grants: [Role.creator: [.read]])
        #expect(AccessPolicy.readScope(of: creatorOnly, caller: Caller(userRecordName: Self.alice)) == .createdByCaller)
        #expect(AccessPolicy.readScope(of: creatorOnly, caller: .anonymous) == .none)
        let world = RecordTypeSchema(name: "T", grants: [Role.world: [.read]])
        #expect(AccessPolicy.readScope(of: world, caller: .anonymous) == .all)
        let admins = RecordTypeSchema(name: "T", grants: ["Admin": [.read]])
        #expect(AccessPolicy.readScope(of: admins, caller: Caller(userRecordName: Self.bob, roles: ["Admin"])) == .all)
        #expect(AccessPolicy.readScope(of: admins, caller: Caller(userRecordName: Self.bob)) == .none)
        #expect(AccessPolicy.readScope(of: admins, caller: Caller(userRecordName: nil, hasAllPermissions: true)) == .all)
    }
}
