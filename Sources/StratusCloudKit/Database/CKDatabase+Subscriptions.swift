import Foundation
import StratusKit

extension CKDatabase {
    /// Saves a subscription (one with the same ID is replaced).
    public func save(_ subscription: CKSubscription) async throws -> CKSubscription {
        let wanted = try subscription.stratus()
        return try await call { CKSubscription.make(try await $0.save(wanted)) }
    }

    /// The subscription with this ID; `unknownItem` when there is none.
    public func subscription(for subscriptionID: CKSubscription.ID) async throws -> CKSubscription {
        try await call { CKSubscription.make(try await $0.subscription(for: subscriptionID)) }
    }

    /// Subscriptions by ID, each with its own result.
    public func subscriptions(for ids: [CKSubscription.ID]) async throws -> [CKSubscription.ID: Result<CKSubscription, any Error>] {
        var results: [CKSubscription.ID: Result<CKSubscription, any Error>] = [:]
        for id in ids {
            do {
                results[id] = .success(try await subscription(for: id))
            } catch let error as CKError where error.code == .unknownItem {
                results[id] = .failure(error)
            }
        }
        return results
    }

    /// The user's subscriptions in this database.
    public func allSubscriptions() async throws -> [CKSubscription] {
        try await call { try await $0.allSubscriptions().map(CKSubscription.make) }
    }

    /// Deletes a subscription.
    public func deleteSubscription(withID subscriptionID: CKSubscription.ID) async throws -> CKSubscription.ID {
        try await call { try await $0.deleteSubscription(withID: subscriptionID) }
        return subscriptionID
    }

    /// Saves and deletes subscriptions, each with its own result.
    public func modifySubscriptions(
        saving subscriptionsToSave: [CKSubscription], deleting subscriptionIDsToDelete: [CKSubscription.ID]
    ) async throws -> (saveResults: [CKSubscription.ID: Result<CKSubscription, any Error>], deleteResults: [CKSubscription.ID: Result<Void, any Error>]) {
        var saves: [CKSubscription.ID: Result<CKSubscription, any Error>] = [:]
        var deletes: [CKSubscription.ID: Result<Void, any Error>] = [:]
        for subscription in subscriptionsToSave {
            saves[subscription.subscriptionID] = await Result { try await save(subscription) }
        }
        for id in subscriptionIDsToDelete {
            deletes[id] = await Result { _ = try await deleteSubscription(withID: id) }
        }
        return (saves, deletes)
    }

    // MARK: - Completion handlers

    public func save(_ subscription: CKSubscription, completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.save(subscription) }
    }

    public func fetch(withSubscriptionID subscriptionID: CKSubscription.ID, completionHandler: @escaping @Sendable (CKSubscription?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.subscription(for: subscriptionID) }
    }

    public func fetchAllSubscriptions(completionHandler: @escaping @Sendable ([CKSubscription]?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.allSubscriptions() }
    }

    public func delete(withSubscriptionID subscriptionID: CKSubscription.ID, completionHandler: @escaping @Sendable (CKSubscription.ID?, (any Error)?) -> Void) {
        complete(completionHandler) { try await self.deleteSubscription(withID: subscriptionID) }
    }
}

extension Result where Failure == any Error {
    /// The result of an async call, its error as CloudKit reports it.
    init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(CKError.from(error))
        }
    }
}
