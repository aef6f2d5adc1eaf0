/// What one call of a module may use.
public struct FunctionLimits: Sendable, Hashable, Codable {
    /// WebAssembly instructions executed (roughly one per operator).
    public var instructions: UInt64
    /// Linear memory, in bytes.
    public var memoryBytes: Int
    /// Wall-clock time, in seconds, host requests included.
    public var seconds: Double
    /// Requests to the host interface (record reads and writes).
    public var hostRequests: Int

    public init(instructions: UInt64, memoryBytes: Int, seconds: Double, hostRequests: Int) {
        self.instructions = instructions
        self.memoryBytes = memoryBytes
        self.seconds = seconds
        self.hostRequests = hostRequests
    }

    /// What a binding gets when it asks for nothing else.
    public static let standard = FunctionLimits(instructions: 20_000_000, memoryBytes: 16 << 20, seconds: 5, hostRequests: 50)
    /// The most a binding may ask for.
    public static let maximum = FunctionLimits(instructions: 2_000_000_000, memoryBytes: 256 << 20, seconds: 30, hostRequests: 1_000)

    /// These limits, each brought down to `ceiling`'s.
    public func capped(by ceiling: FunctionLimits) -> FunctionLimits {
        FunctionLimits(
            instructions: min(instructions, ceiling.instructions), memoryBytes: min(memoryBytes, ceiling.memoryBytes),
            seconds: min(seconds, ceiling.seconds), hostRequests: min(hostRequests, ceiling.hostRequests)
        )
    }

    /// Most output a call may write (its answer), and most log text.
    public static let maximumOutputBytes = 1 << 20
    public static let maximumLogBytes = 64 << 10
}

/// Capabilities of the system interface a binding grants its module; without them the calls answer `ENOTCAPABLE`.
/// Files and sockets are never offered: a module reaches data through the host interface only.
public enum FunctionGrant: String, Sendable, Hashable, Codable, CaseIterable {
    /// `clock_time_get` and `clock_res_get`: the time of day and a monotonic clock.
    case clock
    /// `random_get`: random bytes from the system's generator.
    case random
}
