import Foundation

/// Saves and deletes subscriptions; each one's result goes to its block, then `modifySubscriptionsResultBlock` (or
/// `modifySubscriptionsCompletionBlock`) ends the operation, with `partialFailure` when some failed.
open class CKModifySubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    open var subscriptionsToSave: [CKSubscription]?
    open var subscriptionIDsToDelete: [CKSubscription.ID]?

    open var perSubscriptionSaveBlock: ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    open var perSubscriptionDeleteBlock: ((CKSubscription.ID, Result<Void, any Error>) -> Void)?
    open var modifySubscriptionsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``modifySubscriptionsResultBlock``.
    open var modifySubscriptionsCompletionBlock: (([CKSubscription]?, [CKSubscription.ID]?, (any Error)?) -> Void)?

    public override init() {}

    public convenience init(subscriptionsToSave: [CKSubscription]?, subscriptionIDsToDelete: [CKSubscription.ID]?) {
        self.init()
        self.subscriptionsToSave = subscriptionsToSave
        self.subscriptionIDsToDelete = subscriptionIDsToDelete
    }

    override func execute() async {
        let saving = subscriptionsToSave ?? []
        let deleting = subscriptionIDsToDelete ?? []
        do {
            guard !isCancelled else { throw CancellationError() }
            let results = try await targetDatabase.modifySubscriptions(saving: saving, deleting: deleting)
            let saves = ItemResults(saving.map(\.subscriptionID), results.saveResults) { perSubscriptionSaveBlock?($0, $1) }
            let deletes = ItemResults(deleting, results.deleteResults) { perSubscriptionDeleteBlock?($0, $1) }
            let failure = CKError.partialFailure(
                saves.failures.merging(deletes.failures) { $1 }, of: saving.count + deleting.count, "subscription changes failed"
            )
            modifySubscriptionsResultBlock?(failure.operationResult)
            modifySubscriptionsCompletionBlock?(saves.succeeded.map(\.value), deletes.succeeded.map(\.id), failure)
        } catch {
            let error = reported(error)
            modifySubscriptionsResultBlock?(.failure(error))
            modifySubscriptionsCompletionBlock?(nil, nil, error)
        }
    }
}

/// Fetches subscriptions by ID, or every subscription of the database (``fetchAllSubscriptionsOperation()``).
open class CKFetchSubscriptionsOperation: CKDatabaseOperation, @unchecked Sendable {
    open var subscriptionIDs: [CKSubscription.ID]?

    open var perSubscriptionResultBlock: ((CKSubscription.ID, Result<CKSubscription, any Error>) -> Void)?
    open var fetchSubscriptionsResultBlock: ((Result<Void, any Error>) -> Void)?
    /// CloudKit's older form of ``fetchSubscriptionsResultBlock``: the subscriptions fetched, by ID.
    open var fetchSubscriptionCompletionBlock: (([CKSubscription.ID: CKSubscription]?, (any Error)?) -> Void)?

    public required override init() {}

    public convenience init(subscriptionIDs: [CKSubscription.ID]) {
        self.init()
        self.subscriptionIDs = subscriptionIDs
    }

    /// An operation that fetches every subscription of the database.
    open class func fetchAllSubscriptionsOperation() -> Self {
        self.init()
    }

    override func execute() async {
        do {
            guard !isCancelled else { throw CancellationError() }
            let database = targetDatabase
            let ids: [CKSubscription.ID]
            let results: [CKSubscription.ID: Result<CKSubscription, any Error>]
            if let subscriptionIDs {
                (ids, results) = (subscriptionIDs, try await database.subscriptions(for: subscriptionIDs))
            } else {
                let subscriptions = try await database.allSubscriptions()
                (ids, results) = (subscriptions.map(\.subscriptionID), Dictionary(subscriptions.map { ($0.subscriptionID, .success($0)) }, uniquingKeysWith: { $1 }))
            }
            let fetched = ItemResults(ids, results, missing: .unknownItem) { perSubscriptionResultBlock?($0, $1) }
            let failure = CKError.partialFailure(fetched.failures, "subscriptions could not be fetched")
            fetchSubscriptionsResultBlock?(failure.operationResult)
            fetchSubscriptionCompletionBlock?(Dictionary(fetched.succeeded, uniquingKeysWith: { $1 }), failure)
        } catch {
            let error = reported(error)
            fetchSubscriptionsResultBlock?(.failure(error))
            fetchSubscriptionCompletionBlock?(nil, error)
        }
    }
}
