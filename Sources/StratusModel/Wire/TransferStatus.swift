/// How an import into a container (or an export of it) is going, as the tool doing it reports it to the server
/// (`PUT /admin/1/{container}/transfers/{id}`) and the console shows it (`GET /admin/1/{container}/transfers`).
public struct TransferStatus: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
        case running, finished, failed
    }

    /// Names the transfer; the same across the runs of a resumed import.
    public var id: String
    public var containerID: String
    /// What moves data: `import cloudkit`.
    public var kind: String
    /// Where the data comes from or goes to, for people.
    public var peer: String
    public var state: State
    /// Why it failed, or how it ended.
    public var message: String?
    public var recordsDone: Int
    /// Nil until the records are counted.
    public var recordsTotal: Int?
    public var bytes: Int64
    public var recordsPerSecond: Double?
    public var secondsLeft: Int?
    /// Milliseconds since 1970.
    public var startedAt: Int64
    /// Milliseconds since 1970; set by the server when it saves the status.
    public var updatedAt: Int64

    public init(
        id: String, containerID: String, kind: String, peer: String, state: State, message: String? = nil, recordsDone: Int = 0,
        recordsTotal: Int? = nil, bytes: Int64 = 0, recordsPerSecond: Double? = nil, secondsLeft: Int? = nil, startedAt: Int64, updatedAt: Int64 = 0
    ) {
        self.id = id
        self.containerID = containerID
        self.kind = kind
        self.peer = peer
        self.state = state
        self.message = message
        self.recordsDone = recordsDone
        self.recordsTotal = recordsTotal
        self.bytes = bytes
        self.recordsPerSecond = recordsPerSecond
        self.secondsLeft = secondsLeft
        self.startedAt = startedAt
        self.updatedAt = updatedAt
    }
}

/// `GET /admin/1/{container}/transfers`: the container's transfers, the most recently updated first.
public struct TransfersResponse: Sendable, Hashable, Codable {
    public var transfers: [TransferStatus]

    public init(transfers: [TransferStatus]) {
        self.transfers = transfers
    }
}
