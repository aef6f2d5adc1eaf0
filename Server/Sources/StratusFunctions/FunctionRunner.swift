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

/// How soon a call runs when every thread is busy.
public enum CallPriority: Sendable {
    /// A call a write waits on (`beforeSave`): it goes before the others waiting.
    case writePath
    case normal
}

/// Runs calls of modules, each in a fresh instance (nothing a call leaves in memory reaches the next) on one of the
/// runner's threads (never on Swift's cooperative threads), bounded by its limits. At most ``concurrentCalls`` run at
/// once; more wait their turn (calls in a write's path first), and a call's time limit counts from when it starts.
public final class FunctionRunner: Sendable {
    /// The longest a call waits for a thread before it is refused as the server being busy.
    public static let longestWait: Duration = .seconds(60)

    public let concurrentCalls: Int
    private let workers: Workers
    /// One engine for every call: it holds no call's state. Memory accesses are checked in software, so that an
    /// instance costs no large address-space reservation to make and drop.
    private let engine = Engine(configuration: EngineConfiguration(memoryBoundsChecking: .software, fuelMetering: true))

    public init(concurrentCalls: Int = max(2, ProcessInfo.processInfo.activeProcessorCount * 2)) {
        self.concurrentCalls = concurrentCalls
        self.workers = Workers(maximum: concurrentCalls)
    }

    /// Calls `entry` of `module` with `input`.
    ///
    /// Returns when the call ends or its time limit passes, whichever is first; a call past its time limit goes on
    /// in its thread until its next host request or the end of its instruction budget, and keeps its slot until then.
    /// - Throws: ``FunctionFailure``.
    public func run(
        _ module: FunctionModule, entry: String, input: [UInt8], limits: FunctionLimits, grants: Set<FunctionGrant> = [],
        host: (any FunctionHost)? = nil, priority: CallPriority = .normal
    ) async throws(FunctionFailure) -> FunctionResult {
        let state = CallState(input: input, limits: limits, grants: grants, host: host)
        let outcome = Mutex<Result<FunctionResult, FunctionFailure>?>(nil)
        let started = AsyncFlag()
        let finished = AsyncFlag()
        let turn = CallTurn()
        workers.submit(first: priority == .writePath) { [engine] in
            // A call whose caller gave up (gone, or tired of waiting) is not run.
            guard turn.start() else { return }
            started.raise()
            let result = Self.execute(module, entry: entry, state: state, engine: engine)
            outcome.withLock { $0 = result }
            finished.raise()
        }
        let began = await withTaskCancellationHandler {
            await started.wait(upTo: Self.longestWait)
        } onCancel: {
            started.giveUp()
        }
        if !began, turn.abandon() {
            throw FunctionFailure(
                error: FunctionError(.timeLimit, "the function did not get a thread within \(Self.longestWait): the server is busy"), logs: []
            )
        }
        let inTime = await finished.wait(upTo: .milliseconds(Int64(limits.seconds * 1000)))
        guard inTime, let result = outcome.withLock({ $0 }) else {
            throw FunctionFailure(
                error: FunctionError(.timeLimit, "the function ran past its time limit of \(limits.seconds) s"), logs: []
            )
        }
        return try result.get()
    }

    /// Runs one call on the current thread, in an idle instance of the module or a new one.
    private static func execute(
        _ module: FunctionModule, entry: String, state: CallState, engine: Engine
    ) -> Result<FunctionResult, FunctionFailure> {
        func failure(_ error: FunctionError) -> Result<FunctionResult, FunctionFailure> {
            .failure(FunctionFailure(error: error, logs: state.logs))
        }
        var pooled: PooledInstance?
        do {
            let instance: PooledInstance
            if let idle = module.pool.take() {
                idle.context.state = state
                idle.store.fuel = Fuel(remaining: state.limits.instructions)
                instance = idle
            } else {
                instance = try PooledInstance(module, engine: engine, context: CallContext(state))
            }
            pooled = instance
            guard let function = instance.instance.exports[function: entry] else {
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
        let used = state.limits.instructions - (pooled?.store.fuel?.remaining ?? 0)
        let result = FunctionResult(output: state.output, logs: state.logs, instructions: used)
        if let pooled, pooled.reset() { module.pool.put(pooled) }
        return .success(result)
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

/// Whether a submitted call runs: it starts on a thread, or its caller abandons it first, never both.
private final class CallTurn: Sendable {
    private enum Step { case waiting, started, abandoned }
    private let step = Mutex(Step.waiting)

    /// On the thread: whether the call is still wanted (and is now started).
    func start() -> Bool {
        step.withLock { step in
            guard step == .waiting else { return false }
            step = .started
            return true
        }
    }

    /// For the caller: whether the call was abandoned before it started.
    func abandon() -> Bool {
        step.withLock { step in
            guard step == .waiting else { return false }
            step = .abandoned
            return true
        }
    }
}

/// The runner's threads: started as calls come, up to a maximum, each ending after a while without work. A call
/// waits in line when every thread is busy; a new thread starts whenever calls wait beyond the idle threads, so that
/// no slot stays unused while calls wait.
private final class Workers: Sendable {
    private struct State {
        /// Calls in a write's path, served first.
        var firstJobs: [@Sendable () -> Void] = []
        var jobs: [@Sendable () -> Void] = []
        var threads = 0
        var idle = 0
    }

    private let state = Mutex(State())
    private let waiting = DispatchSemaphore(value: 0)
    private let maximum: Int

    init(maximum: Int) {
        self.maximum = maximum
    }

    func submit(first: Bool = false, _ job: @escaping @Sendable () -> Void) {
        let start = state.withLock { state -> Bool in
            if first { state.firstJobs.append(job) } else { state.jobs.append(job) }
            // Idle threads each take one waiting call; start another when more wait than they can take.
            guard state.firstJobs.count + state.jobs.count > state.idle, state.threads < maximum else { return false }
            state.threads += 1
            return true
        }
        waiting.signal()
        guard start else { return }
        let thread = Thread { [self] in work() }
        thread.stackSize = 8 << 20
        thread.name = "stratus-function"
        thread.start()
    }

    private func work() {
        while true {
            state.withLock { $0.idle += 1 }
            let woken = waiting.wait(timeout: .now() + .seconds(10))
            let job = state.withLock { state -> (@Sendable () -> Void)? in
                state.idle -= 1
                if !state.firstJobs.isEmpty { return state.firstJobs.removeFirst() }
                if !state.jobs.isEmpty { return state.jobs.removeFirst() }
                if woken == .timedOut { state.threads -= 1 }
                return nil
            }
            if let job {
                job()
            } else if woken == .timedOut {
                return
            }
        }
    }
}

/// Raised once by a thread; awaited, with a time limit, by a task.
private final class AsyncFlag: Sendable {
    private struct State {
        var raised = false
        /// Set when the waiting task was cancelled: a wait not begun yet ends at once.
        var gaveUp = false
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
            let answer = state.withLock { state -> Bool? in
                if state.raised { return true }
                if state.gaveUp { return false }
                state.waiter = continuation
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    private func timeOut() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: false)
    }

    /// Ends a wait at once, as unraised (its task was cancelled).
    func giveUp() {
        state.withLock { $0.gaveUp = true }
        timeOut()
    }
}
