/// The refusals every backend answers with, worded once.
extension StorageError {
    /// Whether the error refuses one operation of a batch (the others go on), rather than the storage failing.
    public var refusesTheOperation: Bool {
        code != .unavailable && code != .internalFailure
    }

    public static func containerExists(_ containerID: String) -> StorageError {
        StorageError(.alreadyExists, "container \(containerID) exists already")
    }

    public static func noSuchContainer(_ containerID: String) -> StorageError {
        StorageError(.notFound, "container \(containerID) does not exist")
    }

    public static let accountExists = StorageError(.alreadyExists, "an account with this email address exists already")
    public static let noSuchAccount = StorageError(.notFound, "the account does not exist")

    public static func noSuchSubscription(_ id: String) -> StorageError {
        StorageError(.notFound, "subscription \(id) does not exist")
    }

    public static let noSuchServerKey = StorageError(.notFound, "the container has no such key")
    /// An upload whose receipt expired before the file was stored.
    public static let uploadExpired = StorageError(.notFound, "the upload took longer than its URL was valid; upload the file again")
    public static let courierTokenGone = StorageError(.notFound, "the courier token does not exist or expired")
}
