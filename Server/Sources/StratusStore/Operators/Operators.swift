import Foundation

/// A person who runs the server: signs in to the console and the admin API with a password and an authenticator
/// app, and acts on the containers their roles name.
public struct OperatorAccount: Sendable, Hashable {
    public var id: String
    /// Stored lowercased; unique.
    public var emailAddress: String
    public var name: String
    public var passwordHash: String
    /// The authenticator app's secret, sealed; set when enrolment begins.
    public var sealedTOTPSecret: String?
    /// Whether the authenticator app was confirmed; sign-in needs it.
    public var isTOTPEnabled: Bool
    /// The last time step whose code was accepted, so that a code works once.
    public var lastTOTPStep: Int64
    /// May manage people, create containers and change server-wide settings, and holds every role everywhere.
    public var isAdministrator: Bool
    public var isDisabled: Bool
    public var createdAt: Int64

    public init(
        id: String, emailAddress: String, name: String, passwordHash: String, sealedTOTPSecret: String? = nil, isTOTPEnabled: Bool = false,
        lastTOTPStep: Int64 = 0, isAdministrator: Bool = false, isDisabled: Bool = false, createdAt: Int64
    ) {
        self.id = id
        self.emailAddress = emailAddress.lowercased()
        self.name = name
        self.passwordHash = passwordHash
        self.sealedTOTPSecret = sealedTOTPSecret
        self.isTOTPEnabled = isTOTPEnabled
        self.lastTOTPStep = lastTOTPStep
        self.isAdministrator = isAdministrator
        self.isDisabled = isDisabled
        self.createdAt = createdAt
    }
}

/// What an operator may do in one container.
public enum OperatorRole: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// Reads data, schemas, telemetry and logs.
    case viewer
    /// A viewer who also changes the development environment: its schema, data, functions, webhooks and jobs.
    case developer
    /// Does everything: deploys to production, manages keys and secrets, deletes.
    case owner

    private var rank: Int {
        switch self {
        case .viewer: 0
        case .developer: 1
        case .owner: 2
        }
    }

    public static func < (lhs: OperatorRole, rhs: OperatorRole) -> Bool { lhs.rank < rhs.rank }
}

/// One admin action, as the audit log keeps it.
public struct AuditEntry: Sendable, Hashable {
    /// Orders entries by time: milliseconds, then random digits.
    public var id: String
    /// Milliseconds since 1970.
    public var time: Int64
    /// Who acted: an operator's address, or `admin key`.
    public var actor: String
    /// The container acted on; `nil` for server-wide actions.
    public var containerID: String?
    /// What was asked: the method and the path (`PUT /admin/1/.../schema`).
    public var action: String
    /// How the server answered.
    public var status: Int
    /// The client address it came from.
    public var address: String

    public init(id: String, time: Int64, actor: String, containerID: String?, action: String, status: Int, address: String) {
        self.id = id
        self.time = time
        self.actor = actor
        self.containerID = containerID
        self.action = action
        self.status = status
        self.address = address
    }

    /// A new entry's id: the time, zero-padded, then random hexadecimal digits.
    public static func newID(time: Int64) -> String {
        String(format: "%015lld", time) + String(format: "%08x", UInt32.random(in: 0...UInt32.max))
    }
}

/// Operators, their roles per container, and the audit log of admin actions.
/// The server's shared admin key once an operator rotated it or turned it off through the admin API: every node then
/// obeys this instead of the key it was started with.
public struct AdminKeyState: Sendable, Hashable, Codable {
    /// The SHA-256 of the key, in hexadecimal; `nil` when the key is turned off.
    public var keyHash: String?
    /// The key sealed with the server's secrets key, so that each node can keep its data folder's copy current;
    /// `nil` when turned off or when the server has no secrets key.
    public var sealedKey: String?
    /// Milliseconds since 1970.
    public var changedAt: Int64
    /// Who changed it: an operator's address, or `admin key`.
    public var changedBy: String

    public init(keyHash: String?, sealedKey: String?, changedAt: Int64, changedBy: String) {
        self.keyHash = keyHash
        self.sealedKey = sealedKey
        self.changedAt = changedAt
        self.changedBy = changedBy
    }

    /// Whether a key is in use.
    public var isEnabled: Bool { keyHash != nil }
}

public protocol OperatorStore: Sendable {
    /// The admin key's state, or `nil` while the key a node was started with is the key.
    func adminKeyState() async throws -> AdminKeyState?
    /// Replaces the admin key's state; every process hears ``StoreEvent/adminKeyChanged``.
    func setAdminKeyState(_ state: AdminKeyState) async throws

    /// - Throws: `alreadyExists` when the address is taken.
    func createOperator(_ account: OperatorAccount, roles: [String: OperatorRole]) async throws
    func operatorAccount(id: String) async throws -> OperatorAccount?
    func operatorAccount(emailAddress: String) async throws -> OperatorAccount?
    func operatorAccounts() async throws -> [OperatorAccount]
    /// Replaces an operator's row; disabling one (or changing their password) is the caller's to pair with ending
    /// their sessions. - Throws: `notFound`.
    func saveOperator(_ account: OperatorAccount) async throws
    /// Moves the last accepted code's step, only forward; answers whether it moved (a code is accepted once).
    func useOperatorTOTPStep(_ step: Int64, operatorID: String) async throws -> Bool
    /// Deletes an operator and their roles. - Throws: `notFound`.
    func deleteOperator(id: String) async throws
    /// Each container's role of an operator.
    func operatorRoles(operatorID: String) async throws -> [String: OperatorRole]
    /// Replaces an operator's roles.
    func setOperatorRoles(_ roles: [String: OperatorRole], operatorID: String) async throws
    func appendAudit(_ entry: AuditEntry) async throws
    /// Entries newest first: of `containerID` (or every one, server-wide ones included, when `nil`), by `actor` if
    /// given, older than `beforeID` if given.
    func auditLog(containerID: String?, actor: String?, beforeID: String?, limit: Int) async throws -> [AuditEntry]
}
