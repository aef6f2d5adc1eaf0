import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process for tests (servers, the command line, openssl, bash), started with `posix_spawn`.
///
/// Foundation's `Process` is not used: on Linux it lists `/proc/self/fd` in a way that reads past the end of a
/// buffer now and then, which crashes the whole test run (swift-corelibs-foundation#5472). Descriptors of the
/// test process are closed in the child (every descriptor above 2), so a child never holds another test's pipe
/// open. Standard input is `/dev/null`.
public final class ChildProcess: Sendable {
    /// Where the child's standard output or error goes.
    public enum Destination: Sendable {
        /// `/dev/null`.
        case discard
        /// The test process's own.
        case inherit
        /// A pipe the test reads through ``output`` (or ``errors``).
        case pipe
        /// Standard error only: wherever standard output goes.
        case output
    }

    /// The child's process ID.
    public let identifier: pid_t
    /// The read end of the child's standard output, when it goes to a pipe.
    public let output: FileHandle?
    /// The read end of the child's standard error, when it goes to a pipe of its own.
    public let errors: FileHandle?
    private let exitStatus = Mutex<Int32?>(nil)

    /// Starts `executable` (a path, or a name looked up on `PATH`) with `arguments`.
    /// - Parameters:
    ///   - environment: variables added to (or replacing) the test process's own.
    ///   - directory: the child's working directory; the test process's when nil.
    public init(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
        output: Destination = .discard, errors: Destination = .discard
    ) throws {
        guard let path = Self.resolve(executable) else { throw ChildProcessError("\(executable) is not installed (not found on PATH)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own, so a Ctrl-C meant for the test runner does not reach the child first.
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))

        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let outputPipe = try Self.route(output, to: 1, actions: &actions)
        var errorPipe: (read: Int32, write: Int32)?
        if errors == .output {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            errorPipe = try Self.route(errors, to: 2, actions: &actions)
        }
        Spawn.closeFrom(&actions, 3)
        if let directory {
            guard Spawn.changeDirectory(&actions, directory) else { throw ChildProcessError("this C library cannot set a child's directory") }
        }

        let variables = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let argv = CStrings([path] + arguments)
        let envp = CStrings(variables.map { "\($0.key)=\($0.value)" })
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv.pointers, envp.pointers)
        // The child has its own copies of the write ends.
        if let outputPipe { close(outputPipe.write) }
        if let errorPipe { close(errorPipe.write) }
        guard result == 0 else {
            if let outputPipe { close(outputPipe.read) }
            if let errorPipe { close(errorPipe.read) }
            throw ChildProcessError("cannot start \(path): \(String(cString: strerror(result)))")
        }
        identifier = pid
        self.output = outputPipe.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) }
        self.errors = errorPipe.map { FileHandle(fileDescriptor: $0.read, closeOnDealloc: true) }
    }

    /// Runs `executable` to its end and returns its exit status and everything it printed (standard output,
    /// then standard error in the same stream). Waits on a thread of its own: the tests' shared threads (two on a
    /// two-core machine) keep running other tests meanwhile, however long the child takes.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) async throws -> (status: Int32, output: String) {
        try await offload { try runBlocking(executable, arguments, environment: environment, directory: directory) }
    }

    /// Like ``run(_:_:environment:directory:)``, blocking the calling thread.
    static func runBlocking(_ executable: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil) throws -> (status: Int32, output: String) {
        let child = try ChildProcess(executable, arguments, environment: environment, directory: directory, output: .pipe, errors: .output)
        let data = child.output?.readDataToEndOfFile() ?? Data()
        return (child.waitForExit(), String(decoding: data, as: UTF8.self))
    }

    /// Everything the child writes to its ``output`` pipe until it exits, and its exit status, read on a thread of
    /// its own.
    public func outputToExit() async -> (status: Int32, output: String) {
        // Never throws: the work below does not.
        (try? await Self.offload { [self] in
            let data = output?.readDataToEndOfFile() ?? Data()
            return (waitForExit(), String(decoding: data, as: UTF8.self))
        }) ?? (-1, "")
    }

    /// The first line the child writes to its ``output`` pipe (a peer's "ready …"), or what it wrote before its
    /// output ended, read on a thread of its own.
    public func firstLine() async throws -> String {
        try await Self.offload { [self] in
            var data = Data()
            while let handle = output, !data.contains(UInt8(ascii: "\n")) {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                data.append(chunk)
            }
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// Waits for the child to exit on a thread of its own, and returns its exit status.
    @discardableResult
    public func exit() async -> Int32 {
        (try? await Self.offload { [self] in waitForExit() }) ?? -1
    }

    /// Runs blocking work (waiting for a child, polling a port) on a Dispatch thread, not on one of the tasks'
    /// shared threads, which other tests need meanwhile.
    public static func offload<Value: Sendable>(_ work: @escaping @Sendable () throws -> Value) async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result(catching: work)) }
        }
    }

    /// Whether the child has not exited yet.
    public var isRunning: Bool {
        exitStatus.withLock { status in
            if status != nil { return false }
            var raw: Int32 = 0
            guard waitpid(identifier, &raw, WNOHANG) == identifier else { return true }
            status = Self.decode(raw)
            return false
        }
    }

    /// Waits for the child to exit and returns its exit status (128 + the signal when a signal ended it).
    @discardableResult
    public func waitForExit() -> Int32 {
        while true {
            if let status = exitStatus.withLock({ $0 }) { return status }
            var raw: Int32 = 0
            let reaped = waitpid(identifier, &raw, 0)
            if reaped == identifier {
                let status = Self.decode(raw)
                exitStatus.withLock { $0 = status }
                return status
            }
            // EINTR, or another caller reaped it and is about to record the status.
            if reaped == -1 && errno != EINTR { usleep(1_000) }
        }
    }

    /// Sends `signal` to the child, unless it has exited.
    public func send(_ signal: Int32) {
        if isRunning { kill(identifier, signal) }
    }

    /// Asks the child to stop (SIGTERM) and waits for it.
    public func terminate() {
        send(SIGTERM)
        waitForExit()
    }

    /// Kills the child at once, as a crash would (SIGKILL), and waits for it.
    public func killNow() {
        send(SIGKILL)
        waitForExit()
    }

    private static func decode(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    private static func route(_ destination: Destination, to descriptor: Int32, actions: inout posix_spawn_file_actions_t) throws -> (read: Int32, write: Int32)? {
        switch destination {
        case .discard, .output:  // `.output` for standard output itself means nothing better than discarding
            posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
            return nil
        case .inherit:
            return nil
        case .pipe:
            var ends: [Int32] = [0, 0]
            guard pipe(&ends) == 0 else { throw ChildProcessError("cannot make a pipe: \(String(cString: strerror(errno)))") }
            // Close-on-exec, so another test's child never inherits them (the close-from action covers the
            // moment between pipe() and here).
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, ends[1], descriptor)
            return (ends[0], ends[1])
        }
    }

    private static func resolve(_ executable: String) -> String? {
        if executable.contains("/") { return FileManager.default.isExecutableFile(atPath: executable) ? executable : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(executable)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// NUL-terminated copies of strings, as `argv` and `envp` want them, freed with the value.
private final class CStrings {
    let pointers: [UnsafeMutablePointer<CChar>?]

    init(_ strings: [String]) {
        pointers = strings.map { strdup($0) } + [nil]
    }

    deinit {
        pointers.forEach { free($0) }
    }
}

/// The C library's `posix_spawn` extensions that Swift's module map leaves out, found at run time.
private enum Spawn {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    static let closeFromFunction = symbol("posix_spawn_file_actions_addclosefrom_np").map { unsafeBitCast($0, to: CloseFrom.self) }
    static let changeDirectoryFunction = symbol("posix_spawn_file_actions_addchdir_np").map { unsafeBitCast($0, to: ChangeDirectory.self) }

    /// Closes every descriptor from `lowest` up in the child; without the extension (C libraries before glibc
    /// 2.34), the pipes made here are close-on-exec anyway.
    static func closeFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) {
        _ = closeFromFunction?(&actions, lowest)
    }

    static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Bool {
        guard let changeDirectoryFunction else { return false }
        return changeDirectoryFunction(&actions, directory) == 0
    }

    private static func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        #if canImport(Darwin)
        return dlsym(UnsafeMutableRawPointer(bitPattern: -2), name)
        #else
        return dlsym(nil, name)
        #endif
    }
}
