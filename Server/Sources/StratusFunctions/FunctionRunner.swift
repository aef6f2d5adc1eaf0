import Foundation
@_spi(Fuzzing) import WasmKit
import Synchronization

/// What a call produced.
public struct FunctionResult: Sendable, Hashable {
    /// What the module wrote to standard output or through `stratus.output`.
    public var output: [UInt8]
    /// What it wrote to standard error or through `stratus.log`, by line.
    public var logs: [String]
    /// Instructions executed.
    public var instructions: UInt64
}

/// A failed call: why, and what the module logged before.
public struct FunctionFailure: Error, Sendable {
    public var error: FunctionError
    public var logs: [String]

    public init(error: FunctionError, logs: [String]) {
        self.error = error
        self.logs = logs
    }
}

/// Runs calls of modules, each in a fresh instance (nothing a call leaves in memory reaches the next) on a thread of
/// its own, bounded by its limits. At most ``concurrentCalls`` run at once; more wait their turn.
public final class FunctionRunner: Sendable {
    public let concurrentCalls: Int
    private let slots: Slots

    public init(concurrentCalls: Int = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)) {
        self.concurrentCalls = concurrentCalls
        self.slots = Slots(concurrentCalls)
    }

    /// Calls `entry` of `module` with `input`.
    ///
    /// Returns when the call ends or its time limit passes, whichever is first; a call past its time limit goes on
    /// in its thread until its next host request or the end of its instruction budget, and keeps its slot until then.
    /// - Throws: ``FunctionFailure``.
    public func run(
        _ module: FunctionModule, entry: String, input: [UInt8], limits: FunctionLimits, grants: Set<FunctionGrant> = [],
        host: (any FunctionHost)? = nil
    ) async throws(FunctionFailure) -> FunctionResult {
        await slots.acquire()
        let state = CallState(input: input, limits: limits, grants: grants, host: host)
        let outcome = Mutex<Result<FunctionResult, FunctionFailure>?>(nil)
        let finished = AsyncFlag()
        let thread = Thread { [slots] in
            let result = Self.execute(module, entry: entry, state: state)
            outcome.withLock { $0 = result }
            finished.raise()
            slots.release()
        }
        thread.stackSize = 8 << 20
        thread.name = "stratus-function"
        thread.start()
        let inTime = await finished.wait(upTo: .milliseconds(Int64(limits.seconds * 1000)))
        guard inTime, let result = outcome.withLock({ $0 }) else {
            throw FunctionFailure(
                error: FunctionError(.timeLimit, "the function ran past its time limit of \(limits.seconds) s"), logs: []
            )
        }
        return try result.get()
    }

    /// Runs one call on the current thread.
    private static func execute(_ module: FunctionModule, entry: String, state: CallState) -> Result<FunctionResult, FunctionFailure> {
        let engine = Engine(configuration: EngineConfiguration(fuelMetering: true))
        let store = Store(engine: engine)
        store.resourceLimiter = MemoryLimiter(state: state)
        store.fuel = Fuel(remaining: state.limits.instructions)
        func failure(_ error: FunctionError) -> Result<FunctionResult, FunctionFailure> {
            .failure(FunctionFailure(error: error, logs: state.logs))
        }
        do {
            let instance = try module.parsed.instantiate(store: store, imports: HostImports.imports(for: module.parsed, store: store, state: state))
            guard let function = instance.exports[function: entry] else {
                return failure(FunctionError(.missingExport, "the module exports no function \"\(entry)\""))
            }
            let results = try function.invoke([])
            if case .i32(let status)? = results.first, status != 0 {
                return failure(FunctionError(.exited, "the function returned the status \(Int32(bitPattern: status))"))
            }
        } catch let exit as ProcessExit {
            if exit.status != 0 {
                return failure(FunctionError(.exited, "the function exited with the status \(exit.status)"))
            }
        } catch let error as FunctionError {
            return failure(error)
        } catch {
            return failure(classify(error, state: state))
        }
        let used = state.limits.instructions - (store.fuel?.remaining ?? 0)
        return .success(FunctionResult(output: state.output, logs: state.logs, instructions: used))
    }

    /// Names what stopped a module, from WasmKit's trap.
    private static func classify(_ error: any Error, state: CallState) -> FunctionError {
        let description = String(describing: error)
        if description.contains("out of fuel") {
            return FunctionError(.instructionLimit, "the function used its whole budget of \(state.limits.instructions) instructions")
        }
        if state.memoryRefused.load(ordering: .relaxed) {
            return FunctionError(
                .memoryLimit, "the function ran out of memory: it asked for more than its limit of \(state.limits.memoryBytes) bytes"
            )
        }
        let firstLine = description.split(separator: "\n").first.map(String.init) ?? description
        return FunctionError(.trapped, "the function trapped: \(firstLine.replacingOccurrences(of: "Trap: ", with: ""))")
    }
}

/// Refuses memory beyond a call's limit, noting that it did.
private final class MemoryLimiter: ResourceLimiter, @unchecked Sendable {
    let state: CallState

    init(state: CallState) {
        self.state = state
    }

    func limitMemoryGrowth(to desired: Int) throws -> Bool {
        guard desired <= state.limits.memoryBytes else {
            state.memoryRefused.store(true, ordering: .relaxed)
            return false
        }
        return true
    }

    func limitTableGrowth(to desired: Int) throws -> Bool {
        desired <= 100_000
    }
}

/// A counting gate for calls.
private final class Slots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) {
        state = Mutex(State(free: count))
    }

    func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state in
                if state.free > 0 {
                    state.free -= 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Raised once by a thread; awaited, with a time limit, by a task.
private final class AsyncFlag: Sendable {
    private struct State {
        var raised = false
        var waiter: CheckedContinuation<Bool, Never>?
    }

    private let state = Mutex(State())

    func raise() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.raised = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: true)
    }

    /// Whether the flag was raised within `limit`.
    func wait(upTo limit: Duration) async -> Bool {
        let timer = Task { [weak self] in
            try? await Task.sleep(for: limit)
            self?.timeOut()
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let raised = state.withLock { state -> Bool in
                if state.raised { return true }
                state.waiter = continuation
                return false
            }
            if raised { continuation.resume(returning: true) }
        }
    }

    private func timeOut() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: false)
    }
}
