/// Deadlines and caps of the HTTP server's connections.
public struct ConnectionLimits: Sendable {
    /// How long a connection may take to send a complete request head, counted from when it opened or the
    /// last response ended.
    public var requestHeadTimeout = Duration.seconds(20)
    /// How long a request body may go without a byte arriving.
    public var bodyIdleTimeout = Duration.seconds(30)
    /// Connections one client address may hold open at once.
    public var maximumConnectionsPerAddress = 256

    /// The default limits.
    public init() {}
}
