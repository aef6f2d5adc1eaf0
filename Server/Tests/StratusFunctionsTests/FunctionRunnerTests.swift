import Foundation
import StratusBench
import StratusFunctions
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Modules built from C with clang, run by WasmKit within their limits.
@Suite struct FunctionRunnerTests {
    let runner = FunctionRunner(concurrentCalls: 4)
    /// A minute of wall clock: host requests are served by Swift's shared threads, which other tests of a loaded
    /// machine can keep busy for seconds.
    let limits = FunctionLimits(instructions: 5_000_000, memoryBytes: 4 << 20, seconds: 60, hostRequests: 5)

    func module(_ fixture: String) throws -> FunctionModule {
        try FunctionModule(bytes: try WasmModules.fixture(fixture))
    }

    func text(_ result: FunctionResult) -> String { String(decoding: result.output, as: UTF8.self) }

    func failure(_ module: FunctionModule, _ entry: String, input: String = "{}", limits: FunctionLimits? = nil) async -> FunctionFailure? {
        do {
            let result = try await runner.run(module, entry: entry, input: Array(input.utf8), limits: limits ?? self.limits)
            Issue.record("\(entry) was expected to fail; it answered \(text(result))")
            return nil
        } catch {
            return error
        }
    }

    @Test func theExampleAcceptsChangesAndRefuses() async throws {
        let module = try FunctionModule(bytes: try WasmModules.example("check_message"))
        #expect(module.entries.contains("before_save"))
        let good = #"{"record":{"recordType":"Message","fields":{"title":{"value":"Hello \"you\""},"priority":{"value":3}}}}"#
        let accepted = try await runner.run(module, entry: "before_save", input: Array(good.utf8), limits: limits)
        #expect(text(accepted) == #"{"fields":{"titleLength":{"value":11}}}"#)
        #expect(accepted.instructions > 0 && accepted.instructions < limits.instructions)
        let untitled = #"{"record":{"fields":{"priority":{"value":3}}}}"#
        let refused = try await runner.run(module, entry: "before_save", input: Array(untitled.utf8), limits: limits)
        #expect(text(refused) == #"{"serverErrorCode":"BAD_REQUEST","reason":"a message needs a title of 1 to 100 characters"}"#)
        let urgent = #"{"record":{"fields":{"title":{"value":"x"},"priority":{"value":9}}}}"#
        let tooUrgent = try await runner.run(module, entry: "before_save", input: Array(urgent.utf8), limits: limits)
        #expect(text(tooUrgent).contains("priority from 0 to 5"))
    }

    @Test("the benchmark's module is the example as clang builds it today")
    func benchModuleIsTheExample() throws {
        #expect(HookedCreates.moduleBytes == (try WasmModules.example("check_message", stripped: true)))
    }

