import Synchronization
@_spi(Fuzzing) import WasmKit

/// An instance of a module kept between calls: its memory and globals as instantiation left them are set back after
/// each call that ended well (a call that failed, or grew the memory, drops its instance), so that a call finds what
/// a fresh instance would, without compiling the module's functions again.
final class PooledInstance: @unchecked Sendable {
    let store: Store
    let instance: Instance
    let context: CallContext
    private let memory: Memory
    private let memorySnapshot: [UInt8]
    private let globals: [(global: Global, value: Value)]

    /// Instantiates `module` for the call `context` holds (a start function runs within that call's limits).
    init(_ module: FunctionModule, engine: Engine, context: CallContext) throws {
        store = Store(engine: engine)
        store.resourceLimiter = MemoryLimiter(context: context)
        store.fuel = Fuel(remaining: context.state.limits.instructions)
        self.context = context
        let instance = try module.parsed.instantiate(store: store, imports: HostImports.imports(for: module.parsed, store: store, context: context))
        self.instance = instance
        guard let memory = instance.exports[memory: "memory"] else {
            throw FunctionError(.invalidModule, "the module exports no memory named \"memory\"")
        }
        self.memory = memory
        self.memorySnapshot = memory.withUnsafeBufferPointer(offset: 0, count: memory.byteCount) { Array($0) }
        self.globals = module.mutableGlobals.compactMap { index in
            instance.exports[global: GlobalExports.prefix + String(index)].map { ($0, $0.value) }
        }
    }

    /// Sets memory and globals back; `false` when the instance cannot be (its memory grew).
    func reset() -> Bool {
        guard memory.byteCount == memorySnapshot.count else { return false }
        memory.withUnsafeMutableBufferPointer(offset: 0, count: memorySnapshot.count) { $0.copyBytes(from: memorySnapshot) }
        for (global, value) in globals {
            guard (try? global.assign(value)) != nil else { return false }
        }
        return true
    }
}

/// A module's idle instances.
final class InstancePool: Sendable {
    private let idle = Mutex<[PooledInstance]>([])
    private let capacity = 8

    func take() -> PooledInstance? {
        idle.withLock { $0.popLast() }
    }

    func put(_ instance: PooledInstance) {
        idle.withLock { idle in
            if idle.count < capacity { idle.append(instance) }
        }
    }
}

/// Refuses memory beyond the current call's limit, noting that it did.
final class MemoryLimiter: ResourceLimiter, @unchecked Sendable {
    let context: CallContext

    init(context: CallContext) {
        self.context = context
    }

    func limitMemoryGrowth(to desired: Int) throws -> Bool {
        guard desired <= context.state.limits.memoryBytes else {
            context.state.memoryRefused.store(true, ordering: .relaxed)
            return false
        }
        return true
    }

    func limitTableGrowth(to desired: Int) throws -> Bool {
        desired <= 100_000
    }
}
