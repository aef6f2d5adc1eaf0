import StratusModel

/// A saved subscription: who asked, in which database, and the subscription as its owner sent it.
public struct StoredSubscription: Sendable, Hashable {
    public var id: String
    /// The public database, or the owner's private one.
    public var database: DatabaseRef
    /// The user who subscribed; notifications go to them.
    public var owner: String
    /// The subscription dictionary, as JSON text, with its ID and defaults filled in.
    public var body: String
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(id: String, database: DatabaseRef, owner: String, body: String, createdAt: Int64) {
        self.id = id
        self.database = database
        self.owner = owner
        self.body = body
        self.createdAt = createdAt
    }
}

/// Storage of subscriptions (`docs/protocol.md#subscriptions-and-notifications`). Each user has their own subscription IDs per database.
public protocol SubscriptionStore: Sendable {
    /// A user's subscriptions in one database, oldest first.
    func subscriptions(of owner: String, in database: DatabaseRef) async throws -> [StoredSubscription]
    /// One subscription of a user, if it exists.
    func subscription(id: String, owner: String, in database: DatabaseRef) async throws -> StoredSubscription?
    /// Creates or replaces a subscription.
    /// - Parameter mustExist: refuse with ``StorageError/Code/notFound`` when there is none to replace.
    func saveSubscription(_ subscription: StoredSubscription, mustExist: Bool) async throws
    /// Deletes a subscription.
    /// - Returns: whether there was one.
    @discardableResult
    func deleteSubscription(id: String, owner: String, in database: DatabaseRef) async throws -> Bool
    /// The subscriptions in one database of a container environment, every user's, oldest first
    /// (public, or every private database).
    func subscriptions(containerID: String, environment: Environment, scope: DatabaseScope) async throws -> [StoredSubscription]
    /// Every subscription of every container, for the server's matching index.
    func allSubscriptions() async throws -> [StoredSubscription]
}