    @Test func inputOutputAndLogsGoThrough() async throws {
        let result = try await runner.run(try module("misbehave"), entry: "echo", input: Array(#"{"a":1}"#.utf8), limits: limits)
        #expect(text(result) == #"{"a":1}"#)
        #expect(result.logs == ["echoing the input"])
    }

    @Test func aTrapIsReportedAndTheNextCallRuns() async throws {
        let module = try module("misbehave")
        let trapped = await failure(module, "trap")
        #expect(trapped?.error.kind == .trapped, "\(String(describing: trapped))")
        let badPointer = await failure(module, "bad_pointer")
        #expect(badPointer?.error.kind == .trapped, "\(String(describing: badPointer))")
        let status = await failure(module, "exit_status")
        #expect(status?.error.kind == .exited && status?.error.message.contains("3") == true, "\(String(describing: status))")
        let result = try await runner.run(module, entry: "echo", input: Array("{}".utf8), limits: limits)
        #expect(text(result) == "{}")
    }

    @Test("a call finds the module as a fresh instance would: nothing another call left in memory or globals")
    func callsAreIsolated() async throws {
        let module = try module("misbehave")
        // Counting in memory shows a reused instance is set back; exits from a deep frame leave nothing behind either.
        for _ in 0..<25 {
            let counted = try await runner.run(module, entry: "count_calls", input: [], limits: limits)
            #expect(text(counted) == "1")
            let left = try await runner.run(module, entry: "exit_early", input: [], limits: limits)
            #expect(text(left) == #"{"left":true}"#)
        }
        _ = await failure(module, "trap")
        let counted = try await runner.run(module, entry: "count_calls", input: [], limits: limits)
        #expect(text(counted) == "1", "after a trap")
    }

    @Test func aLoopEndsWithItsInstructionBudget() async throws {
        let spun = await failure(try module("misbehave"), "spin")
        #expect(spun?.error.kind == .instructionLimit, "\(String(describing: spun))")
    }

    @Test func memoryStopsAtTheLimit() async throws {
        let hogged = await failure(try module("misbehave"), "hog")
        #expect(hogged?.error.kind == .memoryLimit, "\(String(describing: hogged))")
    }

    @Test func aCallPastItsTimeIsAnswered() async throws {
        struct SlowHost: FunctionHost {
            func request(_ body: [UInt8]) async -> [UInt8] {
                // Never answers (the call's thread gives up at its deadline; this task stays suspended, holding no thread).
                await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
                return Array("{}".utf8)
            }
        }
        var short = limits
        short.seconds = 0.5
        let module = try module("misbehave")
        let started = ContinuousClock.now
        do {
            let result = try await runner.run(
                module, entry: "forward", input: Array(#"{"request":{"path":"records/lookup"}}"#.utf8), limits: short,
                host: SlowHost()
            )
            Issue.record("a call waiting on a slow host answered \(text(result))")
        } catch {
            #expect(error.error.kind == .timeLimit, "\(error)")
        }
        // Answered though the host never answers: a loaded machine may keep the call queued behind other tests'
        // calls for a while (24 s was seen), but not for long.
        #expect(ContinuousClock.now - started < .seconds(120))
    }

    @Test func hostRequestsReachTheHostAndAreCounted() async throws {
        struct EchoHost: FunctionHost {
            func request(_ body: [UInt8]) async -> [UInt8] { Array(#"{"asked":"#.utf8) + body + Array("}".utf8) }
        }
        let module = try module("misbehave")
        let input = #"{"request":{"path":"records/query","body":{"query":{"recordType":"Note"}}}}"#
        let result = try await runner.run(module, entry: "forward", input: Array(input.utf8), limits: limits, host: EchoHost())
        #expect(text(result) == #"{"asked":{"path":"records/query","body":{"query":{"recordType":"Note"}}}}"#)
        var none = limits
        none.hostRequests = 0
        do {
            _ = try await runner.run(module, entry: "forward", input: Array(input.utf8), limits: none, host: EchoHost())
            Issue.record("a call beyond its host requests went through")
        } catch {
            #expect(error.error.kind == .outputLimit, "\(error)")
        }
    }

    /// A host that holds each request until the test opens it, counting the requests it got.
    final class GateHost: FunctionHost, @unchecked Sendable {
        private let lock = NSLock()
        private var open = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        private(set) var requests = 0

        func request(_ body: [UInt8]) async -> [UInt8] {
            await withCheckedContinuation { continuation in
                let pass: Bool = lock.withLock {
                    requests += 1
                    if open { return true }
                    waiters.append(continuation)
                    return false
                }
                if pass { continuation.resume() }
            }
            return Array("{}".utf8)
        }

        var held: Int { lock.withLock { waiters.count } }

        func openAll() {
            let held: [CheckedContinuation<Void, Never>] = lock.withLock {
                open = true
                defer { waiters = [] }
                return waiters
            }
            for waiter in held { waiter.resume() }
        }
    }

    static let forwardInput = Array(#"{"request":{"path":"records/lookup"}}"#.utf8)

    @Test("calls waiting beside idle threads start at once, up to the pool's size: a quick call runs while three are held")
    func everySlotIsUsed() async throws {
        let module = try module("misbehave")
        let pool = FunctionRunner(concurrentCalls: 4)
        // Two threads that have worked and now wait for work.
        async let first = pool.run(module, entry: "echo", input: Array("a".utf8), limits: limits)
        async let second = pool.run(module, entry: "echo", input: Array("b".utf8), limits: limits)
        _ = try await (first, second)
        let gate = GateHost()
        let held = (0..<3).map { _ in Task { try await pool.run(module, entry: "forward", input: Self.forwardInput, limits: limits, host: gate) } }
        try await Polling.until("three calls to hold their threads") { gate.held == 3 }
        let started = ContinuousClock.now
        let quick = try await pool.run(module, entry: "echo", input: Array("quick".utf8), limits: limits)
        #expect(text(quick) == "quick" && ContinuousClock.now - started < .seconds(30), "a quick call waited \(ContinuousClock.now - started)")
        gate.openAll()
        for call in held { _ = try await call.value }
    }

    @Test("a call's time counts from when it starts, not while it waits for a thread; calls in a write's path go first; a call whose caller is gone does not run")
    func waitingIsFair() async throws {
        let module = try module("misbehave")
        let pool = FunctionRunner(concurrentCalls: 1)
        let gate = GateHost()
        let holding = Task { try await pool.run(module, entry: "forward", input: Self.forwardInput, limits: limits, host: gate) }
        try await Polling.until("the only thread to be held") { gate.held == 1 }

        var short = limits
        short.seconds = 1
        let order = LockedList()
        let normal = Task {
            let result = try await pool.run(module, entry: "echo", input: Array("normal".utf8), limits: short)
            order.append(text(result))
        }
        let gone = GateHost()
        let abandoned = Task { try await pool.run(module, entry: "forward", input: Self.forwardInput, limits: short, host: gone) }
        let urgent = Task {
            let result = try await pool.run(module, entry: "echo", input: Array("urgent".utf8), limits: short, priority: .writePath)
            order.append(text(result))
        }
        abandoned.cancel()
        // Longer than the waiting calls' one-second limit passes before the thread is free.
        let submitted = ContinuousClock.now
        try await Polling.until("two seconds to pass") { ContinuousClock.now - submitted > .seconds(2) }
        gate.openAll()
        _ = try await holding.value
        try await normal.value
        try await urgent.value
        _ = try? await abandoned.value
        #expect(order.items == ["urgent", "normal"], "the write-path call went first, and neither ran out of time waiting: \(order.items)")
        #expect(gone.requests == 0, "the abandoned call ran")
    }

    @Test func modulesAreCheckedOnLoading() throws {
        #expect(throws: FunctionError.self) { try FunctionModule(bytes: Array("not wasm".utf8)) }
        // A valid header with a broken body.
        #expect(throws: FunctionError.self) { try FunctionModule(bytes: [0x00, 0x61, 0x73, 0x6D, 0x01, 0x00, 0x00, 0x00, 0x01, 0xFF]) }
        let module = try module("misbehave")
        #expect(throws: FunctionError.self) { try module.requireEntry("missing") }
        try module.requireEntry("echo")
        let imports = FileManager.default.temporaryDirectory.appendingPathComponent("imports-\(UUID().uuidString).c")
        try """
            __attribute__((import_module("env"), import_name("open"))) int open_file(const char *path);
            __attribute__((export_name("run"))) void run(void) { open_file("/etc/passwd"); }
            """.write(to: imports, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: imports) }
        do {
            _ = try FunctionModule(bytes: try WasmModules.compile(imports))
            Issue.record("a module importing env.open was accepted")
        } catch let error as FunctionError {
            #expect(error.kind == .invalidModule && error.message.contains("env.open"), "\(error)")
        }
    }
}

/// Texts appended from several tasks.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String] = []

    func append(_ item: String) { lock.withLock { stored.append(item) } }
    var items: [String] { lock.withLock { stored } }
}
