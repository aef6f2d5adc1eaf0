import Crypto
import Foundation
import Logging
import StratusFunctions
import StratusModel
import StratusStore
import Synchronization

/// A node's view of its containers' functions: bindings and module lists read from the store and kept until a
/// ``StoreEvent/functionsChanged(containerID:)`` from any node makes them stale; modules compiled once per digest.
/// Runs calls with each binding's limits, capped by the server's.
package final class FunctionCatalog: Sendable {
    package let store: any Store
    package let runner: FunctionRunner
    package let logger: Logger
    private let bindings = EventFedCache<String, [FunctionBinding]>(timeToLive: .seconds(300), capacity: 10_000)
    private let modules = EventFedCache<String, [StoredFunctionModule]>(timeToLive: .seconds(300), capacity: 10_000)
    /// Compiled modules by digest (the oldest dropped past 64).
    private let compiled = Mutex<[(digest: String, module: FunctionModule)]>([])

    package init(store: any Store, concurrentCalls: Int, logger: Logger) {
        self.store = store
        self.logger = logger
        self.runner = FunctionRunner(concurrentCalls: concurrentCalls)
        store.observeEvents { [weak self] delivery in
            switch delivery {
            case .missed:
                self?.bindings.forgetAll()
                self?.modules.forgetAll()
            case .committed(let events):
                for case .functionsChanged(let containerID) in events {
                    self?.bindings.forget(containerID)
                    self?.modules.forget(containerID)
                }
            }
        }
    }

    /// A container's functions, every environment.
    package func bindings(containerID: String) async throws -> [FunctionBinding] {
        try await bindings.value(for: containerID) { try await self.store.functionBindings(containerID: containerID) } ?? []
    }

    /// The enabled function of this name.
    package func binding(containerID: String, environment: Environment, name: String) async throws -> FunctionBinding? {
        try await bindings(containerID: containerID).first { $0.environment == environment && $0.name == name && $0.isEnabled }
    }

    /// The enabled `beforeSave` functions for records of `recordType` in `database`, by name.
    package func beforeSave(containerID: String, environment: Environment, database: DatabaseScope, recordType: String) async throws -> [FunctionBinding] {
        try await bindings(containerID: containerID).filter { binding in
            binding.isEnabled && binding.environment == environment && binding.trigger == .beforeSave
                && binding.recordTypes.contains(recordType) && (binding.databases.isEmpty || binding.databases.contains(database.rawValue))
        }
    }

    /// The compiled module a binding names.
    package func module(for binding: FunctionBinding) async throws -> FunctionModule {
        let listed = try await modules.value(for: binding.containerID) { try await self.store.functionModules(containerID: binding.containerID) } ?? []
        guard let stored = listed.first(where: { $0.environment == binding.environment && $0.name == binding.module }) else {
            throw ServiceError(.notFound, "the module \(binding.module) of the function \(binding.name) does not exist")
        }
        if let module = compiled.withLock({ $0.first { $0.digest == stored.digest }?.module }) { return module }
        guard let full = try await store.functionModule(containerID: binding.containerID, environment: binding.environment, name: binding.module) else {
            throw ServiceError(.notFound, "the module \(binding.module) of the function \(binding.name) does not exist")
        }
        let module: FunctionModule
        do {
            module = try FunctionModule(bytes: full.bytes)
        } catch {
            throw ServiceError(.failed, "the module \(binding.module) no longer loads: \(error.message)")
        }
        compiled.withLock { cache in
            if cache.count >= 64 { cache.removeFirst() }
            cache.append((full.digest, module))
        }
        return module
    }

    /// Runs a binding's entry with `input`, within its limits; what the module logs goes to the server's log with
    /// the function's name, and so does a failure.
    package func run(_ binding: FunctionBinding, input: [UInt8], host: (any FunctionHost)?) async throws(FunctionFailure) -> FunctionResult {
        let name = "\(binding.containerID)/\(binding.environment.rawValue)/\(binding.name)"
        do {
            let module: FunctionModule
            do {
                module = try await self.module(for: binding)
            } catch {
                let reason = (error as? ServiceError)?.message ?? "\(error)"
                throw FunctionFailure(error: FunctionError(.invalidModule, reason), logs: [])
            }
            let result = try await runner.run(
                module, entry: binding.entry, input: input, limits: FunctionRules.limits(of: binding),
                grants: Set(binding.grants.compactMap(FunctionGrant.init(rawValue:))), host: host,
                // A write waits on its beforeSave: it goes before callables and jobs waiting for a thread.
                priority: binding.trigger == .beforeSave ? .writePath : .normal
            )
            for line in result.logs { logger.info("\(line)", metadata: ["stratus.function": "\(name)"]) }
            return result
        } catch let failure as FunctionFailure {
            for line in failure.logs { logger.info("\(line)", metadata: ["stratus.function": "\(name)"]) }
            logger.warning("a function failed", metadata: ["stratus.function": "\(name)", "stratus.error": "\(failure.error.message)"])
            throw failure
        } catch {
            throw FunctionFailure(error: FunctionError(.invalidModule, "\(error)"), logs: [])
        }
    }
}
