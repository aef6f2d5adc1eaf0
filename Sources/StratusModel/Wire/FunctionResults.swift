/// The admin API's requests and answers for functions and their WebAssembly modules
/// (`/admin/1/{container}/.../functions`), as the server writes them and the `stratus` command reads them.

/// What a function may use per call; `nil` fields take the server's defaults.
public struct FunctionLimitSettings: Sendable, Hashable, Codable {
    /// WebAssembly instructions executed.
    public var instructions: UInt64?
    /// Linear memory, in bytes.
    public var memoryBytes: Int?
    /// Wall-clock time, host requests included.
    public var seconds: Double?
    /// Requests to the host interface (record reads and writes).
    public var hostRequests: Int?

    public init(instructions: UInt64? = nil, memoryBytes: Int? = nil, seconds: Double? = nil, hostRequests: Int? = nil) {
        self.instructions = instructions
        self.memoryBytes = memoryBytes
        self.seconds = seconds
        self.hostRequests = hostRequests
    }
}

/// `PUT /admin/1/{container}/{environment}/functions/{name}`'s body: a module's entry bound to a trigger.
public struct FunctionSettings: Sendable, Hashable, Codable {
    public var module: String
    /// The exported function it calls; by default the trigger's name (`beforeSave`, `afterSave`, `call`, `run`).
    public var entry: String?
    /// `beforeSave`, `afterSave`, `callable` or `schedule`.
    public var trigger: String
    /// The record types it runs for (`beforeSave`, `afterSave`).
    public var recordTypes: [String]?
    /// The databases it runs for (`public`, `private`, `shared`); none: all.
    public var databases: [String]?
    /// The events an `afterSave` function receives (`record.created`, `record.updated`, `record.deleted`); none: all.
    public var eventTypes: [String]?
    /// The custom role whose permissions its record requests have; otherwise the caller's.
    public var runAsRole: String?
    /// Capabilities granted beyond records: `clock`, `random`.
    public var grants: [String]?
    public var limits: FunctionLimitSettings?
    /// `false` keeps the function but turns it off.
    public var enabled: Bool?

    public init(
        module: String, entry: String? = nil, trigger: String, recordTypes: [String]? = nil, databases: [String]? = nil,
        eventTypes: [String]? = nil, runAsRole: String? = nil, grants: [String]? = nil, limits: FunctionLimitSettings? = nil, enabled: Bool? = nil
    ) {
        self.module = module
        self.entry = entry
        self.trigger = trigger
        self.recordTypes = recordTypes
        self.databases = databases
        self.eventTypes = eventTypes
        self.runAsRole = runAsRole
        self.grants = grants
        self.limits = limits
        self.enabled = enabled
    }
}

/// A function as the server keeps it, with the limits it runs with.
public struct FunctionInfo: Sendable, Hashable, Codable {
    public var name: String
    public var environment: String
    public var module: String
    public var entry: String
    public var trigger: String
    public var recordTypes: [String]
    public var databases: [String]
    public var eventTypes: [String]
    public var runAsRole: String?
    public var grants: [String]
    /// The limits it was given.
    public var limits: FunctionLimitSettings
    /// The limits it runs with: those given, the server's defaults for the rest.
    public var effectiveLimits: FunctionLimitSettings
    public var enabled: Bool
    /// For an `afterSave` function, the webhook endpoint that lists its deliveries.
    public var eventsEndpoint: String?
    public var created: Int64
    public var updated: Int64

    public init(
        name: String, environment: String, module: String, entry: String, trigger: String, recordTypes: [String], databases: [String],
        eventTypes: [String], runAsRole: String?, grants: [String], limits: FunctionLimitSettings, effectiveLimits: FunctionLimitSettings,
        enabled: Bool, eventsEndpoint: String?, created: Int64, updated: Int64
    ) {
        self.name = name
        self.environment = environment
        self.module = module
        self.entry = entry
        self.trigger = trigger
        self.recordTypes = recordTypes
        self.databases = databases
        self.eventTypes = eventTypes
        self.runAsRole = runAsRole
        self.grants = grants
        self.limits = limits
        self.effectiveLimits = effectiveLimits
        self.enabled = enabled
        self.eventsEndpoint = eventsEndpoint
        self.created = created
        self.updated = updated
    }
}

/// A WebAssembly module as the server keeps it (without its bytes).
public struct FunctionModuleInfo: Sendable, Hashable, Codable {
    public var name: String
    public var environment: String
    public var size: Int
    /// Its SHA-256, in hexadecimal.
    public var digest: String
    /// The functions it exports that take nothing and return nothing, which functions may call.
    public var entries: [String]
    public var uploaded: Int64

    public init(name: String, environment: String, size: Int, digest: String, entries: [String], uploaded: Int64) {
        self.name = name
        self.environment = environment
        self.size = size
        self.digest = digest
        self.entries = entries
        self.uploaded = uploaded
    }
}

/// `GET /admin/1/{container}/functions`: the modules and functions of every environment.
public struct FunctionsResponse: Sendable, Hashable, Codable {
    public var modules: [FunctionModuleInfo]
    public var functions: [FunctionInfo]

    public init(modules: [FunctionModuleInfo], functions: [FunctionInfo]) {
        self.modules = modules
        self.functions = functions
    }
}
