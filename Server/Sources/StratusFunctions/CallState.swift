import Foundation
import Synchronization

/// What one call of a module reads and writes through its imports: its input, its output and logs, its budget of
/// host requests, and its deadline. Confined to the thread running the call, apart from ``abandoned``.
final class CallState: @unchecked Sendable {
    let input: [UInt8]
    var output: [UInt8] = []
    /// How much of the input standard input has given.
    var inputRead = 0
    var logs: [String] = []
    var logBytes = 0
    /// The last host response, waiting to be copied into the module's memory.
    var response: [UInt8] = []
    var hostRequestsLeft: Int
    let limits: FunctionLimits
    let grants: Set<FunctionGrant>
    let host: (any FunctionHost)?
    let deadline: DispatchTime
    /// Set when the module asked for memory beyond its limit (WebAssembly then sees `memory.grow` fail).
    let memoryRefused = Atomic<Bool>(false)
    /// The status the module exited with through `proc_exit`.
    var exitStatus: UInt32?

    init(input: [UInt8], limits: FunctionLimits, grants: Set<FunctionGrant>, host: (any FunctionHost)?) {
        self.input = input
        self.limits = limits
        self.grants = grants
        self.host = host
        self.hostRequestsLeft = limits.hostRequests
        self.deadline = .now() + .milliseconds(Int(limits.seconds * 1000))
    }

    /// Appends to the output.
    /// - Throws: ``FunctionError/Kind/outputLimit`` past ``FunctionLimits/maximumOutputBytes``.
    func write(_ bytes: some Collection<UInt8>) throws {
        guard output.count + bytes.count <= FunctionLimits.maximumOutputBytes else {
            throw FunctionError(.outputLimit, "the function wrote more than \(FunctionLimits.maximumOutputBytes) bytes of output")
        }
        output.append(contentsOf: bytes)
    }

    /// Keeps a log line (what the module wrote to standard error or through `stratus.log`), up to the log limit.
    func log(_ bytes: some Collection<UInt8>) {
        guard logBytes < FunctionLimits.maximumLogBytes else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        logBytes += bytes.count
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            logs.append(String(line.prefix(2_000)))
        }
    }

    /// Asks the host, blocking this (dedicated) thread until it answers or the deadline passes.
    func request(_ body: [UInt8]) throws -> [UInt8] {
        guard let host else {
            return Array(#"{"serverErrorCode":"ACCESS_DENIED","reason":"this function has no host interface"}"#.utf8)
        }
        guard hostRequestsLeft > 0 else {
            throw FunctionError(.outputLimit, "the function made more than \(limits.hostRequests) host requests")
        }
        hostRequestsLeft -= 1
        let answer = Mutex<[UInt8]?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let response = await host.request(body)
            answer.withLock { $0 = response }
            done.signal()
        }
        guard done.wait(timeout: deadline) == .success, let response = answer.withLock({ $0 }) else {
            throw FunctionError(.timeLimit, "the function ran past its time limit of \(limits.seconds) s waiting for a host request")
        }
        return response
    }

    /// - Throws: ``FunctionError/Kind/timeLimit`` once the deadline has passed.
    func checkDeadline() throws {
        if DispatchTime.now() > deadline {
            throw FunctionError(.timeLimit, "the function ran past its time limit of \(limits.seconds) s")
        }
    }
}

/// What a module reaches through `stratus.request`: the server, acting for the binding's identity.
public protocol FunctionHost: Sendable {
    /// Answers one request (JSON in, JSON out; errors are CloudKit error objects, never thrown).
    func request(_ body: [UInt8]) async -> [UInt8]
}

/// Which call an instance's imports answer for: an instance serves one call at a time, on one thread, and is reused
/// by the next call once reset.
final class CallContext: @unchecked Sendable {
    var state: CallState

    init(_ state: CallState) {
        self.state = state
    }
}
