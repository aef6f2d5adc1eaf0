import StratusFunctions
import StratusModel
import StratusStore

/// The rules for functions, their modules and scheduled jobs' names: what a function's settings may say, the
/// entry a trigger calls, the limits a call runs with, and how the admin API shows them.
package enum FunctionRules {
    /// The events an `afterSave` function may receive.
    package static let recordEvents = ["record.created", "record.updated", "record.deleted"]

    /// The entry a trigger calls unless the function names one.
    package static func defaultEntry(_ trigger: FunctionTrigger) -> String {
        switch trigger {
        case .beforeSave: "before_save"
        case .afterSave: "after_save"
        case .callable: "call"
        case .schedule: "scheduled"
        }
    }

    /// Names of modules, functions and jobs: letters, digits, `_`, `-` and `.`, up to 64.
    /// - Throws: ``ServiceError`` (`invalidArgument`) naming what the name is of.
    package static func name(_ name: String, of what: String) throws -> String {
        let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_-.".contains($0)) }
        guard allowed, (1...64).contains(name.count), name != "modules" else {
            throw ServiceError.invalidArgument("a \(what) name has 1 to 64 letters, digits, '_', '-' or '.' (and is not 'modules'), not '\(name)'")
        }
        return name
    }

    /// A binding's limits: what it asks for, the defaults for the rest, capped by the server's maximums.
    package static func limits(of binding: FunctionBinding) -> FunctionLimits {
        let standard = FunctionLimits.standard
        return FunctionLimits(
            instructions: binding.limits.instructions ?? standard.instructions, memoryBytes: binding.limits.memoryBytes ?? standard.memoryBytes,
            seconds: binding.limits.seconds ?? standard.seconds, hostRequests: binding.limits.hostRequests ?? standard.hostRequests
        ).capped(by: .maximum)
    }

    /// The function `settings` describe, named `name`, checked against the container's `modules`; it keeps the
    /// creation time of the function it replaces.
    /// - Throws: ``ServiceError``: `notFound` for a module not uploaded, `invalidArgument` for anything else wrong.
    package static func binding(
        from settings: FunctionSettings, name: String, containerID: String, environment: Environment, modules: [StoredFunctionModule],
        replacing existing: FunctionBinding?, now: Int64
    ) throws -> FunctionBinding {
        guard let trigger = FunctionTrigger(rawValue: settings.trigger) else {
            throw ServiceError.invalidArgument(
                "'\(settings.trigger)' is not a trigger: \(FunctionTrigger.allCases.map(\.rawValue).joined(separator: ", "))"
            )
        }
        guard let module = modules.first(where: { $0.environment == environment && $0.name == settings.module }) else {
            throw ServiceError(.notFound, "\(containerID) has no module \(settings.module) in \(environment.rawValue); upload it first")
        }
        let entry = settings.entry ?? defaultEntry(trigger)
        guard module.entries.contains(entry) else {
            throw ServiceError.invalidArgument(
                "the module \(module.name) exports no function \"\(entry)\" taking nothing (it has: \(module.entries.joined(separator: ", ")))"
            )
        }
        let recordTypes = settings.recordTypes ?? []
        if trigger == .beforeSave && recordTypes.isEmpty {
            throw ServiceError.invalidArgument("a beforeSave function names the recordTypes it checks")
        }
        for database in settings.databases ?? [] where DatabaseScope(rawValue: database) == nil {
            throw ServiceError.invalidArgument("'\(database)' is not a database: public, private or shared")
        }
        for event in settings.eventTypes ?? [] where !recordEvents.contains(event) {
            throw ServiceError.invalidArgument("'\(event)' is not an event an afterSave function receives: \(recordEvents.joined(separator: ", "))")
        }
        for grant in settings.grants ?? [] where FunctionGrant(rawValue: grant) == nil {
            throw ServiceError.invalidArgument("'\(grant)' is not a grant: \(FunctionGrant.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let limits = settings.limits ?? FunctionBinding.Limits()
        try checkLimits(limits)
        return FunctionBinding(
            containerID: containerID, environment: environment, name: name, module: settings.module, entry: entry, trigger: trigger,
            recordTypes: recordTypes, databases: settings.databases ?? [], eventTypes: settings.eventTypes ?? [], runAsRole: settings.runAsRole,
            grants: settings.grants ?? [], limits: limits, isEnabled: settings.enabled ?? true, createdAt: existing?.createdAt ?? now,
            updatedAt: now
        )
    }

    private static func checkLimits(_ limits: FunctionBinding.Limits) throws {
        let maximum = FunctionLimits.maximum
        if let value = limits.instructions, value == 0 || value > maximum.instructions {
            throw ServiceError.invalidArgument("limits.instructions is from 1 to \(maximum.instructions)")
        }
        if let value = limits.memoryBytes, value < 65_536 || value > maximum.memoryBytes {
            throw ServiceError.invalidArgument("limits.memoryBytes is from 65536 (one page) to \(maximum.memoryBytes)")
        }
        if let value = limits.seconds, !(value > 0 && value <= maximum.seconds) {
            throw ServiceError.invalidArgument("limits.seconds is above 0 and at most \(maximum.seconds)")
        }
        if let value = limits.hostRequests, value < 0 || value > maximum.hostRequests {
            throw ServiceError.invalidArgument("limits.hostRequests is from 0 to \(maximum.hostRequests)")
        }
    }
}

extension FunctionInfo {
    /// How the admin API shows `binding`, with the limits it runs with and, for `afterSave`, the endpoint listing its events.
    package init(_ binding: FunctionBinding) {
        let effective = FunctionRules.limits(of: binding)
        self.init(
            name: binding.name, environment: binding.environment.rawValue, module: binding.module, entry: binding.entry,
            trigger: binding.trigger.rawValue, recordTypes: binding.recordTypes, databases: binding.databases, eventTypes: binding.eventTypes,
            runAsRole: binding.runAsRole, grants: binding.grants,
            limits: binding.limits,
            effectiveLimits: FunctionLimitSettings(
                instructions: effective.instructions, memoryBytes: effective.memoryBytes, seconds: effective.seconds, hostRequests: effective.hostRequests
            ),
            enabled: binding.isEnabled,
            eventsEndpoint: binding.trigger == .afterSave ? FunctionBinding.eventEndpointID(environment: binding.environment, name: binding.name) : nil,
            created: binding.createdAt, updated: binding.updatedAt
        )
    }
}

extension FunctionModuleInfo {
    /// How the admin API shows `module` (without its bytes).
    package init(_ module: StoredFunctionModule) {
        self.init(
            name: module.name, environment: module.environment.rawValue, size: module.size, digest: module.digest, entries: module.entries,
            uploaded: module.uploadedAt
        )
    }
}
