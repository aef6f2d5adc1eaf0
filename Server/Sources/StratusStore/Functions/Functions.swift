import Foundation
import StratusModel

/// A WebAssembly module a container environment's developer uploaded, as the server keeps it.
public struct StoredFunctionModule: Sendable, Hashable {
    public var containerID: String
    public var environment: Environment
    public var name: String
    /// The module; empty in lists (``FunctionStore/functionModules(containerID:)``).
    public var bytes: [UInt8]
    /// SHA-256 of the bytes, in hexadecimal: nodes compile a module once per digest.
    public var digest: String
    public var size: Int
    /// The functions a binding may name as its entry (checked on upload).
    public var entries: [String]
    /// Milliseconds since 1970.
    public var uploadedAt: Int64

    public init(
        containerID: String, environment: Environment, name: String, bytes: [UInt8], digest: String, size: Int, entries: [String], uploadedAt: Int64
    ) {
        self.containerID = containerID
        self.environment = environment
        self.name = name
        self.bytes = bytes
        self.digest = digest
        self.size = size
        self.entries = entries
        self.uploadedAt = uploadedAt
    }
}

/// When a module's function runs.
public enum FunctionTrigger: String, Sendable, Hashable, Codable, CaseIterable {
    /// In the write path, before records of the binding's types are saved: accept, change fields, or refuse.
    case beforeSave
    /// After records are saved, from the outbox, at least once, in commit order per zone (as webhooks are delivered).
    case afterSave
    /// When a client calls it: `POST /functions/1/{container}/{environment}/{name}`.
    case callable
    /// When a scheduled job names it.
    case schedule
}

/// A function: a module's entry bound to a trigger, with the identity it acts as and its limits.
public struct FunctionBinding: Sendable, Hashable {
    /// Limits a binding asks for, as the admin API takes them; the server caps each and fills in its defaults.
    public typealias Limits = FunctionLimitSettings

    public var containerID: String
    public var environment: Environment
    /// Its name: what clients call, and how it is listed.
    public var name: String
    public var module: String
    /// The exported function called.
    public var entry: String
    public var trigger: FunctionTrigger
    /// `beforeSave` and `afterSave`: records of these types only (`beforeSave` needs at least one).
    public var recordTypes: [String]
    /// `beforeSave` and `afterSave`: records in these databases only; empty: every database.
    public var databases: [String]
    /// `afterSave`: these events only (`record.created`, `record.updated`, `record.deleted`); empty: all three.
    public var eventTypes: [String]
    /// The custom role whose permissions its record requests have; `nil`: the caller's (for `beforeSave` and `callable`)
    /// or none beyond what anyone may do (for `afterSave` and `schedule`).
    public var runAsRole: String?
    /// System capabilities granted (`clock`, `random`).
    public var grants: [String]
    public var limits: Limits
    public var isEnabled: Bool
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var updatedAt: Int64

    public init(
        containerID: String, environment: Environment, name: String, module: String, entry: String, trigger: FunctionTrigger,
        recordTypes: [String] = [], databases: [String] = [], eventTypes: [String] = [], runAsRole: String? = nil, grants: [String] = [],
        limits: Limits = Limits(), isEnabled: Bool = true, createdAt: Int64, updatedAt: Int64
    ) {
        self.containerID = containerID
        self.environment = environment
        self.name = name
        self.module = module
        self.entry = entry
        self.trigger = trigger
        self.recordTypes = recordTypes
        self.databases = databases
        self.eventTypes = eventTypes
        self.runAsRole = runAsRole
        self.grants = grants
        self.limits = limits
        self.isEnabled = isEnabled
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The event endpoint an `afterSave` function's events are queued on (``WebhookEndpoint``, whose `url` names the
    /// function): its deliveries are listed, retried and replayed like a webhook's.
    public static func eventEndpointID(environment: Environment, name: String) -> String {
        "fn.\(environment.rawValue).\(name)"
    }

    /// The `url` of such an endpoint.
    public static func eventEndpointURL(name: String) -> String { "function:\(name)" }

    /// The function an endpoint's `url` names, when it names one.
    public static func functionName(inEndpointURL url: String) -> String? {
        url.hasPrefix("function:") ? String(url.dropFirst("function:".count)) : nil
    }
}

/// Storage for functions: modules and their bindings. Every change emits ``StoreEvent/functionsChanged(containerID:)``
/// so that every node drops what it cached.
public protocol FunctionStore: Sendable {
    /// Stores a module, replacing one of the same name.
    func saveFunctionModule(_ module: StoredFunctionModule) async throws
    /// A module with its bytes.
    func functionModule(containerID: String, environment: Environment, name: String) async throws -> StoredFunctionModule?
    /// A container's modules (every environment), without their bytes.
    func functionModules(containerID: String) async throws -> [StoredFunctionModule]
    /// - Throws: ``StorageError/Code/notFound``; ``StorageError/Code/conflict`` while a function uses it.
    func deleteFunctionModule(containerID: String, environment: Environment, name: String) async throws
    /// Creates or replaces a function; an `afterSave` one gets its event endpoint in the same transaction.
    func saveFunctionBinding(_ binding: FunctionBinding) async throws
    /// Deletes a function (and the events queued for it).
    /// - Throws: ``StorageError/Code/notFound``.
    func deleteFunctionBinding(containerID: String, environment: Environment, name: String) async throws
    /// A container's functions (every environment), by name.
    func functionBindings(containerID: String) async throws -> [FunctionBinding]
}
